// The precision the language documents (docs/language.md, "Precision") with default options, on
// both targets: sums of bf16 rows within the bf16 bound (TT accumulates them in an fp32 DST), and
// an SFPU op on f32 data within an fp32 bound (TT unpacks it straight to DST with
// UnpackToDestFp32, not through SrcA as TF32). Kernels: tests/e2e/precision.tk.
#include "tests/e2e/harness.hpp"

#include "precision.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

namespace tk::e2e {
namespace {

class Precision : public ::testing::TestWithParam<Backend> {};

/// y[r] = sum of row r of x, in double.
Reference row_sums(const Matrix<bf16>& x) {
  Reference ref{x.rows, 1, std::vector<double>(static_cast<std::size_t>(x.rows)), {}};
  for (std::int64_t r = 0; r < x.rows; ++r)
    for (std::int64_t c = 0; c < x.cols; ++c)
      ref.value[static_cast<std::size_t>(r)] += x.at(r, c);
  set_bf16_bound(ref);
  return ref;
}

using SumCpu = void (*)(MatrixView<const bf16>, MatrixView<bf16>);
using SumTt = void (*)(tt::tt_metal::distributed::MeshDevice&, MatrixView<const bf16>,
                       MatrixView<bf16>);

/// Runs the row-sum kernel `kernel` of precision.tk on rows x cols values in [-4, 4].
Outcome row_sum(Backend b, const char* kernel, SumCpu cpu, SumTt tt, std::int64_t rows,
                std::int64_t cols, std::uint64_t seed) {
  Rng rng(seed);
  const auto x = random_bf16(rows, cols, -4, 4, rng);
  Matrix<bf16> y(rows, 1);
  if (b == Backend::cpu)
    cpu(x.cview(), y.view());
  else
    tt(device(), x.cview(), y.view());
  return verify_kernel(TK_E2E_PRECISION_FILE, kernel, {{{"x", to_interp(x)}}, {}, {}}, "y", y,
                       row_sums(x));
}

// 96 values in [-4, 4] per row: partial sums of up to ~40 whose bf16 rounding (2^-9 relative,
// ~0.08) exceeded the bound of a result near 0 (1.6e-2 * (1 + |ref|)).
TEST_P(Precision, RowTotalOfBf16MeetsTheBf16Bound) {
  Outcome out = row_sum(GetParam(), "row_total", gen::row_total::run_cpu, gen::row_total::run_tt,
                        64, 96, 0x9ec1);
  EXPECT_TRUE(out.ok) << out.detail;
}

TEST_P(Precision, TileRowsumOfBf16MeetsTheBf16Bound) {
  Outcome out = row_sum(GetParam(), "tile_rowsum", gen::tile_rowsum::run_cpu,
                        gen::tile_rowsum::run_tt, 96, 32, 0x9ec2);
  EXPECT_TRUE(out.ok) << out.detail;
}

// exp of f32 inputs in [-4, 4]: relative bound 2^-20 (a few fp32 ulps for the exp itself; the
// input reaches DST unrounded). Through SrcA as TF32 the input is off by up to 2^-11 relative,
// so exp by up to |x| * 2^-11, 2e-3 at |x| = 4: 2000 times the bound.
TEST_P(Precision, ExpOfF32MeetsAnFp32Bound) {
  Rng rng(0x9ec3);
  const auto x = random_f32(64, 96, -4, 4, rng);
  Matrix<float> y(64, 96);
  if (GetParam() == Backend::cpu)
    gen::exp_f32::run_cpu(x.cview(), y.view());
  else
    gen::exp_f32::run_tt(device(), x.cview(), y.view());
  Reference ref{64, 96, std::vector<double>(x.data.size()), std::vector<double>(x.data.size())};
  for (std::size_t i = 0; i < x.data.size(); ++i) {
    ref.value[i] = std::exp(static_cast<double>(x.data[i]));
    ref.bound[i] = std::ldexp(std::abs(ref.value[i]), -20);
  }
  Outcome out =
      verify_kernel(TK_E2E_PRECISION_FILE, "exp_f32", {{{"x", to_interp(x)}}, {}, {}}, "y", y, ref);
  EXPECT_TRUE(out.ok) << out.detail;
}

INSTANTIATE_TEST_SUITE_P(Targets, Precision, ::testing::Values(Backend::cpu, Backend::tt),
                         [](const auto& p) { return std::string(to_string(p.param)); });

} // namespace
} // namespace tk::e2e
