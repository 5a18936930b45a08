// How a target rounds, as the interpreter's error bound sees it. Next to each value the
// interpreter propagates a first-order bound on |computed - exact| for a target that computes
// with this precision (interp.hpp, run_bounded); Precision{} is exact arithmetic, where every
// bound is 0. The rules and where each number comes from are in docs/difftest.md.
#pragma once

#include "dsl/ast.hpp"

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
  /// Relative rounding of each scalar operation (scalar expressions such as 1.0 / N are computed
  /// once, in f32, by the host code of both targets): 2^-24.
  double scalar = 0;
  /// Absolute slack of each rounding: a result below the normal range may be flushed to zero.
  double tiny = 0;
  /// Round every stored value to its output's dtype (bf16: 2^-8, f32: 2^-24).
  bool round_outputs = false;
};

/// The CPU target: every tile operation in fp32 (docs/language.md, "Precision").
Precision cpu_precision(const dsl::Kernel& k);
/// The TT target for kernel `k`: fp32 in DST and intermediates of the tensors' format (bf16
/// unless the kernel has an f32 tensor), f32 operands as TF32, `@` and tile * tile at the kernel's
/// math_fidelity (docs/language.md, "Precision").
Precision tt_precision(const dsl::Kernel& k);

} // namespace tk::interp
