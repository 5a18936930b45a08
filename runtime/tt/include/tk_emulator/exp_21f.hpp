// The exp that tt-llk's accurate SFPU kernels run where DST is 16-bit, and inside elu at any DST
// width: _sfpu_exp_21f_bf16_ (Moroz et al. 2022, "exp_21f"), instruction by instruction
// (runtime/tt/src/exp_21f.cpp; docs/emulator.md, "The 16-bit DST's exp"). Its own header, so that
// tests can check single values.
#pragma once

#include <cstdint>

namespace tk::rt::emu {

/// The bits _sfpu_exp_21f_bf16_<is_fp32_dest_acc_en> returns for the fp32 value `x` (bits): with
/// `round_to_bf16` (the template argument false) the result passes float_to_fp16b, otherwise it
/// is the LReg's fp32 value.
std::uint32_t exp_21f_bits(std::uint32_t x, bool round_to_bf16);

/// The SFPU's fp32 operations the kernels around exp_21f use, as the ISA defines them: SFPMAD
/// (a·b + c, one rounding to nearest even, denormal inputs and outputs zero) and SFPSTOCHRND's
/// FP32_TO_FP16B without stochastic rounding (float_to_fp16b: half up, denormals to zero, NaN to
/// infinity).
std::uint32_t sfpu_mad(std::uint32_t a, std::uint32_t b, std::uint32_t c);
std::uint32_t sfpu_float_to_fp16b(std::uint32_t x);

/// exp_tile<false>(x · scale) in a 16-bit DST: SFPMUL by the scale (1.0f without scale_en), then
/// exp_21f rounded to bf16. The value a 16-bit DST stores.
float exp_21f_tile_value(float x, float scale);
/// elu_tile's value below 0 (tt-llk _calculate_elu_): slope · (exp_21f(x) − 1), rounded to bf16
/// by float_to_fp16b when DST is 16-bit; x itself from 0 up.
float elu_21f_value(float x, float slope, bool fp32_dest);

/// tt-llk's _sfpu_reciprocal_<1> (the 16-bit DST's: a quadratic first guess from the constants
/// _init_sfpu_reciprocal_ loads, one Newton step), the LReg's fp32 bits, before any rounding.
std::uint32_t sfpu_reciprocal_1_bits(std::uint32_t x);
/// sigmoid_tile and silu_tile with a 16-bit DST (calculate_sigmoid, calculate_silu): 1 / (1 +
/// exp_21f(-x)) through _sfpu_reciprocal_<1>, silu times x, rounded by float_to_fp16b.
float sigmoid_21f_value(float x);
float silu_21f_value(float x);

} // namespace tk::rt::emu
