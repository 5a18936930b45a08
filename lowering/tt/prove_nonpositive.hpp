// A proof that a tile expression is at most 0 in every element (-inf included), from the
// definitions that reach it (docs/lowering.md, "Approximate exp"). What it knows:
// - x - bcast_col(y) where y >= rowmax(x): y is rowmax(x) itself, or max(a, b) with a or b such
//   a y (FlashAttention's p = exp(s - bcast_col(mn)), mn = max(m, rowmax(s)));
// - x - y where y = max(x, b) or max(b, x), element by element (c = exp(m - mn));
// - fill(v) with v <= 0 a literal (-inf included); where(mask, a, b) with a and b at most 0;
//   min(a, b) with a or b at most 0;
// - a tile variable whose reaching definition is such an expression.
// A definition reaches a statement when it comes before it in the same block or an enclosing one
// and nothing in between (a loop around it included) assigns the variable or anything it reads.
// Rounding aside: y is the max of x as the FPU read it (SrcA: TF32, truncated toward zero), so the
// argument is at most |x| 2^-10 above 0 where x was rounded; docs/lowering.md says what the
// unclamped exp makes of that.
#pragma once

#include "lowering/ir/module.hpp"

#include <set>

namespace tk::lower::tt {

/// The tile.exp calls of `kernel` that are the whole value of a definition (`let p = exp(a)`,
/// `p = exp(a)`) and whose argument `a` is proved at most 0 where the definition stands.
std::set<const ir::Call*> exps_of_nonpositive(const ir::Function& kernel);

} // namespace tk::lower::tt
