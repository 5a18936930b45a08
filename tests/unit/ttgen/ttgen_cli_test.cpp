// The ttgen command line, run as a separate process: what it prints, where, and its exit code.
#include "codegen/format.hpp"
#include "dsl/print.hpp"
#include "parser/parse.hpp"
#include "tests/support/golden.hpp"
#include "tests/unit/ttgen/run_ttgen.hpp"

#include <gtest/gtest.h>

#include <sys/wait.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <vector>

namespace tk::test {
namespace {

const char* kAxpby = "// comment\n"
                     "kernel axpby(x: bf16[M, N], y: bf16[M, N], alpha: f32, beta: f32) -> "
                     "(z: bf16[M, N]) {\n"
                     "  parallel i in tiles(M), j in tiles(N) { z[i, j] = (x[i, j] * alpha) + "
                     "y[i, j] * beta }\n"
                     "}\n";
const char* kAxpbyCanonical =
    "kernel axpby(x: bf16[M, N], y: bf16[M, N], alpha: f32, beta: f32) -> (z: bf16[M, N]) {\n"
    "    parallel i in tiles(M), j in tiles(N) {\n"
    "        z[i, j] = x[i, j] * alpha + y[i, j] * beta\n"
    "    }\n"
    "}\n";

TEST(TtgenCli, Version) {
  Result r = ttgen("--version");
  EXPECT_EQ(r.code, 0);
  EXPECT_EQ(r.out, std::string("ttgen ") + TK_PROJECT_VERSION + "\n");
  EXPECT_EQ(r.err, "");
}

TEST(TtgenCli, HelpNamesOnlyRealOptions) {
  Result r = ttgen("--help");
  EXPECT_EQ(r.code, 0);
  EXPECT_EQ(r.err, "");
  std::set<std::string> flags;
  std::regex flag(R"((^|[\s,])(--?[A-Za-z][A-Za-z0-9-]*))");
  for (std::sregex_iterator it(r.out.begin(), r.out.end(), flag), end; it != end; ++it)
    flags.insert((*it)[2]);
  // Every flag the help names; each one is exercised by a test in this file or the driver's.
  EXPECT_EQ(flags, (std::set<std::string>{
                       "-h", "--help", "--version", "--emit", "-o", "--output", "--target",
                       "--list-stages", "--print-after", "--print-before", "--print-after-all",
                       "--print-changed", "--time-stages", "--kernel", "--diagnostics-format",
                       "--stop-after", "--verify-each", "--grid", "--cb-depth", "--fp32-acc",
                       "--math-fidelity", "--exp-approx-mode", "--arch", "--clang-format",
                       // the footer: -W<name>, -Wno-<name>, -Werror,
                       // -Werror=<name>, -Wno-error=<name>
                       "-W", "-Wno-", "-Werror", "-Wno-error"}))
      << r.out;
  for (const char* w : {"unused-input", "unused-value", "tile-permutation"})
    EXPECT_NE(r.out.find(std::string("\n  ") + w + " "), std::string::npos) << w << r.out;
}

TEST(TtgenCli, EmitAstFromFilePrintsCanonicalText) {
  fs::path in = scratch_dir() / "axpby.tk";
  std::ofstream(in, std::ios::binary) << kAxpby;
  Result r = ttgen("--emit=ast " + quote(in.string()));
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, kAxpbyCanonical);
  EXPECT_EQ(r.err, "");
  Result again = ttgen("--emit ast -", r.out); // the output is a fixed point
  EXPECT_EQ(again.out, kAxpbyCanonical);
}

TEST(TtgenCli, StdinInput) {
  Result r = ttgen("-", kAxpby);
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, kAxpbyCanonical);
}

TEST(TtgenCli, OutputFile) {
  fs::path out = scratch_dir() / "out.tk";
  fs::remove(out);
  Result r = ttgen("--emit=ast -o " + quote(out.string()) + " -", kAxpby);
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(read_file(out), kAxpbyCanonical);
}

TEST(TtgenCli, NoOutputFileOnError) {
  fs::path out = scratch_dir() / "not_written.tk";
  fs::remove(out);
  Result r = ttgen("--emit=ast -o " + quote(out.string()) + " -", "kernel f(\n");
  EXPECT_EQ(r.code, 1);
  EXPECT_FALSE(fs::exists(out));
}

