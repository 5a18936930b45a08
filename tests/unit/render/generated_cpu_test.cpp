// Runs the checked-in generated CPU code of every example (generated/<example>/<example>_cpu.cpp,
// compiled into this test) against a plain C++ reference computed in double from the same
// (bf16-rounded) inputs, on two shapes each. Tolerances as everywhere in TileKit: bf16 outputs
// |got - ref| <= 1.6e-2 + 1.6e-2 * |ref| and PCC >= 0.999; f32 outputs 1e-5 relative.
#include "generated/axpby/axpby.hpp"
#include "generated/eltwise_add/eltwise_add.hpp"
#include "generated/matmul/matmul.hpp"
#include "generated/matmul_bias_relu/matmul_bias_relu.hpp"
#include "generated/matmul_f32/matmul_f32.hpp"
#include "generated/rmsnorm/rmsnorm.hpp"
#include "generated/softmax/softmax.hpp"
#include "generated/unary_chain/unary_chain.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

namespace {

using Ref = std::vector<double>;

template <class T>
struct Mat {
  std::int64_t rows, cols;
  std::vector<T> data;
  Mat(std::int64_t r, std::int64_t c) : rows(r), cols(c), data(static_cast<std::size_t>(r * c)) {}
  tk::MatrixView<T> view() { return {data.data(), rows, cols}; }
  tk::MatrixView<const T> cview() const { return {data.data(), rows, cols}; }
  double at(std::int64_t r, std::int64_t c) const {
    return static_cast<double>(static_cast<float>(data[static_cast<std::size_t>(r * cols + c)]));
  }
};

template <class T>
Mat<T> random(std::int64_t r, std::int64_t c, std::uint32_t seed, float lo = -1.0f,
              float hi = 1.0f) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> d(lo, hi);
  Mat<T> m(r, c);
  for (T& x : m.data)
    x = T(d(gen));
  return m;
}

template <class T>
void expect_close(const Mat<T>& got, const Ref& ref) {
  ASSERT_EQ(got.data.size(), ref.size());
  constexpr bool bf = std::is_same_v<T, tk::bf16>;
  double sx = 0, sy = 0, sxx = 0, syy = 0, sxy = 0;
  const double n = static_cast<double>(ref.size());
  for (std::size_t k = 0; k < ref.size(); ++k) {
    double g = static_cast<double>(static_cast<float>(got.data[k])), r = ref[k];
    double tol = bf ? 1.6e-2 + 1.6e-2 * std::fabs(r) : 1e-5 * std::max(1.0, std::fabs(r));
    ASSERT_LE(std::fabs(g - r), tol) << "element " << k << " (row " << k / got.cols << ", col "
                                     << k % got.cols << "): got " << g << ", want " << r;
    sx += g, sy += r, sxx += g * g, syy += r * r, sxy += g * r;
  }
  if (bf) {
    double cov = sxy / n - sx / n * sy / n;
    double pcc = cov / std::sqrt((sxx / n - sx / n * sx / n) * (syy / n - sy / n * sy / n));
    EXPECT_GE(pcc, 0.999);
  }
}

template <class T, class F>
Ref matmul_ref(const Mat<T>& a, const Mat<T>& b, F epilogue) {
  Ref out(static_cast<std::size_t>(a.rows * b.cols));
  for (std::int64_t i = 0; i < a.rows; ++i)
    for (std::int64_t j = 0; j < b.cols; ++j) {
      double s = 0;
      for (std::int64_t k = 0; k < a.cols; ++k)
        s += a.at(i, k) * b.at(k, j);
      out[static_cast<std::size_t>(i * b.cols + j)] = epilogue(s, j);
    }
  return out;
}

struct Shape {
  std::int64_t m, k, n;
};
const Shape kShapes[] = {{64, 96, 128}, {96, 32, 32}};

TEST(GeneratedCpu, Matmul) {
  for (Shape s : kShapes) {
    auto a = random<tk::bf16>(s.m, s.k, 1), b = random<tk::bf16>(s.k, s.n, 2);
    Mat<tk::bf16> c(s.m, s.n);
    tk::gen::matmul::run_cpu(a.cview(), b.cview(), c.view());
    expect_close(c, matmul_ref(a, b, [](double v, std::int64_t) { return v; }));
  }
}

TEST(GeneratedCpu, MatmulF32) {
  for (Shape s : kShapes) {
    auto a = random<float>(s.m, s.k, 3), b = random<float>(s.k, s.n, 4);
    Mat<float> c(s.m, s.n);
    tk::gen::matmul_f32::run_cpu(a.cview(), b.cview(), c.view());
    expect_close(c, matmul_ref(a, b, [](double v, std::int64_t) { return v; }));
  }
}

