// stream-rows (tt): a row of tiles a loop walks, T[.., row, e] for `e in 0 .. E` with the row
// fixed for the loop (attention's Q[h, i, e] for every key step j, K[h, j, e] and V[h, j, d] in
// each step), read as one block with one read barrier instead of a barrier per tile
// (docs/lowering.md, "Rows in blocks"). Inside the per-core loop, each input tensor of rank 2 or
// 3 whose every load in a loop statement S has the same leading indices, none of them bound inside
// S, and a last index that is the variable of a loop `for e in 0 .. E` in S (E the same and known
// before the per-core loop) gets a CB `cb_<T>_win` of two windows of W pages: before S one
// df.read_block of the row's first `stream_kept = min(E, W)` tiles into a window and compute's wait
// for it; inside S every loop over e is split into `0 .. stream_kept`, where the loads read the
// window (`cb.tile`), and `stream_kept .. +(E - stream_kept)`, where they are streamed as before
// (a row longer than the window); after S compute pops the window. S is the outermost loop in
// which the row is fixed, so Q's row is read once per work item, not once per key step; the
// second window is the next row's, read while compute works on this one (double buffering). W is
// one compile-time number per program: the largest power of two at most 64 whose windows fit an
// L1 share of 384 KiB (and what the arch's CB budget leaves beside the CBs planned so far and
// 512 KiB for the rows of tiles and the intermediates). When several rows are read inside the
// most loops (attention's K and V, once per key step), the later half is read by the writer
// kernel on its NoC (CircularBuffer::read_by_writer; split-kernels gives it their reads), so the
// DRAM reads use both NoCs' queues.
#pragma once

#include "lowering/ir/module.hpp"
#include "support/diagnostics.hpp"

namespace tk::lower {

ir::Module stream_rows(const ir::Module& m, Diagnostics& diags);

} // namespace tk::lower
