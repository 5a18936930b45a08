// ttgen: compiles .tk kernels. Flags are parsed here; the work is in driver.cpp. Exit codes:
// 0 ok, 1 errors in the input, 2 usage errors, 3 internal errors (a bug in TileKit).
#include "arch/arch.hpp"
#include "tools/ttgen/driver.hpp"
#include "tools/ttgen/report.hpp"
#include "tools/ttgen/report_command.hpp"

#include <CLI/CLI.hpp>

#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <iterator>
#include <string>
#include <vector>

namespace {

/// Parses `XxY` (within the grid of `arch`, as in @options(grid = 8x8)).
std::optional<tk::ir::Grid> parse_grid(const std::string& s, const tk::arch::ArchSpec& arch) {
  auto x = s.find('x');
  if (x == std::string::npos)
    return std::nullopt;
  tk::ir::Grid g;
  auto a = std::from_chars(s.data(), s.data() + x, g.x);
  auto b = std::from_chars(s.data() + x + 1, s.data() + s.size(), g.y);
  if (a.ec != std::errc() || a.ptr != s.data() + x || b.ec != std::errc() ||
      b.ptr != s.data() + s.size() || g.x < 1 || g.x > arch.grid_x || g.y < 1 || g.y > arch.grid_y)
    return std::nullopt;
  return g;
}

/// `ttgen check ARGS` runs tk-check from ttgen's own directory: only that binary loads LibTooling,
/// so every other ttgen command starts in milliseconds (docs/check.md).
int exec_check(int argc, char** argv) {
  std::error_code ec;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  const std::string tool = (exe.parent_path() / "tk-check").string();
  std::vector<char*> args{const_cast<char*>(tool.c_str())};
  for (int i = 2; i < argc; ++i)
    args.push_back(argv[i]);
  args.push_back(nullptr);
  ::execv(tool.c_str(), args.data());
  std::cerr << "ttgen: error: cannot run '" << tool << "' for ttgen check: " << std::strerror(errno)
            << '\n';
  return 2;
}

/// Whether the command line asks for JSON diagnostics; read before the flags are parsed, so
/// that a usage error in them is reported as JSON too.
bool json_requested(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--diagnostics-format=json" ||
        (a == "--diagnostics-format" && i + 1 < argc && std::string(argv[i + 1]) == "json"))
      return true;
  }
  return false;
}

/// The help's footer: the warning flags (parsed before CLI11 sees the command line) and the
/// warnings.
std::string warnings_help() {
  std::string s = "Warnings (clang's flags; every warning is on by default):\n"
                  "  -W<name>, -Wno-<name>      report, or do not report, the warning <name>\n"
                  "  -Werror, -Werror=<name>    make every warning, or <name>, an error (exit 1)\n"
                  "  -Wno-error, -Wno-error=<name>  undo -Werror, for every warning or for <name>\n"
                  "The warnings:\n";
  for (const tk::WarningInfo& w : tk::kWarnings)
    s += "  " + std::string(w.name) + std::string(20 - w.name.size(), ' ') +
         std::string(w.summary) + "\n";
  return s + "Exit status: 0 ok, 1 errors in the input, 2 usage errors, 3 internal errors.";
}

} // namespace

