// The FPU's subtraction of an approximate exp's argument (docs/language.md, "Precision";
// lowering/tt/select_tile_ops_fpu_exp.cpp), measured end to end: bench/attention_hifi2.tk, whose
// p = exp(s - bcast_col(mn)) subtracts on the FPU (sub_tiles_bcast<COL>, s read through SrcA as
// TF32), against attention_hifi2_sfpu.tk, the same kernel with the difference named, which the
// SFPU subtracts in fp32, on the same data in the same run, both against the double reference.
// The accurate exp's kernel (attention_hifi2_accurate.tk) says what the approximate exp costs.
// The data are the hard case for a TF32 argument: scores up to about 25 (Q and K in [0, 1],
// D = 64, scale 1), a long S (2048), and V offset from zero (in [0.5, 1.5]), so that a bias of
// the weights shows in the output.
//
// The bound. The approximate exp errs by at most kExpApproxError of its value (test_flash_approx
// .cpp), and truncating s to TF32 moves the argument by less than |s| 2^-10 (mn, a max of values
// SrcA read, is read exactly), a factor within exp(±|s|max 2^-10): each weight is off by a factor
// 1 + e with |e| <= d = (1 + kExpApproxError) exp(|s|max 2^-10) - 1, and as there
// |O' - O| <= d / (1 - d) * sum_j w_j |v_j - O| on top of the bf16 bound.
#include "tests/e2e/attention_reference.hpp"
#include "tests/e2e/harness.hpp"

#include "attention_hifi2.hpp"
#include "attention_hifi2_accurate.hpp"
#include "attention_hifi2_sfpu.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace tk::e2e {
namespace {

constexpr double kExpApproxError = 0.033; // test_flash_approx.cpp's

// causal_attention's reference, each element's bound widened by d / (1 - d) times the weighted
// mean absolute deviation of V's column from the output; `smax` is the largest |score|.
Reference widened(const Matrix<bf16>& Q, const Matrix<bf16>& K, const Matrix<bf16>& V,
                  std::int64_t S, std::int64_t D, double scale, double& smax) {
  Reference ref = causal_attention(Q, K, V, 1, S, D, 1, scale);
  std::vector<double> x(static_cast<std::size_t>(S));
  std::vector<std::vector<double>> w(static_cast<std::size_t>(S));
  smax = 0;
  for (std::int64_t r = 0; r < S; ++r) {
    double m = -INFINITY, l = 0;
    for (std::int64_t c = 0; c <= r; ++c) {
      double dot = 0;
      for (std::int64_t e = 0; e < D; ++e)
        dot += Q.at(r, e) * K.at(c, e);
      x[static_cast<std::size_t>(c)] = dot * scale;
      m = std::max(m, dot * scale);
      smax = std::max(smax, std::abs(dot * scale));
    }
    for (std::int64_t c = 0; c <= r; ++c)
      l += std::exp(x[static_cast<std::size_t>(c)] - m);
    auto& wr = w[static_cast<std::size_t>(r)];
    for (std::int64_t c = 0; c <= r; ++c)
      wr.push_back(std::exp(x[static_cast<std::size_t>(c)] - m) / l);
  }
  const double e = (1 + kExpApproxError) * std::exp(smax * std::ldexp(1.0, -10)) - 1;
  const double d = e / (1 - e);
  for (std::int64_t r = 0; r < S; ++r)
    for (std::int64_t col = 0; col < D; ++col) {
      const std::size_t i = static_cast<std::size_t>(r * D + col);
      double mad = 0;
      for (std::int64_t c = 0; c <= r; ++c)
        mad += w[static_cast<std::size_t>(r)][static_cast<std::size_t>(c)] *
               std::abs(V.at(c, col) - ref.value[i]);
      ref.bound[i] += d * mad;
    }
  double sum = 0;
  for (double b : ref.bound)
    sum += b;
  ref.bias_bound = kBiasFraction * sum / static_cast<double>(ref.bound.size());
  return ref;
}

// The largest excess of |got - ref| over its element's bound (<= 0: all within), the largest
// |got - ref|, the mean signed error and the PCC (printed: with V's offset the outputs vary too
// little for the element bounds to guarantee a PCC).
struct Measured {
  double excess = -INFINITY, max_err = 0, bias = 0, pcc = 0;
};
Measured measure(const Matrix<bf16>& got, const Reference& ref) {
  Measured m;
  std::vector<double> g(ref.value.size());
  for (std::size_t i = 0; i < ref.value.size(); ++i) {
    g[i] = static_cast<double>(static_cast<float>(got.data[i]));
    const double err = g[i] - ref.value[i];
    m.excess = std::max(m.excess, std::abs(err) - ref.bound[i]);
    m.max_err = std::max(m.max_err, std::abs(err));
    m.bias += err;
  }
  m.bias /= static_cast<double>(g.size());
  m.pcc = pearson(g, ref.value);
  return m;
}
TEST(FlashFpuSub, TheFpusArgumentAgainstTheSfpusOnLargeScores) {
  const std::int64_t H = 1, S = 2048, D = 64;
  // TK_SEED (hex) reruns the measurement on other data (docs/language.md quotes seeds 1-3 too).
  const char* seed = std::getenv("TK_SEED");
  Rng rng(seed ? std::strtoull(seed, nullptr, 16) : 0xf9a5);
  const auto Q = random_bf16(H * S, D, 0, 1, rng);
  const auto K = random_bf16(H * S, D, 0, 1, rng);
  const auto V = random_bf16(H * S, D, 0.5, 1.5, rng);
  const float scale = 1.0f;
  const TensorView<const bf16> q{Q.data.data(), H, S, D}, k{K.data.data(), H, S, D},
      v{V.data.data(), H, S, D};
  Matrix<bf16> fpu(H * S, D), sfpu(H * S, D), accurate(H * S, D);
  gen::attention_hifi2::run_tt(device(), q, k, v, scale, {fpu.data.data(), H, S, D});
  gen::attention_hifi2_sfpu::run_tt(device(), q, k, v, scale, {sfpu.data.data(), H, S, D});
  gen::attention_hifi2_accurate::run_tt(device(), q, k, v, scale, {accurate.data.data(), H, S, D});
  double smax = 0;
  const Reference ref = widened(Q, K, V, S, D, static_cast<double>(scale), smax);
  const Measured a = measure(fpu, ref), b = measure(sfpu, ref), c = measure(accurate, ref);
  std::printf("scores up to |s| = %.2f; bound: max %.4g, bias %.3g\n", smax,
              *std::max_element(ref.bound.begin(), ref.bound.end()), ref.bias_bound);
  std::printf("accurate exp:                      max |err| %.4g, bias %+.4g, PCC %.6f\n",
              c.max_err, c.bias, c.pcc);
  std::printf("approximate exp, SFPU s - mn fp32: max |err| %.4g, bias %+.4g, PCC %.6f\n",
              b.max_err, b.bias, b.pcc);
  std::printf("approximate exp, FPU s - mn TF32:  max |err| %.4g, bias %+.4g, PCC %.6f\n",
              a.max_err, a.bias, a.pcc);
  EXPECT_GT(smax, 16.0) << "the scores must reach the magnitudes the test is about";
  for (const Measured* m : {&a, &b, &c}) {
    EXPECT_LE(m->excess, 0.0);
    EXPECT_LE(std::abs(m->bias), ref.bias_bound);
  }
}

} // namespace
} // namespace tk::e2e
