// The blocked matmul's block rule (include/tilekit/matmul_blocks.hpp), with the limits
// choose-blocks gives a bf16 HiFi4 matmul on the n150's 8x8 grid (2x2 sub-blocks; CBs of 128, 128
// and 128 tiles; a product 71 cycles, a partial sum's round trip 68, multicast 28 B/cycle, DRAM
// 66 B/cycle, 2048-byte pages of A, B and C, reads 30 B/cycle, 933 cycles of latency a K step,
// writes 30 B/cycle) unless a case says otherwise. Each expectation is worked out from the rule as
// its comment defines it:
//   compute = rounds * r * c * (Kt * 71 + Kt / d * 68)
//   sender  = rounds * Kt * (r + c) * 2048 * (1/30 + 1/28) + steps * 933
//   DRAM    = (Mt * Kt * rounds across + Kt * Nt * rounds down) * 2048 / 66
//   pipe    = t + (steps - 1) * max(t, k) + k, t = max(sender, DRAM) / steps, k = compute / steps
//   drain   = max(last_rows * last_cols * 2048 / 66, min(r, last_rows) * min(c, last_cols) * 2048 /
//   30) written = (Mt * Nt - last_rows * last_cols) * 2048 / 66 time    = max(pipe, written) +
//   drain
// (last_rows x last_cols: the tiles of C the last round's blocks cover.)
#include "include/tilekit/matmul_blocks.hpp"

#include <gtest/gtest.h>

