// The Q chunk rule (include/tilekit/q_chunk.hpp) on the n150's 8x8 grid: a Q window of 32 pages,
// chunks up to 8 rows, 2048-byte bf16 pages, 66.1 B/cycle per NoC's DRAM queue (arch/
// wormhole_b0.hpp, dram_read_total_bytes_per_cycle).
//
// The first tests (kUniform) give every key step one price per row, 2,959 cycles plus 433 per
// tile of D, whatever its kind and the chunk's height, and no item costs: the rule before it
// priced the pieces of the kernel (2026-11-28, the busy cycles per key tile of the q = 1 kernel on
// the last core, `TK_EMULATOR_MATH=off build/ci/bench/tk_tt_bench --program attention --shape
// H,S,D --no-check`: 4,842,422 over 1,032 key tiles at 8 x 4096 x 128, 4,692 at Dt = 4). There a
// chunk of q rows costs q * n * (2959 + 433 * Dt), n = min((c + 1) * q, St) its key steps, and
// each expectation is worked out from that:
//   compute  the busiest core's sum over its items of q * n * (2959 + 433 * Dt);
//   DRAM     each NoC's pages (n key rows and the chunk's own rows, Dt pages each, summed over
//            every item) * 2048 / 66.1;
//   time     max(compute, DRAM).
// The later tests give the pieces their own prices (QChunkCosts: the item, a chunk step of 8 key
// tiles, a single and a diagonal key step, each for all q rows), as price-q-chunk does.
#include "include/tilekit/q_chunk.hpp"

#include <gtest/gtest.h>

