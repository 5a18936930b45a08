// bfp8 inputs on both targets (tests/e2e/bfp8.tk): the TT host packs them into Bfp8_b pages with
// the SDK's pack_as_bfp8_tiles, the CPU target rounds them the same way, and both compute on the
// rounded values. The references here round with the format's definition, in double, so the usual
// bounds of the output's type hold (the rounding of the weights is in the inputs, not the error).
#include "tests/e2e/harness.hpp"

#include "bfp8.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>

namespace tk::e2e {
namespace {

class Bfp8 : public ::testing::TestWithParam<Backend> {};

// Values of mixed magnitudes (a normal times 2^[-6, 2]): the rows of 16 that share an exponent
// then lose low bits of their smaller values, which is what bfp8 does to weights.
Matrix<float> weights(std::int64_t rows, std::int64_t cols, Rng& rng) {
  Matrix<float> w = random_f32(rows, cols, -1, 1, rng);
  for (std::size_t i = 0; i < w.data.size(); ++i)
    w.data[i] = std::ldexp(w.data[i], static_cast<int>(rng() % 9) - 6);
  return w;
}

// The Bfp8_b value of each element: per 16 values of a row starting at a column multiple of 16,
// the largest exponent e is shared, and |x| / 2^(e - 133) is cut 17 bits below the unit and
// rounded to nearest even, at most 127 (tt-metal's convert_u32_to_bfp); zeros and denormals are 0.
interp::Matrix bfp8_values(const Matrix<float>& w) {
  interp::Matrix out(w.rows, w.cols);
  auto exponent = [](float x) {
    return static_cast<int>((std::bit_cast<std::uint32_t>(x) >> 23) & 0xff);
  };
  for (std::int64_t r = 0; r < w.rows; ++r)
    for (std::int64_t c0 = 0; c0 < w.cols; c0 += 16) {
      int shared = 0;
      for (std::int64_t c = c0; c < std::min(c0 + 16, w.cols); ++c)
        shared = std::max(shared, exponent(w.data[static_cast<std::size_t>(r * w.cols + c)]));
      for (std::int64_t c = c0; c < std::min(c0 + 16, w.cols); ++c) {
        const float x = w.data[static_cast<std::size_t>(r * w.cols + c)];
        if (exponent(x) == 0)
          continue;
        const double step = std::ldexp(1.0, shared - 133);
        const double cut = std::floor(std::fabs(static_cast<double>(x)) / step * 0x1p17) * 0x1p-17;
        out.at(r, c) = std::copysign(std::min(std::nearbyint(cut), 127.0) * step, x);
      }
    }
  return out;
}

struct Shape {
  std::int64_t m, k, n;
};
constexpr Shape kShapes[] = {{32, 32, 32}, {64, 96, 128}, {288, 320, 96}, {96, 608, 64}};

// C = act(A @ Wq + bias) in double: the reference of matmul_w8 (no bias, no relu) and linear_w8.
Reference linear(const Matrix<bf16>& a, const interp::Matrix& wq, const Matrix<bf16>* bias) {
  Reference ref{
      a.rows, wq.cols, std::vector<double>(static_cast<std::size_t>(a.rows * wq.cols)), {}};
  for (std::int64_t i = 0; i < a.rows; ++i)
    for (std::int64_t j = 0; j < wq.cols; ++j) {
      double s = 0;
      for (std::int64_t k = 0; k < a.cols; ++k)
        s += a.at(i, k) * wq.at(k, j);
      if (bias)
        s = std::max(s + bias->at(0, j), 0.0);
      ref.value[static_cast<std::size_t>(i * wq.cols + j)] = s;
    }
  set_bf16_bound(ref);
  return ref;
}

TEST_P(Bfp8, MatmulWithBfp8Weights) {
  for (const Shape& s : kShapes) {
    Rng rng(0xb8f0 + static_cast<std::uint64_t>(s.m + s.k + s.n));
    const auto a = random_bf16(s.m, s.k, -1, 1, rng);
    const auto w = weights(s.k, s.n, rng);
    Matrix<bf16> c(s.m, s.n);
    launch(
        GetParam(), [&] { gen::matmul_w8::run_cpu(a.cview(), w.cview(), c.view()); },
        [&] { gen::matmul_w8::run_tt(device(), a.cview(), w.cview(), c.view()); });
    const interp::Matrix wq = bfp8_values(w);
    const Outcome out =
        verify_kernel(TK_E2E_BFP8_FILE, "matmul_w8", {{{"A", to_interp(a)}, {"W", wq}}, {}, {}},
                      "C", c, linear(a, wq, nullptr));
    EXPECT_TRUE(out.ok) << s.m << "x" << s.k << "x" << s.n << ": " << out.detail;
  }
}

TEST_P(Bfp8, LinearLayerWithBfp8WeightsAndBf16Bias) {
  for (const Shape& s : kShapes) {
    Rng rng(0xb8f1 + static_cast<std::uint64_t>(s.m + s.k + s.n));
    const auto a = random_bf16(s.m, s.k, -1, 1, rng);
    const auto w = weights(s.k, s.n, rng);
    const auto bias = random_bf16(1, s.n, -1, 1, rng);
    Matrix<bf16> c(s.m, s.n);
    launch(
        GetParam(), [&] { gen::linear_w8::run_cpu(a.cview(), w.cview(), bias.cview(), c.view()); },
        [&] { gen::linear_w8::run_tt(device(), a.cview(), w.cview(), bias.cview(), c.view()); });
    const interp::Matrix wq = bfp8_values(w);
    const Outcome out =
        verify_kernel(TK_E2E_BFP8_FILE, "linear_w8",
                      {{{"A", to_interp(a)}, {"W", wq}, {"b", to_interp(bias)}}, {}, {}}, "C", c,
                      linear(a, wq, &bias));
    EXPECT_TRUE(out.ok) << s.m << "x" << s.k << "x" << s.n << ": " << out.detail;
  }
}

// x * 3 of bfp8 values into f32: exact up to the f32 rounding of the product (relative 2^-24;
// 2^-20 allows the interpreter's summation-free double against float).
TEST_P(Bfp8, ElementwiseOnBfp8IsExactInF32) {
  Rng rng(0xb8f2);
  const auto x = weights(96, 128, rng);
  Matrix<float> y(96, 128);
  launch(
      GetParam(), [&] { gen::scale_w8::run_cpu(x.cview(), y.view()); },
      [&] { gen::scale_w8::run_tt(device(), x.cview(), y.view()); });
  const interp::Matrix xq = bfp8_values(x);
  Reference ref{96, 128, std::vector<double>(x.data.size()), std::vector<double>(x.data.size())};
  for (std::size_t i = 0; i < x.data.size(); ++i) {
    ref.value[i] = 3.0 * xq.data[i];
    ref.bound[i] = std::ldexp(std::abs(ref.value[i]), -20);
  }
  const Outcome out =
      verify_kernel(TK_E2E_BFP8_FILE, "scale_w8", {{{"x", xq}}, {}, {}}, "y", y, ref);
  EXPECT_TRUE(out.ok) << out.detail;
}

// What the packer writes for each value (tt-isa-documentation, WormholeB0 Packer "Format
// Conversion", with bfp8_pack_precise): truncated to bf16, then per run of 16 of a row the largest
// exponent e is shared and |x| / 2^(e - 133) is rounded to nearest with ties away from zero, at
// most 127. `ties` counts the values that fell exactly halfway, where ties to even would differ
// half the time.
std::vector<float> packer_bfp8(const std::vector<float>& v, std::int64_t cols, int& ties) {
  std::vector<float> out(v.size());
  auto truncated = [](float x) {
    return std::bit_cast<float>(std::bit_cast<std::uint32_t>(x) & 0xffff0000u);
  };
  auto exponent = [](float x) {
    return static_cast<int>((std::bit_cast<std::uint32_t>(x) >> 23) & 0xff);
  };
  for (std::size_t r0 = 0; r0 < v.size(); r0 += static_cast<std::size_t>(cols))
    for (std::size_t c0 = 0; c0 < static_cast<std::size_t>(cols); c0 += 16) {
      int shared = 0;
      for (std::size_t c = c0; c < c0 + 16; ++c)
        shared = std::max(shared, exponent(truncated(v[r0 + c])));
      for (std::size_t c = c0; c < c0 + 16; ++c) {
        const float x = truncated(v[r0 + c]);
        if (exponent(x) == 0)
          continue;
        const double units = std::fabs(static_cast<double>(x)) / std::ldexp(1.0, shared - 133);
        ties += units - std::floor(units) == 0.5;
        const double m = std::min(std::floor(units + 0.5), 127.0);
        out[r0 + c] = static_cast<float>(std::copysign(m * std::ldexp(1.0, shared - 133), x));
      }
    }
  return out;
}

// A bfp8 output's bound: the bf16 rule for what is computed, plus the packer's rounding, at most
// one unit 2^(e - 6) of its run of 16, so 2^-6 times the run's largest value.
void set_bfp8_bound(Reference& ref) {
  set_bf16_bound(ref);
  for (std::size_t r0 = 0; r0 < ref.value.size(); r0 += static_cast<std::size_t>(ref.cols))
    for (std::size_t c0 = 0; c0 < static_cast<std::size_t>(ref.cols); c0 += 16) {
      double largest = 0;
      for (std::size_t c = c0; c < c0 + 16; ++c)
        largest = std::max(largest, std::abs(ref.value[r0 + c]) + ref.bound[r0 + c]);
      for (std::size_t c = c0; c < c0 + 16; ++c)
        ref.bound[r0 + c] += 0x1p-6 * largest;
    }
}

// y = x * 3 into bfp8: element for element what the packer makes of the f32 products, on random
// values of mixed magnitudes (many values round from exactly halfway: ties away from zero).
TEST_P(Bfp8, OutputIsThePackersRounding) {
  Rng rng(0xb8f3);
  const auto x = weights(96, 128, rng);
  Matrix<float> y(96, 128);
  launch(
      GetParam(), [&] { gen::scale_to_w8::run_cpu(x.cview(), y.view()); },
      [&] { gen::scale_to_w8::run_tt(device(), x.cview(), y.view()); });
  std::vector<float> products(x.data.size());
  for (std::size_t i = 0; i < x.data.size(); ++i)
    products[i] = x.data[i] * 3.0f;
  int ties = 0;
  const std::vector<float> want = packer_bfp8(products, 128, ties);
  EXPECT_GT(ties, 500) << "the data should exercise the tie rule";
  int wrong = 0;
  for (std::size_t i = 0; i < want.size(); ++i)
    if (y.data[i] != want[i] && ++wrong <= 5)
      ADD_FAILURE() << "y[" << i / 128 << ", " << i % 128 << "] = " << y.data[i]
                    << ", the packer writes " << want[i] << " (from " << products[i] << ")";
  EXPECT_EQ(wrong, 0);
  Reference ref{96, 128, std::vector<double>(x.data.size()), {}};
  for (std::size_t i = 0; i < x.data.size(); ++i)
    ref.value[i] = 3.0 * x.data[i];
  set_bfp8_bound(ref);
  const Outcome out =
      verify_kernel(TK_E2E_BFP8_FILE, "scale_to_w8", {{{"x", to_interp(x)}}, {}, {}}, "y", y, ref);
  EXPECT_TRUE(out.ok) << out.detail;
}

TEST_P(Bfp8, MatmulIntoBfp8) {
  for (const Shape& s : kShapes) {
    Rng rng(0xb8f4 + static_cast<std::uint64_t>(s.m + s.k + s.n));
    const auto a = random_bf16(s.m, s.k, -1, 1, rng);
    const auto b = random_bf16(s.k, s.n, -1, 1, rng);
    Matrix<float> c(s.m, s.n);
    launch(
        GetParam(), [&] { gen::matmul_to_w8::run_cpu(a.cview(), b.cview(), c.view()); },
        [&] { gen::matmul_to_w8::run_tt(device(), a.cview(), b.cview(), c.view()); });
    Reference ref{s.m, s.n, std::vector<double>(static_cast<std::size_t>(s.m * s.n)), {}};
    for (std::int64_t i = 0; i < s.m; ++i)
      for (std::int64_t j = 0; j < s.n; ++j) {
        double sum = 0;
        for (std::int64_t k = 0; k < s.k; ++k)
          sum += a.at(i, k) * b.at(k, j);
        ref.value[static_cast<std::size_t>(i * s.n + j)] = sum;
      }
    set_bfp8_bound(ref);
    const Outcome out =
        verify_kernel(TK_E2E_BFP8_FILE, "matmul_to_w8",
                      {{{"A", to_interp(a)}, {"B", to_interp(b)}}, {}, {}}, "C", c, ref);
    EXPECT_TRUE(out.ok) << s.m << "x" << s.k << "x" << s.n << ": " << out.detail;
  }
}

INSTANTIATE_TEST_SUITE_P(Targets, Bfp8, ::testing::Values(Backend::cpu, Backend::tt),
                         [](const auto& p) { return std::string(to_string(p.param)); });

} // namespace
} // namespace tk::e2e
