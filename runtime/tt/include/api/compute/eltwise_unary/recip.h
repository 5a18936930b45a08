// recip on a DST tile, in place (mirrors tt_metal/hw/inc/api/compute/eltwise_unary/recip.h).
#pragma once
#include "api/compute/common.h"

namespace ckernel {
template <bool legacy_compat = true>
ALWI void recip_tile_init() {
  ::tk::rt::emu::init_call();
}
template <bool legacy_compat = true>
ALWI void recip_tile(uint32_t idst, int vector_mode = (int)VectorMode::RC) {
  ::tk::rt::emu::unary_tile(::tk::rt::emu::Unary::Recip, idst, 0.0f, 0.0f, 0.0f, vector_mode);
}
} // namespace ckernel