TEST(TtgenCli, SyntaxErrorExitsOneWithExactDiagnostics) {
  Result r = ttgen("-", "kernel f(A: bf16[M, K]) -> (C: bf16[M, N]) {\n"
                        "    parallel i in tiles(M) {\n"
                        "        C[i, 0] = exp(A[i, 0]\n"
                        "    }\n"
                        "}\n");
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "<stdin>:4:5: error: expected ')'\n"
                   "   4 |     }\n"
                   "     |     ^\n"
                   "<stdin>:3:22: note: to match this '('\n"
                   "   3 |         C[i, 0] = exp(A[i, 0]\n"
                   "     |                      ^\n");
}

TEST(TtgenCli, SyntaxErrorNamesTheFileAsGiven) {
  fs::path dir = scratch_dir();
  std::ofstream(dir / "bad.tk", std::ios::binary) << "kernel f() (C: bf16[M, N]) {}\n";
  Result r = ttgen("bad.tk", "", dir);
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err, "bad.tk:1:12: error: expected '->'\n"
                   "   1 | kernel f() (C: bf16[M, N]) {}\n"
                   "     |            ^\n");
}

TEST(TtgenCli, SemanticErrorExitsOne) {
  Result r = ttgen("-", "kernel f(A: bf16[M, K]) -> (C: bf16[M, K]) {\n"
                        "    parallel i in tiles(M), j in tiles(K) {\n"
                        "        C[i, j] = nowhere\n"
                        "    }\n"
                        "}\n");
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err.rfind("<stdin>:3:19: error: ", 0), 0u) << r.err;
  EXPECT_NE(r.err.find("nowhere"), std::string::npos) << r.err;
}

TEST(TtgenCli, UsageErrorsExitTwo) {
  Result missing = ttgen("does_not_exist.tk");
  EXPECT_EQ(missing.code, 2);
  EXPECT_EQ(missing.err,
            "ttgen: error: cannot open 'does_not_exist.tk': No such file or directory\n");
  EXPECT_EQ(missing.out, "");

  Result dir = ttgen(quote(scratch_dir().string()));
  EXPECT_EQ(dir.code, 2);
  EXPECT_EQ(dir.err,
            "ttgen: error: cannot read '" + scratch_dir().string() + "': is a directory\n");

  Result flag = ttgen("--bogus x.tk");
  EXPECT_EQ(flag.code, 2);
  EXPECT_EQ(flag.err, "ttgen: error: The following argument was not expected: --bogus\n"
                      "run 'ttgen --help' for usage\n");

  Result emit = ttgen("--emit=bogus -", kAxpby);
  EXPECT_EQ(emit.code, 2);
  EXPECT_NE(emit.err.find("ttgen: error: --emit: bogus not in {"), std::string::npos) << emit.err;

  Result stage = ttgen("--print-after=no-such-stage -", kAxpby);
  EXPECT_EQ(stage.code, 2);
  EXPECT_EQ(stage.err,
            "ttgen: error: unknown stage 'no-such-stage' in --print-after for target tt; see "
            "--list-stages\n");

  Result grid = ttgen("--grid=9x8 -", kAxpby);
  EXPECT_EQ(grid.code, 2);
  EXPECT_EQ(grid.err, "ttgen: error: --grid: '9x8' is not a core grid; write XxY with each side 1 "
                      "to 8, e.g. 8x8\n");

  Result none = ttgen("");
  EXPECT_EQ(none.code, 2);
  EXPECT_EQ(none.err, "ttgen: error: input is required\nrun 'ttgen --help' for usage\n");

  Result unwritable = ttgen(
      "--emit=ast -o " + quote((scratch_dir() / "no/such/dir/out.tk").string()) + " -", kAxpby);
  EXPECT_EQ(unwritable.code, 2);
  EXPECT_EQ(unwritable.err, "ttgen: error: cannot write '" +
                                (scratch_dir() / "no/such/dir/out.tk").string() +
                                "': No such file or directory\n");
}

TEST(TtgenCli, EveryExampleRoundTrips) {
  fs::path dir = source_dir() / "examples";
  if (!fs::exists(dir))
    GTEST_SKIP() << "no examples/ folder";
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().extension() != ".tk")
      continue;
    SCOPED_TRACE(e.path().string());
    Result r = ttgen(quote(e.path().string()));
    ASSERT_EQ(r.code, 0) << r.err;
    SourceFile original(e.path().string(), read_file(e.path()));
    SourceFile printed("printed.tk", r.out);
    Diagnostics diags;
    auto a = parser::parse(original, diags);
    auto b = parser::parse(printed, diags);
    ASSERT_TRUE(a && b) << diags.str();
    EXPECT_TRUE(*a == *b);
    EXPECT_EQ(dsl::print(*a), r.out);
  }
}

// ---- code generation --------------------------------------------------------------------------

