// The flags issue 13 part 4 added, run on the built ttgen: --kernel, --print-before,
// --print-changed, --time-stages, -W..., --diagnostics-format=json and --emit=dot; and --arch.
#include "tests/support/golden.hpp"
#include "tests/unit/ttgen/run_ttgen.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <regex>
#include <string>
#include <vector>

namespace tk::test {
namespace {

// Two kernels in one file, for --kernel.
const char* kTwo = "kernel scale(x: bf16[M, N], a: f32) -> (y: bf16[M, N]) {\n"
                   "    parallel i in tiles(M), j in tiles(N) {\n"
                   "        y[i, j] = x[i, j] * a\n"
                   "    }\n"
                   "}\n"
                   "kernel shift(x: bf16[M, N], b: f32) -> (y: bf16[M, N]) {\n"
                   "    parallel i in tiles(M), j in tiles(N) {\n"
                   "        y[i, j] = x[i, j] + b\n"
                   "    }\n"
                   "}\n";
const char* kShift = "kernel shift(x: bf16[M, N], b: f32) -> (y: bf16[M, N]) {\n"
                     "    parallel i in tiles(M), j in tiles(N) {\n"
                     "        y[i, j] = x[i, j] + b\n"
                     "    }\n"
                     "}\n";

// One unused input (b) and one unused value (t).
const char* kWarn = "kernel f(x: bf16[M, N], b: f32) -> (y: bf16[M, N]) {\n"
                    "    parallel i in tiles(M), j in tiles(N) {\n"
                    "        t = exp(x[i, j])\n"
                    "        y[i, j] = relu(x[i, j])\n"
                    "    }\n"
                    "}\n";
const char* kWarnInput = "<stdin>:1:25: warning: scalar input 'b' is never read [-Wunused-input]\n"
                         "   1 | kernel f(x: bf16[M, N], b: f32) -> (y: bf16[M, N]) {\n"
                         "     |                         ^\n";
const char* kWarnValue =
    "<stdin>:3:9: warning: 't' is assigned but never used; store it to an output or remove it "
    "[-Wunused-value]\n"
    "   3 |         t = exp(x[i, j])\n"
    "     |         ^\n";

std::string example(const std::string& name) {
  return quote((source_dir() / "examples" / (name + ".tk")).string());
}

/// The dumps of a --print-* run, split at their `// after` / `// before` header lines.
std::vector<std::string> dumps(const std::string& text) {
  std::vector<std::string> out;
  std::size_t at = 0;
  while (at < text.size()) {
    std::size_t next = text.find("\n// ", at);
    while (next != std::string::npos && text.compare(next + 4, 6, "after ") != 0 &&
           text.compare(next + 4, 7, "before ") != 0)
      next = text.find("\n// ", next + 1);
    std::size_t end = next == std::string::npos ? text.size() : next + 1;
    out.push_back(text.substr(at, end - at));
    at = end;
  }
  return out;
}

// ---- --kernel -----------------------------------------------------------------------------------

TEST(TtgenKernel, SelectsOneKernelOfTheFile) {
  Result r = ttgen("--kernel=shift -", kTwo);
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(r.out, kShift);
  Result ir = ttgen("--kernel shift --emit=ir --stop-after=to-tile-ir -", kTwo);
  EXPECT_EQ(ir.code, 0) << ir.err;
  EXPECT_EQ(ir.out.find("program scale"), std::string::npos) << ir.out;
  EXPECT_NE(ir.out.find("program shift"), std::string::npos) << ir.out;
}

TEST(TtgenKernel, SelectsOneProgramOfAnIrDump) {
  fs::path dump = scratch_dir() / "two.ir";
  Result d = ttgen("--stop-after=to-tile-ir --emit=ir -o " + quote(dump.string()) + " -", kTwo);
  ASSERT_EQ(d.code, 0) << d.err;
  Result r = ttgen("--kernel=scale --emit=ir " + quote(dump.string()));
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("program scale"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("program shift"), std::string::npos) << r.out;
}

// A whole-tensor reduction is two programs after lower-reductions; selecting the kernel keeps
// its combine program, which its code needs.
TEST(TtgenKernel, AReductionKeepsItsCombineProgram) {
  fs::path dump = scratch_dir() / "reduce.ir";
  const std::string two = std::string(kTwo) + "kernel total(x: bf16[M, N]) -> (y: bf16[1, 32]) {\n"
                                              "    s = zeros()\n"
                                              "    parallel i in tiles(M), j in tiles(N) {\n"
                                              "        s += x[i, j]\n"
                                              "    }\n"
                                              "    y[0, 0] = rowsum(colsum(s))\n"
                                              "}\n";
  Result d = ttgen("--target=cpu --stop-after=lower-reductions --emit=ir -o " +
                       quote(dump.string()) + " -",
                   two);
  ASSERT_EQ(d.code, 0) << d.err;
  Result r = ttgen("--target=cpu --kernel=total --emit=template-data " + quote(dump.string()));
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("\"name\": \"total_combine\""), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("\"name\": \"shift\""), std::string::npos) << r.out;
}

TEST(TtgenKernel, CodeForOneKernel) {
  fs::path in = scratch_dir() / "two.tk";
  std::ofstream(in, std::ios::binary) << kTwo;
  fs::path out = scratch_dir() / "two_out";
  fs::remove_all(out);
  Result r =
      ttgen("--kernel=shift --target=cpu -o " + quote(out.string()) + " " + quote(in.string()));
  EXPECT_EQ(r.code, 0) << r.err;
  std::string header = read_file(out / "two.hpp");
  EXPECT_NE(header.find("namespace tk::gen::shift"), std::string::npos) << header;
  EXPECT_EQ(header.find("namespace tk::gen::scale"), std::string::npos) << header;
}

TEST(TtgenKernel, UnknownNameIsAUsageErrorWithASuggestion) {
  Result near = ttgen("--kernel=shfit -", kTwo);
  EXPECT_EQ(near.code, 2);
  EXPECT_EQ(near.out, "");
  EXPECT_EQ(near.err,
            "ttgen: error: --kernel: no kernel 'shfit' in '<stdin>'; did you mean 'shift'?\n");
  Result far = ttgen("--kernel=matmul -", kTwo);
  EXPECT_EQ(far.code, 2);
  EXPECT_EQ(far.err,
            "ttgen: error: --kernel: no kernel 'matmul' in '<stdin>'; its kernels are scale, "
            "shift\n");
}

// ---- --print-before, --print-changed ------------------------------------------------------------

TEST(TtgenPrintBefore, IsTheDumpAfterThePreviousStage) {
  Result before = ttgen("--print-before=split-kernels " + example("matmul"));
  Result after = ttgen("--stop-after=assign-cbs --emit=ir " + example("matmul"));
  ASSERT_EQ(before.code, 0) << before.err;
  ASSERT_EQ(after.code, 0) << after.err;
  EXPECT_EQ(before.err, "");
  const std::string header = "// after assign-cbs\n";
  ASSERT_EQ(after.out.rfind(header, 0), 0u) << after.out;
  EXPECT_EQ(before.out, "// before split-kernels\n" + after.out.substr(header.size()));
}

TEST(TtgenPrintBefore, ToTileIrShowsTheCheckedKernelAndCombinesWithPrintAfter) {
  Result r = ttgen(
      "--print-before=to-tile-ir --print-before=infer-layout --print-after=to-tile-ir -", kShift);
  ASSERT_EQ(r.code, 0) << r.err;
  std::vector<std::string> d = dumps(r.out);
  ASSERT_EQ(d.size(), 3u) << r.out;
  EXPECT_EQ(d[0], std::string("// before to-tile-ir\n") + kShift);
  EXPECT_EQ(d[1].rfind("// after to-tile-ir\nprogram shift", 0), 0u) << d[1];
  EXPECT_EQ(d[2], "// before infer-layout\n" + d[1].substr(d[1].find('\n') + 1));
}

TEST(TtgenPrintBefore, UnknownStageIsAUsageError) {
  Result r = ttgen("--print-before=split-kernel -", kShift);
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "ttgen: error: unknown stage 'split-kernel' in --print-before for target tt; "
                   "see --list-stages\n");
  Result cpu = ttgen("--target=cpu --print-before=split-kernels -", kShift);
  EXPECT_EQ(cpu.code, 2);
  EXPECT_EQ(cpu.err, "ttgen: error: unknown stage 'split-kernels' in --print-before for target "
                     "cpu; see --list-stages\n");
}

