// Activations on a DST tile (mirrors tt_metal/hw/inc/api/compute/eltwise_unary/activations.h):
// hardsigmoid(x) = clamp(x / 6 + 1/2, 0, 1), PyTorch's definition. The header's other
// activations are not mirrored: TileKit does not emit them.
#pragma once
#include "api/compute/common.h"

namespace ckernel {
ALWI void hardsigmoid_tile_init() {
  ::tk::rt::emu::init_call();
  // _init_hardsigmoid_: vConstFloatPrgm0 = 1/6, vConstFloatPrgm1 = 0.5.
  ::tk::rt::emu::sfpu_constants_loaded("hardsigmoid_tile_init");
}
ALWI void hardsigmoid_tile(uint32_t idst) {
  ::tk::rt::emu::unary_tile(::tk::rt::emu::Unary::Hardsigmoid, idst, 0.0f);
}
} // namespace ckernel