int main(int argc, char** argv) {
  using namespace tk::ttgen;
  if (argc > 1 && std::string_view(argv[1]) == "check")
    return exec_check(argc, argv);
  CLI::App app{"ttgen: compiles TileKit (.tk) kernels for Tenstorrent (TT-Metalium) and CPUs.",
               "ttgen"};
  app.set_version_flag("--version", "ttgen " TK_VERSION, "Print the version and exit");
  Options options;
  const bool json = json_requested(argc, argv);
  // -W flags are clang's: -W<name> is not a CLI11 option, so they are taken out here, in order.
  std::vector<char*> args;
  for (int i = 0; i < argc; ++i) {
    std::string a = argv[i];
    if (i > 0 && a.size() > 2 && a.rfind("-W", 0) == 0) {
      if (std::string e = options.warnings.apply(a); !e.empty()) {
        print_usage_error(std::cerr, json, e, "run 'ttgen --help' for usage");
        return kUsageError;
      }
    } else if (i > 0 && a == "-W") {
      print_usage_error(std::cerr, json, "'-W' needs a warning name: -W<name>",
                        "run 'ttgen --help' for usage");
      return kUsageError;
    } else {
      args.push_back(argv[i]);
    }
  }
  app.footer(warnings_help());
  app.add_option("input", options.input,
                 "The .tk file to compile, a printed IR dump (its first line names the stage it "
                 "was taken after; the chain resumes there), or - for standard input");
  std::string emit;
  app.add_option("--emit", emit,
                 "What to produce: ast = the checked kernels as canonical .tk text (the default "
                 "without -o); ir = the tile IR after the last stage run; none = only the stage "
                 "dumps (the default when stage dumps are asked for); code = the generated C++ "
                 "files, written into the directory -o DIR (the default when -o is given); "
                 "template-data = the JSON the code templates are rendered with; dot = the "
                 "dataflow of each kernel (DRAM tensors, reader, compute, writer, circular "
                 "buffers) as a Graphviz graph, from the TT chain")
      ->check(CLI::IsMember(std::vector<std::string>(std::begin(kEmitNames), std::end(kEmitNames))))
      ->type_name("KIND");
  std::string target = "tt";
  app.add_option("--target", target,
                 "The lowering chain: tt (Tenstorrent) or cpu; all = both, for code generation")
      ->check(CLI::IsMember({"tt", "cpu", "all"}))
      ->capture_default_str();
  app.add_flag("--list-stages", options.list_stages,
               "List the stages of the --target chain, one line each (each chain under a "
               "'# NAME' line for --target=all), and exit");
  app.add_option("--print-after", options.print_after,
                 "Print the IR after STAGE (repeatable); each dump starts with '// after STAGE'")
      ->type_name("STAGE")
      ->allow_extra_args(false);
  app.add_option("--print-before", options.print_before,
                 "Print the IR STAGE is given (repeatable); each dump starts with "
                 "'// before STAGE' (before to-tile-ir: the checked kernels as .tk text)")
      ->type_name("STAGE")
      ->allow_extra_args(false);
  app.add_flag("--print-after-all", options.print_after_all, "Print the IR after every stage");
  app.add_flag("--print-changed", options.print_changed,
               "Print the IR after every stage that changed it (to-tile-ir always does)");
  app.add_flag("--time-stages", options.time_stages,
               "Print to stderr a table of the wall time of each phase and stage (ms, % of the "
               "total)");
  app.add_option("--kernel", options.kernel,
                 "Compile only the kernel NAME of the input file (stage dumps and output)")
      ->type_name("NAME");
  std::string diagnostics_format = "text";
  app.add_option("--diagnostics-format", diagnostics_format,
                 "text = clang's form; json = one JSON document on stderr with every diagnostic "
                 "(severity, message, option, file, line, column, ranges, notes)")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str()
      ->type_name("FORMAT");
  app.add_option("--stop-after", options.stop_after, "Stop the chain after STAGE")
      ->type_name("STAGE");
  app.add_flag("--verify-each", options.verify_each,
               "Run the IR verifier after every stage (always on in debug builds)");
  std::string grid;
  const tk::arch::ArchSpec& arch = tk::arch::default_arch();
  app.add_option("--grid", grid,
                 "Core grid XxY, " + tk::arch::grid_sides(arch) +
                     " (overrides @options grid; default " + tk::arch::grid_text(arch) +
                     "; --arch's grid bounds it)")
      ->type_name("XxY");
  app.add_option("--cb-depth", options.overrides.cb_depth,
                 "Pages per streamed circular buffer, 1 to 8 (overrides @options cb_depth; "
                 "default 2)")
      ->check(CLI::Range(1, 8))
      ->type_name("N");
  app.add_option("--fp32-acc", options.overrides.fp32_acc,
                 "Accumulate in fp32 DST: true or false (overrides @options fp32_acc; default "
                 "false)")
      ->type_name("BOOL");
  std::vector<std::string> arch_names;
  for (const tk::arch::ArchSpec* a : tk::arch::all())
    arch_names.emplace_back(a->name);
  app.add_option("--arch", options.overrides.arch,
                 "Target architecture: " + tk::arch::names() + " (default " +
                     std::string(arch.name) + ")")
      ->check(CLI::IsMember(arch_names))
      ->type_name("NAME");
  app.add_option("--math-fidelity", options.overrides.math_fidelity,
                 "LoFi, HiFi2, HiFi3 or HiFi4 (overrides @options math_fidelity; default HiFi4)")
      ->check(CLI::IsMember({"LoFi", "HiFi2", "HiFi3", "HiFi4"}))
      ->type_name("NAME");
  app.add_option("--exp-approx-mode", options.overrides.exp_approx_mode,
                 "exp as tt-llk's approximate exp_tile<true> where its error cannot compound: "
                 "true or false (overrides @options exp_approx_mode; default false)")
      ->type_name("BOOL");
  std::string clang_format = "auto";
  app.add_option("--clang-format", clang_format,
                 "Which generated files clang-format formats: auto = only those the templates "
                 "could not lay out themselves (a line longer than 100 columns); always = every "
                 "file (the same bytes as auto, slower); never = none, the text as rendered")
      ->check(CLI::IsMember({"auto", "always", "never"}))
      ->capture_default_str()
      ->type_name("WHEN");
  app.add_option(
         "-o,--output", options.output,
         "With --emit=code (the default when -o is given): the directory to write the "
         "generated files into, created if needed. With --emit=ast|ir|template-data|dot: the "
         "file to write instead of stdout")
      ->type_name("FILE|DIR");

  app.add_subcommand(
      "check", "Prove the kernels of a hand-written TT-Metalium program free of CB "
               "and DST protocol bugs, or report them: ttgen check [--cb c_N=PAGES] "
               "[--runtime-args ROLE=COUNT] [--compile-args ROLE=V0,V1,...] [-I DIR] [-D NAME] "
               "READER.cpp "
               "COMPUTE.cpp WRITER.cpp (ttgen check --help; docs/check.md)");
  ReportOptions report;
  CLI::App* report_cmd = app.add_subcommand(
      "report",
      "Print the static estimate of each kernel of INPUT at one shape, without running it: DRAM "
      "bytes per tensor, compute calls, and the compute and DRAM bounds of the timing model "
      "(docs/timing.md). ttgen's kernel options apply too: --grid, --cb-depth, --fp32-acc, "
      "--math-fidelity, --exp-approx-mode, and --kernel=NAME reports one kernel of the file (see "
      "ttgen --help)");
  report_cmd->add_option("input", report.input, "A .tk file, a TT IR dump, or - for standard input")
      ->required();
  report_cmd
      ->add_option("--shape", report.shape,
                   "The size of every dimension, NAME=SIZE, comma-separated or repeated: "
                   "--shape M=1024,K=512,N=2048")
      ->delimiter(',')
      ->required()
      ->type_name("NAME=SIZE");
  report_cmd->add_option("--format", report.format, "text (a table) or json")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
  report_cmd->fallthrough();

  try {
    app.parse(static_cast<int>(args.size()), args.data());
    if (!report_cmd->parsed() && !options.list_stages && options.input.empty())
      throw CLI::RequiredError("input");
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    print_usage_error(std::cerr, json, e.what(), "run 'ttgen --help' for usage");
    return kUsageError;
  }
  options.json_diagnostics = diagnostics_format == "json";
  options.formatting = clang_format == "always"  ? tk::codegen::Formatting::always
                       : clang_format == "never" ? tk::codegen::Formatting::never
                                                 : tk::codegen::Formatting::as_needed;

  if (!emit.empty())
    options.emit = emit_from_name(emit);
  options.all_targets = target == "all";
  options.target =
      options.all_targets ? tk::lower::Target::tt : *tk::lower::target_from_string(target);
  if (!grid.empty()) {
    const tk::arch::ArchSpec& target_arch =
        options.overrides.arch ? *tk::arch::find(*options.overrides.arch) : arch;
    options.overrides.grid = parse_grid(grid, target_arch);
    if (!options.overrides.grid) {
      tk::ttgen::Reporter r(std::cerr, options.json_diagnostics);
      r.error("--grid: '" + grid + "' is not a core grid; write XxY with " +
              tk::arch::grid_sides(target_arch) + ", e.g. " + tk::arch::grid_text(target_arch));
      r.finish();
      return kUsageError;
    }
  }

  if (report_cmd->parsed()) {
    report.overrides = options.overrides;
    report.kernel = options.kernel;
    return guard_internal_errors([&] { return run_report(report, std::cin, std::cout, std::cerr); },
                                 std::cerr, options.json_diagnostics);
  }
  return guard_internal_errors([&] { return run(options, std::cin, std::cout, std::cerr); },
                               std::cerr, options.json_diagnostics);
}