// --print-changed is --print-after-all without the stages that left the module as it was.
TEST(TtgenPrintChanged, OnlyStagesThatChangedSomething) {
  for (const char* target : {"tt", "cpu"}) {
    SCOPED_TRACE(target);
    Result all =
        ttgen(std::string("--target=") + target + " --print-after-all " + example("softmax"));
    Result changed =
        ttgen(std::string("--target=") + target + " --print-changed " + example("softmax"));
    ASSERT_EQ(changed.code, 0) << changed.err;
    EXPECT_EQ(changed.err, "");
    std::string expected;
    int unchanged = 0;
    for (const std::string& d : dumps(all.out)) {
      if (d.find("\n(unchanged)\n") == d.find('\n'))
        ++unchanged;
      else
        expected += d;
    }
    EXPECT_EQ(changed.out, expected);
    EXPECT_EQ(changed.out.find("(unchanged)"), std::string::npos);
    if (std::string(target) == "tt") {
      EXPECT_GT(unchanged, 0) << "softmax should have a stage that changes nothing";
    }
  }
}

TEST(TtgenPrintChanged, ListsTheStagesThatChangedMatmul) {
  Result r = ttgen("--target=cpu --print-changed " + example("matmul"));
  ASSERT_EQ(r.code, 0) << r.err;
  std::string headers;
  for (const std::string& d : dumps(r.out))
    headers += d.substr(0, d.find('\n') + 1);
  EXPECT_EQ(headers, "// after to-tile-ir\n// after infer-layout\n// after partition-threads\n"
                     "// after lower-gemm\n// after lower-elementwise\n"); // lower-reductions: none
}

