// ttgen check's balance across kernels (docs/check.md, "What it proves"): every CB's pushes,
// summed over its producers and times the trip counts around them, against its pops; a CB no
// kernel pushes while one waits for it; pages left over; consumers that pile pages up.
#include "check/balance.hpp"

#include <algorithm>

namespace tk::check {

std::string cb_name(std::int64_t cb) {
  return "c_" + std::to_string(cb);
}

std::string pages(std::int64_t n) {
  return std::to_string(n) + (n == 1 ? " page" : " pages");
}

std::string pages(const Poly& p) {
  return p.is_constant() ? pages(p.constant_value()) : p.str() + " pages";
}

Diagnostic& cannot_prove(Diagnostics& diags, SourceRange where, std::string message) {
  Diagnostic& d = diags.warning(where, "", std::move(message));
  d.option.clear();
  return d;
}

std::string file_name(const Kernel& k) {
  return k.file->name();
}

/// Adds the CBs `b` pushes or reserves to `produced`, those it pops or waits for to `consumed`.
void streamed(const Body& b, std::set<std::int64_t>& produced, std::set<std::int64_t>& consumed) {
  for (const Node& n : b)
    if (const Event* e = std::get_if<Event>(&n.v)) {
      if (e->cb && (e->kind == EventKind::push || e->kind == EventKind::reserve))
        produced.insert(*e->cb);
      if (e->cb && (e->kind == EventKind::pop || e->kind == EventKind::wait))
        consumed.insert(*e->cb);
    } else if (const Loop* l = std::get_if<Loop>(&n.v)) {
      streamed(l->body, produced, consumed);
    } else if (const Branch* br = std::get_if<Branch>(&n.v)) {
      streamed(br->then_body, produced, consumed);
      streamed(br->else_body, produced, consumed);
    }
}

/// Whether `b` has a push of `cb`, or a call it does not model that may push it, on a path the
/// defines and compile-time args leave in (a branch of known value is taken one way).
bool may_push(const Body& b, std::int64_t cb) {
  for (const Node& n : b)
    if (const Event* e = std::get_if<Event>(&n.v)) {
      if (e->kind == EventKind::push && (!e->cb || *e->cb == cb))
        return true;
      if (e->kind == EventKind::opaque && e->opaque_cbs && (!e->cb || *e->cb == cb))
        return true;
    } else if (const Loop* l = std::get_if<Loop>(&n.v)) {
      if (may_push(l->body, cb))
        return true;
    } else if (const Branch* br = std::get_if<Branch>(&n.v)) {
      if ((br->known != false && may_push(br->then_body, cb)) ||
          (br->known != true && may_push(br->else_body, cb)))
        return true;
    }
  return false;
}

namespace {

std::string kernel_list(const std::vector<Side>& sides) {
  std::string out;
  for (const Side& s : sides)
    out += (out.empty() ? "" : " and ") + file_name(*s.kernel);
  return out;
}

} // namespace

void balance(const std::vector<Kernel>& kernels,
             std::map<std::int64_t, std::vector<Side>>& producers,
             std::map<std::int64_t, std::vector<Side>>& consumers, const CheckOptions& options,
             Diagnostics& diags, std::vector<std::string>& proved) {
  // A program whose three roles are all given: a CB nobody pushes is a bug, not a missing file.
  std::set<Role> roles;
  for (const Kernel& k : kernels)
    roles.insert(k.role);
  const bool complete = roles.size() == 3;
  std::set<std::int64_t> cbs;
  for (const auto& [cb, s] : producers)
    cbs.insert(cb);
  for (const auto& [cb, s] : consumers)
    cbs.insert(cb);
  for (std::int64_t cb : cbs) {
    const std::vector<Side>& prod = producers[cb];
    const std::vector<Side>& cons = consumers[cb];
    std::optional<Poly> pushed = Poly(), popped = Poly();
    std::int64_t max_reserve = 0;
    for (const Side& s : prod) {
      pushed = pushed && s.totals.pushed ? std::optional<Poly>(*pushed + *s.totals.pushed)
                                         : std::nullopt;
      max_reserve = std::max(max_reserve, s.totals.max_reserve);
    }
    for (const Side& s : cons)
      popped = popped && s.totals.popped ? std::optional<Poly>(*popped + *s.totals.popped)
                                         : std::nullopt;
    const std::string name = cb_name(cb);
    const std::string who_pushes = kernel_list(prod);
    const std::string who_pops = kernel_list(cons);
    // A CB that a kernel reserves and no kernel ever pushes (no push call, nor a call it does not
    // model, anywhere), while another waits for it: whatever the loops' counts, every page the
    // consumer waits for is never pushed (its push dropped). So is one that no kernel reserves
    // nor pushes while one waits for it, when reader, compute and writer are all given (a push
    // without a reserve, on a path a flag selects, dropped). Where the counts are known, the
    // balance below says so with them.
    if (!pushed || !popped) {
      const Side* reserver = nullptr;
      const Side* waiter = nullptr;
      bool pushes = false;
      for (const Kernel& k : kernels)
        pushes |= may_push(k.body, cb);
      for (const Side& s : prod)
        if (!reserver && s.totals.first_reserve)
          reserver = &s;
      for (const Side& s : cons)
        if (!waiter && s.totals.first_wait && s.kernel != (reserver ? reserver->kernel : nullptr))
          waiter = &s;
      if (!pushes && waiter && (reserver || complete)) {
        const Event* at = waiter->totals.first_wait;
        Diagnostic& d =
            diags.error(at->range, "deadlock: no kernel pushes " + name +
                                       (reserver ? " (" + file_name(*reserver->kernel) +
                                                       " reserves it but never pushes it)"
                                                 : std::string()) +
                                       "; " + at->call + " waits for pages that are never pushed");
        d.file = waiter->kernel->file.get();
        if (reserver)
          d.notes.push_back(Diagnostic{Severity::note,
                                       reserver->kernel->file.get(),
                                       reserver->totals.first_reserve->range,
                                       name + " is reserved here",
                                       {}});
        continue;
      }
    }
    if (!pushed || !popped) {
      const Side& any = prod.empty() ? cons[0] : prod[0];
      const Event* at = any.totals.first_push      ? any.totals.first_push
                        : any.totals.first_reserve ? any.totals.first_reserve
                        : any.totals.first_wait    ? any.totals.first_wait
                        : any.totals.first_pop     ? any.totals.first_pop
                                                   : any.totals.first_opaque;
      const Side* opaque = nullptr;
      for (const std::vector<Side>* sides : {&prod, &cons})
        for (const Side& side : *sides)
          if (!opaque && side.totals.first_opaque)
            opaque = &side;
      Diagnostic& d =
          opaque ? cannot_prove(diags, opaque->totals.first_opaque->range,
                                "cannot prove that " + name +
                                    " is balanced: " + opaque->totals.first_opaque->name +
                                    ", a call ttgen check does not model, may push or pop it")
                 : cannot_prove(diags, at->range,
                                "cannot prove that " + name +
                                    " is balanced: a count of its pushes or pops "
                                    "depends on a branch or an uncounted loop");
      d.file = (opaque ? opaque : &any)->kernel->file.get();
      continue;
    }
    const Poly left = *pushed - *popped;
    const std::string counts =
        (prod.empty() ? "no kernel pushes " + name
                      : who_pushes + (prod.size() == 1 ? " pushes " : " push ") + pages(*pushed) +
                            " to " + name + " in all") +
        (cons.empty() ? ", no kernel pops it"
                      : ", " + who_pops + (cons.size() == 1 ? " pops " : " pop ") + pages(*popped));
    // A consumer that waits for more pages than are ever pushed (a constant count) waits forever,
    // even when it pops none (a scaler tile waited for and kept).
    if (pushed->is_constant() && popped->is_constant() && (!prod.empty() || complete)) {
      const Side* starved = nullptr;
      for (const Side& c : cons)
        if (c.totals.max_wait > pushed->constant_value() && c.totals.first_wait)
          starved = &c;
      if (starved) {
        Diagnostic& d = diags.error(starved->totals.first_wait->range,
                                    "deadlock: " + counts + "; " + starved->kernel->file->name() +
                                        " waits for " + pages(starved->totals.max_wait) +
                                        " at once, more than are "
                                        "ever pushed");
        d.file = starved->kernel->file.get();
        continue;
      }
    }
    if (left.is_zero()) {
      proved.push_back(name + ": " + counts + ": balanced");
      continue;
    }
    const std::optional<bool> sign = left.positive();
    if (sign == false && prod.empty() && !complete) {
      // Nothing given pushes it: the producer may be a kernel that was not given.
      const Side& c = cons[0];
      const Event* at = c.totals.first_wait ? c.totals.first_wait : c.totals.first_pop;
      Diagnostic& d = cannot_prove(diags, at->range,
                                   "cannot prove that " + name + " is balanced: " + counts +
                                       "; check the program's reader, compute and "
                                       "writer together");
      d.file = c.kernel->file.get();
      continue;
    }
    if (sign == false) {
      // More pops than pushes for every value of the counts: a consumer waits forever.
      const Side& c = cons[0];
      const Event* at = c.totals.first_wait ? c.totals.first_wait : c.totals.first_pop;
      Diagnostic& d = diags.error(
          at->range, "deadlock: " + counts +
                         (left.is_constant() ? "" : " (for every " + left.symbols()[0] + " > 0)") +
                         "; " + at->call + " waits for pages that are never pushed");
      d.file = c.kernel->file.get();
      for (const Side& p : prod)
        if (p.totals.first_push) {
          Diagnostic n{Severity::note,
                       p.kernel->file.get(),
                       p.totals.first_push->range,
                       name + " is pushed here",
                       {}};
          d.notes.push_back(n);
        }
      continue;
    }
    if (sign == true && left.is_constant()) {
      const std::int64_t extra = left.constant_value();
      auto cap = options.cb_pages.find(cb);
      const std::int64_t holds = cap != options.cb_pages.end() ? cap->second : max_reserve;
      if (extra <= holds) {
        proved.push_back(name + ": " + counts + ": " + pages(extra) +
                         " left in the CB at the end, which it holds");
        continue;
      }
      if (cap != options.cb_pages.end()) {
        const Side& p = prod[0];
        Diagnostic& d =
            diags.error(p.totals.first_reserve->range,
                        "deadlock: " + counts + "; the " + pages(extra) +
                            " never popped do not fit in " + name + " (" + pages(cap->second) +
                            "), so " + p.totals.first_reserve->call + " blocks");
        d.file = p.kernel->file.get();
        continue;
      }
    }
    // Consumers that wait for a few pages at a time and pop none, while the producers push a
    // count that grows with the symbols: the pages pile up, and once the CB holds all it can the
    // producer's reserve blocks for good (for every value of the count beyond the CB's pages).
    // A consumer that waits for a count of pages that is not a constant may be reading a CB the
    // host sized to hold them all (a sharded output), so it is left to the warning below.
    bool blockwise = !cons.empty();
    std::int64_t max_wait = 0;
    std::optional<Poly> block;
    for (const Side& c : cons) {
      blockwise = blockwise && c.totals.waits_blockwise && c.totals.first_wait;
      max_wait = std::max(max_wait, c.totals.max_wait);
      if (!block)
        block = c.totals.block;
    }
    if (sign == true && !left.is_constant() && popped->is_zero() && blockwise && !prod.empty()) {
      auto cap = options.cb_pages.find(cb);
      const std::int64_t holds = cap != options.cb_pages.end()
                                     ? cap->second
                                     : std::max<std::int64_t>({max_reserve, max_wait, 1});
      const Side& p = prod[0];
      const Event* at = p.totals.first_reserve ? p.totals.first_reserve : p.totals.first_push;
      const bool known = cap != options.cb_pages.end();
      Diagnostic& d =
          diags.error(at->range, "deadlock: " + counts + "; its consumers wait for " +
                                     (block ? pages(*block) : "at most " + pages(max_wait)) +
                                     " at a time and pop none, so the pages pile up in " + name +
                                     " and once they fill it " + at->call +
                                     " blocks for good (for every " + left.str() +
                                     (known ? " > " + std::to_string(holds)
                                            : " beyond its size, at least " + pages(holds)) +
                                     ")");
      d.file = p.kernel->file.get();
      continue;
    }
    // (A producer that only reserves, its push dropped, is reported at its reserve.)
    const Side& any = prod.empty() ? cons[0] : prod[0];
    const Event* at = any.totals.first_push      ? any.totals.first_push
                      : any.totals.first_reserve ? any.totals.first_reserve
                      : any.totals.first_wait    ? any.totals.first_wait
                                                 : any.totals.first_pop;
    Diagnostic& d =
        cannot_prove(diags, at->range,
                     "cannot prove that " + name + " is balanced: " + counts +
                         (cons.empty() || prod.empty()
                              ? std::string()
                              : "; they agree only if " + pushed->str() + " = " + popped->str()));
    d.file = any.kernel->file.get();
  }
}

} // namespace tk::check