std::vector<std::string> example_names() {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(source_dir() / "examples"))
    if (e.path().extension() == ".tk")
      out.push_back(e.path().stem().string());
  std::sort(out.begin(), out.end());
  return out;
}

std::set<std::string> files_under(const fs::path& dir) {
  std::set<std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file())
      out.insert(fs::relative(e.path(), dir).generic_string());
  return out;
}

// generated/<example>/ is exactly what `ttgen <example>.tk --target=all -o DIR` writes, byte for
// byte (UPDATE_GOLDEN=1 rewrites generated/ from ttgen's output).
TEST(TtgenCodegen, GeneratedFolderIsUpToDate) {
  for (const std::string& name : example_names()) {
    fs::path out = scratch_dir() / "gen" / name;
    fs::remove_all(out);
    Result r = ttgen("--target=all -o " + quote(out.string()) + " " +
                     quote((source_dir() / "examples" / (name + ".tk")).string()));
    ASSERT_EQ(r.code, 0) << name << ": " << r.err;
    EXPECT_EQ(r.out, "");
    // One DSL kernel per example, named as its file; a whole-tensor reduction launches a second
    // program, its combine, with kernels of its own, and so does mlp, its hidden layer h
    // materialised (the second matmul, mlp_after_h).
    std::set<std::string> files = {name + ".hpp", name + "_cpu.cpp", name + "_tt.cpp"};
    for (const std::string& dir : {name, name + "_combine", name + "_after_h"})
      if (dir == name || fs::exists(out / "kernels" / dir))
        for (const char* role : {"reader", "compute", "writer"})
          files.insert("kernels/" + dir + "/" + role + ".cpp");
    EXPECT_EQ(files_under(out), files);
    EXPECT_EQ(fs::exists(out / "kernels" / (name + "_combine")), name == "tensor_max") << name;
    EXPECT_EQ(fs::exists(out / "kernels" / (name + "_after_h")), name == "mlp") << name;
    fs::path checked_in = source_dir() / "generated" / name;
    for (const std::string& f : files_under(out))
      expect_golden(checked_in / f, read_file(out / f));
    if (!updating_golden()) {
      EXPECT_EQ(files_under(checked_in), files_under(out)) << "stale files in " << checked_in;
    }
  }
}

TEST(TtgenCodegen, DashOWithoutEmitWritesCodeIntoANewDirectory) {
  fs::path in = scratch_dir() / "axpby.tk";
  std::ofstream(in, std::ios::binary) << kAxpby;
  fs::path out = scratch_dir() / "new/deeper";
  fs::remove_all(scratch_dir() / "new");
  Result r = ttgen("--target=cpu -o " + quote(out.string()) + " " + quote(in.string()));
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(files_under(out), (std::set<std::string>{"axpby.hpp", "axpby_cpu.cpp"}));
  EXPECT_EQ(read_file(out / "axpby_cpu.cpp"),
            read_file(source_dir() / "generated/axpby/axpby_cpu.cpp"));
}

// --target=tt (the default) writes the header and the TT files only; they are the same bytes as
// the TT files of --target=all except the header, which then declares run_cpu too.
TEST(TtgenCodegen, TtTargetWritesHostAndKernels) {
  fs::path out = scratch_dir() / "tt_out";
  fs::remove_all(out);
  std::string in = quote((source_dir() / "examples/matmul.tk").string());
  for (const char* target : {"--target=tt ", ""}) {
    fs::remove_all(out);
    Result r = ttgen(std::string(target) + "-o " + quote(out.string()) + " " + in);
    ASSERT_EQ(r.code, 0) << target << r.err;
    EXPECT_EQ(r.err, "");
    EXPECT_EQ(files_under(out),
              (std::set<std::string>{"matmul.hpp", "matmul_tt.cpp", "kernels/matmul/reader.cpp",
                                     "kernels/matmul/compute.cpp", "kernels/matmul/writer.cpp"}));
    for (const char* f : {"matmul_tt.cpp", "kernels/matmul/reader.cpp",
                          "kernels/matmul/compute.cpp", "kernels/matmul/writer.cpp"})
      EXPECT_EQ(read_file(out / f), read_file(source_dir() / "generated/matmul" / f)) << f;
    const std::string header = read_file(out / "matmul.hpp");
    EXPECT_NE(header.find("void run_tt(tt::tt_metal::distributed::MeshDevice& device,"),
              std::string::npos);
    EXPECT_EQ(header.find("run_cpu"), std::string::npos);
  }
}

