// Golden dumps of the CPU chain for every examples/*.tk:
// tests/golden/ir/<example>/cpu/after-<stage>.txt for partition-threads, lower-gemm and
// lower-elementwise (UPDATE_GOLDEN=1 rewrites them). Each dump reads back to the same text, and
// resuming from the partition-threads dump reproduces the lower-elementwise dump.
#include "lowering/ir/reader.hpp"
#include "tests/support/golden.hpp"
#include "tests/unit/cpu_lowering/support.hpp"

#include <algorithm>
#include <filesystem>

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

class CpuGolden : public ::testing::TestWithParam<std::string> {};

TEST_P(CpuGolden, StageDumpsReadBackAndResume) {
  std::string errors;
  std::string all = test_cpu::cpu_dumps(
      test::read_file(test::source_dir() / "examples" / (GetParam() + ".tk")), &errors);
  ASSERT_FALSE(all.empty()) << errors;
  for (const char* stage : {"partition-threads", "lower-gemm", "lower-elementwise"}) {
    std::string text = test_cpu::dump_of(all, stage);
    ASSERT_FALSE(text.empty()) << "no dump after " << stage;
    test::expect_golden(test::source_dir() / "tests/golden/ir" / GetParam() / "cpu" /
                            ("after-" + std::string(stage) + ".txt"),
                        text);
    if (text.find("(unchanged)") != std::string::npos) {
      // Only lower-gemm may leave a kernel as it is: one without the matmul pattern.
      EXPECT_EQ(std::string(stage), "lower-gemm") << stage << " changed nothing";
      continue;
    }
    SourceFile f(stage, text);
    Diagnostics d;
    std::optional<ir::Module> back = ir::read_module(f, d);
    ASSERT_TRUE(back) << d.str();
    EXPECT_EQ("// after " + std::string(stage) + "\n" + ir::print(*back), text);
  }
  SourceFile first("after-partition-threads.txt", test_cpu::dump_of(all, "partition-threads"));
  Diagnostics diags(&first);
  std::ostringstream resumed;
  PipelineOptions o;
  o.print_after_all = true;
  o.verify_each = true;
  o.dump = &resumed;
  ASSERT_TRUE(run_pipeline_from_dump(first, Target::cpu, o, diags)) << diags.str();
  EXPECT_EQ(resumed.str(),
            test_cpu::dump_of(all, "lower-gemm") + test_cpu::dump_of(all, "lower-elementwise"));
}

INSTANTIATE_TEST_SUITE_P(Examples, CpuGolden, ::testing::ValuesIn(examples()),
                         [](const auto& p) { return p.param; });

} // namespace
} // namespace tk::lower