TEST(TtgenPrintChanged, AllTargetsIsAUsageError) {
  Result r = ttgen("--target=all --print-changed --emit=code -o x " + example("matmul"));
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(
      r.err,
      "ttgen: error: stage dumps follow one chain; name one target instead of --target=all\n");
}

// ---- --time-stages ------------------------------------------------------------------------------

TEST(TtgenTimeStages, ATableOfEveryPhaseOnStderr) {
  Result r = ttgen("--time-stages --target=cpu --emit=ir " + example("matmul"));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("// after lower-elementwise\n", 0), 0u); // stdout is untouched
  const std::vector<std::string> rows = {"read",
                                         "parse",
                                         "check",
                                         "to-tile-ir",
                                         "lower-reductions",
                                         "infer-layout",
                                         "materialise",
                                         "partition-threads",
                                         "lower-gemm",
                                         "lower-elementwise",
                                         "write",
                                         "total"};
  std::string pattern = "stage {12}     wall ms        %\n";
  for (const std::string& row : rows)
    pattern +=
        row + " {" + std::to_string(17 - row.size()) + "} *[0-9]+\\.[0-9]{3} +[0-9]+\\.[0-9]%\n";
  EXPECT_TRUE(std::regex_match(r.err, std::regex(pattern))) << r.err;
  EXPECT_NE(r.err.find("\ntotal"), std::string::npos);
  EXPECT_NE(r.err.find("100.0%\n"), std::string::npos) << r.err;
}

TEST(TtgenTimeStages, BothChainsOfTargetAllAndCodeGeneration) {
  fs::path out = scratch_dir() / "timed";
  fs::remove_all(out);
  Result r = ttgen("--time-stages --target=all -o " + quote(out.string()) + " " + example("axpby"));
  ASSERT_EQ(r.code, 0) << r.err;
  for (const char* row : {"\nplan-buffers (tt) ", "\nverify-kernels (tt) ",
                          "\nlower-elementwise (cpu) ", "\ngenerate ", "\nwrite ", "\ntotal "})
    EXPECT_NE(r.err.find(row), std::string::npos) << row << "\n" << r.err;
}

// ---- warnings -----------------------------------------------------------------------------------

TEST(TtgenWarnings, OnByDefaultAndNamedLikeClangs) {
  Result r = ttgen("-", kWarn);
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.err, std::string(kWarnInput) + kWarnValue);
}

TEST(TtgenWarnings, EachSwitchedOffByItsName) {
  Result no_input = ttgen("-Wno-unused-input -", kWarn);
  EXPECT_EQ(no_input.code, 0);
  EXPECT_EQ(no_input.err, kWarnValue);
  Result none = ttgen("-Wno-unused-input -Wno-unused-value -", kWarn);
  EXPECT_EQ(none.err, "");
  Result back = ttgen("-Wno-unused-input -Wunused-input -Wno-unused-value -", kWarn);
  EXPECT_EQ(back.err, kWarnInput); // the last flag wins, as in clang
}

