// User-facing diagnostics in clang's form, and the internal-error exception.
//
//   softmax.tk:4:21: error: unknown name 'q'
//       4 |         y[i, j] = exp(q)
//         |                       ^
//
// A user error has a location and says what to write instead where it can; an InternalError
// means the compiler is wrong and never blames the user's code.
#pragma once

#include "support/source.hpp"

#include <cstddef>
#include <iosfwd>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace tk {

enum class Severity { error, warning, note };

struct Diagnostic {
  Severity severity = Severity::error;
  const SourceFile* file = nullptr; // null: no location (e.g. a command-line error)
  SourceRange range;
  std::string message;
  std::vector<Diagnostic> notes;
  /// The flag that controls a warning, printed after the message like clang's: "-Wunused-input",
  /// or "-Werror,-Wunused-input" when -Werror made it an error. Empty for everything else.
  std::string option;

  /// Attaches a note pointing at another place in the same file.
  Diagnostic& note(SourceRange where, std::string msg);
  Diagnostic& note(std::string msg); // a note without a location
};

/// The warnings TileKit reports, each switched by -W<name> / -Wno-<name>; all on by default.
struct WarningInfo {
  std::string_view name;
  std::string_view summary; // one line, for ttgen --help
};
inline constexpr WarningInfo kWarnings[] = {
    {"unused-input", "an input tensor or scalar the kernel never reads"},
    {"unused-value", "a value computed and never used (a name whose '=' or last '+=' is never "
                     "read nor stored)"},
    {"tile-permutation", "a store that moves whole tiles to swapped positions without "
                         "transposing their elements"},
};

/// Which warnings are reported and which are errors, from clang-style flags applied in order.
struct WarningOptions {
  std::set<std::string, std::less<>> disabled;  // -Wno-<name>
  bool all_errors = false;                      // -Werror
  std::set<std::string, std::less<>> errors;    // -Werror=<name>
  std::set<std::string, std::less<>> no_errors; // -Wno-error=<name>

  bool enabled(std::string_view name) const { return !disabled.count(name); }
  bool is_error(std::string_view name) const {
    return errors.count(name) || (all_errors && !no_errors.count(name));
  }
  /// Applies one flag: -W<name>, -Wno-<name>, -Werror, -Wno-error, -Werror=<name>,
  /// -Wno-error=<name>. Returns "" or what is wrong with it (an unknown warning name, with a
  /// suggestion).
  std::string apply(std::string_view flag);
};

class Diagnostics {
public:
  /// At most `limit` errors are kept; the rest are counted and summarised.
  explicit Diagnostics(const SourceFile* file = nullptr, std::size_t limit = 20);

  void set_file(const SourceFile* file) { file_ = file; }
  const SourceFile* file() const { return file_; }

  Diagnostic& error(SourceRange where, std::string message);
  /// A warning named `name` (a row of kWarnings): dropped when the warning options disable it,
  /// an error when they make it one.
  Diagnostic& warning(SourceRange where, std::string_view name, std::string message);
  void set_warnings(const WarningOptions* w) { warnings_ = w; }
  /// An error that has no place in the source (bad flag, unreadable file).
  Diagnostic& error(std::string message);

  bool has_errors() const { return errors_ > 0; }
  std::size_t error_count() const { return errors_; }
  bool at_limit() const { return errors_ >= limit_; }
  const std::vector<Diagnostic>& all() const { return diags_; }
  void clear();

  /// Prints every diagnostic in order, then "N errors generated." when there was more than one.
  void print(std::ostream& os) const;
  std::string str() const;

private:
  Diagnostic& add(Severity s, const SourceFile* f, SourceRange r, std::string msg);

  const SourceFile* file_;
  std::size_t limit_;
  std::size_t errors_ = 0;
  std::vector<Diagnostic> diags_;
  Diagnostic overflow_;                      // sink for diagnostics past the limit
  Diagnostic dropped_;                       // sink for disabled warnings
  const WarningOptions* warnings_ = nullptr; // null: every warning on, none an error
};

/// Renders one diagnostic (and its notes) in clang's form.
void print_diagnostic(std::ostream& os, const Diagnostic& d);

/// A bug in TileKit, not in the user's kernel. `detail` may hold an IR dump.
class InternalError : public std::logic_error {
public:
  explicit InternalError(const std::string& what, std::string detail = {})
      : std::logic_error(what), detail_(std::move(detail)) {}
  const std::string& detail() const { return detail_; }

private:
  std::string detail_;
};

/// Thrown by a compiler pass right after it reported a user error, to leave a deep walk early;
/// the pass catches it and returns (the error is already in Diagnostics).
struct UserErrorReported {};

} // namespace tk
