// exp_tile<true>: the values of tt-llk's approximate exp, instruction by instruction. Followed:
// tt-llk as vendored in tt-metal a8c5af0f5a26 (tt_metal/tt-llk/tt_llk_wormhole_b0/common/inc/sfpu/
// ckernel_sfpu_exp.h: _init_exponential_ and _calculate_exponential_, APPROXIMATION_MODE), whose
// exp_tile (tt_metal/hw/inc/api/compute/eltwise_unary/exp.h) ignores scale_en and the scale
// argument in approximate mode: the init bakes the scale into the constants. The instructions'
// arithmetic is the ISA's (tt-isa-documentation, WormholeB0/TensixTile/TensixCoprocessor: SFPLOAD,
// SFPSWAP, SFPMAD, SFPSTOCHRND_FloatInt, SFPSHFT, SFPSHFT2, SFPSETSGN, SFPSTORE).
//
// Both kernels build 2^(x/ln2) as Schraudolph does: i = A·x + (B - C) with A = 256/ln2, B = 127·256
// and C = 11.18, rounded to a 16-bit integer whose bits, shifted left by 15, are the exponent and
// the top 8 mantissa bits of an fp32: a linear mantissa between powers of two.
//  - ClampToNegative (LOADMACRO sequences 1 and 0): SWAP keeps max(x, -88.5 / scale) and stores it
//    back to DST; LOAD, MAD i = A·x + (B-C), STOCH_RND to an unsigned 16-bit integer (|i|, at most
//    65535), SHFT left 15, STORE.
//  - None (sequence 0 plus a discrete SHFT2): MAD, STOCH_RND to a sign-magnitude 16-bit integer
//    (at most 32767: outputs saturate at 1.996 from x = 0.72 up), SHFT2 left 15, SETSGN from the
//    rounded integer (negative garbage below about -88: callers zero it with the packer's ReLU),
//    STORE.
#include "tk_emulator/exp_approx.hpp"

#include <cmath>
#include <cstdio>
#include <string>

#include "compute_ctx.hpp"
#include "state.hpp"
#include "timing.hpp"

namespace tk::rt::emu {
using namespace compute_detail;

namespace {
// _init_exponential_'s constants: A = 256 · (1/ln2) in fp32 (0x43b8aa3b), B - C (0x46fde9a3), the
// clamp at -88.5; each scaled in fp32 by the init's scale (A·scale, -88.5 / scale).
constexpr float kLn2Recip = 1.4426950408889634f;
constexpr float kA = 256.0f * kLn2Recip;
constexpr float kBMinusC = 32500.818359375f;
constexpr float kThreshold = -88.5f;

bool is_denormal_or_zero(std::uint32_t b) {
  return (b & 0x7f800000u) == 0;
}

// SFPMAD: VA·VB + VC with one rounding to nearest even (the ISA: partially fused; a fused
// multiply-add is the closest model), denormal inputs read as zero, a denormal or -0 result
// flushed to +0.
std::uint32_t sfpmad(float a, float b, float c) {
  if (is_denormal_or_zero(float_bits(a)))
    a = 0.0f;
  if (is_denormal_or_zero(float_bits(b)))
    b = 0.0f;
  if (is_denormal_or_zero(float_bits(c)))
    c = 0.0f;
  const std::uint32_t d = float_bits(std::fma(a, b, c));
  return is_denormal_or_zero(d) ? 0u : d;
}

// SFPSTOCHRND, fp32 to a bounded sign-magnitude integer, deterministic (the kernels' stochastic
// bit is 0): round to nearest, ties away from zero; |x| < 0.5 gives 0, |x| >= 2^16 and NaN the
// largest magnitude. `keep_sign` false (the UINT16 mode) takes the absolute value.
std::uint32_t stochrnd_to_int(std::uint32_t c, std::uint32_t max_magnitude, bool keep_sign) {
  std::uint32_t sign = keep_sign ? (c & 0x80000000u) : 0u;
  const int exp = static_cast<int>((c >> 23) & 0xffu) - 127;
  std::uint64_t mag;
  if (exp < -1)
    return 0;
  if (exp >= 16) {
    mag = max_magnitude;
  } else {
    mag = 0x800000u | (c & 0x7fffffu);
    mag = exp >= 0 ? mag << exp : mag >> -exp;
    mag = (mag >> 23) + ((mag & 0x7fffffu) >= 0x400000u ? 1u : 0u);
    if (mag > max_magnitude)
      mag = max_magnitude;
    if (mag == 0)
      sign = 0;
  }
  return sign + static_cast<std::uint32_t>(mag);
}

// SFPSTORE into a 16-bit DST (MOD0_FMT_SRCB resolves to BF16 without fp32 DST): denormals flushed
// to signed zero, the mantissa truncated toward zero.
std::uint32_t store_bf16(std::uint32_t b) {
  if ((b & 0x7f800000u) == 0)
    b &= 0x80000000u;
  return b & 0xffff0000u;
}

// SFPSWAP with SFPSWAP_MOD1_VEC_MIN_MAX compares fp32 bits as sign-magnitude integers: the total
// order -NaN < -inf < ... < -0 < +0 < ... < +inf < +NaN.
bool sign_mag_smaller(std::uint32_t c, std::uint32_t d) {
  c ^= static_cast<std::uint32_t>(static_cast<std::int32_t>(c) >> 30) >> 1;
  d ^= static_cast<std::uint32_t>(static_cast<std::int32_t>(d) >> 30) >> 1;
  return static_cast<std::int32_t>(c) < static_cast<std::int32_t>(d);
}

// What the kernel computes on one element, the constants given (as the init loaded them).
std::uint32_t exp_element(std::uint32_t x, float a, float threshold, bool clamp, bool fp32_dest) {
  const auto store = [fp32_dest](std::uint32_t b) { return fp32_dest ? b : store_bf16(b); };
  if (clamp) {
    // Sequence 1: LOAD, SWAP (the larger of x and the threshold), STORE back to DST.
    const std::uint32_t t = float_bits(threshold);
    const std::uint32_t y = store(sign_mag_smaller(x, t) ? t : x);
    // Sequence 0: LOAD, MAD, STOCH_RND (FP32_TO_UINT16), SHFT left 15, STORE.
    const std::uint32_t i = stochrnd_to_int(sfpmad(a, bits_float(y), kBMinusC), 65535u, false);
    return store(i << 15);
  }
  // MAD, STOCH_RND (FP32_TO_INT16), SHFT2 left 15 (the sign bit shifted out), SETSGN from the
  // rounded integer, STORE.
  const std::uint32_t i = stochrnd_to_int(sfpmad(a, bits_float(x), kBMinusC), 32767u, true);
  return store((i & 0x80000000u) | ((i << 15) & 0x7fffffffu));
}

std::string hex(std::uint32_t v, int digits) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%0*X", digits, v);
  return buf;
}

float init_scale(std::uint32_t scale_bits) {
  return bits_float(scale_bits);
}
} // namespace

