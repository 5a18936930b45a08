// Golden stage dumps of every examples/*.tk: tests/golden/ir/<example>/after-<stage>.txt
// (UPDATE_GOLDEN=1 rewrites them). Each dump also reads back to the same text, and resuming
// the pipeline from the to-tile-ir dump reproduces the later dumps.
#include "dsl/check.hpp"
#include "lowering/ir/printer.hpp"
#include "lowering/ir/reader.hpp"
#include "lowering/pipeline.hpp"
#include "parser/parse.hpp"
#include "tests/support/golden.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>

namespace tk::lower {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> examples() {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(test::source_dir() / "examples"))
    if (e.path().extension() == ".tk")
      out.push_back(e.path().stem().string());
  std::sort(out.begin(), out.end());
  return out;
}

// Splits a print-after-all stream into (stage, dump) pairs; each dump keeps its header line.
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

class Golden : public ::testing::TestWithParam<std::string> {};

TEST_P(Golden, StageDumps) {
  fs::path tk = test::source_dir() / "examples" / (GetParam() + ".tk");
  SourceFile file(tk.string(), test::read_file(tk));
  Diagnostics diags(&file);
  std::optional<dsl::Module> ast = parser::parse(file, diags);
  ASSERT_TRUE(ast) << diags.str();
  ASSERT_TRUE(dsl::check(*ast, diags)) << diags.str();
  std::ostringstream os;
  PipelineOptions o;
  o.print_after_all = true;
  o.verify_each = true;
  o.stop_after = "infer-layout"; // the shared front; each chain has its own goldens after it
  o.dump = &os;
  ASSERT_TRUE(run_pipeline(*ast, Target::tt, o, diags)) << diags.str();
  auto dumps = split_dumps(os.str());
  ASSERT_EQ(dumps.size(), 3u);
  for (const auto& [stage, text] : dumps) {
    test::expect_golden(
        test::source_dir() / "tests/golden/ir" / GetParam() / ("after-" + stage + ".txt"), text);
    if (text == "// after " + stage + "\n(unchanged)\n")
      continue; // lower-reductions leaves a kernel without reduction variables as it is
    SourceFile f(stage, text);
    Diagnostics d;
    std::optional<ir::Module> back = ir::read_module(f, d);
    ASSERT_TRUE(back) << d.str();
    EXPECT_EQ("// after " + stage + "\n" + ir::print(*back), text);
  }
  // Resume after to-tile-ir from its dump: the rest of the chain gives the same dumps.
  SourceFile first("after-to-tile-ir.txt", dumps[0].second);
  std::ostringstream resumed;
  o.dump = &resumed;
  ASSERT_TRUE(run_pipeline_from_dump(first, Target::tt, o, diags)) << diags.str();
  EXPECT_EQ(resumed.str(), dumps[1].second + dumps[2].second);
}

INSTANTIATE_TEST_SUITE_P(Examples, Golden, ::testing::ValuesIn(examples()),
                         [](const auto& p) { return p.param; });

} // namespace
} // namespace tk::lower