// --clang-format: auto (the default) formats only the files with a line the templates cannot lay
// out, and writes the same bytes as always; never writes the templates' text as rendered. Every
// file of matmul is laid out by its templates (docs/ttgen.md, "Start-up"); softmax's kernels still
// hold statements only clang-format breaks (long lets and loop heads).
TEST(TtgenCodegen, ClangFormatWhenAskedOrNeeded) {
  for (const char* example : {"matmul", "softmax"}) {
    const std::string in =
        quote((source_dir() / "examples" / (std::string(example) + ".tk")).string());
    std::map<std::string, std::map<std::string, std::string>> written;
    for (const char* when : {"auto", "always", "never"}) {
      fs::path out = scratch_dir() / (std::string("clang_format_") + example + "_" + when);
      fs::remove_all(out);
      Result r = ttgen(std::string("--target=all --clang-format=") + when + " -o " +
                       quote(out.string()) + " " + in);
      ASSERT_EQ(r.code, 0) << when << r.err;
      EXPECT_EQ(r.err, "");
      for (const std::string& f : files_under(out))
        written[when][f] = read_file(out / f);
    }
    EXPECT_EQ(written["auto"], written["always"]) << example;
    for (const auto& [f, text] : written["always"])
      EXPECT_EQ(written["never"][f] == text, !codegen::needs_format(written["never"][f])) << f;
    if (example == std::string("matmul")) {
      EXPECT_EQ(written["never"], written["always"]);
      EXPECT_EQ(written["never"].size(), 6u);
    } else {
      EXPECT_NE(written["never"]["kernels/softmax/reader.cpp"],
                written["always"]["kernels/softmax/reader.cpp"]);
    }
  }
  const std::string in = quote((source_dir() / "examples/matmul.tk").string());
  Result bad =
      ttgen("--clang-format=sometimes -o " + quote((scratch_dir() / "x").string()) + " " + in);
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find("--clang-format"), std::string::npos) << bad.err;
}

TEST(TtgenCodegen, NoFilesOnUserError) {
  fs::path in = scratch_dir() / "bad.tk";
  std::ofstream(in, std::ios::binary) << "kernel f(\n";
  fs::path out = scratch_dir() / "bad_out";
  fs::remove_all(out);
  Result r = ttgen("--target=cpu -o " + quote(out.string()) + " " + quote(in.string()));
  EXPECT_EQ(r.code, 1);
  EXPECT_FALSE(fs::exists(out));
}

TEST(TtgenCodegen, UsageErrors) {
  std::string in = quote((source_dir() / "examples/matmul.tk").string());
  Result all_ir = ttgen("--target=all --emit=ir " + in);
  EXPECT_EQ(all_ir.code, 2);
  EXPECT_EQ(all_ir.err, "ttgen: error: --target=all is only for code generation (-o DIR or "
                        "--emit=template-data); name one target for --emit=ir and stage dumps\n");
  Result no_dir = ttgen("--target=cpu --emit=code " + in);
  EXPECT_EQ(no_dir.code, 2);
  EXPECT_EQ(no_dir.err, "ttgen: error: --emit=code needs the output directory: -o DIR\n");
  Result stdin_code = ttgen("--target=cpu --emit=code -o x -", kAxpby);
  EXPECT_EQ(stdin_code.code, 2);
  EXPECT_EQ(stdin_code.err, "ttgen: error: code generation needs a named input file (its stem "
                            "names the generated files), not standard input\n");
  Result stop = ttgen("--target=cpu --stop-after=lower-elementwise -o x " + in);
  EXPECT_EQ(stop.code, 2);
  EXPECT_EQ(stop.err, "ttgen: error: --stop-after cannot be combined with code generation, "
                      "which needs the whole chain\n");
  fs::path file = scratch_dir() / "a_file";
  std::ofstream(file) << "x";
  Result onto_file = ttgen("--target=cpu -o " + quote(file.string()) + " " + in);
  EXPECT_EQ(onto_file.code, 2);
  EXPECT_NE(onto_file.err.find("ttgen: error: cannot create directory"), std::string::npos)
      << onto_file.err;
}

TEST(TtgenCodegen, TemplateDataIsDeterministicJson) {
  std::string in = quote((source_dir() / "examples/matmul.tk").string());
  Result r = ttgen("--target=cpu --emit=template-data " + in);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out.rfind(
                "{\n  \"any_partials\": false,\n  \"file_stem\": \"matmul\",\n  \"kernels\": [", 0),
            0u)
      << r.out;
  EXPECT_NE(r.out.find("\"fn\": \"cpu.gemm_tile\""), std::string::npos);
  EXPECT_EQ(ttgen("--target=cpu --emit=template-data " + in).out, r.out);
  fs::path file = scratch_dir() / "data.json";
  Result to_file = ttgen("--target=cpu --emit=template-data -o " + quote(file.string()) + " " + in);
  EXPECT_EQ(to_file.code, 0);
  EXPECT_EQ(read_file(file), r.out);
}

