// One kernel's walk for ttgen check (docs/check.md, "What it proves"): the state of every CB
// window and of DST along a path, and the class that walks the kernel's loops and branches
// (analyze.cpp) and applies the protocol's rules at each event (rules.cpp). Private to check/.
#pragma once

#include "check/analyze.hpp"
#include "check/balance.hpp"

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace tk::check {

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

/// One kernel's check: `run` walks its body along every path, reporting the bugs of the kernel
/// alone, and returns what it does to each CB over its whole run, which balance.cpp weighs across
/// the kernels.
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

  std::map<std::int64_t, Totals> run();

  bool unknown_cb_ = false; // a CB call on a CB that is not a constant: it may be any of them

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

  // ---- the walk (analyze.cpp) ------------------------------------------------------------------
  /// `count`: how many times this code runs in the whole kernel; `tally`: add to the totals
  /// (false on the extra passes over a loop body).
  void walk(const Body& body, State& s, const Poly& count, bool tally);
  void loop(const Loop& l, State& s, const Poly& count, bool tally);
  void branch(const Branch& b, State& s, const Poly& count, bool tally);
  /// Enters side `value` of branch `b` with state `s`: the open reserves of a path that took the
  /// other side of a branch on the same stable condition are not on this path.
  void take(const Branch& b, bool value, State& s);

  // ---- the rules at one event (rules.cpp) ------------------------------------------------------
  void event(const Event& e, State& s, const Poly& count, bool tally);
  void cb_event(const Event& e, State& s, const Poly& count, bool tally);
  void math(const Event& e, State& s);
  void pack(const Event& e, State& s);
  bool dst_in_range(const Event& e, const std::string& what);
  /// A call ttgen check does not model that reaches CB or DST calls: what it does to them is
  /// unknown, so nothing about them is proved past it.
  void opaque(const Event& e, State& s);

  /// The CB indices of the checked architecture (ArchSpec::num_circular_buffers).
  std::int64_t num_cbs() const { return opts_.arch->num_circular_buffers; }
  /// Whether `cb` is one of them; the kernel's first call `e` on one that is not is an error
  /// (reported once per CB and kernel: every later call on it repeats the same mistake).
  bool cb_in_range(const Event& e, std::int64_t cb);
  /// After a call that may reserve, push, wait for or pop any CB: every CB's window (those not
  /// touched yet too) is unknown, and no pointer is known to point at held pages.
  void forget_every_cb(State& s) const;

  // ---- reserved pages a path never pushes (rules.cpp) -----------------------------------------
  /// cb_wait_front `e` of a CB this path reserved and has not pushed since, with no page of it
  /// pushed by this kernel and not popped, and no other kernel that pushes it: the pages it waits
  /// for can only be the ones reserved, and they are never pushed.
  void wait_unpushed(const Event& e, const State& s, const Window& w);
  /// At the end of the kernel: a reserve made on one side of a branch whose pages that path never
  /// pushes, of a CB another path of this kernel does push (but no later iteration of a loop
  /// around the reserve) and another kernel waits for: the push dropped on that path. (A reserve
  /// on every path, never pushed anywhere, is the balance's "reserves it but never pushes it".)
  void unpushed_at_end(const State& s);
  /// "where 'use_mask' is true and 'n > 1' is false": the path `path` took.
  static std::string where(const std::vector<Assumed>& path);
  static std::string normalized(const Event& e);
  /// Whether a kernel of the program other than this one may push `cb`.
  bool others_push(std::int64_t cb) const;
  /// The first kernel of the program other than this one that waits for or pops `cb`.
  const Kernel* other_consumer(std::int64_t cb) const;

  int uncounted_ = 0; // loops without a trip count around the current event

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
  std::set<std::int64_t> out_of_range_; // CB indices past the architecture's, reported
};

} // namespace tk::check
