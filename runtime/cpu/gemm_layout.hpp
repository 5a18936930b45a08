// What packing (pack.cpp) and the tile loop (gemm.cpp) of the CPU runtime agree on.
#pragma once

#include <tilekit/cpu/gemm.hpp>

#include <cstdint>

namespace tk::cpu::detail {

inline constexpr int kNr = 32; // columns of a packed-B panel: the whole tile width

// A tile row of packed A (32 rows x Kp) is cut into micro-panels of `mr` rows, the micro-kernel's
// (PackedA::mr): panel p holds rows [p * mr, p * mr + rows) with rows = panel_rows(mr, p) (the last
// is shorter where mr does not divide 32: 6, 6, 6, 6, 6, 2 for mr = 6), k-major: element (r, k)
// is at panel_offset(mr, p, kp) + k * rows + r % mr. Every panel before p is full, so panel p
// starts p * mr * kp floats into the tile row, and the tile row is 32 * kp floats for any mr.
inline constexpr int panel_count(int mr) {
  return (kTile + mr - 1) / mr;
}
inline constexpr int panel_rows(int mr, int p) {
  return kTile - p * mr < mr ? kTile - p * mr : mr;
}
inline constexpr std::int64_t panel_offset(int mr, int p, std::int64_t kp) {
  return p * mr * kp;
}

// The micro-panel height of the selected micro-kernel (gemm.cpp): what pack_a and packed_a_alloc
// write into a new PackedA.
int selected_mr();

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
