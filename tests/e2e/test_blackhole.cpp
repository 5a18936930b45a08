// Kernels generated for the Blackhole P150 (tests/e2e/blackhole.tk, @options(arch = blackhole)) on
// an emulated P150 (TK_EMULATOR_ARCH=blackhole, set below before the device is created), on both
// targets, against a double-precision reference and the interpreter. The shapes spread over more
// than Wormhole's 64 cores and over both sides of the NoC columns without Tensix cores, so the
// P150's grid, NoC coordinates (the multicast rectangles of the blocked matmul) and 8 DRAM banks
// all carry data: the CI-cheap part of "every example on a P150" (docs/arch.md).
#include "tests/e2e/harness.hpp"

#include "arch/arch.hpp"

#include "blackhole.hpp"

#include <tk_emulator/emulator.hpp>
#include <tt-metalium/core_coord.hpp>
#include <tt-metalium/distributed.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <set>

namespace tk::e2e {
namespace {

// Before main, so the shared device (harness.cpp, created on first use) is a P150.
const bool kArchSet = [] { return setenv("TK_EMULATOR_ARCH", "blackhole", 1) == 0; }();

// The cores that ran a kernel in the last timed program, and the largest logical x among them.
std::set<std::pair<std::uint32_t, std::uint32_t>> cores_used() {
  std::set<std::pair<std::uint32_t, std::uint32_t>> cores;
  for (const auto& k : rt::emu::last_timing()->kernels)
    cores.emplace(k.core_x, k.core_y);
  return cores;
}

class P150 : public ::testing::TestWithParam<Backend> {
protected:
  void SetUp() override {
    ASSERT_TRUE(kArchSet);
    rt::emu::set_timing(true); // to see which cores ran (it changes no result)
  }
  void TearDown() override { rt::emu::set_timing(std::nullopt); }
  // On TT: the run used the P150 (its name in the timing report) and more than 64 cores, some
  // of them right of the gap (logical x >= 7 sits at NoC x >= 10).
  void expect_p150_cores(std::size_t at_least) {
    if (GetParam() != Backend::tt)
      return;
    ASSERT_TRUE(rt::emu::last_timing().has_value());
    EXPECT_EQ(rt::emu::last_timing()->arch, "blackhole (p150, 13x10)");
    const auto cores = cores_used();
    EXPECT_GE(cores.size(), at_least);
    EXPECT_TRUE(std::any_of(cores.begin(), cores.end(), [](auto c) { return c.first >= 7; }));
  }
};

TEST(P150Device, IsAP150) {
  ASSERT_TRUE(kArchSet);
  const auto grid = device().compute_with_storage_grid_size();
  EXPECT_EQ(grid.x, 13u);
  EXPECT_EQ(grid.y, 10u);
  EXPECT_EQ(device().num_dram_channels(), 8u);
  EXPECT_EQ(device().l1_size_per_core(), 1536u * 1024u);
  EXPECT_EQ(rt::emu::device_arch(device()).name, "blackhole");
  EXPECT_EQ(device().worker_core_from_logical_core({0, 0}), (tt::tt_metal::CoreCoord{1, 2}));
  EXPECT_EQ(device().worker_core_from_logical_core({6, 9}), (tt::tt_metal::CoreCoord{7, 11}));
  EXPECT_EQ(device().worker_core_from_logical_core({7, 0}), (tt::tt_metal::CoreCoord{10, 2}));
}

// TK_EMULATOR_ARCH and TT_METAL_EMULATOR_GRID are read when a device is created (docs/
// emulator.md): an unknown name, or a grid whose workers would sit on a P150 DRAM bank's
// coordinate, is refused; without the variable the device is the default n150.
TEST(P150Device, TheEnvironmentChoosesTheChip) {
  auto error_of = [] {
    try {
      tt::tt_metal::distributed::MeshDevice::create_unit_mesh(0);
    } catch (const rt::emu::EmulatorError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  setenv("TT_METAL_EMULATOR_GRID", "16x16", 1);
  EXPECT_EQ(error_of(), "TT_METAL_EMULATOR_GRID='16x16': worker (14,12) of blackhole would sit "
                        "on DRAM bank (17,14)");
  unsetenv("TT_METAL_EMULATOR_GRID");
  setenv("TK_EMULATOR_ARCH", "grayskull", 1);
  EXPECT_EQ(error_of(), "TK_EMULATOR_ARCH='grayskull' is not an architecture; the known ones are "
                        "wormhole_b0, blackhole");
  unsetenv("TK_EMULATOR_ARCH");
  const auto n150 = tt::tt_metal::distributed::MeshDevice::create_unit_mesh(0);
  EXPECT_EQ(rt::emu::device_arch(*n150).name, "wormhole_b0");
  EXPECT_EQ(n150->num_dram_channels(), 12u);
  EXPECT_EQ(n150->compute_with_storage_grid_size(), (tt::tt_metal::CoreCoord{8, 8}));
  setenv("TK_EMULATOR_ARCH", "blackhole", 1);
}

TEST_P(P150, BlockedMatmulOverTheWholeGrid) {
  // 640 x 96 x 832: 20 x 26 output tiles, blocks of 2 x 2 on every core of the 13 x 10 grid.
  constexpr std::int64_t m = 640, k = 96, n = 832;
  Rng rng(0xb1ac);
  const auto a = random_bf16(m, k, -1, 1, rng);
  const auto bs = static_cast<float>(2 / std::sqrt(static_cast<double>(k)));
  const auto b = random_bf16(k, n, -bs, bs, rng);
  Matrix<bf16> c(m, n);
  launch(
      GetParam(), [&] { gen::matmul_p150::run_cpu(a.cview(), b.cview(), c.view()); },
      [&] { gen::matmul_p150::run_tt(device(), a.cview(), b.cview(), c.view()); });
  Reference ref{m, n, std::vector<double>(static_cast<std::size_t>(m * n)), {}};
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      double s = 0;
      for (std::int64_t x = 0; x < k; ++x)
        s += a.at(i, x) * b.at(x, j);
      ref.value[static_cast<std::size_t>(i * n + j)] = s;
    }
  set_bf16_bound(ref);
  const Outcome out =
      verify_kernel(TK_E2E_BLACKHOLE_FILE, "matmul_p150",
                    {{{"A", to_interp(a)}, {"B", to_interp(b)}}, {}, {}}, "C", c, ref);
  EXPECT_TRUE(out.ok) << out.detail;
  expect_p150_cores(130);
}

TEST_P(P150, SoftmaxRowsOverTheWholeGrid) {
  // 130 rows of tiles: one per core of the 13 x 10 grid.
  constexpr std::int64_t m = 130 * 32, n = 96;
  Rng rng(0x50f7);
  const auto x = random_bf16(m, n, -4, 4, rng);
  Matrix<bf16> y(m, n);
  launch(
      GetParam(), [&] { gen::softmax_p150::run_cpu(x.cview(), y.view()); },
      [&] { gen::softmax_p150::run_tt(device(), x.cview(), y.view()); });
  Reference ref{m, n, std::vector<double>(x.data.size()), {}};
  for (std::int64_t i = 0; i < m; ++i) {
    double mx = -INFINITY, sum = 0;
    for (std::int64_t j = 0; j < n; ++j)
      mx = std::max(mx, x.at(i, j));
    for (std::int64_t j = 0; j < n; ++j)
      sum += std::exp(x.at(i, j) - mx);
    for (std::int64_t j = 0; j < n; ++j)
      ref.value[static_cast<std::size_t>(i * n + j)] = std::exp(x.at(i, j) - mx) / sum;
  }
  set_bf16_bound(ref);
  const Outcome out = verify_kernel(TK_E2E_BLACKHOLE_FILE, "softmax_p150",
                                    {{{"x", to_interp(x)}}, {}, {}}, "y", y, ref);
  EXPECT_TRUE(out.ok) << out.detail;
  expect_p150_cores(130);
}

TEST_P(P150, AddOverTheWholeGrid) {
  // 320 x 448: 10 x 14 = 140 tiles, more than the P150's 130 cores (ragged: two groups).
  constexpr std::int64_t m = 320, n = 448;
  Rng rng(0xadd);
  const auto x = random_bf16(m, n, -2, 2, rng);
  const auto y = random_bf16(m, n, -2, 2, rng);
  Matrix<bf16> z(m, n);
  launch(
      GetParam(), [&] { gen::add_p150::run_cpu(x.cview(), y.cview(), z.view()); },
      [&] { gen::add_p150::run_tt(device(), x.cview(), y.cview(), z.view()); });
  Reference ref{m, n, std::vector<double>(x.data.size()), {}};
  for (std::size_t i = 0; i < ref.value.size(); ++i)
    ref.value[i] = static_cast<double>(static_cast<float>(x.data[i])) +
                   static_cast<double>(static_cast<float>(y.data[i]));
  set_bf16_bound(ref);
  const Outcome out =
      verify_kernel(TK_E2E_BLACKHOLE_FILE, "add_p150",
                    {{{"x", to_interp(x)}, {"y", to_interp(y)}}, {}, {}}, "z", z, ref);
  EXPECT_TRUE(out.ok) << out.detail;
  expect_p150_cores(130);
}

INSTANTIATE_TEST_SUITE_P(Targets, P150, ::testing::Values(Backend::cpu, Backend::tt),
                         [](const ::testing::TestParamInfo<Backend>& p) {
                           return std::string(to_string(p.param));
                         });

} // namespace
} // namespace tk::e2e