TEST(GeneratedCpu, MatmulBiasRelu) {
  for (Shape s : kShapes) {
    auto a = random<tk::bf16>(s.m, s.k, 5), b = random<tk::bf16>(s.k, s.n, 6);
    auto bias = random<tk::bf16>(1, s.n, 7);
    Mat<tk::bf16> c(s.m, s.n);
    tk::gen::matmul_bias_relu::run_cpu(a.cview(), b.cview(), bias.cview(), c.view());
    expect_close(c, matmul_ref(a, b, [&](double v, std::int64_t j) {
                   return std::max(0.0, v + bias.at(0, j));
                 }));
  }
}

template <class F>
Ref elementwise(std::int64_t rows, std::int64_t cols, F f) {
  Ref out(static_cast<std::size_t>(rows * cols));
  for (std::int64_t i = 0; i < rows; ++i)
    for (std::int64_t j = 0; j < cols; ++j)
      out[static_cast<std::size_t>(i * cols + j)] = f(i, j);
  return out;
}

TEST(GeneratedCpu, EltwiseAddAxpbyUnaryChain) {
  for (Shape s : kShapes) {
    auto x = random<tk::bf16>(s.m, s.n, 8), y = random<tk::bf16>(s.m, s.n, 9);
    Mat<tk::bf16> z(s.m, s.n);
    tk::gen::eltwise_add::run_cpu(x.cview(), y.cview(), z.view());
    expect_close(z, elementwise(s.m, s.n, [&](auto i, auto j) { return x.at(i, j) + y.at(i, j); }));
    tk::gen::axpby::run_cpu(x.cview(), y.cview(), 0.75f, -1.5f, z.view());
    expect_close(z, elementwise(s.m, s.n, [&](auto i, auto j) {
                   return 0.75 * x.at(i, j) - 1.5 * y.at(i, j);
                 }));
    tk::gen::unary_chain::run_cpu(x.cview(), z.view());
    expect_close(z, elementwise(s.m, s.n, [&](auto i, auto j) {
                   double v = std::exp(x.at(i, j)) * 0.5;
                   return 0.5 * v * (1.0 + std::erf(v / std::sqrt(2.0)));
                 }));
  }
}

TEST(GeneratedCpu, RmsnormAndSoftmax) {
  for (Shape s : kShapes) {
    auto x = random<tk::bf16>(s.m, s.n, 10, -3.0f, 3.0f), g = random<tk::bf16>(1, s.n, 11);
    Mat<tk::bf16> y(s.m, s.n);
    const float eps = 1e-5f;
    tk::gen::rmsnorm::run_cpu(x.cview(), g.cview(), 1.0f / static_cast<float>(s.n), eps, y.view());
    expect_close(y, elementwise(s.m, s.n, [&](auto i, auto j) {
                   double ss = 0;
                   for (std::int64_t c = 0; c < s.n; ++c)
                     ss += x.at(i, c) * x.at(i, c);
                   return x.at(i, j) / std::sqrt(ss / static_cast<double>(s.n) + eps) * g.at(0, j);
                 }));
    tk::gen::softmax::run_cpu(x.cview(), y.view());
    expect_close(y, elementwise(s.m, s.n, [&](auto i, auto j) {
                   double mx = -INFINITY, sum = 0;
                   for (std::int64_t c = 0; c < s.n; ++c)
                     mx = std::max(mx, x.at(i, c));
                   for (std::int64_t c = 0; c < s.n; ++c)
                     sum += std::exp(x.at(i, c) - mx);
                   return std::exp(x.at(i, j) - mx) / sum;
                 }));
  }
}

TEST(GeneratedCpu, ShapeErrorsNameParameterAndDimension) {
  auto a = random<tk::bf16>(64, 64, 12), b = random<tk::bf16>(96, 64, 13);
  Mat<tk::bf16> c(64, 64);
  try {
    tk::gen::matmul::run_cpu(a.cview(), b.cview(), c.view());
    FAIL() << "no error";
  } catch (const tk::Error& e) {
    EXPECT_STREQ(e.what(), "matmul: dimension K mismatch: A.cols = 64 but B.rows = 96");
  }
  auto bias = random<tk::bf16>(2, 64, 14);
  auto b2 = random<tk::bf16>(64, 64, 15);
  try {
    tk::gen::matmul_bias_relu::run_cpu(a.cview(), b2.cview(), bias.cview(), c.view());
    FAIL() << "no error";
  } catch (const tk::Error& e) {
    EXPECT_STREQ(e.what(), "matmul_bias_relu: bias.rows = 2 but must be exactly 1 (a row vector)");
  }
  Mat<tk::bf16> odd(64, 70);
  try {
    tk::gen::eltwise_add::run_cpu(odd.cview(), odd.cview(), c.view());
    FAIL() << "no error";
  } catch (const tk::Error& e) {
    EXPECT_STREQ(e.what(), "eltwise_add: x.cols = 70 is not a multiple of 32");
  }
}

} // namespace
