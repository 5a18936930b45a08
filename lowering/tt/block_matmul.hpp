// block-matmul: a kernel choose-blocks marked becomes the blocked matmul of the SDK's
// matmul_multicore_reuse (docs/lowering.md, "Blocked matmul"), already in the form select-tile-ops
// gives every other kernel: compute's CB waits and pops, matmul_block on DST sub-blocks and packs,
// with the data movement as abstract block streams (df.read_block, df.write_block) that
// split-kernels and insert-cb-protocol turn into the reader and writer.
//   * The work items are blocks of C: `parallel bi in 0 .. Mb, bj in 0 .. Nb` over blocks of
//     bm x bn tiles, bm, bn and the depth bk the host's tt.matmul_block lets.
//   * Per K step (bk tiles of K) the reader brings one bm x bk block of A and one bk x bn block
//     of B (CBs of two blocks each: the next step's read overlaps this step's math).
//   * Compute walks the block in DST sub-blocks; each sub-block's partial sums go to the CB
//     `cb_partials` (role partials) and come back at the next K step; the first step starts from
//     DST's zero, a last pass moves the sums to C's CB, sub-block by sub-block, which the writer
//     stores.
//   * A block over the edge of C (Mt or Nt not a multiple of the block) reads only the tiles that
//     exist; the rest of its CB pages hold whatever they held, only ever multiplied into output
//     rows and columns past the edge, which the writer skips.
// The CBs of A and B take the depths of choose-blocks' capacities, C's two sub-blocks.
#pragma once

#include "lowering/ir/module.hpp"
#include "support/diagnostics.hpp"

namespace tk::lower {

ir::Module block_matmul(const ir::Module& m, Diagnostics& diags);

} // namespace tk::lower