std::uint32_t exp_approx_bits(std::uint32_t x, std::uint32_t scale_bits, bool clamp,
                              bool fp32_dest) {
  const float s = init_scale(scale_bits);
  return exp_element(x, kA * s, kThreshold / s, clamp, fp32_dest);
}

void exp_approx_init(std::uint32_t scale_bits, bool clamp) {
  Compute c = ctx("exp_tile_init");
  c.dst.exp_approx = clamp ? DstState::ExpApprox::Clamp : DstState::ExpApprox::NoClamp;
  c.dst.exp_approx_scale = scale_bits;
}

void exp_approx_forget() {
  Compute c = ctx("exp_tile_init");
  c.dst.exp_approx = DstState::ExpApprox::None;
  c.dst.exp_approx_cleared_by = "exp_tile_init<false>";
}

void exp_approx_tile(std::uint32_t idst, bool clamp, int iterations, int vector_mode,
                     std::int32_t scale_bf16) {
  const char* clamping = clamp ? "InputClamping::ClampToNegative" : "InputClamping::None";
  // tt-llk's _calculate_exponential_: the clamped kernel is unrolled for 8 rows a face whatever
  // ITERATIONS says; the unclamped one has an 8-row and a 32-row form.
  const char* name = "exp_approx";
  if (!clamp) {
    if (iterations == 8)
      name = "exp_approx_noclamp";
    else if (iterations == 32 && vector_mode == 0) // VectorMode::None: the whole tile at once
      name = "exp_approx_noclamp_32";
    else
      not_modelled("exp_tile<true> without clamping: only 8 rows a face, or 32 with "
                   "VectorMode::None");
  }
  Compute c = ctx("SFPU op");
  const DstState::ExpApprox want =
      clamp ? DstState::ExpApprox::Clamp : DstState::ExpApprox::NoClamp;
  if (c.dst.exp_approx != want)
    fail(std::string("exp_tile<true, ..., ") + clamping +
         ">: the SFPU is not set up for it; call " + "exp_tile_init<true, scale, " + clamping +
         ">() first (the kernel runs the macro program and the constants its init loads; " +
         (c.dst.exp_approx != DstState::ExpApprox::None
              ? std::string("the last init was for the other clamping")
          : c.dst.exp_approx_cleared_by.empty()
              ? std::string("no approximate exp init since the kernel started")
              : "no approximate exp init since " + c.dst.exp_approx_cleared_by +
                    ", which reloads the programmable constants it reads") +
         ")");
  if (scale_bf16 >= 0 && static_cast<std::uint32_t>(scale_bf16) != c.dst.exp_approx_scale >> 16)
    violation(
        "exp_tile<true> scale",
        "exp_tile<true, true>(..., scale = " + hex(static_cast<std::uint32_t>(scale_bf16), 4) +
            "): tt-llk's approximate exp ignores the scale argument and multiplies by the "
            "scale of exp_tile_init<true, scale> (" +
            hex(c.dst.exp_approx_scale, 8) + "); pass the scale to the init");
  // The faces the call covers (tt-llk's _llk_math_eltwise_unary_sfpu_params_): RC all four, R
  // faces 0 and 1, C faces 0 and 2, None one call: face 0, or with 32 unclamped rows the tile.
  bool faces[4] = {true, false, false, false};
  if (vector_mode == 4)
    faces[1] = faces[2] = faces[3] = true;
  else if (vector_mode == 1)
    faces[1] = true;
  else if (vector_mode == 2)
    faces[2] = true;
  else if (vector_mode == 0 && !clamp && iterations == 32)
    faces[1] = faces[2] = faces[3] = true;
  else if (vector_mode != 0)
    not_modelled("exp_tile<true> with a vector mode other than RC, R, C or None");
  Tile& d = dst_tile(c, "SFPU op", idst);
  if (math_on()) {
    const float s = init_scale(c.dst.exp_approx_scale);
    const float a = kA * s, threshold = kThreshold / s;
    for (int f = 0; f < 4; ++f)
      if (faces[f])
        for (int e = f * 256; e < f * 256 + 256; ++e)
          d[e] =
              bits_float(exp_element(float_bits(d[e]), a, threshold, clamp, c.cc.fp32_dest_acc_en));
  }
  store(c, d);
  timing::sfpu_call(c.f, name, sfpu_mode(vector_mode));
}

} // namespace tk::rt::emu
