// negative on a DST tile, in place (mirrors tt_metal/hw/inc/api/compute/eltwise_unary/negative.h).
#pragma once
#include "api/compute/common.h"

namespace ckernel {
ALWI void negative_tile_init() {
  ::tk::rt::emu::init_call();
}
ALWI void negative_tile(uint32_t idst) {
  ::tk::rt::emu::unary_tile(::tk::rt::emu::Unary::Neg, idst, 0.0f);
}
} // namespace ckernel
