// softplus on a DST tile, in place (mirrors tt_metal/hw/inc/api/compute/eltwise_unary/softplus.h,
// whose softplus_tile evaluates log(1 + exp(-|t|)) with a polynomial and an exp tail): with
// t = beta * x, (max(t, 0) + log(1 + exp(-|t|))) / beta where t < threshold, else x unchanged. The
// three parameters are f32 bit patterns, beta_reciprocal = 1 / beta given by the caller.
#pragma once
#include "api/compute/common.h"

namespace ckernel {
ALWI void softplus_tile_init() {
  ::tk::rt::emu::init_call();
}
ALWI void softplus_tile(uint32_t idst, uint32_t beta, uint32_t beta_reciprocal,
                        uint32_t threshold) {
  ::tk::rt::emu::unary_tile(
      ::tk::rt::emu::Unary::Softplus, idst, tk_emu_detail::bits_to_float(beta),
      tk_emu_detail::bits_to_float(beta_reciprocal), tk_emu_detail::bits_to_float(threshold));
}
} // namespace ckernel