namespace {

using tk::tt_host::choose_matmul_blocks;
using tk::tt_host::MatmulBlockLimits;
using tk::tt_host::MatmulBlocks;

constexpr MatmulBlockLimits kBf16{8,  8,  2,    2,    128, 128, 128,  71, 68,
                                  28, 66, 2048, 2048, 30,  933, 2048, 30};

void expect_blocks(MatmulBlocks b, std::int64_t rows, std::int64_t cols, std::int64_t depth) {
  EXPECT_EQ(b.rows, rows);
  EXPECT_EQ(b.cols, cols);
  EXPECT_EQ(b.depth, depth);
}

// 4096^3: 128 x 128 x 128 tiles. Every core makes the same products whatever the block; 8 x 8
// blocks (4 rounds, depth 8: 64 steps) compute 256 * (128 * 71 + 16 * 68) = 2,605,056, their
// sender 1,218,139 and DRAM 2,033,602 stay below it, so the pipeline takes 2,605,056 plus a
// step's delivery (31,775): 2,636,831; the last round leaves 64 x 64 tiles of C to drain
// (127,100): 2,763,931. 4 x 8 (8 rounds) computes the same but reads 1.5 times as much
// (DRAM 3,050,403 > compute): 3,070,755 + 63,550. 6 x 8 (6 rounds; its last round's blocks cover
// 32 rows: drain 63,550): 2,957,167 + 63,550 = 3,020,717. A deeper step does not fit
// (2 * 8 * 16 > 128); a shallower one round-trips more partial sums (depth 4: compute 2,883,584,
// time 2,899,472 + 127,100).
TEST(MatmulBlocks, FourK) {
  expect_blocks(choose_matmul_blocks(128, 128, 128, kBf16), 8, 8, 8);
}

// 512^3: 16 x 16 tiles. Every block shape with one round reads A and B once (DRAM 15,888, the
// longest total) and drains all of C at the end (256 tiles: 7,944), so the pipeline's ends
// decide: 2 x 2 blocks on all 64 cores, depth 4 (4 steps): a step delivers in 3,972 and computes
// in 1,408 (4 * (16 * 71 + 4 * 68) / 4): 4 * 3,972 + 1,408 = 17,296, + 7,944 = 25,240. Depth 2
// (8 steps) pays its latency 8 times (sender 16,514): 17,354; depth 16 (one step) overlaps
// nothing: 15,888 + 4,816 = 20,704; 2 x 4 computes 11,264: 20,123 (each + 7,944).
TEST(MatmulBlocks, FiveTwelve) {
  expect_blocks(choose_matmul_blocks(16, 16, 16, kBf16), 2, 2, 4);
}

// 1024^3: 32 x 32 tiles. 4 x 4 blocks on all 64 cores, depth 2 (16 steps): compute 53,760,
// DRAM 63,550 (the longer): 63,550 + 3,360 = 66,910. Depth 4 computes less (45,056) but its 8
// steps are longer: 63,550 + 5,632 = 69,182; depth 8: 73,726. 6 x 4 (48 cores), depth 4: 75,528.
// Each is one round and drains all of C at the end (1,024 tiles: 31,775): 4 x 4, depth 2,
// 98,685. Two rounds of smaller blocks leave half of C (15,888) but read more than that saves:
// 4 x 2, depth 2 (32 steps), 97,005 + 15,888 = 112,893.
TEST(MatmulBlocks, OneK) {
  expect_blocks(choose_matmul_blocks(32, 32, 32, kBf16), 4, 4, 2);
}

// 2048^3: 64 x 64 x 64 tiles, where C's drain changes the choice. 8 x 8 blocks, one round on all
// 64 cores, depth 8 (8 steps): compute 64 * (64 * 71 + 8 * 68) = 325,632, sender 152,265, DRAM
// 254,200: 31,775 + 8 * 40,704 = 357,407, the shortest pipeline; but its one round leaves all of
// C, 4,096 tiles, to drain after the last products: 127,100, time 484,507. 8 x 4 (two rounds
// across, depth 4: 32 steps) reads B twice: DRAM 381,300 (t 11,916), compute 360,448 (k 11,264):
// 32 * 11,916 + 11,264 = 392,564; the first round's half of C (written 63,550) drains under the
// second, whose half is left: 63,550, time 456,114. 4 x 8 ties with it (the same reads) and the
// taller block wins; 8 x 4 at depth 8 computes less but its 16 steps are longer: 465,202.
// (The rule without the drain chose 8 x 8.)
TEST(MatmulBlocks, TwoK) {
  expect_blocks(choose_matmul_blocks(64, 64, 64, kBf16), 8, 4, 4);
}

// 544 x 576 x 608: 17 x 18 x 19 tiles. 4 x 4 (5 x 5 blocks, one round on 25 cores), depth 3
// (6 steps): compute 16 * (18 * 71 + 6 * 68) = 26,976, sender 25,961, DRAM 20,108: pipeline
// 4,327 + 6 * 4,496 = 31,303, but its one round drains all 323 tiles of C after it: 10,023,
// time 41,326. 2 x 4 (9 x 5 blocks: two rounds down on 8 x 5 cores), depth 9 (4 steps): compute
// 2 * 8 * (18 * 71 + 2 * 68) = 22,624, sender 2 * 18 * 6 * 2048 * (1/30 + 1/28) + 4 * 933 =
// 34,276, DRAM (306 + 2 * 342) * 2048 / 66 = 30,720: 4 * 8,569 + 5,656 = 39,932; its last round
// is C's last tile row (19 tiles: drain 590, the first round's 304 written in 9,433 under the
// second): 40,522. 4 x 2 (two rounds across, the last 3 columns: 51 tiles, 1,583): 41,515.
// (The rule without the drain chose 4 x 4, depth 3.)
TEST(MatmulBlocks, UnevenShape) {
  expect_blocks(choose_matmul_blocks(17, 18, 19, kBf16), 2, 4, 9);
}

// One tile row: the block is one sub-block tall (2 rows, one of them past the edge), on one row of
// cores. 2 x 8, depth 2 (8 blocks on 8 cores, one round of 2 steps): compute 16 * (4 * 71 + 2 *
// 68) = 6,720, sender 7,522, DRAM 8,068: 4,034 + 4,034 + 3,360 = 11,428, then all 64 tiles of C
// drain (1,986): 13,414. 2 x 4, depth 4 (two rounds of one step): 11,470, and only the second
// round's 32 tiles drain after it (993): 12,463. (Without the drain: 2 x 8, depth 2.)
TEST(MatmulBlocks, OneRowOfTiles) {
  expect_blocks(choose_matmul_blocks(1, 4, 64, kBf16), 2, 4, 4);
}

// A prime K: the depth must divide Kt, so 1 when all of it does not fit (Kt = 67: every shape
// computes 256 * 67 * (71 + 68) = 2,384,128 per core, each of its 1,072 steps (4 x 4, 16 rounds)
// adding 2,064 of delivery: 2,386,192 + a drain of 31,775; 8 x 8 (268 steps, 3,972 of delivery)
// ends at 2,388,100 + 127,100), all of it when it does (Kt = 31 on 2 x 2: one step, 18,468 +
// 9,076 = 27,544, + 273).
TEST(MatmulBlocks, DepthDividesK) {
  expect_blocks(choose_matmul_blocks(128, 67, 128, kBf16), 4, 4, 1);
  expect_blocks(choose_matmul_blocks(2, 31, 2, kBf16), 2, 2, 31);
}

// f32 on a 4x4 grid (matmul_f32): CBs of 64, 64 and 128 tiles, 4096-byte pages. 1024^3 is
// 32 x 32 tiles: 8 x 8 (one round on the 4 x 4 grid), depth 4 (8 steps): compute
// 64 * (32 * 71 + 8 * 68) = 180,224, sender 152,267, DRAM 127,100: 19,033 + 8 * 22,528 =
// 199,257, then all of C drains (63,550): 262,807; depth 2: 225,023 + 63,550; 4 x 8 (two
// rounds) reads more and its sender is 232,133: 243,397, half of C left: 275,172.
TEST(MatmulBlocks, F32Grid4x4) {
  expect_blocks(
      choose_matmul_blocks(
          32, 32, 32, {4, 4, 2, 2, 64, 64, 128, 71, 68, 28, 66, 4096, 4096, 30, 933, 4096, 30}),
      8, 8, 4);
}

// A block fixed by @options is the only candidate; its depth still follows (C's drain is the
// block's, whatever the depth): 6 x 4 at 17 x 18 x 19 computes 24 * (18 * 71 + 18 / d * 68);
// depth 6 (3 steps): 44,986, depth 3 (6 steps): 45,639, depth 9: 47,596. FourK's rule-chosen
// 8 x 8 fixed to 4 x 4 comes with depth 2.
TEST(MatmulBlocks, FixedBlock) {
  MatmulBlockLimits fixed = kBf16;
  fixed.fixed_rows = 6;
  fixed.fixed_cols = 4;
  expect_blocks(choose_matmul_blocks(17, 18, 19, fixed), 6, 4, 6);
  fixed.fixed_rows = fixed.fixed_cols = 4;
  expect_blocks(choose_matmul_blocks(128, 128, 128, fixed), 4, 4, 2);
}

// A sub-block larger than a CB's half: no block fits.
TEST(MatmulBlocks, NothingFits) {
  expect_blocks(choose_matmul_blocks(8, 8, 8, {8, 8, 4, 4, 6, 6, 256}), 0, 0, 0);
}

// The IR's call returns the fields of the same choice.
TEST(MatmulBlocks, FieldsOfTheIrCall) {
  EXPECT_EQ(tk::tt_host::matmul_block(0, 17, 18, 19, 8, 8, 2, 2, 128, 128, 128, 71, 68, 28, 66,
                                      2048, 2048, 30, 933, 2048, 30, 0, 0),
            2);
  EXPECT_EQ(tk::tt_host::matmul_block(1, 17, 18, 19, 8, 8, 2, 2, 128, 128, 128, 71, 68, 28, 66,
                                      2048, 2048, 30, 933, 2048, 30, 0, 0),
            4);
  EXPECT_EQ(tk::tt_host::matmul_block(2, 17, 18, 19, 8, 8, 2, 2, 128, 128, 128, 71, 68, 28, 66,
                                      2048, 2048, 30, 933, 2048, 30, 0, 0),
            9);
}

} // namespace
