// exp on a DST tile, in place (mirrors tt_metal/hw/inc/api/compute/eltwise_unary/exp.h).
#pragma once
#include "api/compute/common.h"
#include "tk_emulator/exp_approx.hpp"

namespace ckernel {
// With approx, the init loads the approximate kernel's constants, the scale among them (tt-llk's
// _init_exponential_<true, scale, clamp>); the accurate init reloads those registers.
template <bool approx = false, uint32_t scale = 0x3F800000,
          InputClamping clamping = InputClamping::ClampToNegative>
ALWI void exp_tile_init() {
  ::tk::rt::emu::init_call();
  if constexpr (approx)
    ::tk::rt::emu::exp_approx_init(scale, clamping == InputClamping::ClampToNegative);
  else
    ::tk::rt::emu::exp_approx_forget();
}
// With approx, the values and the time of tt-llk's approximate kernel, which ignores scale_en and
// `scale` (the init's scale applies).
template <bool approx = false, bool scale_en = false,
          InputClamping clamping = InputClamping::ClampToNegative, int iterations = 8>
ALWI void exp_tile(uint32_t idst, int vector_mode = (int)VectorMode::RC,
                   uint16_t scale = p_sfpu::kCONST_1_FP16B) {
  if constexpr (approx) {
    ::tk::rt::emu::exp_approx_tile(idst, clamping == InputClamping::ClampToNegative, iterations,
                                   vector_mode, scale_en ? static_cast<int32_t>(scale) : -1);
  } else {
    const float s =
        scale_en ? tk_emu_detail::bits_to_float(static_cast<uint32_t>(scale) << 16) : 1.0f;
    ::tk::rt::emu::unary_tile(::tk::rt::emu::Unary::Exp, idst, s, 0.0f, 0.0f, vector_mode);
  }
}
} // namespace ckernel
