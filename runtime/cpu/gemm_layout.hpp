// What packing (pack.cpp) and the tile loop (gemm.cpp) of the CPU runtime agree on.
#pragma once

#include <tilekit/cpu/gemm.hpp>

#include <cstdint>

namespace tk::cpu::detail {

inline constexpr int kMr = 8;  // rows of a micro-tile (one packed-A micro-panel)
inline constexpr int kNr = 32; // columns of a micro-tile: the whole tile width

// Column blocks of one matrix of B (gemm_tile_pos; the last may be narrower).
inline std::int64_t column_blocks(const PackedB& b) {
  return (b.n_tiles + b.block_cols - 1) / (b.block_cols > 0 ? b.block_cols : 1);
}

// The tile loop goes a column block of B at a time (gemm_units) where B is cut into blocks and
// the blocks of all `matrices` are at least four per thread, and only then: fewer would leave a
// thread idle while another finishes a block.
inline bool blocks_go_round(const PackedB& b, std::int64_t matrices, int threads) {
  return column_blocks(b) >= 2 && matrices * column_blocks(b) >= 4 * std::int64_t{threads};
}

// Called by gemm_units where the loop will go a block at a time: a B whose packing is deferred
// may then be packed a block at a time (pack.cpp; otherwise panel() packs all of it at once).
// Before the loop's parallel_for, which publishes it to the threads.
void expect_units(const PackedB& b);

} // namespace tk::cpu::detail
