// The two targets' precision (precision.hpp), read off docs/language.md's "Precision" table and
// the hardware figures cited in docs/difftest.md, never off the back ends' code.
#include "interp/precision.hpp"

#include <string>
#include <variant>

namespace tk::interp {
namespace {

// Unit roundoffs: 2^-p for a p-bit significand, rounding to nearest even.
constexpr double kF32 = 0x1p-24;
constexpr double kBf16 = 0x1p-8;
// glibc's float exp, log, erf, tanh, sqrt are within 1-2 ulps; sigmoid, silu and gelu compose
// two or three of them in float: 8 ulps of the result, and 4 ulps of |x| for the cancellation in
// 1 + erf(x / sqrt(2)) and 1 + exp(-x) near -inf.
constexpr double kFn = 8 * kF32;
constexpr double kFnArg = 4 * kF32;
// The smallest normal float: a result below it may be flushed to zero.
constexpr double kTiny = 0x1p-126;

bool has_f32_tensor(const dsl::Kernel& k) {
  for (const auto* params : {&k.inputs, &k.outputs})
    for (const dsl::Param& p : *params)
      if (p.is_tensor && p.dtype == dsl::DType::f32)
        return true;
  return false;
}

std::string fidelity(const dsl::Kernel& k) {
  for (const dsl::Option& o : k.options)
    if (o.key.name == "math_fidelity")
      if (const auto* s = std::get_if<std::string>(&o.value))
        return *s;
  return "HiFi4";
}

} // namespace

Precision cpu_precision(const dsl::Kernel&) {
  Precision p;
  p.op = p.acc = p.scalar = kF32;
  p.fn = kFn;
  p.fn_arg = kFnArg;
  p.tiny = kTiny;
  p.round_outputs = true;
  return p;
}

Precision tt_precision(const dsl::Kernel& k) {
  const bool f32 = has_f32_tensor(k);
  Precision p = cpu_precision(k);
  // Results live in DST (fp32, or bf16 in a 16-bit DST) and, between DST sections, in circular
  // buffers of the tensors' format: bf16 unless the kernel has an f32 tensor. Partial sums of @
  // and the reductions stay in DST, which is fp32 in every kernel that has them.
  p.op = f32 ? kF32 : kBf16;
  // Float32 operands reach the FPU as TF32 (10 mantissa bits, truncated).
  p.operand = f32 ? 0x1p-10 : 0.0;
  // Wormhole's multipliers take 5 bits of SrcA (hidden bit + 4 of the mantissa) and 7 of SrcB
  // (hidden + 6) per pass (tt-metal tech_reports/matrix_engine, "Math Fidelity"): LoFi drops
  // SrcA's low mantissa bits (< 2^-4) and SrcB's (< 2^-6), HiFi2 adds SrcA's low bits, HiFi3
  // SrcB's, leaving their product (< 2^-10); HiFi4 covers 8 of SrcA's mantissa bits, all of
  // bf16's but not TF32's 10 (< 2^-8).
  const std::string f = fidelity(k);
  p.product = f == "LoFi"    ? 0x1p-4 + 0x1p-6 + 0x1p-10
              : f == "HiFi2" ? 0x1p-6
              : f == "HiFi3" ? 0x1p-10
                             : 0.0;
  if (f32)
    p.product += 0x1p-8;
  return p;
}

} // namespace tk::interp
