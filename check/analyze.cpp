// ttgen check's walk of each kernel along its paths (docs/check.md, "What it proves"): loops
// unrolled or walked to a steady state, both sides of a branch whose condition is not a constant,
// the rules at each event (rules.cpp) on the way; then analyze(), which walks every kernel of the
// program and hands what each does to its CBs to balance.cpp.
#include "check/analyze.hpp"
#include "check/balance.hpp"
#include "check/kernel_check.hpp"

#include <algorithm>
#include <set>

namespace tk::check {

std::map<std::int64_t, Totals> KernelCheck::run() {
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

void KernelCheck::walk(const Body& body, State& s, const Poly& count, bool tally) {
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

void KernelCheck::loop(const Loop& l, State& s, const Poly& count, bool tally) {
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

void KernelCheck::branch(const Branch& b, State& s, const Poly& count, bool tally) {
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

void KernelCheck::take(const Branch& b, bool value, State& s) {
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
