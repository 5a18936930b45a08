// Every example on every test shape, through run_cpu and run_tt, against its reference and the
// interpreter (cases.hpp, verify() in harness.hpp).
#include "tests/e2e/cases.hpp"

#include <gtest/gtest.h>

#include <ostream>
#include <set>
#include <sstream>

namespace tk::e2e {
namespace {

struct Param {
  const Example* example;
  Shape shape;
  Backend backend;
};

std::vector<Param> all_params() {
  std::vector<Param> params;
  for (const Example& e : examples())
    for (const Shape& s : test_shapes())
      for (Backend b : {Backend::cpu, Backend::tt})
        params.push_back({&e, s, b});
  return params;
}

// gtest prints the parameter of a failing test; the default would be a byte dump.
void PrintTo(const Param& p, std::ostream* os) {
  *os << p.example->name << " " << to_string(p.shape, p.example->uses_k) << " on "
      << to_string(p.backend);
}

class ExampleTest : public ::testing::TestWithParam<Param> {};

TEST_P(ExampleTest, MatchesReference) {
  const Param& p = GetParam();
  if (p.backend == Backend::tt && !p.example->tt_generated)
    GTEST_SKIP() << "no TT code generated for " << p.example->name
                 << " (TILEKIT_TT_CODEGEN is OFF in cmake/TileKit.cmake)";
  const Outcome out = p.example->run(p.backend, p.shape);
  EXPECT_TRUE(out.ok) << p.example->name << " " << to_string(p.shape, p.example->uses_k) << " on "
                      << to_string(p.backend) << ": max |err| " << out.max_abs_err << ", PCC "
                      << out.pcc << " (against the interpreter: " << out.interp_max_abs_err << ", "
                      << out.interp_pcc << ")\n"
                      << out.detail;
}

INSTANTIATE_TEST_SUITE_P(Examples, ExampleTest, ::testing::ValuesIn(all_params()),
                         [](const ::testing::TestParamInfo<Param>& param_info) {
                           const Param& p = param_info.param;
                           return p.example->name + "_" + to_string(p.shape, true) + "_" +
                                  to_string(p.backend);
                         });

// Rows longer than half their CB: N = 8256 is 258 tiles a row. softmax (cap 256) keeps 256 of
// them double-buffered and streams the last 2 in each walk; rmsnorm (cap 170) keeps the row whole
// in one window of its CB (2 cap pages); layernorm (cap 128) keeps 256 in one window, the last 2
// streamed by each walk, and its gamma and beta keep 128 tiles, the output loop reading tiles 128
// to 255 of x from L1 and of gamma and beta from DRAM. rmsnorm and layernorm
// also sum 258 tiles of a row into a carried value, which keeps fp32 between iterations (an fp32
// CB): in bf16 these sums exceeded the documented bound 1.5 to 2 times.
TEST(KeepRows, RowsLongerThanTheirCb) {
  for (const Example& e : examples()) {
    if (e.name != "softmax" && e.name != "rmsnorm" && e.name != "layernorm")
      continue;
    for (Backend b : {Backend::cpu, Backend::tt}) {
      if (b == Backend::tt && !e.tt_generated)
        continue;
      const Outcome out = e.run(b, {64, 8256, 32});
      EXPECT_TRUE(out.ok) << e.name << " 64x8256 on " << to_string(b) << ": max |err| "
                          << out.max_abs_err << ", PCC " << out.pcc << "\n"
                          << out.detail;
    }
  }
}

// A new examples/*.tk without a case here would silently go untested.
TEST(Examples, EveryExampleFileHasACase) {
  std::set<std::string> files, cases;
  std::istringstream list(TK_E2E_EXAMPLES); // examples/*.tk stems, from CMake
  for (std::string stem; std::getline(list, stem, ',');)
    files.insert(stem);
  for (const Example& e : examples())
    cases.insert(e.name);
  EXPECT_EQ(files, cases);
}

} // namespace
} // namespace tk::e2e
