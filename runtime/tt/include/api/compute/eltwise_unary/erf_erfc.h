// erf on a DST tile (mirrors tt_metal/hw/inc/api/compute/eltwise_unary/erf_erfc.h, whose
// erf_tile evaluates a piecewise rational approximation); computed with std::erf. erfc_tile is not
// mirrored: TileKit does not emit it.
#pragma once
#include "api/compute/common.h"

namespace ckernel {
template <bool fast_and_approx = true>
ALWI void erf_tile_init() {}
template <bool fast_and_approx = true>
ALWI void erf_tile(uint32_t idst) {
  ::tk::rt::emu::unary_tile(::tk::rt::emu::Unary::Erf, idst, 0.0f);
}
} // namespace ckernel
