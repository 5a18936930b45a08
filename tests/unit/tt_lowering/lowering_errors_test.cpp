// User errors of the TT chain, as the user sees them: every tests/golden/lowering_errors/<case>.tk
// checks cleanly, then fails to lower with exactly the diagnostics of <case>.err (UPDATE_GOLDEN=1
// rewrites them). A first line `// overrides: cb_depth = N` sets an option past the flag limits
// (as an IR dump may).
#include "dsl/check.hpp"
#include "parser/parse.hpp"
#include "tt_test_util.hpp"

#include <algorithm>
#include <filesystem>

namespace tk::lower {
namespace {

namespace fs = std::filesystem;

const fs::path kCases = tk::test::source_dir() / "tests/golden/lowering_errors";

std::vector<fs::path> cases() {
  std::vector<fs::path> out;
  for (const auto& e : fs::directory_iterator(kCases))
    if (e.path().extension() == ".tk")
      out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

class LoweringErrors : public ::testing::TestWithParam<fs::path> {};

TEST_P(LoweringErrors, MatchExpected) {
  std::string text = tk::test::read_file(GetParam());
  SourceFile file(GetParam().filename().string(), text);
  Diagnostics diags(&file);
  std::optional<dsl::Module> ast = parser::parse(file, diags);
  ASSERT_TRUE(ast && dsl::check(*ast, diags)) << "the case must pass the checker:\n" << diags.str();
  PipelineOptions o;
  o.verify_each = true;
  const std::string marker = "// overrides: cb_depth = ";
  if (text.rfind(marker, 0) == 0)
    o.overrides.cb_depth = std::stoll(text.substr(marker.size()));
  EXPECT_FALSE(run_pipeline(*ast, Target::tt, o, diags)) << "lowered without an error";
  fs::path err = GetParam();
  err.replace_extension(".err");
  tk::test::expect_golden(err, diags.str());
}

INSTANTIATE_TEST_SUITE_P(Cases, LoweringErrors, ::testing::ValuesIn(cases()),
                         [](const auto& p) { return p.param.stem().string(); });

TEST(LoweringErrors, SuiteCoversEveryKind) {
  std::vector<std::string> names;
  for (const fs::path& p : cases())
    names.push_back(p.stem().string());
  for (const char* want :
       {"too_many_inputs", "no_room_for_scaler", "too_many_intermediates", "l1_overflow"})
    EXPECT_NE(std::find(names.begin(), names.end(), want), names.end()) << want;
}

} // namespace
} // namespace tk::lower
