// The Q chunk rule (include/tilekit/q_chunk.hpp) on the n150's 8x8 grid: a Q window of 32 pages,
// chunks up to 8 rows, 2048-byte bf16 pages, 66.1 B/cycle per NoC's DRAM queue (arch/
// wormhole_b0.hpp, dram_read_total_bytes_per_cycle), and a query row's key step of 2,959 cycles
// plus 433 per tile of D. Those two costs were the timing model's busy cycles per key tile of the
// generated compute kernel of examples/attention.tk (q = 1) on the last core, 2026-11-28
// (`TK_EMULATOR_MATH=off build/ci/bench/tk_tt_bench --program attention --shape H,S,D
// --no-check`): 4,842,422 over 1,032 key tiles at 8 x 4096 x 128 (4,692 at Dt = 4) and 31,830,598
// over 8,320 at 256 x 2048 x 64 (3,826 at Dt = 2); the compiler now prices the step itself
// (price-q-chunk, price_q_chunk_test.cpp), and these tests keep them as the inputs of the rule's
// arithmetic. Each expectation is worked out from the rule as its comment defines it:
//   compute  the busiest core's sum over its items of q * n * (2959 + 433 * Dt), n = min((c + 1)
//            * q, St) the key steps of chunk c;
//   DRAM     each NoC's pages (n key rows and the chunk's own rows, Dt pages each, summed over
//            every item) * 2048 / 66.1;
//   time     max(compute, DRAM).
#include "include/tilekit/q_chunk.hpp"

#include <gtest/gtest.h>

namespace {

using tk::tt_host::choose_q_chunk;
using tk::tt_host::q_chunk_time;
using tk::tt_host::QChunkLimits;

constexpr QChunkLimits kN150{64, 32, 8, 2959, 433, 2048, 66.1, 0};

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
// end). At 32 heads of 6 tile rows, D = 128, q = 3 projects least (two chunks a head, 64 items
// for 64 cores), and the rule takes the best of 1, 2, 4 and 8 instead.
TEST(QChunk, TheRuleChoosesADivisorOfTheLargestChunk) {
  std::int64_t least = 1;
  for (std::int64_t q = 2; q <= 8; ++q)
    if (q_chunk_time(q, 32, 6, 4, kN150) >= 0 &&
        q_chunk_time(q, 32, 6, 4, kN150) < q_chunk_time(least, 32, 6, 4, kN150))
      least = q;
  EXPECT_EQ(least, 3);
  const std::int64_t q = choose_q_chunk(32, 6, 4, kN150);
  EXPECT_EQ(8 % q, 0) << q;
  for (std::int64_t other : {1, 2, 4, 8})
    EXPECT_LE(q_chunk_time(q, 32, 6, 4, kN150), q_chunk_time(other, 32, 6, 4, kN150)) << other;
  for (std::int64_t H : {1, 8, 32, 256})
    for (std::int64_t St : {3, 6, 7, 12, 64, 128})
      for (std::int64_t Dt : {2, 4, 8})
        EXPECT_EQ(8 % choose_q_chunk(H, St, Dt, kN150), 0) << H << " " << St << " " << Dt;
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
