// The SFPU's ops on DST tiles, as the SDK's compute API calls them: unary_tile (exp, relu, recip,
// the scalar ops, ...), dst_binary_tile (max, min, add, comparisons of two DST tiles) and
// where_tile; each checked on DST like an FPU op and timed by its own cost (timing::
// sfpu_tile_cycles: the architecture's sfpu_tile table). Without the arithmetic
// (TK_EMULATOR_MATH=off) only the checks and the timing run.
#include <algorithm>
#include <array>
#include <cmath>
#include <string>

#include "compute_ctx.hpp"
#include "state.hpp"
#include "timing.hpp"
#include "tk_emulator/exp_21f.hpp"
#include "tk_emulator/timing_params.hpp"

namespace tk::rt::emu {
using namespace compute_detail;

namespace {
// The faces (16x16, in the tile's face order) an SFPU call on VectorMode `m` writes: tt-llk's
// _llk_math_eltwise_{unary,binary}_sfpu_params_ runs the kernel (its ITERATIONS rows: one face)
// on faces 0-3 on RC, on 0 and 1 on R, on 0 and 2 on C (the tile's left 16 columns) and once, on
// face 0, on None; the faces it skips keep what DST held, as on the chip.
std::array<bool, 4> sfpu_faces(timing::SfpuMode m) {
  switch (m) {
  case timing::SfpuMode::RC:
    return {true, true, true, true};
  case timing::SfpuMode::R:
    return {true, true, false, false};
  case timing::SfpuMode::C:
    return {true, false, true, false};
  case timing::SfpuMode::None:
    break;
  }
  return {true, false, false, false};
}

// The SFPU op `op` on every element of the faces `faces` of `d`; `fp32_dest` selects the kernels'
// DST-width paths.
void sfpu_math(Unary op, Tile& d, float p, float p1, float p2, bool fp32_dest,
               const std::array<bool, 4>& faces) {
  for (int e = 0; e < 1024; ++e) {
    if (!faces[e / 256])
      continue;
    float& v = d[e];
    const float x = v;
    switch (op) {
    case Unary::Exp: // fp32 DST: Cody-Waite + Taylor, < 1 ulp; 16-bit: exp_21f (exp_21f.cpp)
      v = fp32_dest ? std::exp(x * p) : exp_21f_tile_value(x, p);
      break;
    case Unary::Relu:
      v = x > 0 ? x : 0.0f;
      break;
    case Unary::ReluMax:
      v = std::min(std::max(x, 0.0f), p);
      break;
    case Unary::ReluMin:
      v = x > p ? x : 0.0f;
      break;
    case Unary::LeakyRelu:
      v = x >= 0 ? x : x * p;
      break;
    case Unary::Gelu:
      v = 0.5f * x * (1.0f + std::erf(x * 0.70710678f));
      break;
    case Unary::Recip:
      v = 1.0f / x;
      break;
    case Unary::Sqrt:
      v = std::sqrt(x);
      break;
    case Unary::Rsqrt:
      v = 1.0f / std::sqrt(x);
      break;
    case Unary::Log:
      v = std::log(x);
      break;
    case Unary::Sigmoid: // 16-bit: exp_21f and _sfpu_reciprocal_<1> (exp_21f.cpp)
      v = fp32_dest ? 1.0f / (1.0f + std::exp(-x)) : sigmoid_21f_value(x);
      break;
    case Unary::Tanh:
      v = std::tanh(x);
      break;
    case Unary::Abs:
      v = std::fabs(x);
      break;
    case Unary::Neg:
      v = -x;
      break;
    case Unary::Silu:
      v = fp32_dest ? x / (1.0f + std::exp(-x)) : silu_21f_value(x);
      break;
    case Unary::Erf:
      v = std::erf(x);
      break;
    case Unary::Hardsigmoid:
      v = std::clamp(x / 6.0f + 0.5f, 0.0f, 1.0f);
      break;
    case Unary::Square:
      v = x * x;
      break;
    case Unary::Exp2:
      v = std::exp2(x);
      break;
    case Unary::Log1p: // NaN below -1, -inf at -1, like the SFPU's log1p
      v = std::log1p(x);
      break;
    case Unary::Sin:
      v = std::sin(x);
      break;
    case Unary::Cos:
      v = std::cos(x);
      break;
    case Unary::Sign:
      // The SFPU's sign: +-0 give 0, otherwise -1 when the sign bit is set (its `v < 0` tests the
      // sign bit), else 1; so a NaN gives -1 or 1, not NaN.
      v = x == 0.0f ? 0.0f : (std::signbit(x) ? -1.0f : 1.0f);
      break;
    case Unary::Floor:
      v = std::floor(x);
      break;
    case Unary::Elu: // the SDK's _calculate_elu_: slope * (exp_21f(x) - 1) below 0, else x
      v = elu_21f_value(x, p, fp32_dest);
      break;
    case Unary::Softplus: {
      // The SDK's calculate_softplus: t = beta * x; below the threshold (p2)
      // (max(t, 0) + log(1 + exp(-|t|))) / beta, with 1/beta given (p1); from it on, x unchanged.
      const float t = p * x;
      if (t < p2)
        v = p1 * (std::max(t, 0.0f) + std::log1p(std::exp(-std::fabs(t))));
      break;
    }
    case Unary::AddScalar:
      v = x + p;
      break;
    case Unary::SubScalar:
      v = x - p;
      break;
    case Unary::MulScalar:
      v = x * p;
      break;
    case Unary::DivScalar:
      v = x / p;
      break;
    case Unary::RsubScalar:
      v = p - x;
      break;
    case Unary::Fill:
      v = p;
      break;
    }
  }
}

} // namespace

// The faces a call on tt-llk's VectorMode `vector_mode` (llk_defs.h) runs; RC_custom and the
// others are not modelled.
timing::SfpuMode compute_detail::sfpu_mode(int vector_mode) {
  switch (vector_mode) {
  case 0:
    return timing::SfpuMode::None;
  case 1:
    return timing::SfpuMode::R;
  case 2:
    return timing::SfpuMode::C;
  case 4:
    return timing::SfpuMode::RC;
  default:
    not_modelled(
        ("an SFPU call on VectorMode " + std::to_string(vector_mode) + " (only None, R, C and RC)")
            .c_str());
  }
}

void unary_tile(Unary op, std::uint32_t idst, float p) {
  unary_tile(op, idst, p, 0.0f, 0.0f);
}

void unary_tile(Unary op, std::uint32_t idst, float p, float p1, float p2, int vector_mode) {
  const timing::SfpuMode mode = sfpu_mode(vector_mode);
  Compute c = ctx("SFPU op");
  Tile& d = dst_tile(c, "SFPU op", idst);
  if (math_on())
    sfpu_math(op, d, p, p1, p2, c.cc.fp32_dest_acc_en, sfpu_faces(mode));
  store(c, d);
  // The counter names are the SDK's calls without "_tile", the names of the cost table
  // (timing::sfpu_tile_cycles).
  static constexpr const char* kNames[] = {
      "exp",       "relu",      "relu_max",   "relu_min",    "leaky_relu", "gelu",      "recip",
      "sqrt",      "rsqrt",     "log",        "sigmoid",     "tanh",       "abs",       "negative",
      "square",    "silu",      "erf",        "hardsigmoid", "exp2",       "log1p",     "sin",
      "cos",       "sign",      "floor",      "softplus",    "elu",        "add_unary", "sub_unary",
      "mul_unary", "div_unary", "rsub_unary", "fill"};
  // recip_tile's kernel follows the compute kernel's math_approx_mode (APPROX): with it the
  // legacy kernel runs two Newton steps instead of three and does not round to bf16 (tt-llk
  // ckernel_sfpu_rsqrt_compat.h), its own table entry. The other calls ttgen and the baselines
  // emit in an approximate kernel are priced as their accurate kernels (docs/timing.md).
  const bool approx_recip = op == Unary::Recip && c.cc.math_approx_mode;
  timing::sfpu_call(c.f, approx_recip ? "recip_approx" : kNames[static_cast<int>(op)], mode);
}

void dst_binary_tile(DstBinary op, std::uint32_t idst0, std::uint32_t idst1, std::uint32_t odst,
                     int vector_mode) {
  const timing::SfpuMode mode = sfpu_mode(vector_mode);
  static constexpr const char* kNames[] = {"binary_max_tile", "binary_min_tile", "add_binary_tile",
                                           "sub_binary_tile", "mul_binary_tile", "eq_binary_tile",
                                           "ne_binary_tile",  "lt_binary_tile",  "gt_binary_tile",
                                           "le_binary_tile",  "ge_binary_tile"};
  const char* name = kNames[static_cast<int>(op)];
  Compute c = ctx(name);
  const Tile& a = dst_tile(c, name, idst0);
  const Tile& b = dst_tile(c, name, idst1);
  Tile& o = dst_tile(c, name, odst);
  // Element by element over the mode's faces (o may be a or b); the others keep o's values.
  const std::array<bool, 4> faces = sfpu_faces(mode);
  for (int i = 0; i < 1024 && math_on(); ++i) {
    if (!faces[i / 256])
      continue;
    switch (op) {
    case DstBinary::Max:
      o[i] = std::max(a[i], b[i]);
      break;
    case DstBinary::Min:
      o[i] = std::min(a[i], b[i]);
      break;
    case DstBinary::Add:
      o[i] = a[i] + b[i];
      break;
    case DstBinary::Sub:
      o[i] = a[i] - b[i];
      break;
    case DstBinary::Mul:
      o[i] = a[i] * b[i];
      break;
    // Comparisons write 1.0 where they hold and 0.0 elsewhere (IEEE: NaN compares unequal).
    case DstBinary::Eq:
      o[i] = a[i] == b[i] ? 1.0f : 0.0f;
      break;
    case DstBinary::Ne:
      o[i] = a[i] != b[i] ? 1.0f : 0.0f;
      break;
    case DstBinary::Lt:
      o[i] = a[i] < b[i] ? 1.0f : 0.0f;
      break;
    case DstBinary::Gt:
      o[i] = a[i] > b[i] ? 1.0f : 0.0f;
      break;
    case DstBinary::Le:
      o[i] = a[i] <= b[i] ? 1.0f : 0.0f;
      break;
    case DstBinary::Ge:
      o[i] = a[i] >= b[i] ? 1.0f : 0.0f;
      break;
    }
  }
  store(c, o);
  timing::sfpu_call(c.f, name, mode);
}

void where_tile(bool float_format, std::uint32_t ic, std::uint32_t ia, std::uint32_t ib,
                std::uint32_t odst) {
  if (!float_format)
    not_modelled("where_tile on an integer DataFormat");
  Compute c = ctx("where_tile");
  const Tile& cond = dst_tile(c, "where_tile", ic);
  const Tile& a = dst_tile(c, "where_tile", ia);
  const Tile& b = dst_tile(c, "where_tile", ib);
  Tile& o = dst_tile(c, "where_tile", odst);
  // Element by element: o may be any of the three.
  for (int i = 0; i < 1024 && math_on(); ++i)
    o[i] = cond[i] != 0.0f ? a[i] : b[i];
  store(c, o);
  timing::sfpu_call(c.f, "where_tile", timing::SfpuMode::RC);
}

} // namespace tk::rt::emu
