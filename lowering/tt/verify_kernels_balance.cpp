#include "lowering/tt/verify_kernels_balance.hpp"

#include "lowering/ir/fold.hpp"
#include "lowering/ir/printer.hpp"
#include "support/diagnostics.hpp"

#include <algorithm>
#include <map>

namespace tk::lower::tt {

using namespace tk::ir;

namespace {

const Call* call_of(const Stmt& s) {
  const Evaluate* e = as<Evaluate>(s);
  return e ? as<Call>(e->call) : nullptr;
}

std::int64_t pages(const Call& c) {
  const IntImm* n = as<IntImm>(c.args[1]);
  if (!n)
    throw InternalError("internal error: verify: " + std::string(to_string(c.fn)) +
                        " with a non-literal page count");
  return n->value;
}

// An event of n pages on `cb` after the tree's items: merged into the last one when it is on the
// same CB.
void add(EventTree& t, const std::string& cb, std::int64_t n) {
  if (!t.items.empty())
    if (auto* last = std::get_if<EventTree::Event>(&t.items.back()); last && last->cb == cb) {
      last->n += n;
      return;
    }
  t.items.push_back(EventTree::Event{cb, n});
}

void build(const Stmt& s, Intrinsic fn, const std::set<std::string>& cbs, EventTree& t) {
  if (const Block* b = as<Block>(s)) {
    for (const Stmt& x : b->stmts)
      build(x, fn, cbs, t);
  } else if (const For* f = as<For>(s)) {
    auto loop = std::make_shared<EventTree::Loop>();
    loop->extent = print(f->extent);
    build(f->body, fn, cbs, loop->body);
    // n literal iterations of one event are that event n times (a row a reader pushes in chunks,
    // keep-rows, against the one wait for it): merged like consecutive events.
    const IntImm* n = as<IntImm>(f->extent);
    const auto* one = loop->body.items.size() == 1
                          ? std::get_if<EventTree::Event>(&loop->body.items.front())
                          : nullptr;
    if (n && n->value > 0 && one) {
      add(t, one->cb, n->value * one->n);
    } else if (!loop->body.items.empty()) {
      t.items.push_back(loop);
    }
  } else if (const IfThenElse* i = as<IfThenElse>(s)) {
    build(i->then_case, fn, cbs, t); // not produced by the TT chain; counted as taken
  } else if (const Call* c = call_of(s); c && c->fn == fn) {
    const std::string& cb = as<Ref>(c->args[0])->name;
    if (cbs.count(cb))
      add(t, cb, pages(*c));
  }
}

} // namespace

bool EventTree::operator==(const EventTree& o) const {
  if (items.size() != o.items.size())
    return false;
  for (std::size_t k = 0; k < items.size(); ++k) {
    const auto* ea = std::get_if<Event>(&items[k]);
    const auto* eb = std::get_if<Event>(&o.items[k]);
    if (ea || eb) {
      if (!ea || !eb || !(*ea == *eb))
        return false;
      continue;
    }
    const auto& la = std::get<std::shared_ptr<Loop>>(items[k]);
    const auto& lb = std::get<std::shared_ptr<Loop>>(o.items[k]);
    if (la->extent != lb->extent || !(la->body == lb->body))
      return false;
  }
  return true;
}

EventTree one_ahead(const EventTree& t) {
  for (std::size_t k = 1; k < t.items.size(); ++k) {
    const auto* l = std::get_if<std::shared_ptr<EventTree::Loop>>(&t.items[k]);
    if (!l)
      continue;
    // The longest P: the m items before the loop that its body begins with (one per row read
    // ahead).
    const auto& body = (*l)->body.items;
    for (std::size_t m = std::min(k, body.size()); m > 0; --m) {
      EventTree before, first;
      before.items.assign(t.items.begin() + static_cast<std::ptrdiff_t>(k - m),
                          t.items.begin() + static_cast<std::ptrdiff_t>(k));
      // The body's first items, without the ones P does not have (the one-window form that
      // follows each window read ahead, keep-rows' row_single): P's items in order.
      std::size_t b = 0;
      for (const auto& item : before.items) {
        while (b < body.size()) {
          EventTree one, mine;
          one.items = {body[b++]};
          mine.items = {item};
          if (one == mine) {
            first.items.push_back(item);
            break;
          }
        }
      }
      if (!(before == first))
        continue;
      EventTree out = t;
      std::rotate(out.items.begin() + static_cast<std::ptrdiff_t>(k - m),
                  out.items.begin() + static_cast<std::ptrdiff_t>(k),
                  out.items.begin() + static_cast<std::ptrdiff_t>(k + 1));
      return out;
    }
  }
  return t;
}

EventTree event_tree(const Function& f, Intrinsic fn, const std::set<std::string>& cbs) {
  EventTree t;
  build(f.body, fn, cbs, t);
  return t;
}

namespace {
void terms(const EventTree& t, const std::string& prefix, std::vector<std::string>& out) {
  for (const auto& item : t.items) {
    if (const auto* e = std::get_if<EventTree::Event>(&item)) {
      out.push_back(prefix + std::to_string(e->n));
    } else {
      const auto& l = std::get<std::shared_ptr<EventTree::Loop>>(item);
      terms(l->body, prefix + "(" + l->extent + ") * ", out);
    }
  }
}
} // namespace

std::vector<std::string> total(const EventTree& t) {
  std::vector<std::string> out;
  terms(t, "", out);
  std::sort(out.begin(), out.end());
  return out;
}

std::string print(const EventTree& t) {
  std::string out;
  for (const auto& item : t.items) {
    if (!out.empty())
      out += " ";
    if (const auto* e = std::get_if<EventTree::Event>(&item)) {
      out += e->cb + (e->n == 1 ? "" : " x" + std::to_string(e->n));
    } else {
      const auto& l = std::get<std::shared_ptr<EventTree::Loop>>(item);
      out += l->extent + " { " + print(l->body) + " }";
    }
  }
  return out.empty() ? "nothing" : out;
}

namespace {

class Occupancy {
public:
  explicit Occupancy(const Program& p) {
    for (const CircularBuffer& c : p.cbs)
      if (c.role == CBRole::intermediate)
        depth_[c.name] = c.depth;
    // A count the host's rule chooses, passed to the kernels as the runtime arg of its name:
    // q = tt.q_chunk(H, St, Dt, cores, window, largest chunk, ...) is at most its largest chunk.
    for (const Function& f : p.functions)
      if (f.kind == FuncKind::host)
        for (const Stmt& s : as<Block>(f.body)->stmts)
          if (const Decl* d = as<Decl>(s))
            if (const Call* c = as<Call>(d->value); c && c->fn == Intrinsic::tt_q_chunk)
              if (const IntImm* n = as<IntImm>(c->args[5]))
                bound_[d->name] = n->value;
  }
  std::optional<std::string> error;

