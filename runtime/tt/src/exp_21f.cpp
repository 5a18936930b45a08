// exp_21f: the values tt-llk's _sfpu_exp_21f_bf16_ computes, instruction by instruction. Followed:
// tt-llk as vendored in tt-metal a8c5af0f5a26 (tt_metal/tt-llk/tt_llk_wormhole_b0/common/inc/sfpu/
// ckernel_sfpu_exp.h: _float_to_int32_for_exp_21f_, _sfpu_exp_21f_bf16_,
// _sfpu_exp_accurate_<false>; ckernel_sfpu_polyval.h: PolynomialEvaluator, Horner from the highest
// coefficient; ckernel_sfpu_elu.h: _calculate_elu_). The instructions' arithmetic is the ISA's
// (tt-isa-documentation, WormholeB0/TensixTile/TensixCoprocessor: SFPMAD, SFPSWAP, SFPEXEXP,
// SFPEXMAN, SFPSHFT, SFPCAST, SFPSETEXP, SFPSTOCHRND_FloatFloat, SFPSTORE).
//
// exp(x) = 2^(x/ln2): xlog2 = x·(1/ln2) + 127 (one MAD), clamped to [0, 255] (two SWAPs); its
// integer part is the result's exponent field and its fraction f, as a 23-bit integer n, goes
// through c0 + n·(c1 + n·c2) (two MADs), a quadratic for 2^f on [1, 2); SETEXP puts the exponent
// in. With a 16-bit DST the result is rounded to bf16 before the store (float_to_fp16b, which
// the ISA's functional model rounds half up). Consequences worth a test: from x = 128·ln2 = 88.72
// up xlog2 is 255, whose exponent field with the polynomial's nonzero mantissa is a NaN (then
// float_to_fp16b makes it +inf); below -87.34 the exponent field is 0, a denormal the 16-bit
// conversion flushes to 0.
#include "tk_emulator/exp_21f.hpp"

#include <cmath>

#include "compute_ctx.hpp"

