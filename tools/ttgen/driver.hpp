// The work behind `ttgen`: read the input, parse, check, emit. Independent of the flag parser so
// that new modes (--target, --print-after=STAGE, --emit=ir|tt|cpu) are new fields and cases here.
#pragma once

#include <cstddef>
#include <functional>
#include <iosfwd>
#include <iterator>
#include <string>
#include <string_view>

namespace tk::ttgen {

/// What `--emit` prints.
enum class Emit {
  ast, // the checked module as canonical .tk text (dsl::print)
};
/// The spellings accepted by --emit, in help order; kEmitNames[i] names Emit(i).
inline constexpr std::string_view kEmitNames[] = {"ast"};
inline Emit emit_from_name(std::string_view name) {
  for (std::size_t i = 0; i < std::size(kEmitNames); ++i)
    if (kEmitNames[i] == name)
      return static_cast<Emit>(i);
  return Emit::ast; // unreachable: CLI11 accepts only kEmitNames
}

struct Options {
  std::string input;  // a path, or "-" for standard input
  std::string output; // empty: standard output
  Emit emit = Emit::ast;
};

/// Process exit codes. A user error is the user's to fix; an internal error is ours.
enum ExitCode : int { kOk = 0, kUserError = 1, kUsageError = 2, kInternalError = 3 };

/// Runs one compilation: diagnostics to `err`, the result to `out` (or to options.output).
/// Returns kOk, kUserError (syntax or semantic errors) or kUsageError (unreadable input,
/// unwritable output). Lets tk::InternalError and other exceptions escape; main reports them.
int run(const Options& options, std::istream& in, std::ostream& out, std::ostream& err);

/// Runs `work` and turns an escaping tk::InternalError or other exception into
/// "ttgen: internal error: ..." and a request to report it, returning kInternalError: a bug in
/// TileKit never reads as a mistake in the user's kernel.
int guard_internal_errors(const std::function<int()>& work, std::ostream& err);

} // namespace tk::ttgen
