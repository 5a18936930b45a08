// The blocked matmul's block rule (include/tilekit/matmul_blocks.hpp), with the limits
// choose-blocks gives a bf16 HiFi4 matmul on the 8x8 grid (2x2 sub-blocks; CBs of 128, 128 and 256
// tiles; a product 64 cycles, a partial sum's round trip 40, multicast 28 B/cycle, DRAM 288
// B/cycle, 2048-byte pages) unless a case says otherwise. Each expectation is worked out by hand
// from the rule: time = max(compute, sender, DRAM) in cycles, as its comment defines them.
#include "include/tilekit/matmul_blocks.hpp"

#include <gtest/gtest.h>

namespace {

using tk::tt_host::choose_matmul_blocks;
using tk::tt_host::MatmulBlockLimits;
using tk::tt_host::MatmulBlocks;

constexpr MatmulBlockLimits kBf16{8, 8, 2, 2, 128, 128, 256, 64, 40, 28, 288, 2048, 2048};

void expect_blocks(MatmulBlocks b, std::int64_t rows, std::int64_t cols, std::int64_t depth) {
  EXPECT_EQ(b.rows, rows);
  EXPECT_EQ(b.cols, cols);
  EXPECT_EQ(b.depth, depth);
}

// 4096^3: 128 x 128 x 128 tiles. Every shape gives each core 256 tiles of C, so the round trips
// of partial sums (Kt / depth per tile) and the data the corner core moves decide:
//   16 x 16, depth 4,  1 round:   compute 256 * (128 * 64 + 32 * 40) = 2,424,832
//    8 x  8, depth 8,  4 rounds:  compute 256 * (8192 + 16 * 40)     = 2,260,992
//    4 x  4, depth 16, 16 rounds: compute 256 * (8192 + 8 * 40)      = 2,179,072,
//                                 sender 16 * 128 * 8 * 2048 / 28    = 1,198,373,
//                                 DRAM 16384 * 8 * 2048 / 288        =   932,068
//    2 x  2, depth 32, 64 rounds: compute 2,138,112, but sender 64 * 128 * 4 * 2048 / 28 =
//    2,396,745
// 2 x 4 and 4 x 2 tie with 4 x 4 on time (2,179,072) and read more (8 rounds one way): 4 x 4.
TEST(MatmulBlocks, FourK) {
  expect_blocks(choose_matmul_blocks(128, 128, 128, kBf16), 4, 4, 16);
}

// 512^3: 16 x 16 tiles, 2 x 2 blocks, one per core of the 8 x 8 grid, depth 16 (all of K):
// compute 4 * (16 * 64 + 40) = 4,256, sender 16 * 4 * 2048 / 28 = 4,681 (the time); 2 x 4 on an
// 8 x 4 grid computes 8,512.
TEST(MatmulBlocks, FiveTwelve) {
  expect_blocks(choose_matmul_blocks(16, 16, 16, kBf16), 2, 2, 16);
}

// 544 x 576 x 608: 17 x 18 x 19 tiles. Depth 9 for every shape up to 4 x 4 (2 * 4 * 18 = 144 >
// 128). 2 x 4 (9 x 5 blocks: two rounds down the 8 rows), 4 x 2 (two across) and 4 x 4 (5 x 5, one
// round on a 5 x 5 grid) all compute 16 * (18 * 64 + 2 * 40) = 19,712, above their sender and DRAM
// times; 2 x 2 takes 4 rounds and its sender 4 * 18 * 4 * 2048 / 28 = 21,065. DRAM bytes:
// 4 x 4 reads the least (one round each way).
TEST(MatmulBlocks, UnevenShape) {
  expect_blocks(choose_matmul_blocks(17, 18, 19, kBf16), 4, 4, 9);
}

// One tile row: the block is one sub-block tall (2 rows, one of them past the edge), a grid of one
// row of cores, depth 4 (all of K). 2, 4 and 8 columns all give each core 16 tiles of C (32
// blocks in 4 rounds, 16 in 2, 8 in 1): compute 16 * (4 * 64 + 40) = 4,736, above the sender;
// 8 columns read the least.
TEST(MatmulBlocks, OneRowOfTiles) {
  expect_blocks(choose_matmul_blocks(1, 4, 64, kBf16), 2, 8, 4);
}

// A prime K: the depth must divide Kt, so 1 when all of it does not fit (Kt = 67, every shape
// from 2 x 2 up: each core makes 256 * 67 products and round trips whatever the block, and
// 16 x 16 reads the least), all of it when it does.
TEST(MatmulBlocks, DepthDividesK) {
  expect_blocks(choose_matmul_blocks(128, 67, 128, kBf16), 16, 16, 1);
  expect_blocks(choose_matmul_blocks(2, 31, 2, kBf16), 2, 2, 31);
}

// f32 on a 4x4 grid (matmul_f32): CBs of 64, 64 and 128 tiles, 4096-byte pages, a round trip of
// 64 + 8 = 72 cycles. 1024^3 is 32 x 32 tiles: 8 x 8 (one round, depth 4) computes
// 64 * (32 * 64 + 8 * 72) = 167,936; 4 x 4 (four rounds, depth 8) 64 * (2048 + 4 * 72) = 149,504,
// its sender 4 * 32 * 8 * 4096 / 28 = 149,797: 4 x 4.
TEST(MatmulBlocks, F32Grid4x4) {
  expect_blocks(
      choose_matmul_blocks(32, 32, 32, {4, 4, 2, 2, 64, 64, 128, 64, 72, 28, 288, 4096, 4096}), 4,
      4, 8);
}

// A block fixed by @options is the only candidate; its depth still follows (2 * 6 * d <= 128 and
// d divides 18: 9). Fixed or not, FourK's 4 x 4 comes with depth 16.
TEST(MatmulBlocks, FixedBlock) {
  MatmulBlockLimits fixed = kBf16;
  fixed.fixed_rows = 6;
  fixed.fixed_cols = 4;
  expect_blocks(choose_matmul_blocks(17, 18, 19, fixed), 6, 4, 9);
  fixed.fixed_rows = fixed.fixed_cols = 4;
  expect_blocks(choose_matmul_blocks(128, 128, 128, fixed), 4, 4, 16);
}

// A sub-block larger than a CB's half: no block fits.
TEST(MatmulBlocks, NothingFits) {
  expect_blocks(choose_matmul_blocks(8, 8, 8, {8, 8, 4, 4, 6, 6, 256}), 0, 0, 0);
}

// The IR's call returns the fields of the same choice.
TEST(MatmulBlocks, FieldsOfTheIrCall) {
  EXPECT_EQ(tk::tt_host::matmul_block(0, 17, 18, 19, 8, 8, 2, 2, 128, 128, 256, 64, 40, 28, 288,
                                      2048, 2048, 0, 0),
            4);
  EXPECT_EQ(tk::tt_host::matmul_block(1, 17, 18, 19, 8, 8, 2, 2, 128, 128, 256, 64, 40, 28, 288,
                                      2048, 2048, 0, 0),
            4);
  EXPECT_EQ(tk::tt_host::matmul_block(2, 17, 18, 19, 8, 8, 2, 2, 128, 128, 256, 64, 40, 28, 288,
                                      2048, 2048, 0, 0),
            9);
}

} // namespace
