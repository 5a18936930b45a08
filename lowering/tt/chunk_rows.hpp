// chunk-rows (tt, after select-tile-ops): @options(q_chunk = q) makes a work item of a kernel
// whose row index bounds its key loop (FlashAttention's `for j in 0 .. i + 1`) a chunk of q
// consecutive rows that share each read of the key loop's windows (docs/lowering.md, "The Q
// chunk"). The item's statements before the key loop run once per row of the chunk, in a loop
// `for r in 0 .. q` that binds the row `i` (its own index, clamped to the last row); the key loop
// runs to the chunk's last row + 1, and inside it the windows streamed per key step (K's and V's
// rows, stream-rows) are read, waited for and popped once, around a loop over the chunk's rows
// that holds the rest of the step; the statements after the key loop run once per row. The row
// state the compute kernel carries in circular buffers (m, l: one tile each, the row of tiles o)
// goes through them in FIFO order: every loop over the chunk's rows takes the rows in the same
// order, so row r finds its own tiles at the front. The window of the row index (Q's, read once
// per item) holds the chunk's q rows, row r's tiles at r * (W / q); the host checks that a row
// fits (the row of tiles' capacity becomes W / q). The work items are the chunks, Ct = ceil(St /
// q) per head, folded as the rows were (to-core-loop). q = 1 leaves the program as it is.
// Without the option (q_chunk 0) the host chooses q at run time by the Q chunk rule
// (include/tilekit/q_chunk.hpp, the call tt.q_chunk(H, St, Dt, its constant inputs)): q, the
// window's pages per row W / q and the chunks are runtime values of the kernels, every loop over
// the chunk's rows runs to q, and assign-cbs and verify-kernels walk those loops as often as the
// rule's largest chunk (8); a kernel of another shape is then left as it is, without an error.
#pragma once

#include "lowering/ir/module.hpp"
#include "support/diagnostics.hpp"

namespace tk::lower {

ir::Module chunk_rows(const ir::Module& m, Diagnostics& diags);

} // namespace tk::lower
