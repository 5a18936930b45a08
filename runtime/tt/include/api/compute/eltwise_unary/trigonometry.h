// sin and cos on a DST tile, in place (mirrors tt_metal/hw/inc/api/compute/eltwise_unary/
// trigonometry.h, whose sin_tile and cos_tile reduce the argument by multiples of pi (Cody-Waite,
// four stages) and evaluate an odd polynomial); computed with std::sin and std::cos. The header's
// other functions (tan, asin, acos, atan, the hyperbolic ones) are not mirrored: TileKit does not
// emit them.
#pragma once
#include "api/compute/common.h"

namespace ckernel {
ALWI void sin_tile_init() {
  ::tk::rt::emu::init_call();
  ::tk::rt::emu::sfpu_constants_loaded("sin_tile_init"); // sine_init: vConstFloatPrgm0..2
}
ALWI void sin_tile(uint32_t idst) {
  ::tk::rt::emu::unary_tile(::tk::rt::emu::Unary::Sin, idst, 0.0f);
}
ALWI void cos_tile_init() {
  ::tk::rt::emu::init_call();
  ::tk::rt::emu::sfpu_constants_loaded("cos_tile_init"); // cosine_init: vConstFloatPrgm0..2
}
ALWI void cos_tile(uint32_t idst) {
  ::tk::rt::emu::unary_tile(::tk::rt::emu::Unary::Cos, idst, 0.0f);
}
} // namespace ckernel
