// rsqrt on a DST tile, in place (mirrors tt_metal/hw/inc/api/compute/eltwise_unary/rsqrt.h).
#pragma once
#include "api/compute/common.h"

namespace ckernel {
template <bool legacy_compat = false>
ALWI void rsqrt_tile_init() {
  ::tk::rt::emu::init_call();
}
template <bool legacy_compat = false, bool FAST_APPROX = false>
ALWI void rsqrt_tile(uint32_t idst) {
  ::tk::rt::emu::unary_tile(::tk::rt::emu::Unary::Rsqrt, idst, 0.0f);
}
} // namespace ckernel
