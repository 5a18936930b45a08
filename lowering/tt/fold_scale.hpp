// fold-scale (tt, before select-tile-ops, @options(exp_approx_mode) only): the score's scale out of
// the per-score-tile path, into the exps, as TTNN's SDPA folds it into its approximate exp
// (docs/lowering.md, "Scale folding"). In
//   s = where(mask, s * f, fill(-inf))      (or s = s * f), f an f32 parameter,
// every later use of the scaled s, and of every value computed from it by max, min, rowmax,
// colmax, + and -, broadcasts and where(mask, ., .) with fill(-inf) or zeros (the online
// softmax's mn and m), is either such a computation or the argument of an exp. For f > 0 each of
// those values is f times the same computation on the unscaled s (max(f a, f b) = f max(a, b),
// f (-inf) = -inf), so the multiply can be dropped and each exp(x) becomes tile.exp_scaled(x, f):
// select-tile-ops gives an approximate one exp_tile<true> with f in its init's constants (free),
// an accurate one, which rescales a carried value (select_tile_ops_exp.cpp), mul_unary_tile then
// exp_tile (on one statistics tile per row and key step instead of on every score tile). The
// host checks f > 0 at run time (tt.exp_scale_bits: an error otherwise). Anything else that reads
// one of those values (a store, a sum, a product, a loop bound) leaves the kernel as it was.
#pragma once

#include "lowering/ir/module.hpp"
#include "support/diagnostics.hpp"

#include <string>
#include <variant>

namespace tk::lower {

namespace tt {
/// Why the kernel function `f` of `p` keeps its scale multiply, or "" when fold-scale folds it
/// (the first candidate multiply that folds; the reason of the last one refused otherwise).
std::string scale_fold_refusal(const ir::Program& p, const ir::Function& f);
} // namespace tt

ir::Module fold_scale(const ir::Module& m, Diagnostics& diags);

} // namespace tk::lower
