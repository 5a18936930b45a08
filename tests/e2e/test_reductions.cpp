// Whole-tensor reductions (tests/e2e/reductions.tk) end to end: a mean (a sum across the parallel
// space, scaled after it), a min (the variable second in min(e, v), started from a scalar
// parameter) and a kernel that stores an element-wise output while reducing two variables, one
// of them inside a loop. Each runs on the CPU and on the emulated TT device against a plain double
// reference and the interpreter (verify_kernel()), on shapes from one tile to over 512 in both
// dimensions, with work that does not divide the 8x8 grid. The examples' tensor_max runs with
// the other examples (cases_reduce.cpp).
//
// Inputs: small integers for the sums, so that every partial sum is exact in the TF32 operands of
// the TT FPU (integers up to 2^11) and in f32 on the CPU: the tolerance below then only covers the
// rounding of the final scaling and of the last reductions of a tile. f32 outputs: |got - ref| <=
// 1e-3 * (1 + |ref|) (a few TF32 operand reads, 2^-10 relative each); bf16 outputs: the bf16 rule
// of harness.hpp. min and max are exact on both targets.
#include "tests/e2e/harness.hpp"

#include "reductions.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>

#if TK_E2E_REDUCTIONS_TT
#define TK_TT(...) [&] { __VA_ARGS__; }
#else
#define TK_TT(...)                                                                                 \
  NoTt {}
#endif

namespace tk::e2e {
namespace {

struct RShape {
  std::int64_t m, n;
};

std::string name(const RShape& s) {
  return std::to_string(s.m) + "x" + std::to_string(s.n);
}

// One tile; 15 and 90 work items (fewer than and not a multiple of the 64 cores of the 8x8 grid);
// 65 tile rows (relu_and_stats's row-parallel space does not divide the grid); over 512 in both.
const RShape kShapes[] = {{32, 32}, {96, 160}, {288, 320}, {2080, 64}, {544, 576}};

constexpr double kF32Tol = 1e-3;

void set_f32_bound(Reference& ref) {
  ref.bound.resize(ref.value.size());
  for (std::size_t i = 0; i < ref.value.size(); ++i)
    ref.bound[i] = kF32Tol * (1 + std::abs(ref.value[i]));
}

/// Integers in [lo, hi], exact in f32.
Matrix<float> random_ints(std::int64_t rows, std::int64_t cols, int lo, int hi, Rng& rng) {
  Matrix<float> m(rows, cols);
  std::uniform_int_distribution<int> d(lo, hi);
  for (float& v : m.data)
    v = static_cast<float>(d(rng));
  return m;
}

class Reductions : public ::testing::TestWithParam<Backend> {};

TEST_P(Reductions, MeanOfEveryElement) {
  for (const RShape& s : kShapes) {
    Rng rng(0x5eed0 + static_cast<std::uint64_t>(s.m * 7 + s.n));
    const auto x = random_ints(s.m, s.n, 0, 2, rng); // mean near 1
    Matrix<float> y(1, 32);
    launch(
        GetParam(), [&] { gen::tensor_mean::run_cpu(x.cview(), y.view()); },
        TK_TT(gen::tensor_mean::run_tt(device(), x.cview(), y.view())));
    Reference ref{1, 32, std::vector<double>(32, 0.0), {}};
    double sum = 0;
    for (std::int64_t i = 0; i < s.m; ++i)
      for (std::int64_t j = 0; j < s.n; ++j)
        sum += x.at(i, j);
    // In double, as the interpreter has it (the targets compute the scale in f32 on the host).
    ref.value[0] = sum * (1.0 / (static_cast<double>(s.m) * static_cast<double>(s.n)));
    set_f32_bound(ref);
    Outcome out = verify_kernel(TK_E2E_REDUCTIONS_FILE, "tensor_mean",
                                {{{"x", to_interp(x)}}, {}, {}}, "y", y, ref);
    EXPECT_TRUE(out.ok) << name(s) << "\n" << out.detail;
  }
}

TEST_P(Reductions, MinFromAScalarStart) {
  for (const RShape& s : kShapes) {
    Rng rng(0x5eed1 + static_cast<std::uint64_t>(s.m * 7 + s.n));
    auto x = random_bf16(s.m, s.n, -4, 4, rng);
    // One element below every other, placed by the seed.
    const auto r = static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(s.m));
    const auto c = static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(s.n));
    x.data[static_cast<std::size_t>(r * s.n + c)] = bf16(-6.25f);
    for (float start : {100.0f, -8.0f}) { // above every element, then below them all
      Matrix<bf16> y(1, 32);
      launch(
          GetParam(), [&] { gen::tensor_min::run_cpu(x.cview(), start, y.view()); },
          TK_TT(gen::tensor_min::run_tt(device(), x.cview(), start, y.view())));
      Reference ref{1, 32, std::vector<double>(32, 0.0), {}};
      double lo = start;
      for (std::int64_t i = 0; i < s.m; ++i)
        for (std::int64_t j = 0; j < s.n; ++j)
          lo = std::min(lo, x.at(i, j));
      ref.value[0] = lo;
      set_bf16_bound(ref);
      Outcome out = verify_kernel(TK_E2E_REDUCTIONS_FILE, "tensor_min",
                                  {{{"x", to_interp(x)}}, {{"start", start}}, {}}, "y", y, ref);
      EXPECT_TRUE(out.ok) << name(s) << " start " << start << "\n" << out.detail;
      EXPECT_EQ(static_cast<float>(y.data[0]), static_cast<float>(lo)) << name(s); // exact
    }
  }
}

