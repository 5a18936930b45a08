// keep-rows (tt): a kernel that walks the same row of a tensor several times (softmax's max, sum
// and output passes; rmsnorm's and layernorm's) reads it from DRAM once and keeps it in L1
// (docs/lowering.md, "Rows in L1"). Inside the per-core loop, every top-level loop `for j in 0 ..
// E` that loads T[row, j] (row the same in all of them and fixed for the core's work item) takes
// the first row_kept tiles from a new CB `cb_<T>_row`, where one df.read_block per work item
// brings the row, compute waiting for it once (`cb.tile(cb, j)` in place of the load); the tiles
// past them, a row longer than L1 holds, are still streamed by a second loop `for j in row_kept ..
// +(E - row_kept)` with the original body. A tensor qualifies when at least two loops read it,
// every load of it in the per-core loop is of that form, and it is a rank-2 input. A row that is
// the same for every work item (gamma[0, j], a bias row: its row index reads nothing the per-core
// loop binds) is shared: read once per core before the per-core loop, waited for once and popped
// after it, and it qualifies when one loop reads it; multicast-reads then has one core read it
// from DRAM and multicast it to the others. cap is one compile-time number per program,
// from an L1 share of 1 MiB (at most the arch's CB budget less 256 KiB) for the work item's rows,
// 2 cap pages each, and the shared rows, cap pages each. A work item's row of at most cap tiles is
// double-buffered; a longer one may be kept whole, up to 2 cap tiles, in one window, when the
// tiles past cap, re-read by every walk but the first, are at least a quarter of the row (the
// host's row_single / row_double choose at run time, each form in a loop of 0 or 1 iterations).
// The reader pushes a work item's row in chunks (cap a whole number of them) and the first walk
// over it waits for tile j as it lands (cb.wait_upto: cb_wait_front of j + 1 pages, cumulative),
// so that the walk overlaps the row's read; the window's wait follows the walk. The double-buffered
// form is read one work item ahead: the first work item's row before the per-core loop, each
// iteration's the next one's (an empty window after the core's last, waited for and popped after
// the loop), so that the next row's reads do not wait for this row's writes.
#pragma once

#include "lowering/ir/module.hpp"
#include "support/diagnostics.hpp"

namespace tk::lower {

ir::Module keep_rows(const ir::Module& m, Diagnostics& diags);

} // namespace tk::lower
