// Splitting work units over a core grid (mirrors tt_metal/api/tt-metalium/work_split.hpp).
#pragma once
#include <cstdint>
#include <tuple>

#include <tt-metalium/core_coord.hpp>

namespace tt::tt_metal {
// The first `target_num_cores` cores of `grid_size`, column-major (y fastest) unless row_wise.
CoreRangeSet num_cores_to_corerangeset(std::uint32_t target_num_cores, const CoreCoord grid_size,
                                       bool row_wise = false);
CoreRangeSet num_cores_to_corerangeset(const CoreCoord start_core, std::uint32_t target_num_cores,
                                       const CoreCoord grid_size, bool row_wise = false);

// (num_cores, all_cores, core_group_1, core_group_2, units_per_core_group_1,
// units_per_core_group_2): group 1 takes one more unit per core than group 2 when the split is
// uneven.
std::tuple<std::uint32_t, CoreRangeSet, CoreRangeSet, CoreRangeSet, std::uint32_t, std::uint32_t>
split_work_to_cores(const CoreCoord grid_size, const std::uint32_t units_to_divide,
                    const bool row_wise = false);
std::tuple<std::uint32_t, CoreRangeSet, CoreRangeSet, CoreRangeSet, std::uint32_t, std::uint32_t>
split_work_to_cores(const CoreRangeSet& core_grid, const std::uint32_t units_to_divide,
                    const bool row_wise = false);
} // namespace tt::tt_metal
