// Activations on a DST tile (mirrors tt_metal/hw/inc/api/compute/eltwise_unary/activations.h):
// hardsigmoid(x) = clamp(x / 6 + 1/2, 0, 1), PyTorch's definition. The header's other
// activations are not mirrored: TileKit does not emit them.
#pragma once
#include "api/compute/common.h"

namespace ckernel {
ALWI void hardsigmoid_tile_init() {
  ::tk::rt::emu::init_call();
}
ALWI void hardsigmoid_tile(uint32_t idst) {
  ::tk::rt::emu::unary_tile(::tk::rt::emu::Unary::Hardsigmoid, idst, 0.0f);
}
} // namespace ckernel
