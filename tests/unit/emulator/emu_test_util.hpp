// Helpers for the emulator tests: kernel paths, bf16 data, and comparisons with stated tolerances.
#pragma once
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include <tt-metalium/bfloat16.hpp>

namespace tk::test {
inline std::string kernel(const std::string& rel) {
  return std::string(TK_SOURCE_DIR) + "/tests/unit/emulator/kernels/" + rel;
}

// Kernels are cached inside the build tree, not in the user's home.
struct EmulatorCacheEnv : ::testing::Environment {
  void SetUp() override {
    setenv("TT_METAL_EMULATOR_CACHE_DIR", TK_BINARY_DIR "/emulator_kernel_cache", 0);
  }
};
inline const auto* const g_cache_env = ::testing::AddGlobalTestEnvironment(new EmulatorCacheEnv);

inline std::vector<bfloat16> random_bf16(std::size_t n, float lo, float hi, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<bfloat16> v(n);
  for (auto& x : v)
    x = bfloat16(dist(rng));
  return v;
}

inline double pcc(const std::vector<float>& a, const std::vector<float>& b) {
  double ma = 0, mb = 0;
  for (std::size_t i = 0; i < a.size(); ++i)
    ma += a[i], mb += b[i];
  ma /= a.size();
  mb /= b.size();
  double sab = 0, saa = 0, sbb = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    sab += (a[i] - ma) * (b[i] - mb);
    saa += (a[i] - ma) * (a[i] - ma);
    sbb += (b[i] - mb) * (b[i] - mb);
  }
  return sab / std::sqrt(saa * sbb);
}

// |got - want| <= atol + rtol * |want| for every element, plus PCC >= min_pcc.
inline void expect_close(const std::vector<bfloat16>& got, const std::vector<float>& want,
                         double rtol, double atol, double min_pcc = 0.999) {
  ASSERT_EQ(got.size(), want.size());
  std::vector<float> g(got.size());
  std::size_t bad = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    g[i] = static_cast<float>(got[i]);
    if (!(std::fabs(g[i] - want[i]) <= atol + rtol * std::fabs(want[i]))) {
      if (bad++ < 5)
        ADD_FAILURE() << "element " << i << ": got " << g[i] << ", want " << want[i];
    }
  }
  EXPECT_EQ(bad, 0u) << "elements outside rtol=" << rtol << " atol=" << atol;
  EXPECT_GE(pcc(g, want), min_pcc);
}
} // namespace tk::test
