// Golden diagnostics: every tests/golden/diagnostics/<case>.tk is parsed and checked, and the
// printed diagnostics must equal <case>.err byte for byte (UPDATE_GOLDEN=1 rewrites them).
// Also: every examples/*.tk parses and checks without a single diagnostic.
#include "dsl/check.hpp"
#include "parser/parse.hpp"
#include "tests/support/golden.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;

std::vector<fs::path> tk_files(const fs::path& dir) {
  std::vector<fs::path> r;
  if (fs::exists(dir))
    for (const auto& e : fs::directory_iterator(dir))
      if (e.path().extension() == ".tk")
        r.push_back(e.path());
  std::sort(r.begin(), r.end());
  return r;
}

/// Parses and checks `path`; the diagnostics as the user sees them, file named by its base name.
std::string diagnose(const fs::path& path) {
  tk::SourceFile file(path.filename().string(), tk::test::read_file(path));
  tk::Diagnostics diags(&file);
  if (auto m = tk::parser::parse(file, diags))
    tk::dsl::check(*m, diags);
  return diags.str();
}

const fs::path kCases = tk::test::source_dir() / "tests/golden/diagnostics";

class DiagnosticsGolden : public testing::TestWithParam<fs::path> {};

TEST_P(DiagnosticsGolden, MatchesExpected) {
  fs::path tk = GetParam();
  std::string got = diagnose(tk);
  EXPECT_FALSE(got.empty()) << tk << " is an error case but produced no diagnostics";
  fs::path err = tk;
  err.replace_extension(".err");
  tk::test::expect_golden(err, got);
}

INSTANTIATE_TEST_SUITE_P(Cases, DiagnosticsGolden, testing::ValuesIn(tk_files(kCases)),
                         [](const testing::TestParamInfo<fs::path>& i) {
                           return i.param.stem().string();
                         });

TEST(DiagnosticsGolden, SuiteIsComplete) {
  // One case per error kind of docs/language.md, plus the several-errors and over-the-limit cases.
  EXPECT_GE(tk_files(kCases).size(), 24u);
  for (const fs::path& tk : tk_files(kCases)) {
    fs::path err = tk;
    EXPECT_TRUE(fs::exists(err.replace_extension(".err"))) << "no expected output for " << tk;
  }
}

class ExampleChecks : public testing::TestWithParam<fs::path> {};

TEST_P(ExampleChecks, Clean) {
  EXPECT_EQ(diagnose(GetParam()), "");
}

INSTANTIATE_TEST_SUITE_P(Examples, ExampleChecks,
                         testing::ValuesIn(tk_files(tk::test::source_dir() / "examples")),
                         [](const testing::TestParamInfo<fs::path>& i) {
                           return i.param.stem().string();
                         });

TEST(ExampleChecks, TheAdvertisedExamplesExist) {
  for (const char* name :
       {"matmul", "matmul_bias_relu", "eltwise_add", "axpby", "unary_chain", "softmax"})
    EXPECT_TRUE(fs::exists(tk::test::source_dir() / "examples" / (std::string(name) + ".tk")))
        << name;
}

} // namespace
