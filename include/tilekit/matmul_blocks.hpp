// The block rule of TileKit's blocked TT matmul (docs/lowering.md, "Blocked matmul"): how many
// output tiles each work item (a block of C on one core of the core grid) covers, and how many K
// tiles each read brings, chosen from the shape at run time. The compiler fixes the rest at compile
// time (the DST sub-block and each CB's capacity, in tiles) and states them in the IR as the
// arguments of `tt.matmul_block`; the generated host program calls this function with them, and
// ttgen report evaluates the same call. Header-only and dependency-free: the compiler, the report
// and the generated host code all include it.
#pragma once

#include <cstdint>

namespace tk::tt_host {

/// What the rule decides: a block of `rows` x `cols` output tiles per work item, read `depth` K
/// tiles at a time.
struct MatmulBlocks {
  std::int64_t rows = 1, cols = 1, depth = 1;
};

/// The compile-time inputs: the grid, the DST sub-block the compute kernel works in (rows and
/// columns must be multiples of it), and the capacity in tiles of the CBs of A (two blocks of
/// rows x depth), of B (two blocks of depth x cols) and of the partial sums (one block).
struct MatmulBlockLimits {
  std::int64_t grid_x = 8, grid_y = 8;
  std::int64_t sub_rows = 2, sub_cols = 2;
  std::int64_t cap_a = 128, cap_b = 128, cap_partials = 256;
};

/// The rule, over every block shape that fits the partials CB (multiples of the sub-block). The
/// blocks lie on the grid as the core_grid split puts them: block (i, j) on core (j % cols, i %
/// rows) of a cols x rows rectangle, cols = min(grid x, blocks across), rows = min(grid y, blocks
/// down), every core walking ceil(down / rows) x ceil(across / cols) blocks. Least first:
///   1. tile products per core: those rounds * rows * cols, padding included (a block past the edge
///      of C still computes whole sub-blocks);
///   2. tiles read from DRAM, the first core of each grid row (column) reading A's (B's) blocks
///      for the others: Mt * Kt * ceil(across / cols) + Kt * Nt * ceil(down / rows);
///   3. then the taller block.
/// depth is the largest divisor of Kt whose double-buffered blocks of A and B fit their CBs.
/// A shape no block fits (a sub-block larger than a CB) gives rows = cols = depth = 0.
constexpr MatmulBlocks choose_matmul_blocks(std::int64_t Mt, std::int64_t Kt, std::int64_t Nt,
                                            const MatmulBlockLimits& l) {
  auto ceil_div = [](std::int64_t a, std::int64_t b) { return (a + b - 1) / b; };
  auto min = [](std::int64_t a, std::int64_t b) { return a < b ? a : b; };
  MatmulBlocks best{0, 0, 0};
  std::int64_t best_work = 0, best_reads = 0;
  const std::int64_t max_rows = ceil_div(Mt, l.sub_rows) * l.sub_rows;
  const std::int64_t max_cols = ceil_div(Nt, l.sub_cols) * l.sub_cols;
  for (std::int64_t r = l.sub_rows; r <= max_rows; r += l.sub_rows)
    for (std::int64_t c = l.sub_cols; c <= max_cols; c += l.sub_cols) {
      if (r * c > l.cap_partials || 2 * r > l.cap_a || 2 * c > l.cap_b)
        continue;
      const std::int64_t down = ceil_div(Mt, r), across = ceil_div(Nt, c);
      const std::int64_t rounds_down = ceil_div(down, min(l.grid_y, down));
      const std::int64_t rounds_across = ceil_div(across, min(l.grid_x, across));
      const std::int64_t work = rounds_down * rounds_across * r * c;
      const std::int64_t reads = Mt * Kt * rounds_across + Kt * Nt * rounds_down;
      const bool better = best.rows == 0 || work < best_work ||
                          (work == best_work && reads < best_reads) ||
                          (work == best_work && reads == best_reads && r > best.rows);
      if (better) {
        best = {r, c, 0};
        best_work = work;
        best_reads = reads;
      }
    }
  if (best.rows == 0)
    return best;
  for (std::int64_t d = Kt; d >= 1; --d)
    if (Kt % d == 0 && 2 * best.rows * d <= l.cap_a && 2 * d * best.cols <= l.cap_b) {
      best.depth = d;
      break;
    }
  return best;
}

/// One field of the choice, as the generated host program and the IR's `tt.matmul_block` take it:
/// field 0 the rows, 1 the columns, 2 the depth.
constexpr std::int64_t matmul_block(std::int64_t field, std::int64_t Mt, std::int64_t Kt,
                                    std::int64_t Nt, std::int64_t grid_x, std::int64_t grid_y,
                                    std::int64_t sub_rows, std::int64_t sub_cols,
                                    std::int64_t cap_a, std::int64_t cap_b,
                                    std::int64_t cap_partials) {
  const MatmulBlocks b = choose_matmul_blocks(
      Mt, Kt, Nt, {grid_x, grid_y, sub_rows, sub_cols, cap_a, cap_b, cap_partials});
  return field == 0 ? b.rows : field == 1 ? b.cols : b.depth;
}

} // namespace tk::tt_host
