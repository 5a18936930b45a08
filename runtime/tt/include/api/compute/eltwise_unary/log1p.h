// log(1 + x) on a DST tile, in place (mirrors tt_metal/hw/inc/api/compute/eltwise_unary/log1p.h,
// whose log1p_tile reduces 1 + x to 2^k * t and evaluates a minimax polynomial; fast_and_approx is
// ignored there too); computed with std::log1p: NaN below -1, -inf at -1.
#pragma once
#include "api/compute/common.h"

namespace ckernel {
template <bool fast_and_approx = false>
ALWI void log1p_tile_init() {
  ::tk::rt::emu::init_call();
}
template <bool fast_and_approx = false>
ALWI void log1p_tile(uint32_t idst) {
  ::tk::rt::emu::unary_tile(::tk::rt::emu::Unary::Log1p, idst, 0.0f);
}
} // namespace ckernel
