// Triangular loops (tests/e2e/triangular.tk) end to end: each kernel on the CPU and on the
// emulated TT device, against a double reference (bf16 bound, PCC and bias, harness.hpp) and the
// interpreter. The ranges end at an enclosing loop variable, so each output tile sums a different
// number of input tiles: at M = 32 the strictly lower loop runs no iteration at all.
#include "tests/e2e/cases.hpp"
#include "tests/e2e/harness.hpp"

#include "triangular.hpp"

#include <gtest/gtest.h>

namespace tk::e2e {
namespace {

using Sizes = std::tuple<Backend, std::int64_t, std::int64_t>; // backend, M, N

class Triangular : public ::testing::TestWithParam<Sizes> {};

// y(r, c) = sum over k <= r / 32 of x(32 k + r % 32, c).
TEST_P(Triangular, PrefixRows) {
  const auto [b, m, n] = GetParam();
  Rng rng(0x7e1 + static_cast<std::uint64_t>(m * n));
  const auto x = random_bf16(m, n, -1, 1, rng);
  Matrix<bf16> y(m, n);
  launch(
      b, [&] { gen::prefix_rows::run_cpu(x.cview(), y.view()); },
      [&] { gen::prefix_rows::run_tt(device(), x.cview(), y.view()); });
  Reference ref{m, n, std::vector<double>(static_cast<std::size_t>(m * n)), {}};
  for (std::int64_t r = 0; r < m; ++r)
    for (std::int64_t c = 0; c < n; ++c)
      for (std::int64_t k = 0; k <= r / 32; ++k)
        ref.value[static_cast<std::size_t>(r * n + c)] += x.at(32 * k + r % 32, c);
  set_bf16_bound(ref);
  const Outcome out = verify_kernel(TK_E2E_TRIANGULAR_FILE, "prefix_rows",
                                    {{{"x", to_interp(x)}}, {}, {}}, "y", y, ref);
  EXPECT_TRUE(out.ok) << out.detail;
}

// y(r, c) = 1 + sum over k < i of x(32 k + r % 32, c) + sum over l <= k <= i of the same at l,
// i = r / 32: the tile at l counts (i - l + 1) times in the nested loops.
TEST_P(Triangular, StrictlyLowerAndNested) {
  const auto [b, m, n] = GetParam();
  Rng rng(0x7e2 + static_cast<std::uint64_t>(m * n));
  const auto x = random_bf16(m, n, -1, 1, rng);
  Matrix<bf16> y(m, n);
  launch(
      b, [&] { gen::nested::run_cpu(x.cview(), y.view()); },
      [&] { gen::nested::run_tt(device(), x.cview(), y.view()); });
  Reference ref{m, n, std::vector<double>(static_cast<std::size_t>(m * n)), {}};
  for (std::int64_t r = 0; r < m; ++r)
    for (std::int64_t c = 0; c < n; ++c) {
      const std::int64_t i = r / 32;
      double v = 1;
      for (std::int64_t k = 0; k < i; ++k)
        v += x.at(32 * k + r % 32, c);
      for (std::int64_t l = 0; l <= i; ++l)
        v += static_cast<double>(i - l + 1) * x.at(32 * l + r % 32, c);
      ref.value[static_cast<std::size_t>(r * n + c)] = v;
    }
  set_bf16_bound(ref);
  const Outcome out =
      verify_kernel(TK_E2E_TRIANGULAR_FILE, "nested", {{{"x", to_interp(x)}}, {}, {}}, "y", y, ref);
  EXPECT_TRUE(out.ok) << out.detail;
}

// A batch of 3 matrices of M x N: y[b] = x[0] + ... + x[b].
TEST_P(Triangular, PrefixOverTheBatch) {
  const auto [b, m, n] = GetParam();
  constexpr std::int64_t kBatch = 3;
  Rng rng(0x7e3 + static_cast<std::uint64_t>(m * n));
  const auto x = random_bf16(kBatch * m, n, -1, 1, rng);
  Matrix<bf16> y(kBatch * m, n);
  const TensorView<const bf16> xv{x.data.data(), kBatch, m, n};
  const TensorView<bf16> yv{y.data.data(), kBatch, m, n};
  launch(
      b, [&] { gen::prefix_batch::run_cpu(xv, yv); },
      [&] { gen::prefix_batch::run_tt(device(), xv, yv); });
  Reference ref{kBatch * m, n, std::vector<double>(static_cast<std::size_t>(kBatch * m * n)), {}};
  for (std::int64_t bb = 0; bb < kBatch; ++bb)
    for (std::int64_t r = 0; r < m; ++r)
      for (std::int64_t c = 0; c < n; ++c)
        for (std::int64_t cc = 0; cc <= bb; ++cc)
          ref.value[static_cast<std::size_t>((bb * m + r) * n + c)] += x.at(cc * m + r, c);
  set_bf16_bound(ref);
  interp::Matrix xi = to_interp(x);
  xi.rows = m;
  xi.batch = kBatch;
  const Outcome out =
      verify_kernel(TK_E2E_TRIANGULAR_FILE, "prefix_batch", {{{"x", xi}}, {}, {}}, "y", y, ref);
  EXPECT_TRUE(out.ok) << out.detail;
}

INSTANTIATE_TEST_SUITE_P(Shapes, Triangular,
                         ::testing::Combine(::testing::Values(Backend::cpu, Backend::tt),
                                            ::testing::Values(32, 96), ::testing::Values(64)));

} // namespace
} // namespace tk::e2e
