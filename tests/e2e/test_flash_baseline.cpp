// The FlashAttention baseline (baselines/flash_ttnn.cpp: ttnn's causal SDPA prefill program, docs/
// baselines.md) on the emulator with its arithmetic on, against a double-precision causal softmax
// attention: every element within the end-to-end bf16 bound 1.6e-2 * (1 + |ref|) plus what the
// approximate exp's error can move a softmax-weighted mean (kExpSpread below), PCC >= 0.999 and a
// mean signed error within an eighth of the mean bf16 bound (harness.hpp); the plans the program
// factory's rules give; the message for chunks that do not divide S.
#include "baselines/flash_ttnn.hpp"
#include "baselines/matmul.hpp"
#include "tests/e2e/harness.hpp"

#include <gtest/gtest.h>

#include <tt-metalium/bfloat8.hpp>
#include <tt-metalium/tilize_utils.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <ostream>
#include <stdexcept>
#include <string>
#include <vector>

namespace tk::e2e {
namespace {

struct KernelCacheEnv : ::testing::Environment {
  void SetUp() override {
    setenv("TT_METAL_EMULATOR_CACHE_DIR", TK_BINARY_DIR "/emulator_kernel_cache", 0);
  }
};
const auto* const g_cache_env = ::testing::AddGlobalTestEnvironment(new KernelCacheEnv);

using baselines::FlashOptions;
using baselines::FlashShape;

// The kernel's exp is tt-llk's approximate one (exp_tile<true, false, InputClamping::None, 32>,
// 16-bit DST): each weight w_j comes out as w_j (1 + e_j) with e_j in [-3.492%, +3.1227%]
// (docs/emulator.md, "The approximate exp"; test_exp_approx.cpp asserts the range). The output
// O = sum w_j v_j / sum w_j then moves by sum w_j e_j (v_j - O) / sum w_j (1 + e_j): with e_j - c
// within half the range around its middle c, at most (3.1227% + 3.492%) / 2 / (1 - 3.492%) =
// 3.4268% of the weighted mean |v_j - O| (the weights are the reference's, the packer's ReLU zeroes
// the few below exp(-88), whose weight is below 1e-38 of the row's largest).
constexpr double kExpSpread = 0.03427;

// softmax(Q K^T * scale, causal) V per head, in double; `spread` gets, per element, the
// softmax-weighted mean of |v_j - O|.
std::vector<double> reference(const std::vector<float>& q, const std::vector<float>& k,
                              const std::vector<float>& v, FlashShape s, double scale,
                              std::vector<double>& spread) {
  const std::size_t S = s.S, D = s.D;
  std::vector<double> out(std::size_t{s.H} * S * D);
  spread.assign(out.size(), 0.0);
  for (std::size_t h = 0; h < s.H; ++h) {
    for (std::size_t i = 0; i < S; ++i) {
      const float* qr = &q[(h * S + i) * D];
      std::vector<double> w(i + 1);
      double mx = -INFINITY, sum = 0;
      for (std::size_t j = 0; j <= i; ++j) {
        const float* kr = &k[(h * S + j) * D];
        double dot = 0;
        for (std::size_t e = 0; e < D; ++e)
          dot += double(qr[e]) * kr[e];
        w[j] = dot * scale;
        mx = std::max(mx, w[j]);
      }
      for (double& x : w)
        sum += (x = std::exp(x - mx));
      for (std::size_t e = 0; e < D; ++e) {
        double acc = 0;
        for (std::size_t j = 0; j <= i; ++j)
          acc += w[j] * v[(h * S + j) * D + e];
        const double o = out[(h * S + i) * D + e] = acc / sum;
        double dev = 0;
        for (std::size_t j = 0; j <= i; ++j)
          dev += w[j] * std::abs(v[(h * S + j) * D + e] - o);
        spread[(h * S + i) * D + e] = dev / sum;
      }
    }
  }
  return out;
}

std::vector<float> floats(const std::vector<bfloat16>& m) {
  std::vector<float> r(m.size());
  std::transform(m.begin(), m.end(), r.begin(), [](bfloat16 x) { return static_cast<float>(x); });
  return r;
}

struct Case {
  FlashShape shape;
  FlashOptions options;
  bool balanced; // what the program factory's rule gives on the 8x8 grid
};

std::string name(const Case& c) {
  return std::to_string(c.shape.H) + "x" + std::to_string(c.shape.S) + "x" +
         std::to_string(c.shape.D) + "_q" + std::to_string(c.options.q_chunk) + "_k" +
         std::to_string(c.options.k_chunk) +
         (c.options.data_format == tt::DataFormat::Bfp8_b ? "_bfp8" : "");
}

// The values a Bfp8_b DRAM buffer holds for m (rows x cols): tiled, packed as the baseline packs
// its inputs, and back.
std::vector<float> bfp8_values(const std::vector<bfloat16>& m, std::uint32_t rows,
                               std::uint32_t cols) {
  const std::vector<bfloat16> tiled = tilize_nfaces(m, rows, cols);
  const std::vector<std::uint32_t> words =
      pack_as_bfp8_tiles(ttsl::Span<const bfloat16>(tiled), false, false);
  return untilize_nfaces(
      unpack_bfp8_tiles_into_float_vec(ttsl::Span<const std::uint32_t>(words), false, false), rows,
      cols);
}

void PrintTo(const Case& c, std::ostream* os) {
  *os << name(c);
}

class FlashBaseline : public ::testing::TestWithParam<Case> {};

TEST_P(FlashBaseline, MatchesDoubleReference) {
  const Case& c = GetParam();
  const FlashShape s = c.shape;
  const std::size_t rows = std::size_t{s.H} * s.S;
  // Q, K, V uniform in [-1, 1], as tk_tt_bench's attention inputs.
  const std::vector<bfloat16> q = baselines::random_bf16_matrix(rows, s.D, 11),
                              k = baselines::random_bf16_matrix(rows, s.D, 12),
                              v = baselines::random_bf16_matrix(rows, s.D, 13);
  const double scale = 1.0 / std::sqrt(static_cast<double>(s.D));
  const baselines::FlashPlan plan = baselines::flash_plan(device(), s, c.options);
  EXPECT_EQ(plan.balanced, c.balanced) << baselines::describe_flash_plan(plan);
  const std::vector<float> got =
      baselines::run_flash_ttnn(device(), s, q, k, v, static_cast<float>(scale), c.options);
  const bool bfp8 = c.options.data_format == tt::DataFormat::Bfp8_b;
  const auto in = [&](const std::vector<bfloat16>& m) {
    return bfp8 ? bfp8_values(m, static_cast<std::uint32_t>(rows), s.D) : floats(m);
  };
  std::vector<double> spread;
  const std::vector<double> ref = reference(in(q), in(k), in(v), s, scale, spread);
  ASSERT_EQ(got.size(), ref.size());
  std::size_t bad = 0;
  double max_err = 0, bound_sum = 0, signed_sum = 0, worst_ratio = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    const double err = double(got[i]) - ref[i], bf16 = kBf16Tol * (1 + std::abs(ref[i]));
    const double bound = bf16 + kExpSpread * spread[i];
    max_err = std::max(max_err, std::abs(err));
    worst_ratio = std::max(worst_ratio, std::abs(err) / bound);
    bound_sum += bf16;
    signed_sum += err;
    if (!(std::abs(err) <= bound) && bad++ < 5)
      ADD_FAILURE() << "O(" << i / s.D << ", " << i % s.D << ") = " << got[i] << ", reference "
                    << ref[i];
  }
  EXPECT_EQ(bad, 0u) << "elements beyond the bf16 bound; max |err| " << max_err;
  const double pcc = pearson(std::vector<double>(got.begin(), got.end()), ref);
  EXPECT_GE(pcc, kMinPcc);
  const auto n = static_cast<double>(got.size());
  EXPECT_LE(std::abs(signed_sum / n), kBiasFraction * bound_sum / n);
  std::printf("flash_ttnn %s: max|err| %.3e (%.2f of its bound), PCC %.6f, mean signed error "
              "%.3e (%s)\n",
              name(c).c_str(), max_err, worst_ratio, pcc, signed_sum / n,
              baselines::describe_flash_plan(plan).c_str());
}

// 16 heads of 512: 16 head groups x 4 Q groups of 2 chunks, balanced low/high; 2 heads: 8 Q groups
// of one chunk; Q chunks of two K chunks and K chunks of two Q chunks (the mask on two chunks, and
// a K chunk reaching past the Q chunk's last row); the first with Q, K, V and O in Bfp8_b, against
// the reference on the values the Bfp8_b pages hold.
INSTANTIATE_TEST_SUITE_P(
    Shapes, FlashBaseline,
    ::testing::Values(Case{{16, 512, 64}, {.q_chunk = 64, .k_chunk = 64}, true},
                      Case{{2, 256, 64}, {.q_chunk = 64, .k_chunk = 32}, false},
                      Case{{2, 256, 96}, {.q_chunk = 32, .k_chunk = 64}, false},
                      Case{{1, 512, 128}, {.q_chunk = 128, .k_chunk = 128}, false},
                      Case{{16, 512, 64},
                           {.q_chunk = 64, .k_chunk = 64, .data_format = tt::DataFormat::Bfp8_b},
                           true}),
    [](const ::testing::TestParamInfo<Case>& param) { return name(param.param); });

TEST(FlashBaselinePlan, ChunksThatDoNotDivideSAreRejected) {
  try {
    baselines::flash_plan(device(), {1, 512, 64}, {.q_chunk = 96, .k_chunk = 64});
    FAIL() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "flash_ttnn: the chunks (96, 64) must be multiples of 32 that divide "
                           "S = 512");
  }
}

} // namespace
} // namespace tk::e2e
