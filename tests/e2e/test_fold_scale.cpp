// fold-scale end to end on TT (docs/lowering.md, "Scale folding"): bench/attention_hifi2.tk, whose
// score scale the compiler folds into the approximate exp's init (and into c's accurate exp),
// against tests/e2e/attention_nofold.tk, the same kernel in a form the rule leaves alone (every
// score tile multiplied by the scale, as before the fold), both against the double reference with
// the approximate exp's bound (test_flash_approx.cpp derives it), in the same run: the worst
// |err| and the mean signed error of each, with an offset in the data, a long S, a tiny scale;
// and a scale <= 0, which the folded kernel's host refuses with a run-time error.
#include "tests/e2e/attention_reference.hpp"
#include "tests/e2e/harness.hpp"

#include "attention_hifi2.hpp"
#include "attention_nofold.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <utility>

namespace tk::e2e {
namespace {

// The approximate exp's relative error bound (test_flash_approx.cpp, kExpApproxError).
constexpr double kExpApproxError = 0.033;

// causal_attention's reference, each element's bound widened by d / (1 - d) times the weighted
// mean absolute deviation of V's column from the output (test_flash_approx.cpp, approx_attention).
Reference approx_attention(const Matrix<bf16>& Q, const Matrix<bf16>& K, const Matrix<bf16>& V,
                           std::int64_t H, std::int64_t S, std::int64_t D, double scale) {
  Reference ref = causal_attention(Q, K, V, H, S, D, 1, scale);
  const double d = kExpApproxError / (1 - kExpApproxError);
  std::vector<double> x(static_cast<std::size_t>(S));
  for (std::int64_t h = 0; h < H; ++h)
    for (std::int64_t r = 0; r < S; ++r) {
      const std::int64_t row = h * S + r;
      double m = -INFINITY, l = 0;
      for (std::int64_t c = 0; c <= r; ++c) {
        double dot = 0;
        for (std::int64_t e = 0; e < D; ++e)
          dot += Q.at(row, e) * K.at(h * S + c, e);
        x[static_cast<std::size_t>(c)] = dot * scale;
        m = std::max(m, x[static_cast<std::size_t>(c)]);
      }
      for (std::int64_t c = 0; c <= r; ++c)
        l += std::exp(x[static_cast<std::size_t>(c)] - m);
      for (std::int64_t e = 0; e < D; ++e) {
        const std::size_t i = static_cast<std::size_t>(row * D + e);
        double mad = 0;
        for (std::int64_t c = 0; c <= r; ++c)
          mad += std::exp(x[static_cast<std::size_t>(c)] - m) / l *
                 std::abs(V.at(h * S + c, e) - ref.value[i]);
        ref.bound[i] += d * mad;
      }
    }
  double sum = 0;
  for (double b : ref.bound)
    sum += b;
  ref.bias_bound = kBiasFraction * sum / static_cast<double>(ref.bound.size());
  return ref;
}

// Against the reference: the elements outside their bound, the worst |err| and the mean signed
// error (the harness's compare() also asks for a PCC of 0.999, which an offset V's output, its
// spread small against its bf16 rounding, misses with or without the fold: printed, not asserted).
struct Check {
  std::int64_t outside = 0;
  double worst = 0, bias = 0;
};
Check check(const Matrix<bf16>& got, const Reference& ref) {
  Check c;
  for (std::int64_t r = 0; r < ref.rows; ++r)
    for (std::int64_t k = 0; k < ref.cols; ++k) {
      const std::size_t i = static_cast<std::size_t>(r * ref.cols + k);
      const double err = got.at(r, k) - ref.value[i];
      c.outside += std::abs(err) > ref.bound[i] ? 1 : 0;
      c.worst = std::max(c.worst, std::abs(err));
      c.bias += err;
    }
  c.bias /= static_cast<double>(ref.value.size());
  return c;
}

struct Case {
  std::int64_t H, S, D;
  double scale;              // times 1 / sqrt(D)
  double k_offset, v_offset; // added to K's and V's uniform [-1, 1] entries
  const char* name;
};

void PrintTo(const Case& c, std::ostream* os) {
  *os << c.name;
}

class FoldScale : public ::testing::TestWithParam<Case> {};

TEST_P(FoldScale, FoldedAndUnfoldedMeetTheReferencesBound) {
  const Case& c = GetParam();
  const std::int64_t H = c.H, S = c.S, D = c.D;
  Rng rng(0xf01d + static_cast<std::uint64_t>(H * 1000 + S * 10 + D));
  const auto Q = random_bf16(H * S, D, -1, 1, rng);
  const auto K = random_bf16(H * S, D, -1 + c.k_offset, 1 + c.k_offset, rng);
  const auto V = random_bf16(H * S, D, -1 + c.v_offset, 1 + c.v_offset, rng);
  const float scale = static_cast<float>(c.scale / std::sqrt(static_cast<double>(D)));
  const TensorView<const bf16> q{Q.data.data(), H, S, D}, k{K.data.data(), H, S, D},
      v{V.data.data(), H, S, D};
  const Reference ref = approx_attention(Q, K, V, H, S, D, static_cast<double>(scale));
  Matrix<bf16> folded(H * S, D), unfolded(H * S, D);
  gen::attention_hifi2::run_tt(device(), q, k, v, scale, {folded.data.data(), H, S, D});
  gen::attention_nofold::run_tt(device(), q, k, v, scale, {unfolded.data.data(), H, S, D});
  const Check f = check(folded, ref), u = check(unfolded, ref);
  EXPECT_EQ(f.outside, 0) << "folded: elements outside their bound";
  EXPECT_EQ(u.outside, 0) << "unfolded: elements outside their bound";
  EXPECT_LE(std::abs(f.bias), ref.bias_bound) << "folded";
  EXPECT_LE(std::abs(u.bias), ref.bias_bound) << "unfolded";
  const Outcome fo = compare(folded, ref), uo = compare(unfolded, ref);
  std::printf("fold-scale %s (H %lld, S %lld, D %lld, scale %.4g): worst |err| folded %.4g, "
              "unfolded %.4g; mean signed err folded %.3g, unfolded %.3g (bound %.3g); PCC %.6f, "
              "%.6f\n",
              c.name, static_cast<long long>(H), static_cast<long long>(S),
              static_cast<long long>(D), static_cast<double>(scale), f.worst, u.worst, f.bias,
              u.bias, ref.bias_bound, fo.pcc, uo.pcc);
}

INSTANTIATE_TEST_SUITE_P(Cases, FoldScale,
                         ::testing::Values(Case{2, 256, 128, 2.0, 0, 0, "wide_scores_D128"},
                                           Case{3, 224, 64, 1.0, 0.5, 3.0, "offset_K_and_V_D64"},
                                           Case{1, 2048, 64, 1.0, 0, 0, "long_S2048"},
                                           Case{2, 128, 64, 1e-3, 0, 0.5, "tiny_scale"}),
                         [](const auto& p) { return std::string(p.param.name); });

// The folded kernel's max runs over the unscaled scores, the max of the scaled ones only for a
// scale > 0: its host refuses any other (tk::tt_host::exp_scale_bits), before it touches the
// device.
TEST(FoldScale, AScaleThatIsNotPositiveIsARunTimeError) {
  const std::int64_t H = 1, S = 64, D = 64;
  Rng rng(0x5ca1e);
  const auto Q = random_bf16(H * S, D, -1, 1, rng);
  const auto K = random_bf16(H * S, D, -1, 1, rng);
  const auto V = random_bf16(H * S, D, -1, 1, rng);
  const TensorView<const bf16> q{Q.data.data(), H, S, D}, k{K.data.data(), H, S, D},
      v{V.data.data(), H, S, D};
  Matrix<bf16> O(H * S, D);
  const std::pair<float, const char*> bad[] = {{-0.125f, "-0.125000"}, {0.0f, "0.000000"}};
  for (const auto& [scale, printed] : bad) {
    try {
      gen::attention_hifi2::run_tt(device(), q, k, v, scale, {O.data.data(), H, S, D});
      ADD_FAILURE() << "scale " << printed << " ran";
    } catch (const std::invalid_argument& e) {
      EXPECT_EQ(std::string(e.what()),
                std::string("exp_approx_mode folds the score's scale into exp, which needs a "
                            "scale > 0, but it is ") +
                    printed);
    }
  }
}

} // namespace
} // namespace tk::e2e
