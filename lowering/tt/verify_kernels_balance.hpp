// The structural proof that the kernels agree on every circular buffer (docs/lowering.md,
// "Reader and writer"): the loop tree of one kind of CB event (pushes, pops, waits, reserves) in
// one function, keeping only the loops that contain such events; two sides agree when their
// trees are equal: same nesting, same extents, same events in the same order.
#pragma once

#include "lowering/ir/module.hpp"

#include <optional>
#include <set>
#include <string>
#include <variant>
#include <vector>

namespace tk::lower::tt {

struct EventTree {
  struct Event {
    std::string cb;
    std::int64_t n = 0; // pages, merged across consecutive events on the same CB
    friend bool operator==(const Event&, const Event&) = default;
  };
  struct Loop;
  std::vector<std::variant<Event, std::shared_ptr<Loop>>> items;
  bool operator==(const EventTree& o) const;
};
struct EventTree::Loop {
  std::string extent; // printed; a per-core loop is compared by its count only
  EventTree body;
};

/// The tree of `fn` calls (cb_push_back, cb_pop_front, cb_wait_front or cb_reserve_back) on the
/// CBs in `cbs`, in `f`. Event counts must be integer literals.
EventTree event_tree(const ir::Function& f, ir::Intrinsic fn, const std::set<std::string>& cbs);

/// A producer that runs one step ahead of its loop (keep-rows' reads of the next work item's row,
/// docs/lowering.md "Rows in L1"): `P L { P R }`, P pushed before the loop and again first in
/// each iteration, read as `L { P R } P`, the consumer's order when it waits for the extra P
/// after the loop. The tree unchanged when it has no such P.
EventTree one_ahead(const EventTree& t);

/// The number of pages a tree counts, as a sum of products: each event's count times the extents
/// of the loops around it, one printed term per event, sorted (two trees that count the same
/// events in another order have equal totals).
std::vector<std::string> total(const EventTree& t);

/// `count { Kt { cb_A cb_B } }`; an event of n > 1 pages prints as `cb_A x2`.
std::string print(const EventTree& t);

/// Follows the tiles held by each intermediate CB through the compute function: never popped or
/// waited for before being pushed, never more than its depth, a loop body leaves each count as
/// it found it, nothing left at the end. The first violation, or nullopt.
std::optional<std::string> check_occupancy(const ir::Program& p, const ir::Function& compute);

} // namespace tk::lower::tt