TEST(TtgenWarnings, WerrorMakesThemErrors) {
  Result r = ttgen("-Werror -", kWarn);
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err,
            "<stdin>:1:25: error: scalar input 'b' is never read [-Werror,-Wunused-input]\n"
            "   1 | kernel f(x: bf16[M, N], b: f32) -> (y: bf16[M, N]) {\n"
            "     |                         ^\n"
            "<stdin>:3:9: error: 't' is assigned but never used; store it to an output or remove "
            "it [-Werror,-Wunused-value]\n"
            "   3 |         t = exp(x[i, j])\n"
            "     |         ^\n"
            "2 errors generated.\n");
  Result one = ttgen("-Werror=unused-value -", kWarn);
  EXPECT_EQ(one.code, 1);
  EXPECT_EQ(one.err, std::string(kWarnInput) +
                         "<stdin>:3:9: error: 't' is assigned but never used; store it to an "
                         "output or remove it [-Werror,-Wunused-value]\n"
                         "   3 |         t = exp(x[i, j])\n"
                         "     |         ^\n");
  Result except = ttgen("-Werror -Wno-error=unused-input -Wno-unused-value -", kWarn);
  EXPECT_EQ(except.code, 0);
  EXPECT_EQ(except.err, kWarnInput);
  Result off = ttgen("-Werror -Wno-error -", kWarn);
  EXPECT_EQ(off.code, 0);
  EXPECT_EQ(off.err, std::string(kWarnInput) + kWarnValue);
}

TEST(TtgenWarnings, UnknownWarningIsAUsageError) {
  Result r = ttgen("-Wunused-inptu -", kWarn);
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err, "ttgen: error: unknown warning option '-Wunused-inptu'; did you mean "
                   "'-Wunused-input'?\nrun 'ttgen --help' for usage\n");
  Result no = ttgen("-Wno-error=bogus -", kWarn);
  EXPECT_EQ(no.code, 2);
  EXPECT_EQ(no.err, "ttgen: error: unknown warning option '-Wno-error=bogus'; the warnings are "
                    "listed by ttgen --help\nrun 'ttgen --help' for usage\n");
}

TEST(TtgenWarnings, NoExampleWarns) {
  for (const auto& e : fs::directory_iterator(source_dir() / "examples")) {
    if (e.path().extension() != ".tk")
      continue;
    Result r = ttgen("-Werror --emit=none --target=tt --print-after=to-tile-ir " +
                     quote(e.path().string()));
    EXPECT_EQ(r.code, 0) << e.path() << r.err;
    EXPECT_EQ(r.err, "") << e.path();
  }
}

// ---- --diagnostics-format=json ------------------------------------------------------------------

nlohmann::json parse_json(const std::string& s) {
  return nlohmann::json::parse(s, nullptr, /*allow_exceptions=*/false);
}

TEST(TtgenJson, WarningsWithRangesAndOptions) {
  Result r = ttgen("--diagnostics-format=json -", kWarn);
  EXPECT_EQ(r.code, 0);
  nlohmann::json j = parse_json(r.err);
  nlohmann::json expected = nlohmann::json::parse(R"({"diagnostics": [
    {"severity": "warning", "message": "scalar input 'b' is never read",
     "option": "-Wunused-input", "file": "<stdin>", "line": 1, "column": 25,
     "ranges": [{"begin": {"line": 1, "column": 25}, "end": {"line": 1, "column": 26}}],
     "notes": []},
    {"severity": "warning",
     "message": "'t' is assigned but never used; store it to an output or remove it",
     "option": "-Wunused-value", "file": "<stdin>", "line": 3, "column": 9,
     "ranges": [{"begin": {"line": 3, "column": 9}, "end": {"line": 3, "column": 10}}],
     "notes": []}]})");
  EXPECT_EQ(j, expected) << r.err;
  // The keys in the order of the docs, for people reading it too.
  EXPECT_EQ(r.err.rfind("{\n  \"diagnostics\": [\n    {\n      \"severity\": \"warning\",\n"
                        "      \"message\": \"scalar input 'b' is never read\",\n"
                        "      \"option\": \"-Wunused-input\",\n      \"file\": \"<stdin>\",\n"
                        "      \"line\": 1,\n      \"column\": 25,\n      \"ranges\": [\n",
                        0),
            0u)
      << r.err;
}

