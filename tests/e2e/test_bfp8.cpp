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

INSTANTIATE_TEST_SUITE_P(Targets, Bfp8, ::testing::Values(Backend::cpu, Backend::tt),
                         [](const auto& p) { return std::string(to_string(p.param)); });

} // namespace
} // namespace tk::e2e
