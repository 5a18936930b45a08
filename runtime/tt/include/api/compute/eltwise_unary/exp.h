// exp on a DST tile, in place (mirrors tt_metal/hw/inc/api/compute/eltwise_unary/exp.h).
#pragma once
#include "api/compute/common.h"
#include "tk_emulator/exp_approx.hpp"

namespace ckernel {
template <bool approx = false, uint32_t scale = 0x3F800000,
          InputClamping clamping = InputClamping::ClampToNegative>
ALWI void exp_tile_init() {}
template <bool approx = false, bool scale_en = false,
          InputClamping clamping = InputClamping::ClampToNegative, int iterations = 8>
ALWI void exp_tile(uint32_t idst, int vector_mode = (int)VectorMode::RC,
                   uint16_t scale = p_sfpu::kCONST_1_FP16B) {
  const float s =
      scale_en ? tk_emu_detail::bits_to_float(static_cast<uint32_t>(scale) << 16) : 1.0f;
  if constexpr (approx) // the same values, tt-llk's approximate kernel's time
    ::tk::rt::emu::exp_approx_tile(idst, s, clamping == InputClamping::ClampToNegative, iterations,
                                   vector_mode);
  else
    ::tk::rt::emu::unary_tile(::tk::rt::emu::Unary::Exp, idst, s, 0.0f, 0.0f, vector_mode);
}
} // namespace ckernel
