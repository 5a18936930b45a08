// block-products (tt, compute kernels, before insert-compute-init): a run of tile products that
// share one operand becomes one matmul_block per step, which unpacks each tile once per call
// (tt-llk's llk_unpack_AB_matmul: the shorter side's tiles once, the longer side's once per pass)
// where matmul_tiles unpacks both of its tiles per product.
//   - Rows: consecutive loops over the same range whose bodies are one matmul_tiles each, with the
//     same CBs and in1 index, in0 indices r·S apart (S proved from the index expressions, not
//     assumed: a polynomial in the kernel's variables that does not involve the loop's) and DST
//     slots s0 + r: one loop of matmul_block(in0, in1, i0 of row 0, i1, s0, transpose, ct = 1,
//     rt = n, kt = S); matmul_block reads in0's row r at i0 + r·kt_dim and writes DST s0 + r.
//     An in0 index that clamps its row (`min(x, y)`) is proved with the clamp taken off, the block
//     run under `if (x <= y)` for the last row and the loops as they were otherwise.
//   - Columns: consecutive matmul_tiles with the same CBs and in0 index, in1 indices i1 + c and
//     slots s0 + c: one matmul_block(in0, in1, i0, i1, s0, transpose, ct = n, rt = 1, kt = 1).
// Anything else is left as it is (docs/lowering.md, "Products as blocks").
#pragma once

#include "lowering/ir/module.hpp"
#include "support/diagnostics.hpp"

namespace tk::lower {

ir::Module block_products(const ir::Module& m, Diagnostics& diags);

} // namespace tk::lower
