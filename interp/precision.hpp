// How a target rounds, as the interpreter's error bound sees it. Next to each value the
// interpreter propagates a first-order bound on |computed - exact| for a target that computes
// with this precision (interp.hpp, run_bounded); Precision{} is exact arithmetic, where every
// bound is 0. The rules and where each number comes from are in docs/difftest.md.
#pragma once

#include "dsl/ast.hpp"

#include <string>

namespace tk::interp {

struct Precision {
  /// Relative rounding of every tile result the target keeps (in DST or in an intermediate
  /// circular buffer): 2^-24 for fp32, 2^-8 for bf16 (round to nearest even, 8-bit significand).
  double op = 0;
  /// Relative rounding of each partial sum inside `@`, rowsum and colsum.
  double acc = 0;
  /// Relative error of every tile operand as the target reads it (f32 through TT's unpacker as
  /// TF32: 10 mantissa bits, truncated, < 2^-10).
  double operand = 0;
  /// Relative error of each product of `@` and of tile * tile (TT's math fidelity).
  double product = 0;
  /// Relative error of the element-wise functions (exp, log, ...) on an exact argument, and their
  /// absolute error per unit of |argument| (the cancellation in gelu and silu near -inf).
  double fn = 0;
  double fn_arg = 0;
  /// Relative error of tt-llk's exp_21f (the polynomial's, before any rounding), which TT's SFPU
  /// computes for `elu` at either DST width and for `exp`, `sigmoid` and `silu` with a 16-bit DST
  /// (docs/emulator.md): 0.1730% (emulator_tests Exp21f.*: its quadratic's +0.1725% at f = 0); 0
  /// on the CPU. `sigmoid` and `silu` add the one-Newton-step reciprocal's 0.0103%
  /// (`exp21f_recip`).
  double exp21f = 0;
  double exp21f_recip = 0;
  /// Relative rounding of each scalar operation (scalar expressions such as 1.0 / N are computed
  /// once, in f32, by the host code of both targets): 2^-24.
  double scalar = 0;
  /// Absolute slack of each rounding: a result below the normal range may be flushed to zero.
  double tiny = 0;
  /// Round every stored value to its output's dtype (bf16: 2^-8, f32: 2^-24).
  bool round_outputs = false;
  /// Relative rounding of a carried sum's combine (`acc += E`, `o = o * c + E`, a reduction
  /// variable's chunk and combine) and of an `@`/rowsum/colsum that accumulates straight into it:
  /// fp32 on both targets, 2^-24.
  double carried = 0;
  /// Relative error of an FPU operand that is an fp32 named value (a carried sum, or any named
  /// value with Precision::sfpu_arith, read other than by its own combine): TT reads a copy, as
  /// TF32 or through the kernel's intermediate format (max(2^-10, op)); 0 on the CPU.
  double named_operand = 0;
  /// Whether carried sums and named values are kept in fp32 (the CPU; TT with an fp32 DST).
  bool fp32_names = false;
  /// TT with an fp32 DST (docs/language.md, "Precision"): `+`, `-`, `*` and the comparisons of
  /// two tiles, broadcasts included, run on the SFPU in fp32, their operands copied or broadcast
  /// straight into DST. Only an f32 tensor that the FPU also reads (an operand of `@`, a
  /// reduction or `transpose`) reaches DST through SrcA as TF32; named values live in dest-only
  /// Float32 CBs, as carried sums do.
  bool sfpu_arith = false;
  /// Relative rounding of a computed value that an FPU operation (`@`, a reduction, `transpose`)
  /// reads, on TT with an fp32 DST: it leaves DST through an intermediate CB of the tensors'
  /// format, 2^-8 when that is bf16 (with f32 data, `operand`'s TF32 covers it). 0 elsewhere,
  /// where `op` rounds every result already.
  double fpu_inter = 0;
  /// Relative error of an fp32 operand (computed or named) of rowsum/colsum in a bf16 kernel with
  /// an fp32 DST: TT reduces hi = bf16(v) and lo = bf16(v - hi), which loses 2^-8 of lo, at most
  /// 2^-16 of v. 0 where such sums read their operand otherwise.
  double split_sum = 0;
};

/// Whether TT runs kernel `k` with an fp32 DST: fp32_acc = true, an f32 tensor, an `@`, a
/// reduction builtin, a value carried across a loop or a reduction variable
/// (docs/language.md, "Precision").
bool dst_fp32(const dsl::Kernel& k);

/// Whether `e` mentions the tile name `name`.
bool mentions(const dsl::Expr& e, const std::string& name);

/// The CPU target: every tile operation in fp32 (docs/language.md, "Precision").
Precision cpu_precision(const dsl::Kernel& k);
/// The TT target for kernel `k`: fp32 in DST and intermediates of the tensors' format (bf16
/// unless the kernel has an f32 tensor), f32 operands as TF32, `@` and tile * tile at the kernel's
/// math_fidelity (docs/language.md, "Precision").
Precision tt_precision(const dsl::Kernel& k);

} // namespace tk::interp
