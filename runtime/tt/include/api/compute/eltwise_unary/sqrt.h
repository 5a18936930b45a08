// sqrt on a DST tile, in place (mirrors tt_metal/hw/inc/api/compute/eltwise_unary/sqrt.h).
#pragma once
#include "api/compute/common.h"

namespace ckernel {
ALWI void sqrt_tile_init() {
  ::tk::rt::emu::init_call();
}
template <bool fast_and_approx = false>
ALWI void sqrt_tile(uint32_t idst) {
  ::tk::rt::emu::unary_tile(::tk::rt::emu::Unary::Sqrt, idst, 0.0f);
}
} // namespace ckernel
