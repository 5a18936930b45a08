// batch-sections (tt, after chunk-rows): a loop over a row of tiles whose body is one DST section
// of one tile (FlashAttention's `for d in tiles(D) { o[d] = o[d] * bcast_col(c) + p @ V[h, j, d]
// }`: wait for o[d], broadcast c, copy o[d] in, multiply, accumulate p @ V[.., d], pop, pack o[d])
// runs as batches of B iterations in one section: each statement of the body for the B tiles in
// turn, so that each operation gets its init once per batch instead of once per tile, and one
// acquire, commit, wait and release cover B tiles. A statement the iterations share (it reads
// neither the loop variable nor a tile the body pops: the broadcast of c) runs once per batch, into
// a slot of its own; every other slot is renumbered per tile, B = (DST capacity - shared slots) /
// (slots per tile). The row CB the body rotates (waits 1, reads tile 0, pops 1, packs 1) is waited
// and popped B at a time, its tile 0 read as tile k of the batch; its packs fill one reservation
// of B. The tiles past the last whole batch run in at most one batch of each power of two below
// B, and a last one alone as the body was (docs/lowering.md, "Batched sections"). A body may
// instead end in one pack into an output and its write (the row kernels' output walks): the
// batch's writes follow its packs, and insert-dst-management gives each pack its own page
// (docs/lowering.md, "Output walks in batches"). A loop inside one open section (DST math only,
// no pack, wait or pop: layernorm's variance walk) runs a broadcast or copy its iterations share
// once, before the loop.
#pragma once

#include "lowering/ir/module.hpp"
#include "support/diagnostics.hpp"

namespace tk::lower {

ir::Module batch_sections(const ir::Module& m, Diagnostics& diags);

} // namespace tk::lower