TEST(TtgenJson, ParseErrorWithANote) {
  Result r = ttgen("--diagnostics-format json -", "kernel f(A: bf16[M, K]) -> (C: bf16[M, N]) {\n"
                                                  "    parallel i in tiles(M) {\n"
                                                  "        C[i, 0] = exp(A[i, 0]\n"
                                                  "    }\n"
                                                  "}\n");
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.out, "");
  nlohmann::json expected = nlohmann::json::parse(R"({"diagnostics": [
    {"severity": "error", "message": "expected ')'", "file": "<stdin>", "line": 4, "column": 5,
     "ranges": [{"begin": {"line": 4, "column": 5}, "end": {"line": 4, "column": 5}}],
     "notes": [{"severity": "note", "message": "to match this '('", "file": "<stdin>", "line": 3,
                "column": 22,
                "ranges": [{"begin": {"line": 3, "column": 22}, "end": {"line": 3, "column": 23}}],
                "notes": []}]}]})");
  EXPECT_EQ(parse_json(r.err), expected) << r.err;
}

TEST(TtgenJson, CheckErrorsAndWerror) {
  Result r = ttgen("--diagnostics-format=json -Werror=unused-input -", kWarn);
  EXPECT_EQ(r.code, 1);
  nlohmann::json j = parse_json(r.err);
  ASSERT_EQ(j["diagnostics"].size(), 2u) << r.err;
  EXPECT_EQ(j["diagnostics"][0]["severity"], "error");
  EXPECT_EQ(j["diagnostics"][0]["option"], "-Werror,-Wunused-input");
  EXPECT_EQ(j["diagnostics"][1]["severity"], "warning");
}

TEST(TtgenJson, CleanRunPrintsAnEmptyList) {
  Result r = ttgen("--diagnostics-format=json -", kShift);
  EXPECT_EQ(r.code, 0);
  EXPECT_EQ(r.out, kShift);
  EXPECT_EQ(r.err, "{\n  \"diagnostics\": []\n}\n");
}

TEST(TtgenJson, UsageErrors) {
  const nlohmann::json no_location = {{"file", nullptr},
                                      {"line", nullptr},
                                      {"column", nullptr},
                                      {"ranges", nlohmann::json::array()}};
  auto error = [&](const std::string& message, nlohmann::json notes) {
    nlohmann::json d = no_location;
    d["severity"] = "error";
    d["message"] = message;
    d["notes"] = std::move(notes);
    return nlohmann::json{{"diagnostics", {d}}};
  };
  nlohmann::json usage_note = nlohmann::json::array({no_location});
  usage_note[0]["severity"] = "note";
  usage_note[0]["message"] = "run 'ttgen --help' for usage";
  usage_note[0]["notes"] = nlohmann::json::array();

  Result flag = ttgen("--diagnostics-format=json --bogus x.tk");
  EXPECT_EQ(flag.code, 2);
  EXPECT_EQ(parse_json(flag.err),
            error("The following argument was not expected: --bogus", usage_note))
      << flag.err;
  Result warning = ttgen("-Wbogus --diagnostics-format=json -", kShift);
  EXPECT_EQ(warning.code, 2);
  EXPECT_EQ(parse_json(warning.err),
            error("unknown warning option '-Wbogus'; the warnings are listed by ttgen --help",
                  usage_note))
      << warning.err;
  Result missing = ttgen("--diagnostics-format=json does_not_exist.tk");
  EXPECT_EQ(missing.code, 2);
  EXPECT_EQ(
      parse_json(missing.err),
      error("cannot open 'does_not_exist.tk': No such file or directory", nlohmann::json::array()))
      << missing.err;
  Result stage = ttgen("--diagnostics-format=json --print-after=nope -", kShift);
  EXPECT_EQ(stage.code, 2);
  EXPECT_EQ(parse_json(stage.err),
            error("unknown stage 'nope' in --print-after for target tt; see --list-stages",
                  nlohmann::json::array()))
      << stage.err;
  Result grid = ttgen("--diagnostics-format=json --grid=9x9 -", kShift);
  EXPECT_EQ(grid.code, 2);
  EXPECT_EQ(parse_json(grid.err),
            error("--grid: '9x9' is not a core grid; write XxY with each side 1 to 8, e.g. 8x8",
                  nlohmann::json::array()))
      << grid.err;
  Result kernel = ttgen("--diagnostics-format=json --kernel=shfit -", kTwo);
  EXPECT_EQ(kernel.code, 2);
  EXPECT_EQ(parse_json(kernel.err),
            error("--kernel: no kernel 'shfit' in '<stdin>'; did you mean 'shift'?",
                  nlohmann::json::array()))
      << kernel.err;
}

