// Tile load/store (bf16 and f32, offsets, vectors) and the reductions/broadcasts.
#include <tilekit/cpu/tile.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

namespace {

using tk::cpu::Tile;

std::vector<float> iota_matrix(std::int64_t rows, std::int64_t cols) {
  std::vector<float> v(static_cast<std::size_t>(rows * cols));
  for (std::size_t i = 0; i < v.size(); ++i)
    v[i] = static_cast<float>(i); // exact in bf16 only below 256; f32 cases use this
  return v;
}

TEST(Tile, LoadF32AtOffset) {
  const auto d = iota_matrix(64, 96);
  Tile t;
  tk::cpu::load_tile(tk::MatrixView<const float>{d.data(), 64, 96}, 1, 2, t);
  for (int r = 0; r < 32; ++r)
    for (int c = 0; c < 32; ++c)
      ASSERT_EQ(t(r, c), static_cast<float>((32 + r) * 96 + 64 + c)) << r << "," << c;
}

TEST(Tile, StoreLoadRoundTripF32) {
  std::vector<float> d(64 * 64, -1.0f);
  tk::MatrixView<float> v{d.data(), 64, 64};
  Tile t;
  for (int i = 0; i < 1024; ++i)
    t.data[i] = 0.25f * static_cast<float>(i);
  tk::cpu::store_tile(t, v, 1, 0);
  EXPECT_EQ(d[0], -1.0f); // tile (0, 0) untouched
  EXPECT_EQ(v(32, 0), 0.0f);
  EXPECT_EQ(v(63, 31), 0.25f * 1023);
  EXPECT_EQ(v(63, 32), -1.0f); // tile (1, 1) untouched
  Tile back;
  tk::cpu::load_tile(v, 1, 0, back);
  for (int i = 0; i < 1024; ++i)
    ASSERT_EQ(back.data[i], t.data[i]);
}

TEST(Tile, Bf16StoreRoundsToNearestEven) {
  std::vector<tk::bf16> d(32 * 32);
  tk::MatrixView<tk::bf16> v{d.data(), 32, 32};
  Tile t;
  tk::cpu::fill(t, 1.0f);
  t(0, 0) = std::bit_cast<float>(0x3f818000u); // tie, odd below: rounds up
  t(0, 1) = std::bit_cast<float>(0x3f808000u); // tie, even below: stays
  t(5, 7) = std::numeric_limits<float>::quiet_NaN();
  tk::cpu::store_tile(t, v, 0, 0);
  EXPECT_EQ(v(0, 0).bits(), 0x3f82);
  EXPECT_EQ(v(0, 1).bits(), 0x3f80);
  EXPECT_TRUE(std::isnan(static_cast<float>(v(5, 7))));
  EXPECT_EQ(v(31, 31).bits(), 0x3f80);
  Tile back;
  tk::cpu::load_tile(tk::MatrixView<const tk::bf16>(v), 0, 0, back);
  EXPECT_EQ(back(0, 0), std::bit_cast<float>(0x3f820000u));
  EXPECT_EQ(back(31, 31), 1.0f);
}

TEST(Tile, Bf16LoadIsExactAtOffset) {
  std::vector<tk::bf16> d(32 * 96);
  std::mt19937 gen(7);
  std::uniform_real_distribution<float> dist(-4.0f, 4.0f);
  for (auto& x : d)
    x = tk::bf16(dist(gen));
  Tile t;
  tk::cpu::load_tile(tk::MatrixView<const tk::bf16>{d.data(), 32, 96}, 0, 2, t);
  for (int r = 0; r < 32; ++r)
    for (int c = 0; c < 32; ++c)
      ASSERT_EQ(t(r, c), static_cast<float>(d[static_cast<std::size_t>(r * 96 + 64 + c)]));
}

TEST(Tile, RowVectorFillsRowZero) {
  const auto d = iota_matrix(1, 64); // bias: [1, 64]
  Tile t;
  tk::cpu::fill(t, 99.0f);
  tk::cpu::load_tile(tk::MatrixView<const float>{d.data(), 1, 64}, 0, 1, t);
  for (int c = 0; c < 32; ++c)
    EXPECT_EQ(t(0, c), static_cast<float>(32 + c));
  for (int r = 1; r < 32; ++r)
    for (int c = 0; c < 32; ++c)
      ASSERT_EQ(t(r, c), 0.0f);
  // Storing writes row 0 only.
  std::vector<float> out(64, -1.0f);
  tk::cpu::store_tile(t, tk::MatrixView<float>{out.data(), 1, 64}, 0, 1);
  EXPECT_EQ(out[31], -1.0f);
  EXPECT_EQ(out[32], 32.0f);
  EXPECT_EQ(out[63], 63.0f);
}

TEST(Tile, ColumnVectorFillsColumnZero) {
  std::vector<tk::bf16> d(64);
  for (int i = 0; i < 64; ++i)
    d[static_cast<std::size_t>(i)] = tk::bf16(static_cast<float>(i));
  Tile t;
  tk::cpu::load_tile(tk::MatrixView<const tk::bf16>{d.data(), 64, 1}, 1, 0, t);
  for (int r = 0; r < 32; ++r) {
    EXPECT_EQ(t(r, 0), static_cast<float>(32 + r));
    for (int c = 1; c < 32; ++c)
      ASSERT_EQ(t(r, c), 0.0f);
  }
  std::vector<tk::bf16> out(64, tk::bf16(-1.0f));
  tk::cpu::store_tile(t, tk::MatrixView<tk::bf16>{out.data(), 64, 1}, 1, 0);
  EXPECT_EQ(static_cast<float>(out[31]), -1.0f);
  EXPECT_EQ(static_cast<float>(out[32]), 32.0f);
  EXPECT_EQ(static_cast<float>(out[63]), 63.0f);
}

TEST(Tile, ScalarTensorIsElementZero) {
  const float x = 2.5f;
  Tile t;
  tk::cpu::load_tile(tk::MatrixView<const float>{&x, 1, 1}, 0, 0, t);
  EXPECT_EQ(t(0, 0), 2.5f);
  EXPECT_EQ(t(0, 1), 0.0f);
  EXPECT_EQ(t(1, 0), 0.0f);
}

Tile random_tile(unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(-10.0f, 10.0f);
  Tile t;
  for (float& x : t.data)
    x = dist(gen);
  return t;
}

TEST(Tile, RowReductions) {
  const Tile in = random_tile(1);
  Tile sum, mx;
  tk::cpu::rowsum(in, sum);
  tk::cpu::rowmax(in, mx);
  for (int r = 0; r < 32; ++r) {
    double s = 0;
    float m = -std::numeric_limits<float>::infinity();
    for (int c = 0; c < 32; ++c) {
      s += in(r, c);
      m = std::max(m, in(r, c));
    }
    EXPECT_NEAR(sum(r, 0), s, 1e-5 * 32 * 10) << r;
    EXPECT_EQ(mx(r, 0), m) << r;
    for (int c = 1; c < 32; ++c) {
      ASSERT_EQ(sum(r, c), 0.0f);
      ASSERT_EQ(mx(r, c), 0.0f);
    }
  }
}

TEST(Tile, ColumnReductions) {
  const Tile in = random_tile(2);
  Tile sum, mx;
  tk::cpu::colsum(in, sum);
  tk::cpu::colmax(in, mx);
  for (int c = 0; c < 32; ++c) {
    double s = 0;
    float m = -std::numeric_limits<float>::infinity();
    for (int r = 0; r < 32; ++r) {
      s += in(r, c);
      m = std::max(m, in(r, c));
    }
    EXPECT_NEAR(sum(0, c), s, 1e-5 * 32 * 10) << c;
    EXPECT_EQ(mx(0, c), m) << c;
    for (int r = 1; r < 32; ++r) {
      ASSERT_EQ(sum(r, c), 0.0f);
      ASSERT_EQ(mx(r, c), 0.0f);
    }
  }
}

TEST(Tile, ReductionsInPlaceAndNaN) {
  Tile t;
  tk::cpu::fill(t, 1.0f);
  t(3, 4) = std::numeric_limits<float>::quiet_NaN();
  tk::cpu::rowmax(t, t); // out aliases in
  EXPECT_EQ(t(0, 0), 1.0f);
  EXPECT_TRUE(std::isnan(t(3, 0)));
  tk::cpu::fill(t, -std::numeric_limits<float>::infinity());
  tk::cpu::colmax(t, t);
  EXPECT_EQ(t(0, 5), -std::numeric_limits<float>::infinity());
  tk::cpu::fill(t, 0.5f);
  tk::cpu::colsum(t, t);
  EXPECT_EQ(t(0, 31), 16.0f);
  EXPECT_EQ(t(1, 31), 0.0f);
}

TEST(Tile, Broadcasts) {
  const Tile in = random_tile(3);
  Tile row, col;
  tk::cpu::bcast_row(in, row);
  tk::cpu::bcast_col(in, col);
  for (int r = 0; r < 32; ++r)
    for (int c = 0; c < 32; ++c) {
      ASSERT_EQ(row(r, c), in(0, c));
      ASSERT_EQ(col(r, c), in(r, 0));
    }
  Tile same = in;
  tk::cpu::bcast_col(same, same);
  EXPECT_EQ(same(7, 9), in(7, 0));
}

TEST(Tile, RowsumThenBroadcastIsSoftmaxDenominator) {
  const Tile in = random_tile(4);
  Tile s;
  tk::cpu::rowsum(in, s);
  tk::cpu::bcast_col(s, s);
  for (int r = 0; r < 32; ++r) {
    double ref = 0;
    for (int c = 0; c < 32; ++c)
      ref += in(r, c);
    for (int c = 0; c < 32; ++c)
      ASSERT_NEAR(s(r, c), ref, 1e-5 * 32 * 10);
  }
}

// erf_approx, the erf generated code's gelu calls (vectorisable, no library call): within its
// stated bound of erf, 4.5e-7, on every float of [-6, 6] whose last 9 mantissa bits are zero
// (about 2 million values, every binade down to 2^-126) and at +-0, the infinities and
// beyond the clamp; odd, bit for bit; NaN stays NaN.
TEST(CpuTile, ErfApproxIsWithinItsBound) {
  double worst = 0;
  float at = 0;
  for (std::uint32_t bits = 0; bits < 0x40C00000u; bits += 1u << 9) { // 0 .. 6
    const float x = std::bit_cast<float>(bits);
    for (const float v : {x, -x}) {
      const double err =
          std::fabs(static_cast<double>(tk::cpu::erf_approx(v)) - std::erf(static_cast<double>(v)));
      if (err > worst) {
        worst = err;
        at = v;
      }
    }
    ASSERT_EQ(std::bit_cast<std::uint32_t>(tk::cpu::erf_approx(-x)),
              std::bit_cast<std::uint32_t>(-tk::cpu::erf_approx(x)))
        << x;
  }
  EXPECT_LE(worst, 4.5e-7) << "at " << at;
  EXPECT_GT(worst, 1e-8); // an approximation, so the loop above measured something
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_NEAR(tk::cpu::erf_approx(inf), 1.0f, 4.5e-7f);
  EXPECT_NEAR(tk::cpu::erf_approx(-inf), -1.0f, 4.5e-7f);
  EXPECT_NEAR(tk::cpu::erf_approx(1e30f), 1.0f, 4.5e-7f);
  EXPECT_EQ(tk::cpu::erf_approx(0.0f), 0.0f);
  EXPECT_TRUE(std::isnan(tk::cpu::erf_approx(std::numeric_limits<float>::quiet_NaN())));
}

} // namespace
