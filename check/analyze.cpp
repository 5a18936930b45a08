// ttgen check's walk of each kernel along its paths (docs/check.md, "What it proves"): the state of
// every CB window and of DST at each event, the bugs of one kernel, and what it does to each CB
// over its whole run, which balance.cpp weighs across the kernels.
#include "check/analyze.hpp"
#include "check/balance.hpp"

#include <algorithm>
#include <set>

namespace tk::check {

namespace {

/// DST's hand-over between MATH and PACK; `held` after acquire_dst (both may touch it), `unknown`
/// after a call ttgen check does not model.
enum class Dst { released, acquired, committed, waited, held, unknown };

/// One CB's window on one kernel: what is reserved at the back, waited for at the front, and
/// where the ring's write and read pages are (nullopt: not a constant here).
struct Window {
  std::optional<std::int64_t> reserved = 0, packed = 0, front = 0, wr = 0, rd = 0;
  /// The pages this kernel pushed to the CB and has not popped (what it can wait for itself).
  std::optional<std::int64_t> own = 0;
  static Window unknown() {
    return {std::nullopt, std::nullopt, std::nullopt, std::nullopt, std::nullopt, std::nullopt};
  }
  /// What is known after this path or `o`: a window that differs is unknown, but for the pages
  /// this kernel holds, when both paths agree on them.
  void merge(const Window& o) {
    if (*this == o)
      return;
    const std::optional<std::int64_t> both = own == o.own ? own : std::nullopt;
    *this = unknown();
    own = both;
  }
  friend bool operator==(const Window&, const Window&) = default;
};

/// A side of a branch whose condition is not a constant: the path through it.
struct Assumed {
  const Branch* branch;
  bool value; // the side taken: then (true) or else
  friend bool operator==(const Assumed&, const Assumed&) = default;
};

/// A cb_reserve_back whose pages this path has not pushed yet, the sides of the branches the path
/// took to it, and the loops around it.
struct Unpushed {
  const Event* reserve;
  std::vector<Assumed> path;
  std::vector<const Loop*> loops;
  friend bool operator==(const Unpushed&, const Unpushed&) = default;
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
  /// CBs reserved on this path and not pushed since (the reserve that is still open).
  std::map<std::int64_t, Unpushed> unpushed;
  friend bool operator==(const State&, const State&) = default;

  /// What may be pending after either of two paths.
  void merge_noc(const State& other) {
    if (!unwaited_read)
      unwaited_read = other.unwaited_read;
    unflushed.insert(other.unflushed.begin(), other.unflushed.end());
    unpushed.insert(other.unpushed.begin(), other.unpushed.end());
    for (auto it = ptrs.begin(); it != ptrs.end();) {
      auto o = other.ptrs.find(it->first);
      it = o == other.ptrs.end() || o->second != it->second ? ptrs.erase(it) : std::next(it);
    }
  }
};

/// A small loop of known trips is walked iteration by iteration (exact); beyond this, or with a
/// symbolic trip count, the body is walked twice and must then be steady.
constexpr std::int64_t kUnrollLimit = 64;

class KernelCheck {
public:
  /// `produced` and `consumed`: the CBs some kernel of the program pushes (reserves) or pops
  /// (waits for). A get_write_ptr of a CB that another kernel reads outside its reserved window is
  /// a bug; of any other CB (an L1 scratch buffer) it is not. Likewise get_read_ptr.
  /// `kernels`: the program's kernels, `k` among them.
  KernelCheck(const Kernel& k, const CheckOptions& o, Diagnostics& d,
              const std::set<std::int64_t>& produced, const std::set<std::int64_t>& consumed,
              const std::vector<Kernel>& kernels)
      : k_(k), opts_(o), diags_(d), dst_tiles_(o.arch->dst_tiles(o.fp32_dest)), produced_(produced),
        consumed_(consumed), kernels_(kernels) {}

