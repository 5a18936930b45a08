// Every example generated for the Blackhole P150 (ttgen --arch=blackhole, tests/e2e/
// CMakeLists.txt) on an emulated P150 (TK_EMULATOR_ARCH=blackhole, set below before the device is
// created), through run_tt, against the same double-precision reference and interpreter as the
// n150 runs (cases.hpp, verify() in harness.hpp), at the shapes the n150's test_examples.cpp
// runs (test_shapes()) but the seven that cost the emulator more than 2 s each (measured at load
// 12 on the shared 2-core machine; docs/arch.md): attention at 544 x 576 and 2080 x 64 (its work
// grows with the square of the sequence: 52 and 27 s), mlp at 544 x 576 x 608 (three matmuls:
// 41 s) and the matmul variants at 544 x 576 x 608 (3 to 4.5 s each), of which the plain matmul
// stays, the blocked matmul over 512 in every dimension. 288 x 320 (x 96) has 90 output tiles, more
// than the n150's 64 cores, so a kernel split over its tiles spreads over the P150's grid and both
// sides of its NoC columns without Tensix cores (docs/arch.md).
#include "tests/e2e/cases.hpp"

#include <tk_emulator/emulator.hpp>

#include <gtest/gtest.h>

#include <cstdlib>
#include <ostream>
#include <set>

namespace tk::e2e {
namespace {

// Before main, so the shared device (harness.cpp, created on first use) is a P150.
const bool kArchSet = [] { return setenv("TK_EMULATOR_ARCH", "blackhole", 1) == 0; }();

struct Param {
  const Example* example;
  Shape shape;
};

// gtest prints the parameter of a failing test; the default would be a byte dump.
void PrintTo(const Param& p, std::ostream* os) {
  *os << p.example->name << " " << to_string(p.shape, p.example->uses_k) << " on the P150";
}

class ExampleP150 : public ::testing::TestWithParam<Param> {
protected:
  void SetUp() override {
    ASSERT_TRUE(kArchSet);
    rt::emu::set_timing(true); // to see the chip and the cores that ran (it changes no result)
  }
  void TearDown() override { rt::emu::set_timing(std::nullopt); }
};

TEST_P(ExampleP150, MatchesReference) {
  const Example& e = *GetParam().example;
  const Shape shape = GetParam().shape;
  if (!e.tt_generated)
    GTEST_SKIP() << "no TT code generated for " << e.name;
  const Outcome out = e.run(Backend::tt, shape);
  EXPECT_TRUE(out.ok) << e.name << " " << to_string(shape, e.uses_k) << " on the P150: max |err| "
                      << out.max_abs_err << ", PCC " << out.pcc
                      << " (against the interpreter: " << out.interp_max_abs_err << ", "
                      << out.interp_pcc << ")\n"
                      << out.detail;
  ASSERT_TRUE(rt::emu::last_timing().has_value());
  EXPECT_EQ(rt::emu::last_timing()->arch, "blackhole (p150, 13x10)");
  // The n150 code would stop at 8 x 8 cores; the P150's spreads the 90 tiles of an element-wise
  // kernel one a core, past logical x 7 (NoC x 10 and up).
  if (e.name == "eltwise_add" && shape.m == 288 && shape.n == 320) {
    std::set<std::pair<std::uint32_t, std::uint32_t>> cores;
    for (const auto& k : rt::emu::last_timing()->kernels)
      cores.emplace(k.core_x, k.core_y);
    EXPECT_EQ(cores.size(), 90u);
  }
}

// The cases left out for their cost (the comment at the top).
bool too_slow(const Example& e, const Shape& s) {
  const bool large = s.m == 544 && s.n == 576;
  if (e.name.starts_with("attention")) // attention and attention_gqa
    return large || s.m == 2080;
  return large && e.uses_k && e.name != "matmul";
}

std::vector<Param> all_params() {
  std::vector<Param> v;
  for (const Example& e : examples())
    for (const Shape& s : test_shapes())
      if (!too_slow(e, s))
        v.push_back({&e, s});
  return v;
}

INSTANTIATE_TEST_SUITE_P(Examples, ExampleP150, ::testing::ValuesIn(all_params()),
                         [](const ::testing::TestParamInfo<Param>& p) {
                           return p.param.example->name + "_" + to_string(p.param.shape, true);
                         });

} // namespace
} // namespace tk::e2e
