// The work behind `ttgen`: read the input (.tk or a printed IR dump), parse, check, run the
// lowering chain of a target with stage dumps, emit. Independent of the flag parser, so each mode
// is a field here and a case in driver.cpp.
#pragma once

#include "codegen/generate.hpp"
#include "lowering/pipeline.hpp"
#include "support/source.hpp"
#include "tools/ttgen/report.hpp"

#include <cstddef>
#include <functional>
#include <iosfwd>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tk::ttgen {

/// What `--emit` prints.
enum class Emit {
  ast,           // the checked module as canonical .tk text (dsl::print)
  ir,            // the tile IR after the last stage run (a dump ttgen reads back)
  none,          // nothing but the stage dumps asked for
  code,          // the generated files, written into the directory -o DIR
  template_data, // the JSON the templates are rendered with
  dot,           // the dataflow of each kernel as a Graphviz graph (from the lowered TT IR)
};
/// The spellings accepted by --emit, in help order; kEmitNames[i] names Emit(i).
inline constexpr std::string_view kEmitNames[] = {"ast",           "ir", "none", "code",
                                                  "template-data", "dot"};
inline Emit emit_from_name(std::string_view name) {
  for (std::size_t i = 0; i < std::size(kEmitNames); ++i)
    if (kEmitNames[i] == name)
      return static_cast<Emit>(i);
  return Emit::ast; // unreachable: CLI11 accepts only kEmitNames
}

struct Options {
  std::string input; // a .tk file or a printed IR dump; "-" for standard input
  /// Empty: standard output. A FILE for the text emits; the DIRECTORY for --emit=code.
  std::string output;
  /// Unset: `none` when stage dumps are asked for, else `code` when -o is given, else `ast`.
  std::optional<Emit> emit;
  lower::Target target = lower::Target::tt;
  /// --target=all: generate code (or template data) for both targets; `target` is then ignored.
  bool all_targets = false;
  bool list_stages = false;
  std::optional<std::string> stop_after;
  std::vector<std::string> print_after;
  std::vector<std::string> print_before;
  bool print_after_all = false;
  bool print_changed = false; // dump after every stage that changed the IR
  bool time_stages = false;   // a table of wall time per stage on stderr
  /// --kernel=NAME: dumps and output for this kernel of the file only.
  std::optional<std::string> kernel;
  WarningOptions warnings;       // -W<name>, -Wno-<name>, -Werror, ...
  bool json_diagnostics = false; // --diagnostics-format=json: one JSON document on stderr
  bool verify_each = false; // run the IR verifier after every stage (always on in debug builds)
  lower::OptionOverrides overrides;
  /// --clang-format=auto|always|never: which generated files go through clang-format.
  codegen::Formatting formatting = codegen::Formatting::as_needed;
};

/// Process exit codes. A user error is the user's to fix; an internal error is ours.
enum ExitCode : int { kOk = 0, kUserError = 1, kUsageError = 2, kInternalError = 3 };

/// Runs one compilation: diagnostics to `err`, the result to `out` (or to options.output).
/// Returns kOk, kUserError (errors in the input) or kUsageError (unreadable input, unwritable
/// output, unknown stage). Lets tk::InternalError and other exceptions escape; main reports them.
int run(const Options& options, std::istream& in, std::ostream& out, std::ostream& err);

/// The text of `path` ("-": standard input), or nullopt after reporting why it cannot be read.
std::optional<SourceFile> read_input(const std::string& path, std::istream& in, Reporter& err);

/// Prints `--list-stages`: the chain of `t`, one `name  summary` line per stage.
void list_stages(lower::Target t, std::ostream& out);

/// Runs `work` and turns an escaping tk::InternalError or other exception into
/// "ttgen: internal error: ..." and a request to report it (as a JSON document when `json`),
/// returning kInternalError: a bug in TileKit never reads as a mistake in the user's kernel.
int guard_internal_errors(const std::function<int()>& work, std::ostream& err, bool json = false);

} // namespace tk::ttgen
