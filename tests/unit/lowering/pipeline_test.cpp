// The driver: stage lists, dumps (`// after <stage>`, `(unchanged)`), stop-after, unknown stage
// names as user errors, option overrides, resuming from a printed dump, verification.
#include "ast_builder.hpp"

#include "lowering/front/infer_layout.hpp"
#include "lowering/front/to_tile_ir.hpp"
#include "lowering/ir/printer.hpp"
#include "lowering/ir/reader.hpp"
#include "lowering/pipeline.hpp"
#include "lowering/verify_behind.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <sstream>

namespace tk::lower {
namespace {

std::vector<std::string> names(Target t) {
  std::vector<std::string> out;
  for (const Stage& s : stages(t))
    out.emplace_back(s.name);
  return out;
}

TEST(Pipeline, StageTables) {
  // The front stages, then the TT chain's own.
  std::vector<std::string> tt = {"to-tile-ir", "lower-reductions", "infer-layout"};
  for (const char* s : {"materialise",         "plan-buffers",
                        "attach-accessors",    "choose-blocks",
                        "block-matmul",        "partition-work",
                        "to-core-loop",        "keep-rows",
                        "stream-rows",         "fold-scale",
                        "select-tile-ops",     "chunk-rows",
                        "peel-mask",           "fission-rows",
                        "batch-rows",          "chunk-keys",
                        "batch-sections",      "assign-cbs",
                        "split-kernels",       "multicast-reads",
                        "bind-runtime-args",   "fold-scale-args",
                        "insert-cb-protocol",  "block-products",
                        "insert-compute-init", "insert-dst-management",
                        "guard-fast-exp",      "elide-configs",
                        "price-q-chunk",       "finalize-signature",
                        "verify-kernels"})
    tt.emplace_back(s);
  EXPECT_EQ(names(Target::tt), tt);
  EXPECT_EQ(names(Target::cpu), (std::vector<std::string>{
                                    "to-tile-ir", "lower-reductions", "infer-layout", "materialise",
                                    "partition-threads", "lower-gemm", "lower-elementwise"}));
  for (Target t : {Target::tt, Target::cpu})
    for (const Stage& s : stages(t)) {
      EXPECT_FALSE(s.summary.empty()) << s.name;
      EXPECT_EQ(s.run == nullptr, s.name == "to-tile-ir") << s.name;
    }
}

TEST(Pipeline, PrintAfterAllDumpsEveryStage) {
  Diagnostics d;
  std::ostringstream os;
  PipelineOptions o;
  o.print_after_all = true;
  o.verify_each = true;
  o.stop_after = "infer-layout"; // the stages both chains share
  o.dump = &os;
  auto m = run_pipeline(test::matmul_ast(), Target::tt, o, d);
  ASSERT_TRUE(m) << d.str();
  Diagnostics d2;
  ir::Module tile = to_tile_ir(test::matmul_ast(), d2);
  ir::Module laid = infer_layout(tile, d2);
  EXPECT_EQ(os.str(), "// after to-tile-ir\n" + ir::print(tile) +
                          "// after lower-reductions\n(unchanged)\n// after infer-layout\n" +
                          ir::print(laid));
  EXPECT_EQ(ir::print(*m), ir::print(laid));
}

TEST(Pipeline, StopAfterAndPrintAfterOne) {
  Diagnostics d;
  std::ostringstream os;
  PipelineOptions o;
  o.stop_after = "to-tile-ir";
  o.print_after = {"infer-layout"};
  o.dump = &os;
  auto m = run_pipeline(test::matmul_ast(), Target::cpu, o, d);
  ASSERT_TRUE(m);
  EXPECT_FALSE(m->programs[0].tensors[0].layout.has_value());
  EXPECT_EQ(os.str(), "");
}

TEST(Pipeline, UnchangedStagePrintsUnchanged) {
  Diagnostics d;
  ir::Module laid = infer_layout(to_tile_ir(test::matmul_ast(), d), d);
  std::ostringstream os;
  PipelineOptions o;
  o.print_after = {"infer-layout"};
  o.dump = &os;
  auto m = resume_pipeline(laid, "to-tile-ir", Target::tt, o, d);
  ASSERT_TRUE(m);
  EXPECT_EQ(os.str(), "// after infer-layout\n(unchanged)\n");
}

TEST(Pipeline, UnknownStageNamesAreUserErrors) {
  Diagnostics d;
  PipelineOptions o;
  o.stop_after = "split-kernel";
  o.print_after = {"infer-layouts"};
  EXPECT_FALSE(run_pipeline(test::matmul_ast(), Target::tt, o, d));
  EXPECT_EQ(d.str(),
            "ttgen: error: unknown stage 'split-kernel' in --stop-after for target tt; see "
            "--list-stages\n"
            "ttgen: error: unknown stage 'infer-layouts' in --print-after for target tt; see "
            "--list-stages\n"
            "2 errors generated.\n");
}

TEST(Pipeline, OverridesBecomeProgramAttributes) {
  Diagnostics d;
  PipelineOptions o;
  o.overrides.grid = ir::Grid{2, 4};
  o.overrides.cb_depth = 3;
  o.overrides.fp32_acc = true;
  o.overrides.math_fidelity = "LoFi";
  o.stop_after = "infer-layout";
  auto m = run_pipeline(test::matmul_ast(), Target::tt, o, d);
  ASSERT_TRUE(m);
  // The overrides are options, not attributes; the only other header field is the signature.
  EXPECT_EQ(ir::print(m->programs[0].attrs), "{}");
  EXPECT_EQ(m->programs[0].signature, (std::vector<std::string>{"A", "B", "C"}));
  ASSERT_TRUE(m->programs[0].options);
  EXPECT_EQ(*m->programs[0].options,
            (ir::Options{
                .grid = ir::Grid{2, 4}, .cb_depth = 3, .fp32_acc = true, .math_fidelity = "LoFi"}));
}

TEST(Pipeline, ResumesFromADump) {
  Diagnostics d;
  ir::Module tile = to_tile_ir(test::matmul_ast(), d);
  SourceFile dump("matmul.ir", "// after to-tile-ir\n" + ir::print(tile));
  std::ostringstream os;
  PipelineOptions o;
  o.print_after_all = true;
  o.stop_after = "infer-layout";
  o.dump = &os;
  o.overrides.cb_depth = 4;
  auto m = run_pipeline_from_dump(dump, Target::tt, o, d);
  ASSERT_TRUE(m) << d.str();
  ir::Module expected = infer_layout(tile, d);
  apply_overrides(expected, o.overrides);
  EXPECT_EQ(os.str(), "// after lower-reductions\n(unchanged)\n// after infer-layout\n" +
                          ir::print(expected));
}

TEST(Pipeline, StopAfterAStageThatAlreadyRanIsAUserError) {
  Diagnostics d;
  ir::Module tile = to_tile_ir(test::matmul_ast(), d);
  PipelineOptions o;
  o.stop_after = "to-tile-ir";
  EXPECT_FALSE(resume_pipeline(tile, "to-tile-ir", Target::tt, o, d));
  EXPECT_EQ(d.str(), "ttgen: error: --stop-after=to-tile-ir names a stage that already ran: the "
                     "input is the IR after 'to-tile-ir'\n");
}

TEST(Pipeline, Targets) {
  EXPECT_EQ(target_from_string("tt"), Target::tt);
  EXPECT_EQ(target_from_string("cpu"), Target::cpu);
  EXPECT_EQ(target_from_string("gpu"), std::nullopt);
  EXPECT_EQ(to_string(Target::cpu), "cpu");
}

TEST(Pipeline, DumpHeaderErrorsAreLocated) {
  Diagnostics d;
  PipelineOptions o;
  SourceFile no_header("x.ir", "program p {\n}\n");
  EXPECT_FALSE(run_pipeline_from_dump(no_header, Target::tt, o, d));
  SourceFile bad_stage("y.ir", "// after lower-everything\nprogram p {\n}\n");
  EXPECT_FALSE(run_pipeline_from_dump(bad_stage, Target::cpu, o, d));
  EXPECT_EQ(d.str(), "x.ir:1:1: error: an IR dump must start with '// after <stage>'\n"
                     "   1 | program p {\n"
                     "     | ^~~~~~~~~~~\n"
                     "y.ir:1:1: error: unknown stage 'lower-everything' for target cpu; see "
                     "--list-stages\n"
                     "   1 | // after lower-everything\n"
                     "     | ^~~~~~~~~~~~~~~~~~~~~~~~~\n"
                     "2 errors generated.\n");
}

TEST(Pipeline, VerifierRejectsABrokenDump) {
  Diagnostics d;
  PipelineOptions o;
  o.verify_each = true;
  SourceFile dump("z.ir",
                  "// after to-tile-ir\nprogram p {\n  tensor A: bf16[32, 32] input\n"
                  "  func kernel p(A: tensor) {\n    store A[0, 0] = tile.zeros()\n  }\n}\n");
  try {
    run_pipeline_from_dump(dump, Target::tt, o, d);
    FAIL() << "no internal error";
  } catch (const InternalError& e) {
    EXPECT_STREQ(e.what(), "internal error: IR invalid after to-tile-ir: in function 'p': store "
                           "to input tensor 'A'");
  }
}

std::shared_ptr<const ir::Module> module_of(const std::string& text) {
  SourceFile file("m.ir", text);
  Diagnostics d(&file);
  std::optional<ir::Module> m = ir::read_module(file, d);
  EXPECT_TRUE(m) << d.str();
  return std::make_shared<const ir::Module>(std::move(*m));
}

// Verification one stage behind the chain (verify_behind.hpp) reports what verifying in step
// reports: the first broken module, named after its stage, and nothing about later ones.
TEST(Pipeline, VerificationBehindTheChainReportsTheFirstBrokenStage) {
  auto good = module_of("program p {\n  tensor A: bf16[32, 32] input\n"
                        "  func kernel p(A: tensor) {\n  }\n}\n");
  auto bad = module_of("program p {\n  tensor A: bf16[32, 32] input\n"
                       "  func kernel p(A: tensor) {\n    store A[0, 0] = tile.zeros()\n  }\n}\n");
  const char* expected = "internal error: IR invalid after stage-b: in function 'p': store to "
                         "input tensor 'A'";
  for (bool behind : {true, false}) {
    VerifyBehind v(behind);
    try {
      v.check(good, "stage-a");
      v.check(bad, "stage-b");
      v.check(bad, "stage-c");
      v.finish();
      FAIL() << "no internal error";
    } catch (const InternalError& e) {
      EXPECT_STREQ(e.what(), expected) << behind;
    }
  }
  VerifyBehind v(true);
  v.check(good, "stage-a");
  v.check(good, "stage-b");
  EXPECT_NO_THROW(v.finish());
}

// A stage that leaves its module untouched is not verified again, but only once that module was:
// a broken module given to resume_pipeline is reported after the first stage, which changes
// nothing.
TEST(Pipeline, AnUnverifiedModuleLeftUntouchedIsVerified) {
  auto bad = module_of("program p {\n  tensor A: bf16[32, 32] input\n"
                       "  func kernel p(A: tensor) {\n    store A[0, 0] = tile.zeros()\n  }\n}\n");
  Diagnostics d;
  PipelineOptions o;
  o.verify_each = true;
  o.stop_after = "lower-reductions";
  try {
    resume_pipeline(*bad, "to-tile-ir", Target::tt, o, d);
    FAIL() << "no internal error: " << d.str();
  } catch (const InternalError& e) {
    EXPECT_STREQ(e.what(), "internal error: IR invalid after lower-reductions: in function 'p': "
                           "store to input tensor 'A'");
  }
}

// The whole TT chain verified behind (no dumps) and in step (dumps asked for) gives the same
// module.
TEST(Pipeline, VerificationBehindGivesTheSameModule) {
  Diagnostics d;
  PipelineOptions o;
  o.verify_each = true;
  auto behind = run_pipeline(test::matmul_ast(), Target::tt, o, d);
  ASSERT_TRUE(behind) << d.str();
  std::ostringstream os;
  o.dump = &os;
  o.print_after.insert("verify-kernels");
  auto in_step = run_pipeline(test::matmul_ast(), Target::tt, o, d);
  ASSERT_TRUE(in_step) << d.str();
  EXPECT_EQ(ir::print(*behind), ir::print(*in_step));
  EXPECT_EQ(os.str(), "// after verify-kernels\n(unchanged)\n"); // it only checks
}

} // namespace
} // namespace tk::lower
