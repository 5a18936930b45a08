// Syntax-error goldens: every tests/golden/syntax/<case>.tk must give exactly the diagnostics in
// <case>.err (UPDATE_GOLDEN=1 rewrites them; review the diff).
#include "parse_helpers.hpp"

#include "tests/support/golden.hpp"

#include <algorithm>
#include <filesystem>

namespace tk::test {
namespace {

std::vector<std::string> syntax_cases() {
  std::vector<std::string> names;
  auto dir = source_dir() / "tests/golden/syntax";
  if (std::filesystem::exists(dir))
    for (const auto& e : std::filesystem::directory_iterator(dir))
      if (e.path().extension() == ".tk")
        names.push_back(e.path().stem().string());
  std::sort(names.begin(), names.end());
  return names;
}

class SyntaxGolden : public ::testing::TestWithParam<std::string> {};

TEST_P(SyntaxGolden, Diagnostics) {
  auto dir = source_dir() / "tests/golden/syntax";
  std::string name = GetParam();
  Parsed p = parse_text(read_file(dir / (name + ".tk")), name + ".tk");
  EXPECT_FALSE(p.module.has_value()) << "a syntax-error case must not parse";
  expect_golden(dir / (name + ".err"), p.diagnostics);
}

INSTANTIATE_TEST_SUITE_P(Cases, SyntaxGolden, ::testing::ValuesIn(syntax_cases()),
                         [](const auto& case_info) { return case_info.param; });

TEST(SyntaxGoldenSet, HasEnoughCases) {
  EXPECT_GE(syntax_cases().size(), 10u);
}

} // namespace
} // namespace tk::test
