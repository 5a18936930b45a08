// The block rule of TileKit's blocked TT matmul (docs/lowering.md, "Blocked matmul"): how many
// output tiles each work item (a block of C on one core of the core grid) covers, and how many K
// tiles each read brings, chosen from the shape at run time. The compiler fixes the rest at
// compile time (the DST sub-block, each CB's capacity in tiles, and the costs the rule weighs,
// from the timing model's published figures) and states them in the IR as the arguments of
// `tt.matmul_block`; the generated host program calls this function with them, and ttgen report
// evaluates the same call. Header-only and dependency-free: the compiler, the report and the
// generated host code all include it.
#pragma once

#include <cstdint>

namespace tk::tt_host {

/// What the rule decides: a block of `rows` x `cols` output tiles per work item, read `depth` K
/// tiles at a time.
struct MatmulBlocks {
  std::int64_t rows = 1, cols = 1, depth = 1;
};

/// The compile-time inputs: the grid, the DST sub-block the compute kernel works in (rows and
/// columns must be multiples of it), the capacity in tiles of the CBs of A (two blocks of
/// rows x depth), of B (two blocks of depth x cols) and of the partial sums (one block); and the
/// costs, in cycles and bytes: one tile product, one partial sum's round trip between K steps
/// (its pack and its copy back, with the calls around them), the bytes per cycle one core sends a
/// multicast at, the DRAM's bytes per cycle, a page of A and of B, the bytes per cycle a core's
/// reads arrive at, the latency of one K step's hand-over (a DRAM read's, then the multicast's),
/// a page of C and the bytes per cycle a core's writes leave at. Every field is given by the
/// caller (choose-blocks fills them from the architecture's table).
struct MatmulBlockLimits {
  std::int64_t grid_x = 0, grid_y = 0;
  std::int64_t sub_rows = 0, sub_cols = 0;
  std::int64_t cap_a = 0, cap_b = 0, cap_partials = 0;
  std::int64_t product = 0, round_trip = 0, sender_bytes = 0, dram_bytes = 0;
  std::int64_t page_a = 0, page_b = 0;
  std::int64_t read_bytes = 0, step_latency = 0;
  std::int64_t page_c = 0, write_bytes = 0;
  /// The block `@options(matmul_block = RxC)` fixes (rows, cols), or 0 and 0 for the rule's.
  std::int64_t fixed_rows = 0, fixed_cols = 0;
};

/// The rule, over every block shape that fits the partials CB (multiples of the sub-block) and
/// every depth (a divisor of Kt) whose double-buffered blocks of A and B fit their CBs. The
/// blocks lie on the grid as the core_grid split puts them: block (i, j) on core (j % cols, i %
/// rows) of a cols x rows rectangle, cols = min(grid x, blocks across), rows = min(grid y, blocks
/// down), every core walking rounds = ceil(down / rows) * ceil(across / cols) blocks, each in
/// Kt / depth K steps: steps = rounds * Kt / depth in all. Three totals, in cycles:
///   compute  each core's products and partial-sum round trips:
///            rounds * rows * cols * (Kt * product + Kt / depth * round_trip);
///            whole blocks, though the kernel computes only the sub-blocks that hold a tile of C
///            (block-matmul): a last round cut by C's edge still takes its K steps' deliveries,
///            and the previous round's writes drain under it, which the steps' average below
///            does not see. Charging only the sub-blocks computed chose 8 x 8 blocks for
///            2048 x 1024 x 4160, which the emulator projects at 487.8 us against the 453.1 of
///            the 8 x 6 this charge keeps (docs/lowering.md, "Blocked matmul").
///   sender   the corner core, which reads both A's and B's blocks, waits for the reads, then
///            multicasts them, each K step after the latency of both:
///            rounds * Kt * (rows * page_a + cols * page_b) * (1 / read_bytes + 1 / sender_bytes)
///            + steps * step_latency;
///   DRAM     every read, the first core of each grid row (column) reading A's (B's) blocks for
///            the others: (Mt * Kt * rounds across * page_a + Kt * Nt * rounds down * page_b) /
///            dram_bytes.
/// The reads of a K step overlap the products of the one before (two blocks per CB), so the time
/// is that of a two-stage pipeline of `steps` stages, a step's delivery t = max(sender, DRAM) /
/// steps and its compute c = compute / steps: t + (steps - 1) * max(t, c) + c. The first step's
/// delivery and the last one's compute do not overlap anything, which is what makes large blocks
/// on few cores slow at small shapes: each of their steps is long.
/// Then the writes of C: every core's writer drains its finished block while the next one is
/// computed, on the other NoC than the reads of A and B, whose DRAM queue all of them share at
/// dram_bytes; so a round's writes hide under the next round, and the last round's do not: its
/// tiles of C (last_rows x last_cols, the rows and columns of C the last round's blocks cover)
/// drain after the last products, at the shared queue's rate or a core's own write port, the
/// slower:
///   drain = max(last_rows * last_cols * page_c / dram_bytes,
///               min(r, last_rows) * min(c, last_cols) * page_c / write_bytes);
/// and all earlier rounds' writes must have drained before it starts. The time is
///   max(pipeline, (Mt * Nt - last_rows * last_cols) * page_c / dram_bytes) + drain.
/// One round of small blocks over the whole of C drains all of it at the end; more rounds of
/// smaller blocks leave less of it behind the last products.
/// The least time wins, then the fewest DRAM bytes, then the taller block, then the deeper step.
/// A fixed block is the only candidate (its depth still chosen). A shape no block fits (a
/// sub-block larger than a CB) gives rows = cols = depth = 0.
constexpr MatmulBlocks choose_matmul_blocks(std::int64_t Mt, std::int64_t Kt, std::int64_t Nt,
                                            const MatmulBlockLimits& l) {
  auto ceil_div = [](std::int64_t a, std::int64_t b) { return (a + b - 1) / b; };
  auto min = [](std::int64_t a, std::int64_t b) { return a < b ? a : b; };
  auto max = [](double a, double b) { return a < b ? b : a; };
  MatmulBlocks best{0, 0, 0};
  double best_time = 0, best_reads = 0;
  const std::int64_t max_rows =
      l.fixed_rows > 0 ? l.fixed_rows : ceil_div(Mt, l.sub_rows) * l.sub_rows;
  const std::int64_t max_cols =
      l.fixed_cols > 0 ? l.fixed_cols : ceil_div(Nt, l.sub_cols) * l.sub_cols;
  for (std::int64_t r = l.sub_rows; r <= max_rows; r += l.sub_rows)
    for (std::int64_t c = l.sub_cols; c <= max_cols; c += l.sub_cols) {
      if (r * c > l.cap_partials || 2 * r > l.cap_a || 2 * c > l.cap_b ||
          (l.fixed_rows > 0 && (r != l.fixed_rows || c != l.fixed_cols)))
        continue;
      const std::int64_t down = ceil_div(Mt, r), across = ceil_div(Nt, c);
      const std::int64_t rounds_down = ceil_div(down, min(l.grid_y, down));
      const std::int64_t rounds_across = ceil_div(across, min(l.grid_x, across));
      const double rounds = static_cast<double>(rounds_down * rounds_across);
      const double reads = static_cast<double>(Mt * Kt * rounds_across * l.page_a +
                                               Kt * Nt * rounds_down * l.page_b);
      const double dram = reads / static_cast<double>(l.dram_bytes);
      const double sent =
          rounds * static_cast<double>(Kt * (r * l.page_a + c * l.page_b)) *
          (1.0 / static_cast<double>(l.read_bytes) + 1.0 / static_cast<double>(l.sender_bytes));
      const std::int64_t last_rows = Mt - (rounds_down - 1) * min(l.grid_y, down) * r;
      const std::int64_t last_cols = Nt - (rounds_across - 1) * min(l.grid_x, across) * c;
      const double page_c = static_cast<double>(l.page_c);
      const double drain = max(static_cast<double>(last_rows * last_cols) * page_c /
                                   static_cast<double>(l.dram_bytes),
                               static_cast<double>(min(r, last_rows) * min(c, last_cols)) * page_c /
                                   static_cast<double>(l.write_bytes));
      const double written = static_cast<double>(Mt * Nt - last_rows * last_cols) * page_c /
                             static_cast<double>(l.dram_bytes);
      for (std::int64_t depth = Kt; depth >= 1; --depth) {
        if (Kt % depth != 0 || 2 * r * depth > l.cap_a || 2 * depth * c > l.cap_b)
          continue;
        const double steps = rounds * static_cast<double>(Kt / depth);
        const double compute = rounds * static_cast<double>(r * c) *
                               static_cast<double>(Kt * l.product + Kt / depth * l.round_trip);
        const double sender = sent + steps * static_cast<double>(l.step_latency);
        const double t = max(sender, dram) / steps, k = compute / steps;
        const double time = max(t + (steps - 1) * max(t, k) + k, written) + drain;
        const bool better = best.rows == 0 || time < best_time ||
                            (time == best_time && reads < best_reads) ||
                            (time == best_time && reads == best_reads && r > best.rows);
        if (better) {
          best = {r, c, depth};
          best_time = time;
          best_reads = reads;
        }
      }
    }
  return best;
}

/// One field of the choice, as the generated host program and the IR's `tt.matmul_block` take it:
/// field 0 the rows, 1 the columns, 2 the depth; then Mt, Kt, Nt and MatmulBlockLimits' fields in
/// order.
constexpr std::int64_t
matmul_block(std::int64_t field, std::int64_t Mt, std::int64_t Kt, std::int64_t Nt,
             std::int64_t grid_x, std::int64_t grid_y, std::int64_t sub_rows, std::int64_t sub_cols,
             std::int64_t cap_a, std::int64_t cap_b, std::int64_t cap_partials,
             std::int64_t product, std::int64_t round_trip, std::int64_t sender_bytes,
             std::int64_t dram_bytes, std::int64_t page_a, std::int64_t page_b,
             std::int64_t read_bytes, std::int64_t step_latency, std::int64_t page_c,
             std::int64_t write_bytes, std::int64_t fixed_rows, std::int64_t fixed_cols) {
  const MatmulBlocks b =
      choose_matmul_blocks(Mt, Kt, Nt,
                           {grid_x, grid_y, sub_rows, sub_cols, cap_a, cap_b, cap_partials, product,
                            round_trip, sender_bytes, dram_bytes, page_a, page_b, read_bytes,
                            step_latency, page_c, write_bytes, fixed_rows, fixed_cols});
  return field == 0 ? b.rows : field == 1 ? b.cols : b.depth;
}

} // namespace tk::tt_host
