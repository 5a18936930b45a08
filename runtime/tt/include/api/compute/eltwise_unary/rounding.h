// floor on a DST tile, in place (mirrors tt_metal/hw/inc/api/compute/eltwise_unary/rounding.h,
// whose floor_tile masks off the fraction bits and subtracts 1 from a negative non-integer; all of
// the header's rounding ops share rounding_op_tile_init). Exact: floor(x) is representable, and
// inf and NaN pass through. ceil_tile, trunc_tile and round_tile are not mirrored: TileKit does not
// emit them.
#pragma once
#include "api/compute/common.h"

namespace ckernel {
ALWI void rounding_op_tile_init() {
  ::tk::rt::emu::init_call();
}
ALWI void floor_tile(uint32_t idst) {
  ::tk::rt::emu::unary_tile(::tk::rt::emu::Unary::Floor, idst, 0.0f);
}
} // namespace ckernel