namespace {

using tk::tt_host::choose_q_chunk;
using tk::tt_host::q_chunk_item_cycles;
using tk::tt_host::q_chunk_limits;
using tk::tt_host::q_chunk_time;
using tk::tt_host::QChunkLimits;

// Every key step q rows x (fixed + per_tile * Dt), a chunk step 8 of them, no item costs.
constexpr QChunkLimits uniform(std::int64_t fixed, std::int64_t per_tile) {
  QChunkLimits l;
  l.cores = 64;
  l.window = 32;
  l.max_q = 8;
  l.page = 2048;
  l.dram_bytes = 66.1;
  l.keys = 8;
  for (std::int64_t i = 0; i < tk::tt_host::kQChunkPriced; ++i) {
    const std::int64_t q = std::int64_t{1} << i;
    l.costs[i].chunk = {8 * q * fixed, 8 * q * per_tile};
    l.costs[i].single = l.costs[i].diagonal = {q * fixed, q * per_tile};
  }
  return l;
}

constexpr QChunkLimits kN150 = uniform(2959, 433);

// 8 x 2048 x 128 (St = 64, Dt = 4: a step of 4,691 cycles). q = 1: 512 items, 8 a core, four
// folded pairs of 65 key steps: compute 260 * 4,691 = 1,219,660; but each NoC carries 8 * (2,080
// + 64) * 4 = 68,608 pages: 2,125,706, the DRAM wall. q = 2: 256 chunks, 4 a core, two pairs of
// 2 * 66 row steps: 1,238,424; DRAM 8 * (1,056 + 64) * 4 = 35,840 pages, 1,110,426. q = 4: one
// pair of 4 * 68 row steps, 1,275,952 (DRAM 19,456 pages: 602,812). The chunk of two takes the
// reads under the compute with the fewest masked tiles.
TEST(QChunk, TwoAtS2kD128) {
  EXPECT_NEAR(q_chunk_time(1, 8, 64, 4, kN150), 68608.0 * 2048 / 66.1, 1e-3);
  EXPECT_DOUBLE_EQ(q_chunk_time(2, 8, 64, 4, kN150), 1238424.0);
  EXPECT_DOUBLE_EQ(q_chunk_time(4, 8, 64, 4, kN150), 1275952.0);
  EXPECT_EQ(choose_q_chunk(8, 64, 4, kN150), 2);
}

// 256 x 2048 x 64 (Dt = 2: a step of 3,825). q = 1: 16,384 items, 256 a core, 128 pairs of 65:
// compute 8,320 * 3,825 = 31,824,000, under its DRAM: 256 * 2,144 * 2 = 1,097,728 pages,
// 34,011,300. q = 2: 64 pairs of 132 row steps, 32,313,600 (DRAM 17.8 M); q = 4: 32 pairs of
// 272, 33,292,800. The walls are close at q = 1, so the chunk of two gains little, but gains.
TEST(QChunk, TwoAtS2kD64) {
  EXPECT_NEAR(q_chunk_time(1, 256, 64, 2, kN150), 1097728.0 * 2048 / 66.1, 1e-2);
  EXPECT_DOUBLE_EQ(q_chunk_time(2, 256, 64, 2, kN150), 32313600.0);
  EXPECT_DOUBLE_EQ(q_chunk_time(4, 256, 64, 2, kN150), 33292800.0);
  EXPECT_EQ(choose_q_chunk(256, 64, 2, kN150), 2);
}

// 8 x 4096 x 128 (St = 128): q = 2 (8 items a core, four pairs of 2 * 130: 1,040 * 4,691 =
// 4,878,640) against q = 4 (two pairs of 4 * 132: 4,953,696) and q = 8 (one pair of 8 * 136:
// 5,103,808); q = 1 reads 8 * (8,256 + 128) * 4 pages: 8,312,463.
TEST(QChunk, TwoAtS4kD128) {
  EXPECT_DOUBLE_EQ(q_chunk_time(2, 8, 128, 4, kN150), 4878640.0);
  EXPECT_DOUBLE_EQ(q_chunk_time(4, 8, 128, 4, kN150), 4953696.0);
  EXPECT_DOUBLE_EQ(q_chunk_time(8, 8, 128, 4, kN150), 5103808.0);
  EXPECT_NEAR(q_chunk_time(1, 8, 128, 4, kN150), 8.0 * (8256 + 128) * 4 * 2048 / 66.1, 1e-2);
  EXPECT_EQ(choose_q_chunk(8, 128, 4, kN150), 2);
}

// Few rows: 2 x 256 x 128 has 16 rows for 64 cores, one each; the longest is a last row's 8 key
// steps, 37,528. A chunk of two halves the items and doubles the longest (the chunk of rows 6
// and 7: 2 * 8 steps), so the balance over the cores keeps q = 1.
TEST(QChunk, OneWhenTheRowsDoNotFillTheGrid) {
  EXPECT_DOUBLE_EQ(q_chunk_time(1, 2, 8, 4, kN150), 37528.0);
  EXPECT_DOUBLE_EQ(q_chunk_time(2, 2, 8, 4, kN150), 75056.0);
  EXPECT_EQ(choose_q_chunk(2, 8, 4, kN150), 1);
}

// The window: q rows of Dt tiles in 32 pages. D = 384 (Dt = 12) allows q = 2 but not 3; D = 1024
// (Dt = 32) allows only q = 1, whose row is streamed past the window (D up to 2048 as before).
// At D = 256 (Dt = 8, a step of 6,423) the reads are twice D = 128's for the same compute per
// product, so the largest chunk that fits wins: at 256 x 512 x 256 (St = 16), q = 4 runs 1,024
// items, 16 a core, eight pairs of 4 * 20 row steps: 640 * 6,423 = 4,110,720, against q = 2's
// reads (5,583,945; its compute 3.7 M) and q = 1's (9,644,996).
TEST(QChunk, TheWindowCapsTheChunk) {
  EXPECT_GT(q_chunk_time(2, 8, 64, 12, kN150), 0);
  EXPECT_LT(q_chunk_time(3, 8, 64, 12, kN150), 0);
  EXPECT_LT(q_chunk_time(2, 4, 32, 32, kN150), 0);
  EXPECT_GT(q_chunk_time(1, 4, 32, 64, kN150), 0);
  EXPECT_EQ(choose_q_chunk(4, 32, 32, kN150), 1);
  EXPECT_EQ(choose_q_chunk(8, 64, 12, kN150), 2);
  EXPECT_DOUBLE_EQ(q_chunk_time(4, 256, 16, 8, kN150), 4110720.0);
  EXPECT_EQ(choose_q_chunk(256, 16, 8, kN150), 4);
  EXPECT_LT(q_chunk_time(5, 256, 16, 8, kN150), 0);
}

// The rule chooses only a q that divides the largest chunk (the CBs the rows' tiles cycle through
// hold max_q pages and compute reads them at the row's index: a chunk must not wrap past their
// end), and it has costs only for those (q = 1, 2, 4, 8): q = 3 is not priced. At 32 heads of 6
// tile rows, D = 128, q = 3 (two chunks a head, 64 items for 64 cores) would balance best; the
// rule takes the best of 1, 2, 4 and 8 instead.
TEST(QChunk, TheRuleChoosesADivisorOfTheLargestChunk) {
  EXPECT_LT(q_chunk_time(3, 32, 6, 4, kN150), 0);
  EXPECT_LT(q_chunk_time(6, 32, 6, 4, kN150), 0);
  const std::int64_t q = choose_q_chunk(32, 6, 4, kN150);
  EXPECT_EQ(8 % q, 0) << q;
  for (std::int64_t other : {1, 2, 4, 8})
    EXPECT_LE(q_chunk_time(q, 32, 6, 4, kN150), q_chunk_time(other, 32, 6, 4, kN150)) << other;
  for (std::int64_t H : {1, 8, 32, 256})
    for (std::int64_t St : {3, 6, 7, 12, 64, 128})
      for (std::int64_t Dt : {2, 4, 8})
        EXPECT_EQ(8 % choose_q_chunk(H, St, Dt, kN150), 0) << H << " " << St << " " << Dt;
}

// The pieces at their own prices. With q = 4's costs item 1,000 + 100 per tile of D, a chunk step
// (8 key tiles, all 4 rows) 20,000 + 2,000, a single key step 4,000 + 300, a diagonal step 5,000 +
// 400, at Dt = 4: 1,400, 28,000, 5,200, 6,600. Chunk 5 of 64 rows has 20 key tiles below its
// diagonal, 2 chunk steps and 4 single ones, and 4 diagonal steps: 1,400 + 56,000 + 20,800 +
// 26,400 = 104,600; at St = 22 the same chunk has 2 rows, so 2 diagonal steps: 91,400; chunk 0
// only its item and its diagonal: 27,800. tt.q_chunk's arguments map onto the fields in
// q_chunk_limits' order (cores, W, max q, page, DRAM bytes per 1000 cycles, keys, then q = 1, 2,
// 4, 8's item, chunk, single, diagonal, each fixed and per tile).
TEST(QChunk, AnItemCostsItsPiecesAtTheirOwnPrices) {
  std::int64_t a[tk::tt_host::kQChunkArgs] = {64, 32, 8, 2048, 66100, 8};
  const std::int64_t q4[8] = {1000, 100, 20000, 2000, 4000, 300, 5000, 400};
  for (std::size_t i = 0; i < 8; ++i)
    a[6 + 2 * 8 + i] = q4[i];
  const QChunkLimits l = q_chunk_limits(a);
  EXPECT_EQ(l.cores, 64);
  EXPECT_EQ(l.window, 32);
  EXPECT_EQ(l.max_q, 8);
  EXPECT_EQ(l.page, 2048);
  EXPECT_DOUBLE_EQ(l.dram_bytes, 66.1);
  EXPECT_EQ(l.keys, 8);
  EXPECT_EQ(l.costs[2].diagonal.fixed, 5000);
  EXPECT_EQ(l.costs[2].diagonal.per_tile, 400);
  EXPECT_EQ(l.costs[1].chunk.fixed, 0);
  EXPECT_DOUBLE_EQ(q_chunk_item_cycles(4, 5, 64, 4, l), 104600.0);
  EXPECT_DOUBLE_EQ(q_chunk_item_cycles(4, 5, 22, 4, l), 91400.0);
  EXPECT_DOUBLE_EQ(q_chunk_item_cycles(4, 0, 64, 4, l), 27800.0);
}

// bench/attention_hifi2.tk's costs as price-q-chunk gave them on 2026-11-29 (`ttgen
// bench/attention_hifi2.tk --emit ir`, the host's tt.q_chunk): keys 8, then for q = 1, 2, 4, 8
// the item, a chunk step, a single and a diagonal step, each fixed + per tile of D.
constexpr std::int64_t kHifi2Args[tk::tt_host::kQChunkArgs] = {
    64,    32,   8,     2048,  66100, 8,     476,    1603,  18144, 1699, 5784,  589,   6198,
    589,   642,  3206,  29478, 2980,  9904,  1127,   10902, 1179,  1014, 6412,  53900, 5545,
    18638, 2202, 20905, 2358,  1758,  12824, 106786, 11091, 36660, 4403, 41240, 4716};

// Issue 30's S = 512, D = 128 cell, 512 x 512 x 128 (St = 16, Dt = 4). At Dt = 4, q = 2: item
// 642 + 4 * 3,206 = 13,466, chunk step 29,478 + 4 * 2,980 = 41,398, single 9,904 + 4 * 1,127 =
// 14,412, diagonal 10,902 + 4 * 1,179 = 15,618; q = 4: 26,662, 76,080, 27,446, 30,337.
// q = 2: 8 chunks a head, 4,096 items, 64 a core: 8 whole heads. A head's chunks c = 0 .. 7 have
// 2c key tiles below the diagonal: 4 chunk steps (c = 4 .. 7), 0 + 2 + 4 + 6 twice = 24 single
// steps, 16 diagonal steps: 8 * 13,466 + 4 * 41,398 + 24 * 14,412 + 16 * 15,618 = 869,096, the
// core 6,952,768 (its DRAM: 352 pages a head on each NoC, 180,224 * 2048 / 66.1 = 5.58 M).
// q = 4: 4 chunks a head, 32 items a core, 8 heads; c = 0 .. 3 have 4c below: 2 chunk steps, 8
// single ones, 16 diagonal: 4 * 26,662 + 2 * 76,080 + 8 * 27,446 + 16 * 30,337 = 963,768, the
// core 7,710,144. So q = 2 (measured: 7,358.1 us against q = 4's 7,959.9, docs/lowering.md,
// "Single key steps in the rule"). Every key step at the chunk step's share of a row (the rule
// before, 1,685 + 173 per tile of D: q = 4's chunk step over its 4 rows and 8 key tiles) prices
// q = 4 at 8 * 4 * (4 + 8 + 12 + 16) * 2,377 = 3,042,560, under its DRAM, 3,553,420.6 (114,688
// pages), and q = 2 at its DRAM, 5,583,945.5: it chose q = 4.
TEST(QChunk, SingleAndDiagonalStepsAtTheirOwnPriceChooseTwoAtS512D128) {
  const QChunkLimits l = q_chunk_limits(kHifi2Args);
  EXPECT_DOUBLE_EQ(q_chunk_time(2, 512, 16, 4, l), 6952768.0);
  EXPECT_DOUBLE_EQ(q_chunk_time(4, 512, 16, 4, l), 7710144.0);
  EXPECT_EQ(choose_q_chunk(512, 16, 4, l), 2);
  const QChunkLimits before = uniform(1685, 173);
  EXPECT_NEAR(q_chunk_time(4, 512, 16, 4, before), 114688.0 * 2048 / 66.1, 1e-3);
  EXPECT_NEAR(q_chunk_time(2, 512, 16, 4, before), 180224.0 * 2048 / 66.1, 1e-3);
  EXPECT_EQ(choose_q_chunk(512, 16, 4, before), 4);
}

// The per-batch term: a chunk step of q rows is not q times one row's. With kHifi2Args at Dt =
// 4, one row alone pays 24,940 for a chunk step, four rows together 76,080, not 99,760 (the
// batch's inits, waits and hand-offs shared by its rows), and eight rows two batches, 151,150.
TEST(QChunk, TheRowsOfABatchShareItsWork) {
  const QChunkLimits l = q_chunk_limits(kHifi2Args);
  EXPECT_DOUBLE_EQ(l.costs[0].chunk.at(4), 24940.0);
  EXPECT_DOUBLE_EQ(l.costs[2].chunk.at(4), 76080.0);
  EXPECT_DOUBLE_EQ(l.costs[3].chunk.at(4), 151150.0);
  EXPECT_LT(l.costs[2].chunk.at(4), 4 * l.costs[0].chunk.at(4));
}

// `@options(q_chunk = N)` overrides the rule, even where the rule would choose another.
TEST(QChunk, AFixedChunkOverrides) {
  QChunkLimits fixed = kN150;
  fixed.fixed_q = 4;
  EXPECT_EQ(choose_q_chunk(256, 64, 2, fixed), 4);
  fixed.fixed_q = 1;
  EXPECT_EQ(choose_q_chunk(8, 64, 4, fixed), 1);
}

} // namespace