// ---- --emit=dot ---------------------------------------------------------------------------------

// --arch (issue 28) is recorded as every program's `options arch`, which the TT stages read the
// chip's facts from (lower::tt::arch_of); naming the default changes nothing else. An unknown name
// is a usage error listing the known ones, in a dump a user error.
TEST(TtgenArch, RecordedOnTheProgramAndNamingTheDefaultChangesNothingElse) {
  Result named = ttgen("--arch=wormhole_b0 --emit=ir " + example("matmul"));
  Result plain = ttgen("--emit=ir " + example("matmul"));
  ASSERT_EQ(named.code, 0) << named.err;
  ASSERT_EQ(plain.code, 0) << plain.err;
  const std::string opts = "  options arch \"wormhole_b0\" grid 8x8 ";
  ASSERT_NE(named.out.find(opts), std::string::npos) << named.out;
  EXPECT_EQ(std::regex_replace(named.out, std::regex(" arch \"wormhole_b0\""), ""), plain.out);
  Result bad = ttgen("--arch=grayskull -", kShift);
  EXPECT_EQ(bad.code, 2);
  EXPECT_EQ(bad.err, "ttgen: error: --arch: grayskull not in {wormhole_b0,blackhole}\nrun "
                     "'ttgen --help' for usage\n");
  // An IR dump naming an architecture arch/ does not know is a user error, not an internal one.
  Result dump = ttgen("--arch=wormhole_b0 --stop-after=to-tile-ir --emit=ir -", kShift);
  ASSERT_EQ(dump.code, 0) << dump.err;
  Result unknown =
      ttgen("--emit=ir -", std::regex_replace(dump.out, std::regex("wormhole_b0"), "grayskull"));
  EXPECT_EQ(unknown.code, 1);
  EXPECT_EQ(unknown.err, "ttgen: error: program 'shift' targets an unknown architecture "
                         "'grayskull'; the known ones are wormhole_b0, blackhole\n");
}

// --exp-approx-mode true|false overrides @options(exp_approx_mode): the options line ends in
// `exp_approx_mode` only when it is on, and the compute kernel calls exp_tile<true> (the softmax
// example's exps scale no carried value); anything but a boolean is a usage error.
TEST(TtgenFlags, ExpApproxModeOverridesTheOption) {
  Result on =
      ttgen("--exp-approx-mode=true --stop-after=to-tile-ir --emit=ir " + example("softmax"));
  ASSERT_EQ(on.code, 0) << on.err;
  EXPECT_NE(on.out.find("math_fidelity \"HiFi4\" exp_approx_mode\n"), std::string::npos) << on.out;
  Result off = ttgen("--exp-approx-mode=false --stop-after=to-tile-ir --emit=ir -",
                     "@options(exp_approx_mode = true)\n" + std::string(kShift));
  ASSERT_EQ(off.code, 0) << off.err;
  EXPECT_EQ(off.out.find("exp_approx_mode"), std::string::npos) << off.out;
  Result selected =
      ttgen("--exp-approx-mode=true --stop-after=select-tile-ops --emit=ir " + example("softmax"));
  ASSERT_EQ(selected.code, 0) << selected.err;
  EXPECT_NE(selected.out.find("exp_tile.approx("), std::string::npos) << selected.out;
  EXPECT_EQ(selected.out.find(" exp_tile("), std::string::npos) << selected.out;
  Result bad = ttgen("--exp-approx-mode=maybe -", kShift);
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find("--exp-approx-mode"), std::string::npos) << bad.err;
}

