// The work split of the TT chain: tt-metal's split_work_to_cores (work_split.cpp), reproduced so
// dumps and tests can show which core gets which work items. Generated host code calls the SDK's
// own split_work_to_cores at run time, because the number of work items depends on the tensors.
#pragma once

#include "lowering/ir/module.hpp"

#include <cstdint>
#include <vector>

namespace tk::lower::tt {

/// One core's share: work items [start, start + count).
struct CoreWork {
  std::int64_t x = 0, y = 0;
  std::int64_t start = 0, count = 0;
  friend bool operator==(const CoreWork&, const CoreWork&) = default;
};

/// split_work_to_cores(grid, items, row_wise): min(items, cores) cores are used, taken column by
/// column (y fastest) unless row_wise (x fastest); when the split is uneven the first
/// items % cores cores (group 1) take one item more than the rest (group 2). Ranges are
/// contiguous, assigned in core order. Zero items use no core.
struct Partition {
  std::int64_t num_cores = 0;
  std::int64_t group1_cores = 0, group1_items = 0; // cores of group 1 and items per core
  std::int64_t group2_cores = 0, group2_items = 0;
  std::vector<CoreWork> cores; // in core order: group 1, then group 2
};

Partition partition_work(std::int64_t items, ir::Grid grid, bool row_wise = false);

} // namespace tk::lower::tt
