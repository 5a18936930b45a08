// The blocked matmul's block rule (include/tilekit/matmul_blocks.hpp), with the limits
// choose-blocks gives a bf16 HiFi4 matmul on the n150's 8x8 grid (2x2 sub-blocks; CBs of 128, 128
// and 128 tiles; a product 71 cycles, a partial sum's round trip 68, multicast 28 B/cycle, DRAM
// 66 B/cycle, 2048-byte pages, reads 30 B/cycle, 933 cycles of latency a K step) unless a case
// says otherwise. Each expectation is worked out from the rule as its comment defines it:
//   compute = rounds * r * c * (Kt * 71 + Kt / d * 68)
//   sender  = rounds * Kt * (r + c) * 2048 * (1/30 + 1/28) + steps * 933
//   DRAM    = (Mt * Kt * rounds across + Kt * Nt * rounds down) * 2048 / 66
//   time    = t + (steps - 1) * max(t, k) + k, t = max(sender, DRAM) / steps, k = compute / steps
#include "include/tilekit/matmul_blocks.hpp"

#include <gtest/gtest.h>

namespace {

using tk::tt_host::choose_matmul_blocks;
using tk::tt_host::MatmulBlockLimits;
using tk::tt_host::MatmulBlocks;

constexpr MatmulBlockLimits kBf16{8, 8, 2, 2, 128, 128, 128, 71, 68, 28, 66, 2048, 2048, 30, 933};

void expect_blocks(MatmulBlocks b, std::int64_t rows, std::int64_t cols, std::int64_t depth) {
  EXPECT_EQ(b.rows, rows);
  EXPECT_EQ(b.cols, cols);
  EXPECT_EQ(b.depth, depth);
}

// 4096^3: 128 x 128 x 128 tiles. Every core makes the same products whatever the block; 8 x 8
// blocks (4 rounds, depth 8: 64 steps) compute 256 * (128 * 71 + 16 * 68) = 2,605,056, their
// sender 1,218,139 and DRAM 2,033,602 stay below it, so the time is 2,605,056 plus a step's
// delivery (31,775): 2,636,831. 4 x 8 (8 rounds) computes the same but reads 1.5 times as much
// (DRAM 3,050,403 > compute): 3,070,755. A deeper step does not fit (2 * 8 * 16 > 128); a
// shallower one round-trips more partial sums (depth 4: compute 2,883,584, time 2,899,472).
TEST(MatmulBlocks, FourK) {
  expect_blocks(choose_matmul_blocks(128, 128, 128, kBf16), 8, 8, 8);
}

// 512^3: 16 x 16 tiles. Every block shape with one round reads A and B once (DRAM 15,888, the
// longest total), so the pipeline's ends decide: 2 x 2 blocks on all 64 cores, depth 4 (4 steps):
// a step delivers in 3,972 and computes in 1,408 (4 * (16 * 71 + 4 * 68) / 4): 4 * 3,972 +
// 1,408 = 17,296. Depth 2 (8 steps) pays its latency 8 times (sender 16,514): 17,354; depth 16
// (one step) overlaps nothing: 15,888 + 4,816 = 20,704; 2 x 4 computes 11,264: 20,123.
TEST(MatmulBlocks, FiveTwelve) {
  expect_blocks(choose_matmul_blocks(16, 16, 16, kBf16), 2, 2, 4);
}

// 1024^3: 32 x 32 tiles. 4 x 4 blocks on all 64 cores, depth 2 (16 steps): compute 53,760,
// DRAM 63,550 (the longer): 63,550 + 3,360 = 66,910. Depth 4 computes less (45,056) but its 8
// steps are longer: 63,550 + 5,632 = 69,182; depth 8: 73,726. 6 x 4 (48 cores), depth 4: 75,528.
TEST(MatmulBlocks, OneK) {
  expect_blocks(choose_matmul_blocks(32, 32, 32, kBf16), 4, 4, 2);
}

// 544 x 576 x 608: 17 x 18 x 19 tiles. 4 x 4 (5 x 5 blocks, one round on 25 cores), depth 3
// (6 steps): compute 16 * (18 * 71 + 6 * 68) = 26,976, sender 25,961, DRAM 20,108:
// 4,327 + 6 * 4,496 = 31,303. Depth 6 (3 steps): 31,433; depth 9 (2 steps; 2 * 4 * 18 > 128 rules
// out 18): 33,738. 2 x 4 and 4 x 2 take two rounds: 39,932.
TEST(MatmulBlocks, UnevenShape) {
  expect_blocks(choose_matmul_blocks(17, 18, 19, kBf16), 4, 4, 3);
}

// One tile row: the block is one sub-block tall (2 rows, one of them past the edge), on one row of
// cores. 2 x 8, depth 2 (8 blocks on 8 cores, one round of 2 steps): compute 16 * (4 * 71 + 2 *
// 68) = 6,720, sender 7,522, DRAM 8,068: 4,034 + 4,034 + 3,360 = 11,428. 2 x 4, depth 4 (two
// rounds of one step): 11,470; 2 x 8 in one step of 4 overlaps nothing: 13,700.
TEST(MatmulBlocks, OneRowOfTiles) {
  expect_blocks(choose_matmul_blocks(1, 4, 64, kBf16), 2, 8, 2);
}

// A prime K: the depth must divide Kt, so 1 when all of it does not fit (Kt = 67: every shape
// computes 256 * 67 * (71 + 68) = 2,384,128 per core, each of its 1,072 steps (4 x 4, 16 rounds)
// adding 2,064 of delivery: 2,386,192; 8 x 8 (268 steps, 3,972 of delivery) ends at 2,388,100),
// all of it when it does (Kt = 31 on 2 x 2: one step, 18,468 + 9,076 = 27,544).
TEST(MatmulBlocks, DepthDividesK) {
  expect_blocks(choose_matmul_blocks(128, 67, 128, kBf16), 4, 4, 1);
  expect_blocks(choose_matmul_blocks(2, 31, 2, kBf16), 2, 2, 31);
}

// f32 on a 4x4 grid (matmul_f32): CBs of 64, 64 and 128 tiles, 4096-byte pages. 1024^3 is
// 32 x 32 tiles: 8 x 8 (one round on the 4 x 4 grid), depth 4 (8 steps): compute
// 64 * (32 * 71 + 8 * 68) = 180,224, sender 152,267, DRAM 127,100: 19,033 + 8 * 22,528 =
// 199,257; depth 2: 225,023; 4 x 8 (two rounds) reads more and its sender is 232,133: 243,397.
TEST(MatmulBlocks, F32Grid4x4) {
  expect_blocks(choose_matmul_blocks(
                    32, 32, 32, {4, 4, 2, 2, 64, 64, 128, 71, 68, 28, 66, 4096, 4096, 30, 933}),
                8, 8, 4);
}

// A block fixed by @options is the only candidate; its depth still follows: 6 x 4 at 17 x 18 x 19
// computes 24 * (18 * 71 + 18 / d * 68); depth 6 (3 steps): 44,986, depth 3 (6 steps): 45,639,
// depth 9: 47,596. FourK's rule-chosen 8 x 8 fixed to 4 x 4 comes with depth 2.
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
                                      2048, 2048, 30, 933, 0, 0),
            4);
  EXPECT_EQ(tk::tt_host::matmul_block(1, 17, 18, 19, 8, 8, 2, 2, 128, 128, 128, 71, 68, 28, 66,
                                      2048, 2048, 30, 933, 0, 0),
            4);
  EXPECT_EQ(tk::tt_host::matmul_block(2, 17, 18, 19, 8, 8, 2, 2, 128, 128, 128, 71, 68, 28, 66,
                                      2048, 2048, 30, 933, 0, 0),
            3);
}

} // namespace
