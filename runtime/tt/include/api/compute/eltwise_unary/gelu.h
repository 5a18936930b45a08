// GELU on a DST tile (mirrors tt_metal/hw/inc/api/compute/eltwise_unary/gelu.h); computed exactly
// (erf form).
#pragma once
#include "api/compute/common.h"

namespace ckernel {
template <bool fast_and_approx = true>
ALWI void gelu_tile_init() {}
template <bool fast_and_approx = true>
ALWI void gelu_tile(uint32_t idst) {
  ::tk::rt::emu::unary_tile(::tk::rt::emu::Unary::Gelu, idst, 0.0f);
}
} // namespace ckernel
