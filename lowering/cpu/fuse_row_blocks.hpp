// fuse-row-blocks (CPU chain, after materialise): a materialised value's two loop nests, run a
// block of rows at a time, so that the block of the value the first nest writes is read back by
// the second right away, from the core's own caches.
//
// materialise leaves a kernel like examples/mlp.tk as two programs, the second its combine:
//
//   parallel i, f { h = 0; for d { h += A[i, d] @ B[d, f] }; H[i, f] = E(h) }      // first
//   parallel i, j { acc = 0; for f { acc += H[i, f] @ W[f, j] }; C[i, j] = ... }    // second
//
// Run one after the other, the whole of H (M x F, f32: 2 MiB at M = 256, F = 2048) is written
// before any of it is read back. Where row i of the second nest reads only row i of H (every
// load of H has index i first, the same i loop in both), this stage moves the second nest into
// the first program, inside one parallel loop over blocks of R tile rows:
//
//   let R = cpu.row_block_tiles(Mt, Nt)    // at run time: >= Nt, every thread a block
//   parallel r in 0 .. (Mt + R - 1) / R {
//     let i0 = r * R; let i_n = min(R, Mt - i0)
//     for f in 0 .. Ft { for i in i0 .. +i_n { h = ...; H[i, f] = E(h) } }  // B[:, f] read once
//     for j in 0 .. Nt { for i in i0 .. +i_n { acc = ...; C[i, j] = ... } }  // W[:, j] read once
//   }
//
// Every block reads all of B and W again (8·D·F bytes packed for mlp), so a block has at least
// as many rows as W has columns (Nt tiles, D for mlp): fewer would cost more weight traffic than
// the hidden block's round trip saves. Blocks of half of L2 (2 tile rows at F = 2048) measured
// 19% slower than the two nests (docs/bench.md, "CPU mlp"). With small weights a block is small
// and stays in L2; with large M the hidden layer goes through L3 a block at a time instead of
// through memory whole.
//
// H becomes an intermediate of the first program (stored and read there); the second program
// keeps its tensors and signature (the generated code's storage for H is still sized from them)
// with an empty body, and the first names it in its attribute `cpu_row_blocks`. Each thread
// computes whole blocks, so a block of H is written and read on one core. Every other program is
// left as it is.
#pragma once

#include "lowering/ir/module.hpp"
#include "support/diagnostics.hpp"

namespace tk::lower {

ir::Module fuse_row_blocks(const ir::Module& m, Diagnostics& diags);

} // namespace tk::lower
