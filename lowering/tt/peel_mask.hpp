// peel-mask (tt, after chunk-rows): `where(tril(i, j), x, fill(-inf))` is x wherever the mask
// tile tril(i, j) is all ones, that is for every key step j below the row's diagonal (j < i:
// element (r, c) is 1 where 32 i + r >= 32 j + c, which holds for all r, c iff j <= i - 1). A key
// loop `for j in lo .. hi` whose body selects that where (the reader's `df.tril_tile(cb, f, 32 *
// (j - i))`, compute's wait, copy and pop of the mask tile, `where_tile`, and the fill of its
// false operand) runs as two loops: `for j in lo .. +jd` with the mask group taken out (the where's
// result is its true operand's slot, packed from there), then `for j in lo + jd .. hi` as it was,
// where `let jd = max(min(L, hi) - lo, 0)` and L is a lower bound of i over the body (i itself, or
// for a chunk's `let i = min(qc * q + qr, St - 1)` inside `for qr in 0 .. q`: min(qc * q, St - 1)).
// The reader's mask tiles are generated only for the steps that need them (docs/lowering.md, "The
// mask on the diagonal only").
#pragma once

#include "lowering/ir/module.hpp"
#include "support/diagnostics.hpp"

namespace tk::lower {

ir::Module peel_mask(const ir::Module& m, Diagnostics& diags);

} // namespace tk::lower