  void walk(const Stmt& s) {
    if (error)
      return;
    if (const Block* b = as<Block>(s)) {
      for (const Stmt& x : b->stmts)
        walk(x);
    } else if (const For* f = as<For>(s)) {
      // A literal count of iterations that fill or drain a CB (chunk-rows' loops over a chunk's
      // rows), or the bound of a count the host's rule chooses: each one in turn; a count made
      // of the rule's (batch-rows' `for qrb in 0 .. q / 4`), folded at the bound.
      const std::int64_t count = ir::fold_int(f->extent, bound_).value_or(-1);
      if (count == 0)
        return;
      std::map<std::string, std::int64_t> before = held_;
      walk(f->body);
      if (count >= 0 && !error && held_ != before)
        for (std::int64_t k = 1; k < count && !error; ++k)
          walk(f->body);
      else if (!error && held_ != before)
        for (const auto& [cb, n] : held_)
          if (before[cb] != n) {
            error = "loop '" + f->var + "' changes the tiles held in '" + cb + "' from " +
                    std::to_string(before[cb]) + " to " + std::to_string(n) + " per iteration";
            return;
          }
    } else if (const Call* c = call_of(s)) {
      if (c->args.empty() || c->args[0]->type.kind != Type::Kind::cb)
        return;
      const std::string& cb = as<Ref>(c->args[0])->name;
      auto d = depth_.find(cb);
      if (d == depth_.end())
        return;
      std::int64_t& held = held_[cb];
      std::string what = ir::print(s);
      while (!what.empty() && what.back() == '\n')
        what.pop_back();
      switch (c->fn) {
      case Intrinsic::cb_push_back:
        if ((held += count(*c)) > d->second)
          error = what + " holds " + std::to_string(held) + " tiles in '" + cb + "' of depth " +
                  std::to_string(d->second);
        break;
      case Intrinsic::cb_reserve_back:
        if (held + count(*c) > d->second)
          error = what + " waits forever: '" + cb + "' holds " + std::to_string(held) + " of its " +
                  std::to_string(d->second) + " pages and only compute pops it";
        break;
      case Intrinsic::cb_wait_front:
        // fission-rows waits for all the chunk's rows' tiles at once: `cb_wait_front(cb, q)`,
        // q at most the rule's largest chunk, as many as the rows' loops before it pushed;
        // chunk-keys' l for all k key tiles' rows, `cb_wait_front(cb, q * k)`: at the bound.
        if (held < count(*c))
          error = what + " waits forever: '" + cb + "' holds " + std::to_string(held) +
                  " tiles and only compute pushes it";
        break;
      case Intrinsic::cb_pop_front:
        if ((held -= count(*c)) < 0)
          error = what + " pops a tile '" + cb + "' does not hold";
        break;
      default:
        break;
      }
    }
  }
  void finish() {
    for (const auto& [cb, n] : held_)
      if (!error && n != 0)
        error = "'" + cb + "' still holds " + std::to_string(n) + " tiles at the end";
  }

private:
  std::map<std::string, std::int64_t> depth_, held_, bound_;
  // A literal count, or one made of the rule's counts (chunk-keys' pad, q * 7) at their bound.
  std::int64_t count(const Call& c) const {
    if (std::optional<std::int64_t> n = ir::fold_int(c.args[1], bound_))
      return *n;
    return pages(c);
  }
};

} // namespace

std::optional<std::string> check_occupancy(const Program& p, const Function& compute) {
  Occupancy o(p);
  o.walk(compute.body);
  o.finish();
  return o.error;
}

} // namespace tk::lower::tt
