// Which argument of a compute call is the tile index of which of its CB arguments: the one table
// of that fact for the stages that move or renumber the tiles a call reads (chunk-rows: the rows
// of a chunk in one window; batch-sections: a batch of a row's tiles at the CB's front).
#pragma once

#include "lowering/ir/intrinsics.hpp"

#include <cstddef>
#include <utility>
#include <vector>

namespace tk::lower::tt {

/// (CB argument, its tile-index argument) pairs of a compute call that reads tiles of CBs by
/// index, from the SDK's signatures (tt-metal a8c5af0f5a26, api/compute/): matmul_tiles(in0, in1,
/// in0_tile_index, in1_tile_index, idst), copy_tile(icb, itile, idst), unary_bcast<type>(icb,
/// in_tile_index, dst_tile_index), {add,sub,mul}_tiles_bcast<type>(icb0, icb1, itile0, itile1,
/// idst) (api/compute/bcast.h), reduce_tile<type, dim>(icb, icb_scaler, itile, itile_scaler,
/// idst) (api/compute/reduce.h), and TileKit's cb_tile(cb, index). Empty for any other call:
/// a stage that must renumber a CB's tiles refuses a call it does not find here.
std::vector<std::pair<std::size_t, std::size_t>> cb_tile_args(ir::Intrinsic fn);

} // namespace tk::lower::tt
