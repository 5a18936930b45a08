// The blocked matmul's block rule (include/tilekit/matmul_blocks.hpp), with the limits
// choose-blocks gives a bf16 matmul on the 8x8 grid (2x2 sub-blocks; CBs of 128, 128 and 256
// tiles) unless a case says otherwise. Each expectation is worked out by hand from the rule.
#include "include/tilekit/matmul_blocks.hpp"

#include <gtest/gtest.h>

namespace {

using tk::tt_host::choose_matmul_blocks;
using tk::tt_host::MatmulBlockLimits;
using tk::tt_host::MatmulBlocks;

constexpr MatmulBlockLimits kBf16{8, 8, 2, 2, 128, 128, 256};

void expect_blocks(MatmulBlocks b, std::int64_t rows, std::int64_t cols, std::int64_t depth) {
  EXPECT_EQ(b.rows, rows);
  EXPECT_EQ(b.cols, cols);
  EXPECT_EQ(b.depth, depth);
}

// 4096^3: 128 x 128 output tiles, 16 x 16 per core is one block per core of the 8 x 8 grid (256
// products per K tile on every core); 8 x 32 would take two rounds down the grid (16 blocks down,
// 8 rows of cores). Reads: 16384 * (1 + 1), each row's first core reading A for the row, each
// column's top core B. depth 4: 2 * 16 * 4 = 128 fills A's and B's CBs.
TEST(MatmulBlocks, FourK) {
  expect_blocks(choose_matmul_blocks(128, 128, 128, kBf16), 16, 16, 4);
}

// 512^3: 16 x 16 tiles over 64 cores: 2 x 2 blocks, one each, is the least work (4); depth 16
// (all of K: 2 * 2 * 16 = 64 <= 128).
TEST(MatmulBlocks, FiveTwelve) {
  expect_blocks(choose_matmul_blocks(16, 16, 16, kBf16), 2, 2, 16);
}

// 544 x 576 x 608: 17 x 18 x 19 tiles. The least work per core is 16 products per K tile, which
// 2 x 2 (9 x 10 blocks: two rounds down and two across the 8 x 8 grid), 2 x 4 (9 x 5: two rounds
// down), 4 x 2 (5 x 10: two across) and 4 x 4 (5 x 5: one round on a 5 x 5 grid) all give. DRAM
// reads, 306 * rounds across + 342 * rounds down: 1296, 990, 954 and 648: 4 x 4. depth 18:
// 2 * 4 * 18 = 144 > 128, so 9 (72).
TEST(MatmulBlocks, UnevenShape) {
  expect_blocks(choose_matmul_blocks(17, 18, 19, kBf16), 4, 4, 9);
}

// One tile row: the block is one sub-block tall (2 rows, one of them past the edge), a grid of one
// row of cores. 2, 4 and 8 columns all give 16 products per K tile (32 blocks in 4 rounds of 8
// cores, 16 in 2, 8 in 1); 16 columns would be 32. Reads, 4 * rounds across + 256: 8 columns (one
// round) read the least. depth 4, all of K.
TEST(MatmulBlocks, OneRowOfTiles) {
  expect_blocks(choose_matmul_blocks(1, 4, 64, kBf16), 2, 8, 4);
}

// A prime K: the depth must divide Kt, so 1 when all of it does not fit (Kt = 67: 2 * 16 * 67 >
// 128), all of it when it does.
TEST(MatmulBlocks, DepthDividesK) {
  expect_blocks(choose_matmul_blocks(128, 67, 128, kBf16), 16, 16, 1);
  expect_blocks(choose_matmul_blocks(2, 31, 2, kBf16), 2, 2, 31);
}

// f32 on a 4x4 grid (matmul_f32): CBs of 64, 64 and 128 tiles. 1024^3 is 32 x 32 tiles: 8 x 8 per
// core, one block each (8 * 8 = 64 <= 128; 4 x 16 would take two rounds down); depth 4
// (2 * 8 * 4 = 64).
TEST(MatmulBlocks, F32Grid4x4) {
  expect_blocks(choose_matmul_blocks(32, 32, 32, {4, 4, 2, 2, 64, 64, 128}), 8, 8, 4);
}

// A sub-block larger than a CB's half: no block fits.
TEST(MatmulBlocks, NothingFits) {
  expect_blocks(choose_matmul_blocks(8, 8, 8, {8, 8, 4, 4, 6, 6, 256}), 0, 0, 0);
}

// The IR's call returns the fields of the same choice.
TEST(MatmulBlocks, FieldsOfTheIrCall) {
  EXPECT_EQ(tk::tt_host::matmul_block(0, 17, 18, 19, 8, 8, 2, 2, 128, 128, 256), 4);
  EXPECT_EQ(tk::tt_host::matmul_block(1, 17, 18, 19, 8, 8, 2, 2, 128, 128, 256), 4);
  EXPECT_EQ(tk::tt_host::matmul_block(2, 17, 18, 19, 8, 8, 2, 2, 128, 128, 256), 9);
}

} // namespace
