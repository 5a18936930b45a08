// elu on a DST tile, in place (mirrors tt_metal/hw/inc/api/compute/eltwise_unary/elu.h): where
// x < 0, slope * (exp(x) - 1), elsewhere x unchanged; slope is an f32 bit pattern (the SDK
// documents it as greater than 0). The SDK's exp here is its exp_21f approximation; the emulator
// computes exp exactly in fp32.
#pragma once
#include "api/compute/common.h"

namespace ckernel {
ALWI void elu_tile_init() {
  ::tk::rt::emu::init_call();
}
ALWI void elu_tile(uint32_t idst, uint32_t param0) {
  ::tk::rt::emu::unary_tile(::tk::rt::emu::Unary::Elu, idst, tk_emu_detail::bits_to_float(param0));
}
} // namespace ckernel
