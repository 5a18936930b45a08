// The two targets' precision (precision.hpp), read off docs/language.md's "Precision" table and
// the hardware figures cited in docs/difftest.md, never off the back ends' code.
#include "interp/precision.hpp"

#include <algorithm>
#include <set>
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

/// Any `@` or reduction builtin in `e`.
bool accumulates(const dsl::Expr& e) {
  if (const auto* b = std::get_if<dsl::Binary>(&e.node))
    return b->op == dsl::BinOp::matmul || accumulates(*b->lhs) || accumulates(*b->rhs);
  if (const auto* c = std::get_if<dsl::Call>(&e.node)) {
    if (c->fn == dsl::Builtin::rowsum || c->fn == dsl::Builtin::colsum ||
        c->fn == dsl::Builtin::rowmax || c->fn == dsl::Builtin::colmax)
      return true;
    for (const dsl::Expr& a : c->args)
      if (accumulates(a))
        return true;
  }
  return false;
}

/// Any `@` or reduction in `body`, or a name bound outside a loop (`outer`) assigned inside it.
bool accumulates(const std::vector<dsl::Stmt>& body, std::set<std::string> outer, bool in_loop) {
  for (const dsl::Stmt& s : body) {
    if (const auto* a = std::get_if<dsl::Assign>(&s.node)) {
      if (accumulates(a->value) || (in_loop && outer.count(a->name.name)))
        return true;
      outer.insert(a->name.name);
    } else if (const auto* acc = std::get_if<dsl::Accumulate>(&s.node)) {
      if (accumulates(acc->value) || in_loop)
        return true;
    } else if (const auto* st = std::get_if<dsl::Store>(&s.node)) {
      if (accumulates(st->value))
        return true;
    } else if (const auto* f = std::get_if<dsl::For>(&s.node)) {
      if (accumulates(f->body, outer, true))
        return true;
    } else if (const auto* p = std::get_if<dsl::Parallel>(&s.node)) {
      if (accumulates(p->body, outer, !outer.empty())) // reduction variables bound before it
        return true;
    }
  }
  return false;
}

} // namespace

bool mentions(const dsl::Expr& e, const std::string& name) {
  if (const auto* n = std::get_if<dsl::Name>(&e.node))
    return n->id.name == name;
  if (const auto* b = std::get_if<dsl::Binary>(&e.node))
    return mentions(*b->lhs, name) || mentions(*b->rhs, name);
  if (const auto* c = std::get_if<dsl::Call>(&e.node))
    for (const dsl::Expr& a : c->args)
      if (mentions(a, name))
        return true;
  return false;
}

bool dst_fp32(const dsl::Kernel& k) {
  for (const dsl::Option& o : k.options)
    if (o.key.name == "fp32_acc")
      if (const auto* b = std::get_if<bool>(&o.value); b && *b)
        return true;
  return has_f32_tensor(k) || accumulates(k.body, {}, false);
}

Precision cpu_precision(const dsl::Kernel&) {
  Precision p;
  p.op = p.acc = p.scalar = p.carried = kF32;
  p.fn = kFn;
  p.fn_arg = kFnArg;
  p.tiny = kTiny;
  p.round_outputs = true;
  p.fp32_names = true;
  return p;
}

Precision tt_precision(const dsl::Kernel& k) {
  const bool f32 = has_f32_tensor(k);
  Precision p = cpu_precision(k);
  // Results live in DST: fp32 in a kernel with an f32 tensor, `@`, a reduction or a carried value,
  // else 16-bit, which rounds every result to bf16. Between DST sections an fp32 DST keeps its
  // values in Float32 CBs, except an operand of the FPU, which goes through an intermediate of the
  // tensors' format (bf16 unless the kernel has an f32 tensor). Partial sums of @ and the
  // reductions stay in DST.
  p.fp32_names = dst_fp32(k);
  p.op = f32 || p.fp32_names ? kF32 : kBf16;
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
  // With an fp32 DST (docs/language.md, "Sums"): + - * run on the SFPU, their operands whole in
  // DST (copy_tile, unary_bcast), so no broadcast splits a value into hi and lo; named values live
  // in dest-only Float32 CBs, and the FPU reads a copy of one, or of any computed value, packed
  // into an intermediate of the tensors' format and unpacked through SrcA/SrcB (TF32).
  // The SFPU's exp_21f (docs/emulator.md, "The 16-bit DST's exp"): elu at both widths, exp,
  // sigmoid and silu with a 16-bit DST; the bf16 rounding after it is `op`'s.
  p.exp21f = 0.001730;
  p.exp21f_recip = 0.000103;
  if (p.fp32_names) {
    p.sfpu_arith = true;
    p.fpu_inter = f32 ? 0.0 : kBf16;
    p.named_operand = std::max(0x1p-10, p.fpu_inter);
    if (!f32)
      p.split_sum = kBf16 * kBf16;
  }
  return p;
}

} // namespace tk::interp
