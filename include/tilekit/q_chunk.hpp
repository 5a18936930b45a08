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

/// Compute cycles of one piece of a work item's kernel at Dt tiles of D: `fixed + per_tile * Dt`.
struct QChunkCost {
  std::int64_t fixed = 0, per_tile = 0;
  constexpr double at(std::int64_t Dt) const { return static_cast<double>(fixed + per_tile * Dt); }
};

/// The compute kernel's pieces at one chunk height q, each for all q rows of the chunk (the rows
/// are batched by DST's tiles, so a piece's cost is not q times one row's): the work item's own
/// work outside its key loops (the rows' state set up, the stores), one step of the loop over
/// chunks of `keys` key tiles, one single key step below the diagonal (the key tiles after the
/// last whole chunk), one key step on the diagonal (masked; a chunk of q rows runs q of them).
struct QChunkCosts {
  QChunkCost item, chunk, single, diagonal;
};

/// The chunk heights the costs are given for, q = 1, 2, 4, 8 (the divisors of the largest chunk
/// the rule considers, 8): `costs[i]` is q = 2^i's.
inline constexpr std::int64_t kQChunkPriced = 4;

/// The inputs that do not depend on the shape: the cores the work items are split over, the Q
/// window's pages W (q * Dt <= W), the largest chunk considered, the bytes of a page of Q, K and
/// V (and of O), the bytes per cycle of one NoC's DRAM queue (the reader reads Q and K on one NoC,
/// the writer reads V and writes O on the other: docs/lowering.md, "Reads on both NoCs"), the key
/// tiles of a chunk step (chunk-keys' k; 1 without key chunks), the compute costs at q = 1, 2, 4,
/// 8, and the chunk `@options(q_chunk = N)` fixes (0 for the rule's).
struct QChunkLimits {
  std::int64_t cores = 0;
  std::int64_t window = 0;
  std::int64_t max_q = 0;
  std::int64_t page = 0;
  double dram_bytes = 0;
  std::int64_t keys = 1;
  QChunkCosts costs[kQChunkPriced] = {};
  std::int64_t fixed_q = 0;
};

/// tt.q_chunk's constant arguments after H, St and Dt (lowering/ir/intrinsics.hpp): cores, W,
/// max q, page, the DRAM rate in bytes per 1000 cycles, keys, then for q = 1, 2, 4, 8 the fixed
/// and per-tile cycles of item, chunk, single, diagonal.
inline constexpr std::int64_t kQChunkArgs = 6 + kQChunkPriced * 8;

/// The limits from tt.q_chunk's kQChunkArgs constant arguments after H, St and Dt, in the
/// intrinsic's order (the costs are price-q-chunk's): the one place that says which argument is
/// which field. The generated host calls it with the numbers the compiler chose, and ttgen report
/// with the same call's arguments.
constexpr QChunkLimits q_chunk_limits(const std::int64_t* a) {
  QChunkLimits l;
  l.cores = a[0];
  l.window = a[1];
  l.max_q = a[2];
  l.page = a[3];
  l.dram_bytes = static_cast<double>(a[4]) / 1000.0;
  l.keys = a[5] > 0 ? a[5] : 1;
  for (std::int64_t i = 0; i < kQChunkPriced; ++i) {
    const std::int64_t* c = a + 6 + 8 * i;
    l.costs[i] = {{c[0], c[1]}, {c[2], c[3]}, {c[4], c[5]}, {c[6], c[7]}};
  }
  return l;
}

/// The index of q's costs (q = 2^i, i < kQChunkPriced), or -1 for a q without them.
constexpr std::int64_t q_chunk_cost_index(std::int64_t q) {
  for (std::int64_t i = 0; i < kQChunkPriced; ++i)
    if (q == (std::int64_t{1} << i))
      return i;
  return -1;
}

/// The compute cycles of chunk c of q rows at St tile rows, as the kernel runs it: its item
/// costs, then n = c * q key steps below the diagonal, n / keys chunk steps and n % keys single
/// steps, then one diagonal step for each of its rows below St (end - c * q; each step runs all q
/// rows, a last chunk's missing rows repeating the head's last row).
constexpr double q_chunk_item_cycles(std::int64_t q, std::int64_t c, std::int64_t St,
                                     std::int64_t Dt, const QChunkLimits& l) {
  const QChunkCosts& k = l.costs[q_chunk_cost_index(q)];
  const std::int64_t below = c * q;
  const std::int64_t end = (c + 1) * q < St ? (c + 1) * q : St;
  return k.item.at(Dt) + static_cast<double>(below / l.keys) * k.chunk.at(Dt) +
         static_cast<double>(below % l.keys) * k.single.at(Dt) +
         static_cast<double>(end - below) * k.diagonal.at(Dt);
}

/// The rule's projection of a chunk of q rows at H heads of St query (and key) tile rows and Dt
/// tiles of D, in cycles, or a negative value when q does not fit (q * Dt > W, except q = 1,
/// whose row streams past the window) or has no costs (q not 1, 2, 4, 8). The work items are the
/// chunks, C = ceil(St / q) per head, item w of head w / C taking chunk c of the causal fold (r = w
/// % C, c = r / 2 + r % 2 * (C - 1 - 2 * (r / 2)): a low and a high chunk in turn), split over
/// min(cores, H * C) cores as the SDK's split_work_to_cores splits them (consecutive runs, the
/// first items % cores one item longer). Chunk c computes q_chunk_item_cycles, reads its n = end
/// key rows of K (Dt pages each) and its rows of Q on one NoC, n rows of V and writes its rows of
/// O on the other. The reads overlap the compute (two windows each), so the projection is the
/// longest of the busiest core's compute and each NoC's bytes at its DRAM queue's rate.
constexpr double q_chunk_time(std::int64_t q, std::int64_t H, std::int64_t St, std::int64_t Dt,
                              const QChunkLimits& l) {
  if (q < 1 || (q > 1 && q * Dt > l.window) || q_chunk_cost_index(q) < 0)
    return -1;
  const std::int64_t chunks = (St + q - 1) / q;
  const std::int64_t items = H * chunks;
  if (items == 0)
    return 0;
  const std::int64_t cores = items < l.cores ? items : l.cores;
  const std::int64_t per_core = items / cores, longer = items % cores;
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
      compute += q_chunk_item_cycles(q, c, St, Dt, l);
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