  std::map<std::int64_t, Totals> run() {
    State s;
    walk(k_.body, s, Poly::constant(1), true);
    unpushed_at_end(s);
    // tt-metal's firmware asserts after kernel_main that the RISC's reads have landed.
    if (s.unwaited_read)
      error(*s.unwaited_read, s.unwaited_read->call +
                                  ": the kernel can return with this read not waited for "
                                  "(noc_async_read_barrier)");
    return totals_;
  }

private:
  // ---- diagnostics -----------------------------------------------------------------------------
  void error(const Event& e, const std::string& message) { error_at(e, message); }
  /// The error, or nullptr when it was reported already (a loop's second pass).
  Diagnostic* error_at(const Event& e, const std::string& message) {
    if (!reported_.insert({e.range.begin, message}).second)
      return nullptr;
    Diagnostic& d = diags_.error(e.range, message);
    d.file = k_.file.get();
    return &d;
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
      else if (const Loop* l = std::get_if<Loop>(&n.v)) {
        loops_.push_back(l);
        loop(*l, s, count, tally);
        loops_.pop_back();
      } else
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
      w.merge(second.cbs[cb]);
    s.merge_noc(second);
  }

  void branch(const Branch& b, State& s, const Poly& count, bool tally) {
    if (b.known) {
      walk(*b.known ? b.then_body : b.else_body, s, count, tally);
      return;
    }
    State other = s;
    auto before = totals_;
    take(b, true, s);
    walk(b.then_body, s, count, tally);
    path_.pop_back();
    auto after_then = totals_;
    totals_ = before;
    take(b, false, other);
    walk(b.else_body, other, count, tally);
    path_.pop_back();
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
      w.merge(other.cbs[cb]);
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

  // ---- reserved pages a path never pushes ----------------------------------------------------
  /// Enters side `value` of branch `b` with state `s`: the open reserves of a path that took the
  /// other side of a branch on the same stable condition are not on this path.
  void take(const Branch& b, bool value, State& s) {
    if (b.stable)
      for (auto it = s.unpushed.begin(); it != s.unpushed.end();) {
        const bool other_side =
            std::any_of(it->second.path.begin(), it->second.path.end(), [&](const Assumed& a) {
              return a.branch->stable && a.branch->cond == b.cond && a.value != value;
            });
        it = other_side ? s.unpushed.erase(it) : std::next(it);
      }
    path_.push_back({&b, value});
  }

  /// "where 'use_mask' is true and 'n > 1' is false": the path `path` took.
  static std::string where(const std::vector<Assumed>& path) {
    std::string out;
    for (const Assumed& a : path)
      out += (out.empty() ? "where '" : " and '") + a.branch->cond + "' is " +
             (a.value ? "true" : "false");
    return out;
  }

  static std::string normalized(const Event& e) {
    return e.name + "(" + cb_name(*e.cb) + ", " + e.pages.str() + ")";
  }

  /// Whether a kernel of the program other than this one may push `cb`.
  bool others_push(std::int64_t cb) const {
    for (const Kernel& k : kernels_)
      if (&k != &k_ && may_push(k.body, cb))
        return true;
    return false;
  }

  /// The first kernel of the program other than this one that waits for or pops `cb`.
  const Kernel* other_consumer(std::int64_t cb) const {
    for (const Kernel& k : kernels_) {
      std::set<std::int64_t> produced, consumed;
      streamed(k.body, produced, consumed);
      if (&k != &k_ && consumed.count(cb))
        return &k;
    }
    return nullptr;
  }

  /// cb_wait_front `e` of a CB this path reserved and has not pushed since, with no page of it
  /// pushed by this kernel and not popped, and no other kernel that pushes it: the pages it waits
  /// for can only be the ones reserved, and they are never pushed.
  void wait_unpushed(const Event& e, const State& s, const Window& w) {
    auto it = s.unpushed.find(*e.cb);
    const bool some =
        e.pages.is_constant() ? e.pages.constant_value() > 0 : e.pages.positive() == true;
    if (it == s.unpushed.end() || w.own != 0 || !some || others_push(*e.cb))
      return;
    const Event& r = *it->second.reserve;
    const std::string path = where(it->second.path);
    Diagnostic* d = error_at(
        r, "deadlock: " + normalized(r) + " reserves pages of " + cb_name(*e.cb) +
               " that are never pushed before " + normalized(e) + " waits for them" +
               (path.empty() ? "" : " (on the path " + path + ")") + "; no other kernel pushes " +
               cb_name(*e.cb) + ", so the wait blocks for good");
    if (d)
      d->notes.push_back(Diagnostic{
          Severity::note, k_.file.get(), e.range, cb_name(*e.cb) + " is waited for here", {}});
  }

  /// At the end of the kernel: a reserve made on one side of a branch whose pages that path never
  /// pushes, of a CB another path of this kernel does push (but no later iteration of a loop
  /// around the reserve) and another kernel waits for: the push dropped on that path. (A reserve
  /// on every path, never pushed anywhere, is the balance's "reserves it but never pushes it".)
  void unpushed_at_end(const State& s) {
    for (const auto& [cb, u] : s.unpushed) {
      // A later iteration of a loop around the reserve may push the pages (a reserve that only
      // waits for room on the first K-block of a matmul, pushed on the last).
      const bool later = std::any_of(u.loops.begin(), u.loops.end(),
                                     [&](const Loop* l) { return may_push(l->body, cb); });
      const Kernel* consumer = u.path.empty() || later ? nullptr : other_consumer(cb);
      if (!consumer || !may_push(k_.body, cb))
        continue;
      Diagnostic* d = error_at(
          *u.reserve, normalized(*u.reserve) +
                          ": the kernel ends without pushing the pages reserved here on the path " +
                          where(u.path) + " (another path pushes them), while " +
                          file_name(*consumer) + " waits for pages of " + cb_name(cb));
      if (d)
        d->notes.push_back(Diagnostic{Severity::note,
                                      k_.file.get(),
                                      u.path.back().branch->range,
                                      "the path leaves this branch with them reserved",
                                      {}});
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
    s.cbs[*e.cb] = Window::unknown();
    Totals& t = totals_[*e.cb];
    t.pushed.reset();
    t.popped.reset();
    if (!t.first_opaque)
      t.first_opaque = &e;
    for (auto it = s.ptrs.begin(); it != s.ptrs.end();)
      it = it->second.first == *e.cb ? s.ptrs.erase(it) : std::next(it);
    s.unpushed.erase(*e.cb);
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

  /// The CB indices of the checked architecture (ArchSpec::num_circular_buffers).
  std::int64_t num_cbs() const { return opts_.arch->num_circular_buffers; }

  /// After a call that may reserve, push, wait for or pop any CB: every CB's window (those not
  /// touched yet too) is unknown, and no pointer is known to point at held pages.
  void forget_every_cb(State& s) const {
    for (std::int64_t cb = 0; cb < num_cbs(); ++cb)
      s.cbs[cb] = Window::unknown();
    s.ptrs.clear();
    s.unpushed.clear();
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
    if (cb < 0 || cb >= num_cbs()) {
      error(e, e.name + ": CB index " + std::to_string(cb) + " is out of range (" +
                   std::to_string(num_cbs()) + " CBs on " + std::string(opts_.arch->name) + ")");
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
      s.unpushed.try_emplace(cb, Unpushed{&e, path_, loops_});
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
      s.unpushed.erase(cb);
      w.own = n && w.own ? std::optional<std::int64_t>(*w.own + *n) : std::nullopt;
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
      wait_unpushed(e, s, w);
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
      w.own = n && w.own ? std::optional<std::int64_t>(std::max<std::int64_t>(0, *w.own - *n))
                         : std::nullopt;
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
  const std::vector<Kernel>& kernels_;
  std::vector<Assumed> path_;      // the sides of the branches around the current event
  std::vector<const Loop*> loops_; // the loops around it
  std::map<std::int64_t, Totals> totals_;
  std::set<std::pair<std::uint32_t, std::string>> reported_;
};

} // namespace

void analyze(const std::vector<Kernel>& kernels, const CheckOptions& options, Diagnostics& diags,
             std::vector<std::string>& proved) {
  std::map<std::int64_t, std::vector<Side>> producers, consumers;
  std::set<std::int64_t> produced, consumed;
  bool unknown_cb = false;
  for (const Kernel& k : kernels)
    streamed(k.body, produced, consumed);
  for (const Kernel& k : kernels) {
    KernelCheck check(k, options, diags, produced, consumed, kernels);
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
  balance(kernels, producers, consumers, options, diags, proved);
}

} // namespace tk::check
