// Every example generated for the Blackhole P150 (ttgen --arch=blackhole, tests/e2e/
// CMakeLists.txt) on an emulated P150 (TK_EMULATOR_ARCH=blackhole, set below before the device is
// created), through run_tt, against the same double-precision reference and interpreter as the
// n150 runs (cases.hpp, verify() in harness.hpp). One shape: 288 x 320 (x 96), 90 output tiles,
// more than the n150's 64 cores, so a kernel split over its tiles spreads over the P150's grid
// and both sides of its NoC columns without Tensix cores (docs/arch.md); attention, whose work
// grows with the square of its sequence, at sequence 288 and head width 64 (9 row blocks).
#include "tests/e2e/cases.hpp"

#include <tk_emulator/emulator.hpp>

#include <gtest/gtest.h>

#include <cstdlib>
#include <set>

namespace tk::e2e {
namespace {

// Before main, so the shared device (harness.cpp, created on first use) is a P150.
const bool kArchSet = [] { return setenv("TK_EMULATOR_ARCH", "blackhole", 1) == 0; }();

constexpr Shape kShape{288, 320, 96};
Shape shape_of(const Example& e) {
  return e.name.starts_with("attention") ? Shape{288, 64, 0} : kShape;
}

class ExampleP150 : public ::testing::TestWithParam<const Example*> {
protected:
  void SetUp() override {
    ASSERT_TRUE(kArchSet);
    rt::emu::set_timing(true); // to see the chip and the cores that ran (it changes no result)
  }
  void TearDown() override { rt::emu::set_timing(std::nullopt); }
};

TEST_P(ExampleP150, MatchesReference) {
  const Example& e = *GetParam();
  if (!e.tt_generated)
    GTEST_SKIP() << "no TT code generated for " << e.name;
  const Outcome out = e.run(Backend::tt, shape_of(e));
  EXPECT_TRUE(out.ok) << e.name << " " << to_string(shape_of(e), e.uses_k)
                      << " on the P150: max |err| " << out.max_abs_err << ", PCC " << out.pcc
                      << " (against the interpreter: " << out.interp_max_abs_err << ", "
                      << out.interp_pcc << ")\n"
                      << out.detail;
  ASSERT_TRUE(rt::emu::last_timing().has_value());
  EXPECT_EQ(rt::emu::last_timing()->arch, "blackhole (p150, 13x10)");
  // The n150 code would stop at 8 x 8 cores; the P150's spreads the 90 tiles of an element-wise
  // kernel one a core, past logical x 7 (NoC x 10 and up).
  if (e.name == "eltwise_add") {
    std::set<std::pair<std::uint32_t, std::uint32_t>> cores;
    for (const auto& k : rt::emu::last_timing()->kernels)
      cores.emplace(k.core_x, k.core_y);
    EXPECT_EQ(cores.size(), 90u);
  }
}

std::vector<const Example*> all_examples() {
  std::vector<const Example*> v;
  for (const Example& e : examples())
    v.push_back(&e);
  return v;
}

INSTANTIATE_TEST_SUITE_P(Examples, ExampleP150, ::testing::ValuesIn(all_examples()),
                         [](const ::testing::TestParamInfo<const Example*>& p) {
                           return p.param->name;
                         });

} // namespace
} // namespace tk::e2e
