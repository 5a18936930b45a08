#include "check/analyze.hpp"

#include <algorithm>
#include <set>

namespace tk::check {

namespace {

std::string cb_name(std::int64_t cb) {
  return "c_" + std::to_string(cb);
}

std::string pages(std::int64_t n) {
  return std::to_string(n) + (n == 1 ? " page" : " pages");
}

std::string pages(const Poly& p) {
  return p.is_constant() ? pages(p.constant_value()) : p.str() + " pages";
}

/// A warning of ttgen check: what it cannot prove. Not one of ttgen's switchable .tk warnings, so
/// it names no -W flag.
Diagnostic& cannot_prove(Diagnostics& diags, SourceRange where, std::string message) {
  Diagnostic& d = diags.warning(where, "", std::move(message));
  d.option.clear();
  return d;
}

std::string file_name(const Kernel& k) {
  return k.file->name();
}

/// DST's hand-over between MATH and PACK; `held` after acquire_dst (both may touch it), `unknown`
/// after a call ttgen check does not model.
enum class Dst { released, acquired, committed, waited, held, unknown };

/// One CB's window on one kernel: what is reserved at the back, waited for at the front, and
/// where the ring's write and read pages are (nullopt: not a constant here).
struct Window {
  std::optional<std::int64_t> reserved = 0, packed = 0, front = 0, wr = 0, rd = 0;
  friend bool operator==(const Window&, const Window&) = default;
};

struct State {
  Dst dst = Dst::released;
  std::map<std::int64_t, Window> cbs;
  const Event* unwaited_read = nullptr; // a NoC read issued since the last read barrier
  std::set<std::int64_t> unflushed;     // CBs that writes issued since the last flush send from
  /// Variables holding get_read_ptr(cb) [+ offset]: var -> (cb, the pop that freed the pages it
  /// points to, or nullptr while they are held). A variable whose state differs between two paths
  /// is dropped (unknown).
  std::map<std::string, std::pair<std::int64_t, const Event*>> ptrs;
  friend bool operator==(const State&, const State&) = default;

  /// What may be pending after either of two paths.
  void merge_noc(const State& other) {
    if (!unwaited_read)
      unwaited_read = other.unwaited_read;
    unflushed.insert(other.unflushed.begin(), other.unflushed.end());
    for (auto it = ptrs.begin(); it != ptrs.end();) {
      auto o = other.ptrs.find(it->first);
      it = o == other.ptrs.end() || o->second != it->second ? ptrs.erase(it) : std::next(it);
    }
  }
};

/// What a kernel does to one CB over its whole run.
struct Totals {
  std::optional<Poly> pushed = Poly(), popped = Poly(); // nullopt: not countable
  const Event* first_push = nullptr;
  const Event* first_pop = nullptr;
  const Event* first_wait = nullptr;
  const Event* first_reserve = nullptr;
  const Event* first_opaque = nullptr; // a call it does not model that may push or pop it
  std::int64_t max_reserve = 0;
  std::int64_t max_wait = 0; // the most pages a constant cb_wait_front asks for
  // Every cb_wait_front asks for a constant number of pages, or for a block repeated by a loop
  // (not for a count it waits for once, as a reader of a CB holding all its pages does).
  bool waits_blockwise = true;
  std::optional<Poly> block; // the pages of a repeated wait whose count is not a constant
};

/// A small loop of known trips is walked iteration by iteration (exact); beyond this, or with a
/// symbolic trip count, the body is walked twice and must then be steady.
constexpr std::int64_t kUnrollLimit = 64;

class KernelCheck {
public:
  /// `produced` and `consumed`: the CBs some kernel of the program pushes (reserves) or pops
  /// (waits for). A get_write_ptr of a CB that another kernel reads outside its reserved window is
  /// a bug; of any other CB (an L1 scratch buffer) it is not. Likewise get_read_ptr.
  KernelCheck(const Kernel& k, const CheckOptions& o, Diagnostics& d,
              const std::set<std::int64_t>& produced, const std::set<std::int64_t>& consumed)
      : k_(k), opts_(o), diags_(d), dst_tiles_(o.arch->dst_tiles(o.fp32_dest)), produced_(produced),
        consumed_(consumed) {}

