// The Q chunk rule of TileKit's FlashAttention-shaped TT kernels (docs/lowering.md, "The Q chunk"):
// how many consecutive query tile rows of one head a work item takes, so that each K and V row
// read in a key step serves all of them. The rule weighs what the chunk saves (the K/V bytes
// divide by q) against what it spends (the key tiles above the diagonal inside a chunk, computed
// and masked whole, and fewer work items to balance over the cores), and respects the Q window's
// capacity (q rows of Dt tiles in W pages). Header-only and dependency-free, like the matmul's
// block rule (matmul_blocks.hpp): a host program or a report evaluates it at the run's shape with
// the costs the caller takes from the timing model's table.
#pragma once

#include <cstdint>

namespace tk::tt_host {

/// The inputs that do not depend on the shape: the cores the work items are split over, the Q
/// window's pages W (q * Dt <= W), the largest chunk considered, the compute cycles of one query
/// row's key step (a part that does not grow with D and a part per tile of D: the score's
/// products, the output row's update), the bytes of a page of Q, K and V (and of O), the bytes
/// per cycle of one NoC's DRAM queue (the reader reads Q and K on one NoC, the writer reads V
/// and writes O on the other: docs/lowering.md, "Reads on both NoCs"), and the chunk
/// `@options(q_chunk = N)` fixes (0 for the rule's).
struct QChunkLimits {
  std::int64_t cores = 0;
  std::int64_t window = 0;
  std::int64_t max_q = 0;
  std::int64_t step_fixed = 0, step_per_tile = 0;
  std::int64_t page = 0;
  double dram_bytes = 0;
  std::int64_t fixed_q = 0;
};

/// The limits from tt.q_chunk's constant arguments after H, St and Dt, in the intrinsic's order
/// (lowering/ir/intrinsics.hpp; the step costs are price-q-chunk's): the one place that says which
/// argument is which field. The generated host calls it with the numbers the compiler chose, and
/// ttgen report with the same call's arguments. The DRAM rate is given in bytes per 1000 cycles
/// (an integer argument).
constexpr QChunkLimits q_chunk_limits(std::int64_t cores, std::int64_t window, std::int64_t max_q,
                                      std::int64_t step_fixed, std::int64_t step_per_tile,
                                      std::int64_t page, std::int64_t dram_bytes_per_1000) {
  QChunkLimits l;
  l.cores = cores;
  l.window = window;
  l.max_q = max_q;
  l.step_fixed = step_fixed;
  l.step_per_tile = step_per_tile;
  l.page = page;
  l.dram_bytes = static_cast<double>(dram_bytes_per_1000) / 1000.0;
  return l;
}

/// The rule's projection of a chunk of q rows at H heads of St query (and key) tile rows and Dt
/// tiles of D, in cycles, or a negative value when q does not fit (q * Dt > W, except q = 1,
/// whose row streams past the window). The work items are the chunks, C = ceil(St / q) per head,
/// item w of head w / C taking chunk c of the causal fold (r = w % C, c = r / 2 + r % 2 * (C - 1 -
/// 2 * (r / 2)): a low and a high chunk in turn), split over min(cores, H * C) cores as the SDK's
/// split_work_to_cores splits them (consecutive runs, the first items % cores one item longer).
/// Chunk c runs its key loop to its last row: n = min((c + 1) * q, St) key steps for each of its
/// q rows (the tiles above a row's diagonal masked whole, a last chunk's missing rows repeating
/// the head's last row), so it computes q * n * (step_fixed + step_per_tile * Dt) cycles, and it
/// reads n rows of K (Dt pages each) and its rows of Q on one NoC, n rows of V and writes its rows
/// of O on the other. The reads overlap the compute (two windows each), so the projection is the
/// longest of the busiest core's compute and each NoC's bytes at its DRAM queue's rate.
constexpr double q_chunk_time(std::int64_t q, std::int64_t H, std::int64_t St, std::int64_t Dt,
                              const QChunkLimits& l) {
  if (q < 1 || (q > 1 && q * Dt > l.window))
    return -1;
  const std::int64_t chunks = (St + q - 1) / q;
  const std::int64_t items = H * chunks;
  if (items == 0)
    return 0;
  const std::int64_t cores = items < l.cores ? items : l.cores;
  const std::int64_t per_core = items / cores, longer = items % cores;
  const double step = static_cast<double>(l.step_fixed + l.step_per_tile * Dt);
  double busiest = 0, noc_k = 0, noc_v = 0; // cycles; pages on each NoC
  std::int64_t w = 0;
  for (std::int64_t core = 0; core < cores; ++core) {
    const std::int64_t count = per_core + (core < longer ? 1 : 0);
    double compute = 0;
    for (std::int64_t n = 0; n < count; ++n, ++w) {
      const std::int64_t r = w % chunks;
      const std::int64_t c = r / 2 + r % 2 * (chunks - 1 - 2 * (r / 2));
      const std::int64_t end = (c + 1) * q < St ? (c + 1) * q : St;
      const std::int64_t rows = end - c * q;
      compute += static_cast<double>(q * end) * step;
      noc_k += static_cast<double>((end + rows) * Dt);
      noc_v += static_cast<double>((end + rows) * Dt);
    }
    busiest = compute > busiest ? compute : busiest;
  }
  const double page = static_cast<double>(l.page);
  const double dram = (noc_k > noc_v ? noc_k : noc_v) * page / l.dram_bytes;
  return busiest > dram ? busiest : dram;
}

/// The rule: the q in 1 .. max_q that divides max_q (or the fixed one) whose projection is the
/// least; a tie goes to the smaller chunk (fewer masked tiles, less of the window). The rows' tiles
/// cycle through CBs of max_q pages that compute reads at the row's index from the front
/// (fission-rows, batch-rows: docs/lowering.md, "A key step's sections for all the chunk's rows"),
/// so a chunk's q tiles must not wrap past a CB's end: q divides max_q. A fixed q that does not
/// fit still returns itself: the generated host's row check then refuses the shape with its own
/// message (its CBs hold q rows exactly).
constexpr std::int64_t choose_q_chunk(std::int64_t H, std::int64_t St, std::int64_t Dt,
                                      const QChunkLimits& l) {
  if (l.fixed_q > 0)
    return l.fixed_q;
  std::int64_t best = 1;
  double best_time = q_chunk_time(1, H, St, Dt, l);
  for (std::int64_t q = 2; q <= l.max_q; ++q) {
    if (l.max_q % q != 0)
      continue;
    const double t = q_chunk_time(q, H, St, Dt, l);
    if (t >= 0 && t < best_time) {
      best = q;
      best_time = t;
    }
  }
  return best;
}

} // namespace tk::tt_host