// --arch=blackhole and @options(arch = blackhole) target the P150: a kernel without a grid gets
// its whole 13x10 grid (the host caps the device's grid at it), and --grid is bounded by it. A
// grid given for another chip that does not fit is an error, not a silent clamp.
TEST(TtgenArch, BlackholeTakesTheP150Grid) {
  Result flag = ttgen("--arch=blackhole --stop-after=to-tile-ir --emit=ir " + example("matmul"));
  ASSERT_EQ(flag.code, 0) << flag.err;
  EXPECT_NE(flag.out.find("  options arch \"blackhole\" grid 13x10 cb_depth 2 fp32_acc false "
                          "math_fidelity \"HiFi4\"\n"),
            std::string::npos)
      << flag.out;
  const std::string in_source = "@options(arch = blackhole)\n" + std::string(kShift);
  Result option = ttgen("--stop-after=to-tile-ir --emit=ir -", in_source);
  ASSERT_EQ(option.code, 0) << option.err;
  EXPECT_NE(option.out.find("options arch \"blackhole\" grid 13x10 "), std::string::npos)
      << option.out;
  // --arch wins over the kernel's option, and brings its own grid.
  Result back = ttgen("--arch=wormhole_b0 --stop-after=to-tile-ir --emit=ir -", in_source);
  ASSERT_EQ(back.code, 0) << back.err;
  EXPECT_NE(back.out.find("options arch \"wormhole_b0\" grid 8x8 "), std::string::npos) << back.out;
  Result grid = ttgen("--arch=blackhole --grid=13x10 --emit=ir " + example("eltwise_add"));
  EXPECT_EQ(grid.code, 0) << grid.err;
  Result too_wide = ttgen("--grid=13x10 -", kShift);
  EXPECT_EQ(too_wide.code, 2);
  EXPECT_EQ(too_wide.err, "ttgen: error: --grid: '13x10' is not a core grid; write XxY with each "
                          "side 1 to 8, e.g. 8x8\n");
  Result bh_wide = ttgen("--arch=blackhole --grid=14x10 -", kShift);
  EXPECT_EQ(bh_wide.code, 2);
  EXPECT_EQ(bh_wide.err, "ttgen: error: --grid: '14x10' is not a core grid; write XxY with x 1 "
                         "to 13 and y 1 to 10, e.g. 13x10\n");
  Result misfit = ttgen("--arch=wormhole_b0 --emit=ir -",
                        "@options(arch = blackhole, grid = 13x10)\n" + std::string(kShift));
  EXPECT_EQ(misfit.code, 1);
  EXPECT_EQ(misfit.err, "ttgen: error: program 'shift': grid 13x10 does not fit wormhole_b0 "
                        "(n150, 8x8); each side must be 1 to 8\n");
  Result unknown = ttgen("--emit=ir -", "@options(arch = grayskull)\n" + std::string(kShift));
  EXPECT_EQ(unknown.code, 1);
  EXPECT_NE(unknown.err.find("error: unknown architecture 'grayskull'; the known ones are "
                             "wormhole_b0, blackhole"),
            std::string::npos)
      << unknown.err;
}

// tests/golden/dot/<example>.dot is `ttgen <example>.tk --emit=dot` (UPDATE_GOLDEN=1 rewrites it).
TEST(TtgenDot, EveryExampleMatchesItsGolden) {
  for (const auto& e : fs::directory_iterator(source_dir() / "examples")) {
    if (e.path().extension() != ".tk")
      continue;
    SCOPED_TRACE(e.path().string());
    Result r = ttgen("--emit=dot " + quote(e.path().string()));
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.err, "");
    expect_golden(source_dir() / "tests/golden/dot" / (e.path().stem().string() + ".dot"), r.out);
  }
}

TEST(TtgenDot, OneClusterPerKernelAndFromADump) {
  Result r = ttgen("--emit=dot -", kTwo);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("subgraph \"cluster_scale\""), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("subgraph \"cluster_shift\""), std::string::npos) << r.out;
  Result one = ttgen("--emit=dot --kernel=shift -", kTwo);
  EXPECT_EQ(one.out.find("cluster_scale"), std::string::npos) << one.out;
  fs::path dump = scratch_dir() / "dot.ir";
  ASSERT_EQ(ttgen("--stop-after=assign-cbs --emit=ir -o " + quote(dump.string()) + " -", kTwo).code,
            0);
  EXPECT_EQ(ttgen("--emit=dot " + quote(dump.string())).out, r.out);
}

TEST(TtgenDot, UsageErrors) {
  Result cpu = ttgen("--target=cpu --emit=dot -", kShift);
  EXPECT_EQ(cpu.code, 2);
  EXPECT_EQ(cpu.err, "ttgen: error: --emit=dot draws the TT dataflow (reader, compute, writer and "
                     "their circular buffers); use --target=tt\n");
  Result stop = ttgen("--emit=dot --stop-after=assign-cbs -", kShift);
  EXPECT_EQ(stop.code, 2);
  EXPECT_EQ(stop.err, "ttgen: error: --emit=dot needs the whole TT chain; drop --stop-after\n");
}

} // namespace
} // namespace tk::test
