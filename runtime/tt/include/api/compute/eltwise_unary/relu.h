// ReLU family on a DST tile (mirrors tt_metal/hw/inc/api/compute/eltwise_unary/relu.h); params are
// fp32 bits.
#pragma once
#include "api/compute/common.h"

namespace ckernel {
ALWI void relu_tile_init() {
  ::tk::rt::emu::init_call();
}
ALWI void relu_tile(uint32_t idst) {
  ::tk::rt::emu::unary_tile(::tk::rt::emu::Unary::Relu, idst, 0.0f);
}
ALWI void relu_max_tile_init() {
  ::tk::rt::emu::init_call();
}
ALWI void relu_max_tile(uint32_t idst, uint32_t param0) {
  ::tk::rt::emu::unary_tile(::tk::rt::emu::Unary::ReluMax, idst,
                            tk_emu_detail::bits_to_float(param0));
}
ALWI void relu_min_tile_init() {
  ::tk::rt::emu::init_call();
}
ALWI void relu_min_tile(uint32_t idst, uint32_t param0) {
  ::tk::rt::emu::unary_tile(::tk::rt::emu::Unary::ReluMin, idst,
                            tk_emu_detail::bits_to_float(param0));
}
ALWI void leaky_relu_tile_init() {
  ::tk::rt::emu::init_call();
}
ALWI void leaky_relu_tile(uint32_t idst, uint32_t slope = 0) {
  ::tk::rt::emu::unary_tile(::tk::rt::emu::Unary::LeakyRelu, idst,
                            tk_emu_detail::bits_to_float(slope));
}
} // namespace ckernel