TEST(TtgenCodegen, ListStagesOfBothChains) {
  Result r = ttgen("--list-stages --target=all");
  EXPECT_EQ(r.code, 0) << r.err;
  Result tt = ttgen("--list-stages --target=tt");
  Result cpu = ttgen("--list-stages --target=cpu");
  EXPECT_EQ(r.out, "# tt\n" + tt.out + "# cpu\n" + cpu.out);
  EXPECT_NE(cpu.out.find("\npartition-threads "), std::string::npos) << cpu.out;
  EXPECT_NE(cpu.out.find("\nlower-elementwise "), std::string::npos) << cpu.out;
}

/// The text of every file under `dir`, by relative path.
std::map<std::string, std::string> file_contents_under(const fs::path& dir) {
  std::map<std::string, std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file())
      out[fs::relative(e.path(), dir).string()] = read_file(e.path());
  return out;
}

// A dump, whatever its name, reads back and generates the same files as the .tk file: the dump
// carries the kernel's signature (program attribute) and the .tk file's name (module attribute
// `source`). The TT chain splits the kernel function, so every TT dump used to fail with an
// internal error ("render: no function with the parameters of kernel ...", prefix printed twice),
// and a CPU dump's files were named after the dump.
TEST(TtgenCodegen, FromAnIrDumpOfEitherChain) {
  std::string in = quote((source_dir() / "examples/softmax.tk").string());
  const std::pair<const char*, const char*> cases[] = {
      {"cpu", "to-tile-ir"},     {"cpu", "partition-threads"}, {"tt", "to-tile-ir"},
      {"tt", "select-tile-ops"}, {"tt", "finalize-signature"},
  };
  for (const auto& [target, stage] : cases) {
    SCOPED_TRACE(std::string(target) + " after " + stage);
    fs::path direct = scratch_dir() / "from_tk";
    fs::remove_all(direct);
    Result g =
        ttgen(std::string("--target=") + target + " -o " + quote(direct.string()) + " " + in);
    ASSERT_EQ(g.code, 0) << g.err;
    fs::path dump = scratch_dir() / "dump.ir";
    Result d = ttgen(std::string("--target=") + target + " --stop-after=" + stage +
                     " --emit=ir -o " + quote(dump.string()) + " " + in);
    ASSERT_EQ(d.code, 0) << d.err;
    std::string text = read_file(dump);
    EXPECT_EQ(text.substr(0, text.find('\n', text.find('\n') + 1)),
              std::string("// after ") + stage + "\nmodule attributes {source = \"softmax.tk\"}");
    fs::path out = scratch_dir() / "from_dump";
    fs::remove_all(out);
    Result r = ttgen(std::string("--target=") + target + " -o " + quote(out.string()) + " " +
                     quote(dump.string()));
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.err, "");
    EXPECT_EQ(file_contents_under(out), file_contents_under(direct));
  }
  EXPECT_EQ(read_file(scratch_dir() / "from_dump/softmax_cpu.cpp"), "")
      << "the last case is tt: no cpu file";
  EXPECT_EQ(read_file(scratch_dir() / "from_dump/kernels/softmax/compute.cpp"),
            read_file(source_dir() / "generated/softmax/kernels/softmax/compute.cpp"));
}

// bench/attention_hifi2.tk's compute kernel (TTNN's configuration: HiFi2, exp_approx_mode), byte
// for byte: p = exp(s - bcast_col(mn)) is tt-llk's unclamped 32-row approximate exp, its packs
// between pack_relu_config(ReluType::ZERO_RELU) and (ReluType::NO_RELU); the rescale c the
// accurate exp_tile (docs/lowering.md, "Approximate exp").
TEST(TtgenCodegen, AttentionHifi2ComputeKernel) {
  fs::path out = scratch_dir() / "gen_hifi2";
  fs::remove_all(out);
  Result r = ttgen("--target=tt -o " + quote(out.string()) + " " +
                   quote((source_dir() / "bench/attention_hifi2.tk").string()));
  ASSERT_EQ(r.code, 0) << r.err;
  expect_golden(source_dir() / "tests/golden/kernels/attention_hifi2/compute.cpp.txt",
                read_file(out / "kernels/attention_hifi2/compute.cpp"));
}

} // namespace
} // namespace tk::test
