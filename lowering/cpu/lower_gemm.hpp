// lower-gemm (CPU chain): the accumulation pattern
// `acc = zeros(); for k in 0 .. Kt { acc += A[x, k] @ B[k, y] }` over all of K becomes
// `let acc: tile<f32> = cpu.tile()` and `cpu.gemm_tile(A, B, x, y, acc)`, with `cpu.pack_a(A)` /
// `cpu.pack_b(B)` once before the per_thread loop (packing reads whole tensors, once per run), so
// whatever follows (the epilogue) stays a tile expression over acc for lower-elementwise. A
// batched product (`A[b, x, k] @ B[b', k, y]`, either operand rank 3 or 2) is
// `cpu.gemm_batch_tile(A, b, B, b', x, y, acc)`, the batch index 0 for a rank-2 operand, with
// every matrix of a rank-3 operand packed once. When the per_thread loop decodes its work item
// row-major into the gemm's output tile (`let i = w / Nt`, `let j = w % Nt`, as
// partition-threads does), the decode becomes `cpu.gemm_row(A, B, w)` / `cpu.gemm_col(A, B, w)`:
// the runtime's tile order, which keeps blocks of the packed B in L2; and the loop goes a unit
// of work items at a time (`for u in 0 .. cpu.gemm_units(A, B, n) per_thread { for w in
// cpu.gemm_unit_begin(..., u) .. +cpu.gemm_unit_size(..., u) { ... } }`), a unit being a whole
// column block of B where there are enough, so that each thread keeps its blocks in its L2. Tile
// counts the pattern made unused (`let Kt: i32 = K / 32`) are dropped. A transposed operand,
// `A[x, k] @ transpose(T[y, k])` (attention's Q K^T), is the same gemm with B packed from T by
// `cpu.pack_bt(T)` (T's rows are B's columns), not a tile transposed per product. A B that no
// loop reads a unit at a time (a decode other than the row-major one) is packed whole before
// the loop, `cpu.pack_b_whole(B)`: deferred, the first thread to read it would pack it alone. A
// materialised value (materialise's decision: a first program's `materialise dram ... tensor`)
// read only as a rank-2 A is not packed from a row-major copy: the first program's
// `cpu_packed_a` names it, and lower-elementwise stores its tiles straight into the packed form
// (`cpu.store_packed_a`).
// Everything else is left as it is; a matmul outside the pattern is lowered by
// lower-elementwise.
#pragma once

#include "lowering/ir/module.hpp"
#include "support/diagnostics.hpp"

namespace tk::lower {

ir::Module lower_gemm(const ir::Module& m, Diagnostics& diags);

} // namespace tk::lower
