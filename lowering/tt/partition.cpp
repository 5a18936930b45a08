#include "lowering/tt/partition.hpp"

#include <algorithm>

namespace tk::lower::tt {

Partition partition_work(std::int64_t items, ir::Grid grid, bool row_wise) {
  Partition p;
  std::int64_t grid_cores = grid.x * grid.y;
  if (items <= 0 || grid_cores <= 0)
    return p;
  p.num_cores = std::min(items, grid_cores);
  std::int64_t base = items / p.num_cores, extra = items % p.num_cores;
  if (extra == 0) { // even: group 1 is every core, group 2 is empty
    p.group1_cores = p.num_cores;
    p.group1_items = base;
  } else {
    p.group1_cores = extra;
    p.group1_items = base + 1;
    p.group2_cores = p.num_cores - extra;
    p.group2_items = base;
  }
  std::int64_t start = 0;
  for (std::int64_t k = 0; k < p.num_cores; ++k) {
    CoreWork c;
    // num_cores_to_corerangeset: row-wise fills rows (x fastest), otherwise columns (y fastest).
    c.x = row_wise ? k % grid.x : k / grid.y;
    c.y = row_wise ? k / grid.x : k % grid.y;
    c.start = start;
    c.count = k < p.group1_cores ? p.group1_items : p.group2_items;
    start += c.count;
    p.cores.push_back(c);
  }
  return p;
}

} // namespace tk::lower::tt