TEST_P(Reductions, ElementwiseOutputBesideTwoReductions) {
  for (const RShape& s : kShapes) {
    Rng rng(0x5eed2 + static_cast<std::uint64_t>(s.m * 7 + s.n));
    const auto x = random_ints(s.m, s.n, -1, 1, rng);
    Matrix<float> r(s.m, s.n), ss(32, 32), top(32, 1);
    launch(
        GetParam(),
        [&] { gen::relu_and_stats::run_cpu(x.cview(), r.view(), ss.view(), top.view()); },
        TK_TT(gen::relu_and_stats::run_tt(device(), x.cview(), r.view(), ss.view(), top.view())));
    Reference rref{s.m, s.n, std::vector<double>(x.data.size()), {}};
    Reference sref{32, 32, std::vector<double>(32 * 32, 0.0), {}};
    Reference tref{32, 1, std::vector<double>(32, -INFINITY), {}};
    for (std::int64_t i = 0; i < s.m; ++i)
      for (std::int64_t j = 0; j < s.n; ++j) {
        const double v = x.at(i, j);
        rref.value[static_cast<std::size_t>(i * s.n + j)] = std::max(v, 0.0);
        sref.value[static_cast<std::size_t>((i % 32) * 32 + j % 32)] += v * v;
      }
    for (std::int64_t i = 0; i < s.m; ++i) { // best: the largest sum of one row of a tile row
      double row = 0;
      for (std::int64_t j = 0; j < s.n; ++j)
        row += x.at(i, j);
      tref.value[static_cast<std::size_t>(i % 32)] =
          std::max(tref.value[static_cast<std::size_t>(i % 32)], row);
    }
    set_f32_bound(rref);
    set_f32_bound(sref);
    set_f32_bound(tref);
    const interp::Inputs in{{{"x", to_interp(x)}}, {}, {}};
    for (const auto& [output, got, ref] : {std::tuple{"r", &r, &rref}, std::tuple{"ss", &ss, &sref},
                                           std::tuple{"top", &top, &tref}}) {
      Outcome out = verify_kernel(TK_E2E_REDUCTIONS_FILE, "relu_and_stats", in, output, *got, *ref);
      EXPECT_TRUE(out.ok) << name(s) << " " << output << "\n" << out.detail;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Targets, Reductions, ::testing::Values(TK_E2E_REDUCTIONS_BACKENDS),
                         [](const auto& p) { return std::string(to_string(p.param)); });

} // namespace
} // namespace tk::e2e