  /// Adds the CBs `b` pushes or reserves to `produced`, those it pops or waits for to `consumed`.
  static void streamed(const Body& b, std::set<std::int64_t>& produced,
                       std::set<std::int64_t>& consumed) {
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
  static bool may_push(const Body& b, std::int64_t cb) {
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

  std::map<std::int64_t, Totals> run() {
    State s;
    walk(k_.body, s, Poly::constant(1), true);
    // tt-metal's firmware asserts after kernel_main that the RISC's reads have landed.
    if (s.unwaited_read)
      error(*s.unwaited_read, s.unwaited_read->call +
                                  ": the kernel can return with this read not waited for "
                                  "(noc_async_read_barrier)");
    return totals_;
  }

private:
  // ---- diagnostics -----------------------------------------------------------------------------
  void error(const Event& e, const std::string& message) {
    if (!reported_.insert({e.range.begin, message}).second)
      return;
    Diagnostic& d = diags_.error(e.range, message);
    d.file = k_.file.get();
  }
  void warning(SourceRange r, const std::string& message) {
    if (!reported_.insert({r.begin, message}).second)
      return;
    Diagnostic& d = cannot_prove(diags_, r, message);
    d.file = k_.file.get();
  }

  std::optional<std::int64_t> capacity(std::int64_t cb) const {
    auto it = opts_.cb_pages.find(cb);
    return it == opts_.cb_pages.end() ? std::nullopt : std::optional<std::int64_t>(it->second);
  }

  // ---- the walk --------------------------------------------------------------------------------
  /// `count`: how many times this code runs in the whole kernel; `tally`: add to the totals
  /// (false on the extra passes over a loop body).
  void walk(const Body& body, State& s, const Poly& count, bool tally) {
    for (const Node& n : body) {
      if (const Event* e = std::get_if<Event>(&n.v))
        event(*e, s, count, tally);
      else if (const Loop* l = std::get_if<Loop>(&n.v))
        loop(*l, s, count, tally);
      else
        branch(std::get<Branch>(n.v), s, count, tally);
    }
  }

  void loop(const Loop& l, State& s, const Poly& count, bool tally) {
    if (l.trips && l.trips->is_constant() && l.trips->constant_value() <= kUnrollLimit) {
      for (std::int64_t i = 0; i < l.trips->constant_value(); ++i)
        walk(l.body, s, count, tally);
      return;
    }
    if (!l.trips) {
      warning(l.range, "cannot prove: the trip count of this loop is not a counted 'for'; its CB "
                       "pushes and pops are not balanced against the other kernels");
    }
    const Poly trips = l.trips.value_or(Poly());
    const State entry = s;
    uncounted_ += l.trips ? 0 : 1;
    walk(l.body, s, count * trips, tally);
    if (s == entry) {
      uncounted_ -= l.trips ? 0 : 1;
      return;
    }
    // A second iteration from where the first left off: a protocol bug there is one.
    State second = s;
    walk(l.body, second, count * trips, false);
    uncounted_ -= l.trips ? 0 : 1;
    if (second == s)
      return;
    // Not steady: what differs is no longer known.
    if (second.dst != s.dst) {
      warning(l.range, "cannot prove: an iteration of this loop does not return DST to the state "
                       "it started in");
      s.dst = second.dst;
    }
    for (auto& [cb, w] : s.cbs)
      if (!(second.cbs[cb] == w))
        w = Window{std::nullopt, std::nullopt, std::nullopt, std::nullopt, std::nullopt};
    s.merge_noc(second);
  }

  void branch(const Branch& b, State& s, const Poly& count, bool tally) {
    if (b.known) {
      walk(*b.known ? b.then_body : b.else_body, s, count, tally);
      return;
    }
    State other = s;
    auto before = totals_;
    walk(b.then_body, s, count, tally);
    auto after_then = totals_;
    totals_ = before;
    walk(b.else_body, other, count, tally);
    // The totals of a CB the two sides treat differently are not countable.
    for (auto& [cb, t] : totals_) {
      const Totals& th = after_then[cb];
      if (t.pushed != th.pushed)
        t.pushed.reset();
      if (t.popped != th.popped)
        t.popped.reset();
    }
    for (auto& [cb, th] : after_then) {
      auto [it, added] = totals_.try_emplace(cb, th);
      if (added)
        it->second.pushed = it->second.popped = std::nullopt;
    }
    if (other.dst != s.dst)
      warning(b.range, "cannot prove: the two sides of this branch leave DST in different states");
    for (auto& [cb, w] : s.cbs)
      if (!(other.cbs[cb] == w))
        w = Window{std::nullopt, std::nullopt, std::nullopt, std::nullopt, std::nullopt};
    s.merge_noc(other);
  }

  // ---- one event -------------------------------------------------------------------------------
  static std::optional<std::int64_t> sub(std::optional<std::int64_t> a, std::int64_t b) {
    return a ? std::optional<std::int64_t>(*a - b) : std::nullopt;
  }

  void event(const Event& e, State& s, const Poly& count, bool tally) {
    switch (e.kind) {
    case EventKind::reserve:
    case EventKind::push:
    case EventKind::wait:
    case EventKind::pop:
      cb_event(e, s, count, tally);
      return;
    case EventKind::write_ptr:
      if (e.cb && consumed_.count(*e.cb) && s.cbs[*e.cb].reserved == 0) {
        // With pages of the CB waited for and none reserved, the write pointer is the front page
        // when the CB is full: then the ring's write page has wrapped onto its read page
        // (tt-metal's NoC_tile_transfer sends a page from get_write_ptr after cb_wait_front of a
        // 1-page CB). Proved when --cb says the CB holds exactly the pages waited for; else not
        // known.
        const std::optional<std::int64_t> front = s.cbs[*e.cb].front;
        if (!front || *front > 0) {
          if (!front || capacity(*e.cb) != *front) {
            const std::string n = front ? std::to_string(*front) : std::string("the");
            warning(e.range, "cannot prove: get_write_ptr(" + cb_name(*e.cb) +
                                 ") with no page reserved points at the " + n +
                                 " page(s) waited for only if " + cb_name(*e.cb) +
                                 " holds exactly those (--cb " + cb_name(*e.cb) + "=" +
                                 (front ? std::to_string(*front) : std::string("N")) +
                                 " proves it)");
          }
          return;
        }
        error(e,
              "get_write_ptr(" + cb_name(*e.cb) + "): no page of " + cb_name(*e.cb) +
                  " is reserved with cb_reserve_back here, so what is written there lies outside "
                  "the window the consumer reads");
      }
      return;
    case EventKind::read_ptr:
      if (e.cb && produced_.count(*e.cb) && s.cbs[*e.cb].front == 0)
        error(e, "get_read_ptr(" + cb_name(*e.cb) + "): no page of " + cb_name(*e.cb) +
                     " was waited for with cb_wait_front here, so what is read there may not have "
                     "arrived");
      return;
    case EventKind::acquire:
      if (s.dst != Dst::released && s.dst != Dst::unknown)
        error(e, "tile_regs_acquire: DST is already acquired (missing tile_regs_release?)");
      s.dst = Dst::acquired;
      return;
    // tile_regs_commit, _wait and _release after acquire_dst (mixing the two APIs): what the
    // hand-over is then is not modelled, so DST is unknown, never an error.
    case EventKind::commit:
      if (s.dst != Dst::acquired && s.dst != Dst::unknown && s.dst != Dst::held)
        error(e, "tile_regs_commit: DST was not acquired with tile_regs_acquire");
      s.dst = s.dst == Dst::acquired ? Dst::committed : Dst::unknown;
      return;
    case EventKind::dst_wait:
      if (s.dst != Dst::committed && s.dst != Dst::unknown && s.dst != Dst::held)
        error(e, "tile_regs_wait: DST was not committed with tile_regs_commit");
      s.dst = s.dst == Dst::committed ? Dst::waited : Dst::unknown;
      return;
    case EventKind::release:
      if (s.dst != Dst::waited && s.dst != Dst::unknown && s.dst != Dst::held)
        error(e, "tile_regs_release: DST was not waited for with tile_regs_wait");
      s.dst = s.dst == Dst::held ? Dst::unknown : Dst::released;
      return;
    // acquire_dst = tile_regs_acquire + tile_regs_wait, release_dst = tile_regs_commit +
    // tile_regs_release (tt_metal/hw/inc/api/compute/reg_api.h): between them MATH and PACK
    // both use DST.
    case EventKind::acquire_dst:
      if (s.dst != Dst::released && s.dst != Dst::unknown)
        error(e, "acquire_dst: DST is already acquired (missing release_dst?)");
      s.dst = Dst::held;
      return;
    case EventKind::release_dst:
      if (s.dst == Dst::released || s.dst == Dst::committed || s.dst == Dst::waited)
        error(e, "release_dst: DST was not acquired with acquire_dst");
      s.dst = Dst::released;
      return;
    case EventKind::opaque:
      opaque(e, s);
      return;
    case EventKind::ptr_take:
      if (e.cb)
        s.ptrs[e.var] = {*e.cb, nullptr};
      return;
    case EventKind::ptr_use:
      if (auto it = s.ptrs.find(e.var); it != s.ptrs.end() && it->second.second) {
        const Event& pop = *it->second.second;
        error(e, "'" + e.var + "' points into " + cb_name(it->second.first) +
                     " (get_read_ptr) but " + pop.name + "(" + cb_name(it->second.first) + ", " +
                     pop.pages.str() +
                     ") freed those pages before this read: the producer may "
                     "already be overwriting them");
      }
      return;
    case EventKind::math:
      math(e, s);
      return;
    case EventKind::pack:
      pack(e, s);
      return;
    case EventKind::noc_read:
      if (!s.unwaited_read)
        s.unwaited_read = &e;
      return;
    case EventKind::noc_write:
      if (e.cb)
        s.unflushed.insert(*e.cb);
      return;
    case EventKind::read_barrier:
      s.unwaited_read = nullptr;
      return;
    case EventKind::write_flush:
      s.unflushed.clear();
      return;
    case EventKind::full_barrier:
      s.unwaited_read = nullptr;
      s.unflushed.clear();
      return;
    case EventKind::arg:
      if (e.arg_index)
        if (auto it = opts_.runtime_args.find(k_.role);
            it != opts_.runtime_args.end() && *e.arg_index >= it->second)
          error(e, "get_arg_val(" + std::to_string(*e.arg_index) + "): runtime arg " +
                       std::to_string(*e.arg_index) + " is never set (the host sets " +
                       std::to_string(it->second) + " for the " + to_string(k_.role) + ")");
      return;
    }
  }

  bool dst_in_range(const Event& e, const std::string& what) {
    for (std::int64_t i : e.dst)
      if (i < 0 || i >= dst_tiles_) {
        error(e, what + ": DST index " + std::to_string(i) +
                     " is out of range: " + std::to_string(dst_tiles_) + " tiles fit in DST (" +
                     (opts_.fp32_dest ? "fp32" : "bf16") + ", half-sync)");
        return false;
      }
    return true;
  }

  /// A call ttgen check does not model that reaches CB or DST calls: what it does to them is
  /// unknown, so nothing about them is proved past it.
  void opaque(const Event& e, State& s) {
    std::string what;
    if (e.opaque_cbs)
      what = e.cb ? cb_name(*e.cb) : std::string("every CB");
    if (e.opaque_dst)
      what += (what.empty() ? "" : " and ") + std::string("DST");
    warning(e.range, "cannot prove: ttgen check does not model " + e.name +
                         ", which calls the CB or DST API; the state of " + what +
                         " after it is unknown");
    if (e.opaque_dst)
      s.dst = Dst::unknown;
    if (!e.opaque_cbs)
      return;
    if (!e.cb) {
      unknown_cb_ = true;
      forget_every_cb(s);
      return;
    }
    s.cbs[*e.cb] = Window{std::nullopt, std::nullopt, std::nullopt, std::nullopt, std::nullopt};
    Totals& t = totals_[*e.cb];
    t.pushed.reset();
    t.popped.reset();
    if (!t.first_opaque)
      t.first_opaque = &e;
    for (auto it = s.ptrs.begin(); it != s.ptrs.end();)
      it = it->second.first == *e.cb ? s.ptrs.erase(it) : std::next(it);
  }

  void math(const Event& e, State& s) {
    if (s.dst != Dst::acquired && s.dst != Dst::held && s.dst != Dst::unknown) {
      error(e, e.name + ": DST is used outside tile_regs_acquire ... tile_regs_commit");
      return;
    }
    if (!dst_in_range(e, e.name))
      return;
    for (const auto& [cb, tile] : e.reads) {
      const std::optional<std::int64_t> front = s.cbs[cb].front;
      if (front && tile >= *front)
        error(e, e.name + ": reads tile " + std::to_string(tile) + " of " + cb_name(cb) +
                     " but only " + pages(*front) + " were waited for with cb_wait_front");
    }
  }

  void pack(const Event& e, State& s) {
    const std::string call = "pack_tile(" +
                             (e.dst.empty() ? std::string("?") : std::to_string(e.dst[0])) + ", " +
                             (e.cb ? cb_name(*e.cb) : std::string("?")) + ")";
    if (s.dst != Dst::waited && s.dst != Dst::held && s.dst != Dst::unknown) {
      error(e, call + ": DST is read outside tile_regs_wait ... tile_regs_release");
      return;
    }
    if (!dst_in_range(e, call) || !e.cb)
      return;
    Window& w = s.cbs[*e.cb];
    if (w.packed && w.reserved && *w.packed >= *w.reserved)
      error(e, call + ": packs into page " + std::to_string(*w.packed) + " of the back of " +
                   cb_name(*e.cb) + " but only " + pages(*w.reserved) +
                   (*w.reserved == 1 ? " is" : " are") + " reserved with cb_reserve_back");
    if (w.packed)
      ++*w.packed;
  }

  /// After a call that may reserve, push, wait for or pop any CB: every CB's window (those not
  /// touched yet too) is unknown, and no pointer is known to point at held pages.
  static void forget_every_cb(State& s) {
    for (std::int64_t cb = 0; cb < 32; ++cb)
      s.cbs[cb] = Window{std::nullopt, std::nullopt, std::nullopt, std::nullopt, std::nullopt};
    s.ptrs.clear();
  }

  void cb_event(const Event& e, State& s, const Poly& count, bool tally) {
    if (!e.cb) {
      warning(e.range, "cannot prove: the CB of " + e.call +
                           " is not a constant, so no CB is balanced against the other kernels");
      unknown_cb_ = true;
      // It may be any CB (a CircularBuffer built from a helper's parameter): a pack or push of
      // the CB it is later resolved to is then not held against an empty window.
      forget_every_cb(s);
      return;
    }
    const std::int64_t cb = *e.cb;
    if (cb < 0 || cb >= 32) {
      error(e, e.name + ": CB index " + std::to_string(cb) + " is out of range (32 CBs)");
      return;
    }
    Totals& t = totals_[cb];
    Window& w = s.cbs[cb];
    const std::optional<std::int64_t> n =
        e.pages.is_constant() ? std::optional<std::int64_t>(e.pages.constant_value())
                              : std::nullopt;
    const std::string call = e.name + "(" + cb_name(cb) + ", " + e.pages.str() + ")";
    const std::optional<std::int64_t> cap = capacity(cb);
    if (n && cap && *n > *cap && (e.kind == EventKind::reserve || e.kind == EventKind::wait))
      error(e, call + ": asks for " + pages(*n) + " but " + cb_name(cb) + " holds " + pages(*cap));
    switch (e.kind) {
    case EventKind::reserve:
      if (!t.first_reserve)
        t.first_reserve = &e;
      if (n)
        t.max_reserve = std::max(t.max_reserve, *n);
      if (w.reserved && n)
        w.reserved = std::max(*w.reserved, *n);
      else
        w.reserved.reset();
      return;
    case EventKind::push:
      if (!t.first_push)
        t.first_push = &e;
      if (uncounted_ > 0)
        t.pushed.reset();
      else if (tally && t.pushed)
        t.pushed = *t.pushed + e.pages * count;
      if (n && w.reserved && *n > *w.reserved)
        error(e, call + ": pushes " + pages(*n) + " but only " + pages(*w.reserved) +
                     " reserved with cb_reserve_back");
      if (n && cap && w.wr && *w.wr + *n > *cap)
        error(e, call + ": pushing " + pages(*n) + " at page " + std::to_string(*w.wr) +
                     " runs past the end of " + cb_name(cb) + " (" + pages(*cap) +
                     "); pushes must add up to exactly " + std::to_string(*cap) +
                     " per lap of the ring");
      w.reserved = n && w.reserved
                       ? std::optional<std::int64_t>(std::max<std::int64_t>(0, *w.reserved - *n))
                       : std::nullopt;
      w.packed = 0;
      w.wr = n && cap && w.wr ? std::optional<std::int64_t>((*w.wr + *n) % *cap) : std::nullopt;
      return;
    case EventKind::wait:
      if (!t.first_wait)
        t.first_wait = &e;
      if (n)
        t.max_wait = std::max(t.max_wait, *n);
      else if (count.is_constant())
        t.waits_blockwise = false;
      else if (!t.block)
        t.block = e.pages;
      if (w.front && n)
        w.front = std::max(*w.front, *n);
      else
        w.front.reset();
      return;
    case EventKind::pop:
      if (!t.first_pop)
        t.first_pop = &e;
      if (uncounted_ > 0)
        t.popped.reset();
      else if (tally && t.popped)
        t.popped = *t.popped + e.pages * count;
      if (n && w.front && *n > *w.front)
        error(e, call + ": pops " + pages(*n) + " but only " + pages(*w.front) +
                     " waited for with cb_wait_front");
      if (s.unflushed.count(cb))
        error(e, call + ": pops pages that a NoC write of this kernel may still be sending "
                        "(noc_async_writes_flushed or noc_async_write_barrier before "
                        "cb_pop_front)");
      if (n && cap && w.rd && *w.rd + *n > *cap)
        error(e, call + ": popping " + pages(*n) + " at page " + std::to_string(*w.rd) +
                     " runs past the end of " + cb_name(cb) + " (" + pages(*cap) +
                     "); pops must add up to exactly " + std::to_string(*cap) +
                     " per lap of the ring");
      w.front = n && w.front ? std::optional<std::int64_t>(std::max<std::int64_t>(0, *w.front - *n))
                             : std::nullopt;
      // No page of the CB is held any more: every pointer into its front now points at freed
      // pages (one taken while more pages were held may point at one still held).
      if (w.front == 0)
        for (auto& [var, p] : s.ptrs)
          if (p.first == cb)
            p.second = &e;
      w.rd = n && cap && w.rd ? std::optional<std::int64_t>((*w.rd + *n) % *cap) : std::nullopt;
      return;
    default:
      return;
    }
  }

public:
  bool unknown_cb_ = false; // a CB call on a CB that is not a constant: it may be any of them

private:
  int uncounted_ = 0; // loops without a trip count around the current event

private:
  const Kernel& k_;
  const CheckOptions& opts_;
  Diagnostics& diags_;
  const std::int64_t dst_tiles_;
  const std::set<std::int64_t>& produced_;
  const std::set<std::int64_t>& consumed_;
  std::map<std::int64_t, Totals> totals_;
  std::set<std::pair<std::uint32_t, std::string>> reported_;
};

struct Side {
  const Kernel* kernel;
  Totals totals;
};

std::string kernel_list(const std::vector<Side>& sides) {
  std::string out;
  for (const Side& s : sides)
    out += (out.empty() ? "" : " and ") + file_name(*s.kernel);
  return out;
}

} // namespace

void analyze(const std::vector<Kernel>& kernels, const CheckOptions& options, Diagnostics& diags,
             std::vector<std::string>& proved) {
  std::map<std::int64_t, std::vector<Side>> producers, consumers;
  std::set<std::int64_t> produced, consumed;
  bool unknown_cb = false;
  for (const Kernel& k : kernels)
    KernelCheck::streamed(k.body, produced, consumed);
  for (const Kernel& k : kernels) {
    KernelCheck check(k, options, diags, produced, consumed);
    for (auto& [cb, t] : check.run()) {
      const bool produces = t.first_push || t.first_reserve || t.first_opaque;
      const bool consumes = t.first_pop || t.first_wait || t.first_opaque;
      if (produces)
        producers[cb].push_back({&k, t});
      if (consumes)
        consumers[cb].push_back({&k, t});
    }
    unknown_cb |= check.unknown_cb_;
  }
  // A push or pop on an unknown CB may belong to any of them: no balance is proved or refuted.
  if (unknown_cb)
    return;

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
    // consumer waits for is never pushed (its push dropped). Where the counts are known, the
    // balance below says so with them.
    if (!pushed || !popped) {
      const Side* reserver = nullptr;
      const Side* waiter = nullptr;
      bool pushes = false;
      for (const Kernel& k : kernels)
        pushes |= KernelCheck::may_push(k.body, cb);
      for (const Side& s : prod)
        if (!reserver && s.totals.first_reserve)
          reserver = &s;
      for (const Side& s : cons)
        if (!waiter && s.totals.first_wait && s.kernel != (reserver ? reserver->kernel : nullptr))
          waiter = &s;
      if (!pushes && reserver && waiter) {
        const Event* at = waiter->totals.first_wait;
        Diagnostic& d = diags.error(
            at->range, "deadlock: no kernel pushes " + name + " (" + file_name(*reserver->kernel) +
                           " reserves it but never pushes it); " + at->call +
                           " waits for pages that are never pushed");
        d.file = waiter->kernel->file.get();
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
