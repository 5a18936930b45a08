// The shape checks generated kernels run first: exact messages, and no throw on valid shapes.
#include <tilekit/runtime.hpp>

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace {

template <class F>
std::string message_of(F&& f) {
  try {
    f();
  } catch (const tk::Error& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(ShapeCheck, TileMultiple) {
  EXPECT_EQ(message_of([] { tk::check_tile_multiple("matmul", "A", "cols", 70); }),
            "matmul: A.cols = 70 is not a multiple of 32");
  EXPECT_EQ(message_of([] { tk::check_tile_multiple("matmul", "A", "rows", -32); }),
            "matmul: A.rows = -32 is negative");
  EXPECT_EQ(message_of([] { tk::check_tile_multiple("matmul", "A", "rows", 96); }), "(no error)");
}

// A named dimension holds at least one tile (docs/language.md).
TEST(ShapeCheck, ZeroNamedDimension) {
  EXPECT_EQ(message_of([] { tk::check_tile_multiple("axpby", "x", "rows", 0, "M"); }),
            "axpby: x.rows = 0 but dimension M holds at least one tile (a positive multiple of "
            "32)");
  EXPECT_EQ(message_of([] { tk::check_tile_multiple("k", "x", "cols", 0); }),
            "k: x.cols = 0 but a named dimension holds at least one tile (a positive multiple of "
            "32)");
}

TEST(ShapeCheck, SameDimension) {
  EXPECT_EQ(message_of([] { tk::check_same_dim("matmul", "K", "A", "cols", 64, "B", "rows", 96); }),
            "matmul: dimension K mismatch: A.cols = 64 but B.rows = 96");
  EXPECT_EQ(message_of([] { tk::check_same_dim("matmul", "K", "A", "cols", 64, "B", "rows", 64); }),
            "(no error)");
}

// A grouped index (K[h / 2, j, e]): H must be 2 times HK, not merely at least.
TEST(ShapeCheck, GroupedDimension) {
  EXPECT_EQ(message_of([] {
              tk::check_grouped_dim("gqa", "H", "Q", "batch", 4, 2, "HK", "K", "batch", 3);
            }),
            "gqa: dimension H must be 2 times dimension HK (a grouped index divides by 2): "
            "Q.batch = 4 but K.batch = 3");
  EXPECT_EQ(message_of([] {
              tk::check_grouped_dim("gqa", "H", "Q", "batch", 8, 4, "HK", "K", "batch", 2);
            }),
            "(no error)");
}

TEST(ShapeCheck, Vectors) {
  EXPECT_EQ(message_of([] { tk::check_dim_equals("mbr", "bias", "rows", 32, 1); }),
            "mbr: bias.rows = 32 but must be exactly 1 (a row vector)");
  EXPECT_EQ(message_of([] { tk::check_dim_equals("k", "v", "cols", 2, 1); }),
            "k: v.cols = 2 but must be exactly 1 (a column vector)");
  EXPECT_EQ(message_of([] { tk::check_dim_equals("k", "W", "cols", 32, 64); }),
            "k: W.cols = 32 but must be exactly 64");
}

TEST(ShapeCheck, WholeView) {
  std::vector<tk::bf16> d(32 * 64);
  const tk::MatrixView<const tk::bf16> a{d.data(), 32, 64};
  EXPECT_EQ(message_of([&] { tk::check_shape("k", "A", a, tk::kAnyTiles, tk::kAnyTiles); }),
            "(no error)");
  EXPECT_EQ(message_of([&] { tk::check_shape("k", "A", a, tk::kAnyTiles, 64); }), "(no error)");
  const tk::MatrixView<const tk::bf16> bias{d.data(), 1, 64};
  EXPECT_EQ(message_of([&] { tk::check_shape("k", "bias", bias, 1, tk::kAnyTiles); }),
            "(no error)");
  EXPECT_EQ(message_of([&] { tk::check_shape("k", "bias", bias, tk::kAnyTiles, tk::kAnyTiles); }),
            "k: bias.rows = 1 is not a multiple of 32");
  const tk::MatrixView<const float> odd{nullptr, 32, 33};
  EXPECT_EQ(message_of([&] { tk::check_shape("k", "X", odd, tk::kAnyTiles, tk::kAnyTiles); }),
            "k: X.cols = 33 is not a multiple of 32");
  const tk::MatrixView<const float> null{nullptr, 64, 32};
  EXPECT_EQ(message_of([&] { tk::check_shape("k", "X", null, tk::kAnyTiles, tk::kAnyTiles); }),
            "k: X.data is null but X is 64x32");
  const tk::MatrixView<const float> empty{nullptr, 0, 32};
  EXPECT_EQ(
      message_of([&] { tk::check_shape("k", "X", empty, tk::kAnyTiles, tk::kAnyTiles, "M", "N"); }),
      "k: X.rows = 0 but dimension M holds at least one tile (a positive multiple of 32)");
}

TEST(ShapeCheck, ErrorIsARuntimeError) {
  try {
    tk::check_tile_multiple("k", "A", "rows", 1);
    FAIL() << "no throw";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "k: A.rows = 1 is not a multiple of 32");
  }
}

} // namespace
