// Matmuls whose block of output tiles @options fixes (tests/e2e/blocks.tk) on both targets, at
// shapes the blocks do not divide, against a double-precision reference (bf16 bound) and the
// interpreter.
#include "tests/e2e/harness.hpp"

#include "blocks.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace tk::e2e {
namespace {

class FixedBlocks : public ::testing::TestWithParam<Backend> {};

struct Shape {
  std::int64_t m, k, n;
};
constexpr Shape kShapes[] = {{32, 32, 32}, {96, 160, 64}, {288, 320, 96}, {544, 576, 608}};

Reference matmul(const Matrix<bf16>& a, const Matrix<bf16>& b) {
  Reference ref{a.rows, b.cols, std::vector<double>(static_cast<std::size_t>(a.rows * b.cols)), {}};
  for (std::int64_t i = 0; i < a.rows; ++i)
    for (std::int64_t j = 0; j < b.cols; ++j) {
      double s = 0;
      for (std::int64_t k = 0; k < a.cols; ++k)
        s += static_cast<double>(a.at(i, k)) * static_cast<double>(b.at(k, j));
      ref.value[static_cast<std::size_t>(i * b.cols + j)] = s;
    }
  set_bf16_bound(ref);
  return ref;
}

template <class Cpu, class Tt>
void run(Backend backend, const char* kernel, Cpu cpu, Tt tt) {
  for (const Shape& s : kShapes) {
    Rng rng(0xb10c + static_cast<std::uint64_t>(s.m * 7 + s.k * 3 + s.n));
    const auto a = random_bf16(s.m, s.k, -1, 1, rng);
    // B in [-2/sqrt(K), 2/sqrt(K)], as the examples' cases: C's spread does not grow with K.
    const auto bs = static_cast<float>(2 / std::sqrt(static_cast<double>(s.k)));
    const auto b = random_bf16(s.k, s.n, -bs, bs, rng);
    Matrix<bf16> c(s.m, s.n);
    launch(
        backend, [&] { cpu(a.cview(), b.cview(), c.view()); },
        [&] { tt(device(), a.cview(), b.cview(), c.view()); });
    const Outcome out =
        verify_kernel(TK_E2E_BLOCKS_FILE, kernel,
                      {{{"A", to_interp(a)}, {"B", to_interp(b)}}, {}, {}}, "C", c, matmul(a, b));
    EXPECT_TRUE(out.ok) << kernel << " " << s.m << "x" << s.k << "x" << s.n << ": " << out.detail;
  }
}

TEST_P(FixedBlocks, TwoByEight) {
  run(GetParam(), "matmul_2x8", gen::matmul_2x8::run_cpu, gen::matmul_2x8::run_tt);
}

TEST_P(FixedBlocks, SixByFour) {
  run(GetParam(), "matmul_6x4", gen::matmul_6x4::run_cpu, gen::matmul_6x4::run_tt);
}

// C = A @ B + R and C = relu(A @ B + b) + R: the epilogue reads R's tiles (and b's row) where C
// is written, on the blocked path on TT.
TEST_P(FixedBlocks, ResidualEpilogues) {
  for (const Shape& s : kShapes) {
    Rng rng(0xb10d + static_cast<std::uint64_t>(s.m * 7 + s.k * 3 + s.n));
    const auto a = random_bf16(s.m, s.k, -1, 1, rng);
    const auto bs = static_cast<float>(2 / std::sqrt(static_cast<double>(s.k)));
    const auto b = random_bf16(s.k, s.n, -bs, bs, rng);
    const auto bias = random_bf16(1, s.n, -1, 1, rng);
    const auto r = random_bf16(s.m, s.n, -1, 1, rng);
    Matrix<bf16> c(s.m, s.n), cl(s.m, s.n);
    launch(
        GetParam(),
        [&] {
          gen::matmul_residual::run_cpu(a.cview(), b.cview(), r.cview(), c.view());
          gen::linear_residual::run_cpu(a.cview(), b.cview(), bias.cview(), r.cview(), cl.view());
        },
        [&] {
          gen::matmul_residual::run_tt(device(), a.cview(), b.cview(), r.cview(), c.view());
          gen::linear_residual::run_tt(device(), a.cview(), b.cview(), bias.cview(), r.cview(),
                                       cl.view());
        });
    Reference ref = matmul(a, b), ref_l = ref;
    for (std::int64_t i = 0; i < s.m; ++i)
      for (std::int64_t j = 0; j < s.n; ++j) {
        const auto n = static_cast<std::size_t>(i * s.n + j);
        const double p = ref.value[n];
        ref.value[n] = p + r.at(i, j);
        ref_l.value[n] = std::max(p + bias.at(0, j), 0.0) + r.at(i, j);
      }
    set_bf16_bound(ref);
    set_bf16_bound(ref_l);
    const std::string at =
        std::to_string(s.m) + "x" + std::to_string(s.k) + "x" + std::to_string(s.n);
    Outcome out = verify_kernel(
        TK_E2E_BLOCKS_FILE, "matmul_residual",
        {{{"A", to_interp(a)}, {"B", to_interp(b)}, {"R", to_interp(r)}}, {}, {}}, "C", c, ref);
    EXPECT_TRUE(out.ok) << "matmul_residual " << at << ": " << out.detail;
    out = verify_kernel(
        TK_E2E_BLOCKS_FILE, "linear_residual",
        {{{"A", to_interp(a)}, {"B", to_interp(b)}, {"b", to_interp(bias)}, {"R", to_interp(r)}},
         {},
         {}},
        "C", cl, ref_l);
    EXPECT_TRUE(out.ok) << "linear_residual " << at << ": " << out.detail;
  }
}

// C = (A @ B) * 0.5 and C = gelu(A @ B + b) * 0.25: epilogues run in DST at the last K step, the
// bias as DST's starting value (docs/lowering.md, "Epilogues in DST"). gelu by erf in double.
TEST_P(FixedBlocks, EpiloguesInDst) {
  for (const Shape& s : kShapes) {
    Rng rng(0xb10e + static_cast<std::uint64_t>(s.m * 7 + s.k * 3 + s.n));
    const auto a = random_bf16(s.m, s.k, -1, 1, rng);
    const auto bs = static_cast<float>(2 / std::sqrt(static_cast<double>(s.k)));
    const auto b = random_bf16(s.k, s.n, -bs, bs, rng);
    const auto bias = random_bf16(1, s.n, -1, 1, rng);
    Matrix<bf16> c(s.m, s.n), cg(s.m, s.n);
    launch(
        GetParam(),
        [&] {
          gen::matmul_scaled::run_cpu(a.cview(), b.cview(), c.view());
          gen::linear_gelu_scaled::run_cpu(a.cview(), b.cview(), bias.cview(), cg.view());
        },
        [&] {
          gen::matmul_scaled::run_tt(device(), a.cview(), b.cview(), c.view());
          gen::linear_gelu_scaled::run_tt(device(), a.cview(), b.cview(), bias.cview(), cg.view());
        });
    Reference ref = matmul(a, b), ref_g = ref;
    for (std::int64_t i = 0; i < s.m; ++i)
      for (std::int64_t j = 0; j < s.n; ++j) {
        const auto n = static_cast<std::size_t>(i * s.n + j);
        const double p = ref.value[n], u = p + bias.at(0, j);
        ref.value[n] = p * 0.5;
        ref_g.value[n] = 0.5 * u * (1 + std::erf(u / std::sqrt(2.0))) * 0.25;
      }
    set_bf16_bound(ref);
    set_bf16_bound(ref_g);
    const std::string at =
        std::to_string(s.m) + "x" + std::to_string(s.k) + "x" + std::to_string(s.n);
    Outcome out = verify_kernel(TK_E2E_BLOCKS_FILE, "matmul_scaled",
                                {{{"A", to_interp(a)}, {"B", to_interp(b)}}, {}, {}}, "C", c, ref);
    EXPECT_TRUE(out.ok) << "matmul_scaled " << at << ": " << out.detail;
    out =
        verify_kernel(TK_E2E_BLOCKS_FILE, "linear_gelu_scaled",
                      {{{"A", to_interp(a)}, {"B", to_interp(b)}, {"b", to_interp(bias)}}, {}, {}},
                      "C", cg, ref_g);
    EXPECT_TRUE(out.ok) << "linear_gelu_scaled " << at << ": " << out.detail;
  }
}

INSTANTIATE_TEST_SUITE_P(Targets, FixedBlocks, ::testing::Values(Backend::cpu, Backend::tt),
                         [](const ::testing::TestParamInfo<Backend>& p) {
                           return to_string(p.param);
                         });

} // namespace
} // namespace tk::e2e
