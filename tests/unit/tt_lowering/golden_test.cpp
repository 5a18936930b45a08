// Every examples/*.tk through the TT chain: the dump after each TT stage is golden
// (tests/golden/ir/<example>/tt/after-<stage>.txt, UPDATE_GOLDEN=1 rewrites), reads back to the
// same text, and resuming the chain from it reproduces every later dump.
#include "dsl/check.hpp"
#include "parser/parse.hpp"
#include "tt_test_util.hpp"

#include <algorithm>
#include <filesystem>
#include <sstream>

namespace tk::lower {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> examples() {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(tk::test::source_dir() / "examples"))
    if (e.path().extension() == ".tk")
      out.push_back(e.path().stem().string());
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::pair<std::string, std::string>> split_dumps(const std::string& all) {
  std::vector<std::pair<std::string, std::string>> out;
  std::istringstream in(all);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("// after ", 0) == 0)
      out.push_back({line.substr(9), ""});
    out.back().second += line + "\n";
  }
  return out;
}

// The TT stages, in chain order (everything after the front stages).
std::vector<std::string> tt_stages() {
  std::vector<std::string> out;
  bool tt = false;
  for (const Stage& s : stages(Target::tt)) {
    if (tt)
      out.push_back(std::string(s.name));
    tt |= s.name == "infer-layout";
  }
  return out;
}

std::string all_dumps(const std::string& example) {
  fs::path tk = tk::test::source_dir() / "examples" / (example + ".tk");
  SourceFile file(tk.string(), tk::test::read_file(tk));
  Diagnostics diags(&file);
  std::optional<dsl::Module> ast = parser::parse(file, diags);
  EXPECT_TRUE(ast) << diags.str();
  EXPECT_TRUE(ast && dsl::check(*ast, diags)) << diags.str();
  std::ostringstream os;
  PipelineOptions o;
  o.print_after_all = true;
  o.verify_each = true;
  o.dump = &os;
  EXPECT_TRUE(ast && run_pipeline(*ast, Target::tt, o, diags)) << diags.str();
  return os.str();
}

class TTGolden : public ::testing::TestWithParam<std::string> {};

TEST_P(TTGolden, DumpAfterEveryStage) {
  auto dumps = split_dumps(all_dumps(GetParam()));
  std::vector<std::string> names = tt_stages();
  ASSERT_EQ(names.size(), 31u);
  ASSERT_EQ(dumps.size(), names.size() + 3); // + to-tile-ir, lower-reductions, infer-layout
  for (std::size_t k = 0; k < names.size(); ++k) {
    const auto& [stage, text] = dumps[k + 3];
    ASSERT_EQ(stage, names[k]);
    tk::test::expect_golden(tk::test::source_dir() / "tests/golden/ir" / GetParam() / "tt" /
                                ("after-" + stage + ".txt"),
                            text);
  }
}

TEST_P(TTGolden, EveryDumpReadsBackToTheSameText) {
  for (const auto& [stage, text] : split_dumps(all_dumps(GetParam()))) {
    if (text.find("(unchanged)") != std::string::npos)
      continue;
    SourceFile f(stage, text);
    Diagnostics d;
    std::optional<ir::Module> back = ir::read_module(f, d);
    ASSERT_TRUE(back) << stage << ": " << d.str();
    EXPECT_EQ("// after " + stage + "\n" + ir::print(*back), text) << "after " << stage;
    EXPECT_EQ(ir::find_ir_error(*back), std::nullopt) << "after " << stage;
  }
}

TEST_P(TTGolden, ResumingFromAnyDumpGivesTheSameLaterDumps) {
  auto dumps = split_dumps(all_dumps(GetParam()));
  for (std::size_t k = 2; k + 1 < dumps.size(); ++k) {
    if (dumps[k].second.find("(unchanged)") != std::string::npos)
      continue;
    SourceFile first("after-" + dumps[k].first + ".txt", dumps[k].second);
    std::ostringstream resumed;
    PipelineOptions o;
    o.print_after_all = true;
    o.verify_each = true;
    o.dump = &resumed;
    Diagnostics diags;
    ASSERT_TRUE(run_pipeline_from_dump(first, Target::tt, o, diags)) << diags.str();
    std::string expected;
    for (std::size_t j = k + 1; j < dumps.size(); ++j)
      expected += dumps[j].second;
    EXPECT_EQ(resumed.str(), expected) << "resumed after " << dumps[k].first;
  }
}

INSTANTIATE_TEST_SUITE_P(Examples, TTGolden, ::testing::ValuesIn(examples()),
                         [](const auto& p) { return p.param; });

} // namespace
} // namespace tk::lower