namespace tk::rt::emu {
using compute_detail::bits_float;
using compute_detail::float_bits;

namespace {
// The kernel's constants as the compiler loads them (fp32): 1/ln2 = 0x3FB8AA3B, 127, and the
// polynomial's 1.0017248, 7.839635491371155e-08, 4.791750143340323e-15; the clamp's 0 and 255.
constexpr float kOneLn2 = 1.4426950216293334961f;
constexpr float kBias = 127.0f;
constexpr float kC0 = 1.0017248f;
constexpr float kC1 = 7.839635491371155e-08f;
constexpr float kC2 = 4.791750143340323e-15f;

bool denormal_or_zero(std::uint32_t b) {
  return (b & 0x7f800000u) == 0;
}

// SFPSWAP's VEC_MIN_MAX order: fp32 bits compared as sign-magnitude integers.
std::int32_t sign_mag_key(std::uint32_t b) {
  return static_cast<std::int32_t>(
      b ^ (static_cast<std::uint32_t>(static_cast<std::int32_t>(b) >> 30) >> 1));
}
std::uint32_t sfpu_max(std::uint32_t a, std::uint32_t b) {
  return sign_mag_key(a) < sign_mag_key(b) ? b : a;
}
std::uint32_t sfpu_min(std::uint32_t a, std::uint32_t b) {
  return sign_mag_key(a) < sign_mag_key(b) ? a : b;
}

// _float_to_int32_for_exp_21f_: SFPEXEXP (exponent - 127), SFPEXMAN (mantissa with the hidden
// bit), SFPSHFT by a register: left for a non-negative amount, else right; the amount modulo 32.
std::uint32_t float_to_int32_for_exp_21f(std::uint32_t v) {
  const std::int32_t e = static_cast<std::int32_t>((v >> 23) & 0xffu) - 127;
  const std::uint32_t man = 0x800000u | (v & 0x7fffffu);
  return e >= 0 ? man << (static_cast<std::uint32_t>(e) & 31u)
                : man >> (static_cast<std::uint32_t>(-e) & 31u);
}

// SFPCAST, a sign-magnitude int32 to fp32, rounding to nearest even.
std::uint32_t sfpu_cast(std::uint32_t c) {
  const std::uint32_t sign = c & 0x80000000u, mag = c & 0x7fffffffu;
  const std::uint32_t lz = mag ? static_cast<std::uint32_t>(__builtin_clz(mag)) : 157u;
  const std::uint32_t norm = mag << (lz & 31u);
  std::uint32_t d = sign + ((157u - lz) << 23) + (norm >> 8);
  if ((norm & 0x80u) && (norm & 0x17fu))
    d += 1;
  return d;
}
} // namespace

std::uint32_t sfpu_mad(std::uint32_t a, std::uint32_t b, std::uint32_t c) {
  const float fa = denormal_or_zero(a) ? 0.0f : bits_float(a);
  const float fb = denormal_or_zero(b) ? 0.0f : bits_float(b);
  const float fc = denormal_or_zero(c) ? 0.0f : bits_float(c);
  const std::uint32_t d = float_bits(std::fma(fa, fb, fc));
  return denormal_or_zero(d) ? 0u : d;
}

std::uint32_t sfpu_float_to_fp16b(std::uint32_t x) {
  const std::uint32_t e = (x >> 23) & 0xffu;
  if (e == 0)
    return 0;
  if (e == 255)
    return x & 0xff800000u;
  const std::uint32_t discarded = x & 0xffffu;
  x -= discarded;
  if ((discarded << 7) >= 0x400000u)
    x += 0x10000u;
  return x;
}

std::uint32_t exp_21f_bits(std::uint32_t x, bool round_to_bf16) {
  // xlog2 = val * ONE_LN2 + 127.f: one SFPMAD.
  std::uint32_t xlog2 = sfpu_mad(x, float_bits(kOneLn2), float_bits(kBias));
  // vec_min_max(0, xlog2) keeps the larger in xlog2; vec_min_max(xlog2, 255) the smaller.
  xlog2 = sfpu_max(float_bits(0.0f), xlog2);
  xlog2 = sfpu_min(xlog2, float_bits(255.0f));
  const std::uint32_t z = float_to_int32_for_exp_21f(xlog2);
  // exexp_nodebias: the exponent field; exman9: the 23 mantissa bits; int32_to_float (exact).
  const std::uint32_t exponent = (z >> 23) & 0xffu;
  const std::uint32_t frac = sfpu_cast(z & 0x7fffffu);
  // PolynomialEvaluator::eval(frac, c0, c1, c2) = c0 + frac·(c1 + frac·c2): two MADs.
  const std::uint32_t t = sfpu_mad(frac, float_bits(kC2), float_bits(kC1));
  const std::uint32_t p = sfpu_mad(frac, t, float_bits(kC0));
  // setexp(p, exponent): p's sign and mantissa, the exponent field's low 8 bits.
  const std::uint32_t y = (p & 0x807fffffu) | (exponent << 23);
  return round_to_bf16 ? sfpu_float_to_fp16b(y) : y;
}

float exp_21f_tile_value(float x, float scale) {
  // _ckernel_sfpu_exp_accurate_<SCALE_EN, false>: val * sFloat16b(scale) (SFPMUL: a MAD with 0;
  // by 1.0 the identity but for denormals, which the next MAD reads as zero anyway).
  const std::uint32_t v = sfpu_mad(float_bits(x), float_bits(scale), 0u);
  return bits_float(exp_21f_bits(v, true));
}

float elu_21f_value(float x, float slope, bool fp32_dest) {
  // v_if (v < 0.0f): SFPSETCC's LREG_LT0 tests the sign bit, so -0 (and a NaN with its sign
  // bit set) takes the exp branch.
  if ((float_bits(x) & 0x80000000u) == 0)
    return x;
  // _sfpu_exp_21f_bf16_<true>(v) - vConst1 (one MAD-class SFPADD), then s * v_exp (SFPMUL).
  const std::uint32_t e = exp_21f_bits(float_bits(x), false);
  const std::uint32_t em1 = sfpu_mad(e, float_bits(1.0f), float_bits(-1.0f));
  std::uint32_t r = sfpu_mad(float_bits(slope), em1, 0u);
  if (!fp32_dest)
    r = sfpu_float_to_fp16b(r);
  return bits_float(r);
}

// _sfpu_reciprocal_<1> (ckernel_sfpu_recip.h), its constants from _init_sfpu_reciprocal_.
// SFPSETMAN keeps the sign and exponent of one operand and takes the mantissa of the other;
// SFPNOT inverts every bit; SFPSETSGN takes the sign of the other operand.
std::uint32_t sfpu_reciprocal_1_bits(std::uint32_t in) {
  constexpr float kP0 = 0.3232325017452239990234375f, kP1 = 1.4545459747314453125f,
                  kP2 = 2.121212482452392578125f;
  // negative_x = setman(-1.0, in): -(1.m) in [-2, -1).
  const std::uint32_t nx = 0xBF800000u | (in & 0x7fffffu);
  std::uint32_t y = sfpu_mad(float_bits(kP0), nx, float_bits(kP1));
  const std::uint32_t scale_bits = ~in;
  y = sfpu_mad(y, nx, float_bits(kP2));
  // scale = setman(~in, 0): the sign and exponent of ~in (255 - e), mantissa 0; then * 0.5.
  std::uint32_t scale = scale_bits & 0xff800000u;
  const std::uint32_t t = sfpu_mad(nx, y, float_bits(1.0f));
  scale = sfpu_mad(scale, float_bits(0.5f), 0u);
  y = sfpu_mad(y, t, y); // y + y * t
  y = sfpu_mad(y, scale, 0u);
  return (y & 0x7fffffffu) | (in & 0x80000000u); // setsgn(y, in)
}

namespace {
// _sfpu_sigmoid_<false>: exp_21f<true>(-x) (SFPMOV negating: the sign bit flipped), 1 + that
// (SFPADD), _sfpu_reciprocal_<1>.
std::uint32_t sigmoid_21f_bits(float x) {
  const std::uint32_t e = exp_21f_bits(float_bits(x) ^ 0x80000000u, false);
  const std::uint32_t den = sfpu_mad(float_bits(1.0f), e, float_bits(1.0f));
  return sfpu_reciprocal_1_bits(den);
}
} // namespace

float sigmoid_21f_value(float x) {
  return bits_float(sfpu_float_to_fp16b(sigmoid_21f_bits(x)));
}

float silu_21f_value(float x) {
  return bits_float(sfpu_float_to_fp16b(sfpu_mad(float_bits(x), sigmoid_21f_bits(x), 0u)));
}

} // namespace tk::rt::emu
