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
#include <stdexcept>
#include <string>
#include <vector>

namespace tk {

enum class Severity { error, warning, note };

struct Diagnostic {
  Severity severity = Severity::error;
  const SourceFile* file = nullptr; // null: no location (e.g. a command-line error)
  SourceRange range;
  std::string message;
  std::vector<Diagnostic> notes;

  /// Attaches a note pointing at another place in the same file.
  Diagnostic& note(SourceRange where, std::string msg);
  Diagnostic& note(std::string msg); // a note without a location
};

class Diagnostics {
public:
  /// At most `limit` errors are kept; the rest are counted and summarised.
  explicit Diagnostics(const SourceFile* file = nullptr, std::size_t limit = 20);

  void set_file(const SourceFile* file) { file_ = file; }
  const SourceFile* file() const { return file_; }

  Diagnostic& error(SourceRange where, std::string message);
  Diagnostic& warning(SourceRange where, std::string message);
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
  Diagnostic overflow_; // sink for diagnostics past the limit
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
