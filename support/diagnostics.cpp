#include "support/diagnostics.hpp"

#include "support/suggest.hpp"

#include <algorithm>
#include <ostream>
#include <sstream>

namespace tk {

Diagnostic& Diagnostic::note(SourceRange where, std::string msg) {
  notes.push_back(Diagnostic{Severity::note, file, where, std::move(msg), {}});
  return *this;
}

Diagnostic& Diagnostic::note(std::string msg) {
  notes.push_back(Diagnostic{Severity::note, nullptr, {}, std::move(msg), {}});
  return *this;
}

Diagnostics::Diagnostics(const SourceFile* file, std::size_t limit) : file_(file), limit_(limit) {}

Diagnostic& Diagnostics::add(Severity s, const SourceFile* f, SourceRange r, std::string msg) {
  if (s == Severity::error && errors_++ >= limit_) {
    overflow_ = Diagnostic{s, f, r, std::move(msg), {}};
    return overflow_;
  }
  diags_.push_back(Diagnostic{s, f, r, std::move(msg), {}});
  return diags_.back();
}

Diagnostic& Diagnostics::error(SourceRange where, std::string message) {
  return add(Severity::error, file_, where, std::move(message));
}
Diagnostic& Diagnostics::warning(SourceRange where, std::string_view name, std::string message) {
  if (warnings_ && !warnings_->enabled(name)) {
    dropped_ = Diagnostic{};
    return dropped_;
  }
  const bool as_error = warnings_ && warnings_->is_error(name);
  Diagnostic& d =
      add(as_error ? Severity::error : Severity::warning, file_, where, std::move(message));
  d.option = (as_error ? "-Werror,-W" : "-W") + std::string(name);
  return d;
}

std::string WarningOptions::apply(std::string_view flag) {
  auto known = [](std::string_view n) {
    for (const WarningInfo& w : kWarnings)
      if (w.name == n)
        return true;
    return false;
  };
  auto unknown = [&](std::string_view n) {
    std::vector<std::string> names;
    for (const WarningInfo& w : kWarnings)
      names.emplace_back(w.name);
    std::string prefix(flag.substr(0, flag.size() - n.size()));
    std::string hint = closest(std::string(n), names);
    return "unknown warning option '" + std::string(flag) + "'" +
           (hint.empty() ? "; the warnings are listed by ttgen --help"
                         : "; did you mean '" + prefix + hint + "'?");
  };
  auto take = [&](std::string_view prefix, std::string_view& rest) {
    if (flag.substr(0, prefix.size()) != prefix)
      return false;
    rest = flag.substr(prefix.size());
    return true;
  };
  std::string_view n;
  if (flag == "-Werror") {
    all_errors = true;
  } else if (flag == "-Wno-error") {
    all_errors = false;
  } else if (take("-Werror=", n)) {
    if (!known(n))
      return unknown(n);
    errors.emplace(n);
    no_errors.erase(std::string(n));
    disabled.erase(std::string(n));
  } else if (take("-Wno-error=", n)) {
    if (!known(n))
      return unknown(n);
    no_errors.emplace(n);
    errors.erase(std::string(n));
  } else if (take("-Wno-", n)) {
    if (!known(n))
      return unknown(n);
    disabled.emplace(n);
  } else if (take("-W", n)) {
    if (!known(n))
      return unknown(n);
    disabled.erase(std::string(n));
  } else {
    return "'" + std::string(flag) + "' is not a warning option";
  }
  return "";
}
Diagnostic& Diagnostics::error(std::string message) {
  return add(Severity::error, nullptr, {}, std::move(message));
}

void Diagnostics::clear() {
  diags_.clear();
  errors_ = 0;
}

static const char* severity_name(Severity s) {
  switch (s) {
  case Severity::error:
    return "error";
  case Severity::warning:
    return "warning";
  case Severity::note:
    return "note";
  }
  return "error";
}

void print_diagnostic(std::ostream& os, const Diagnostic& d) {
  if (!d.file) {
    os << "ttgen: " << severity_name(d.severity) << ": " << d.message
       << (d.option.empty() ? "" : " [" + d.option + "]") << '\n';
  } else {
    LineCol lc = d.file->line_col(d.range.begin);
    os << d.file->name() << ':' << lc.line << ':' << lc.col << ": " << severity_name(d.severity)
       << ": " << d.message << (d.option.empty() ? "" : " [" + d.option + "]") << '\n';
    std::string_view text = d.file->line(lc.line);
    std::string num = std::to_string(lc.line);
    std::string gutter(std::max<std::size_t>(num.size(), 4), ' ');
    os << std::string(gutter.size() - num.size(), ' ') << num << " | " << text << '\n';
    // Caret under the first character, tildes under the rest of the range on this line. Tabs in
    // the source are kept in the padding so the caret lines up in a terminal.
    std::string marks;
    std::uint32_t col0 = lc.col - 1;
    for (std::uint32_t i = 0; i < col0 && i < text.size(); ++i)
      marks += text[i] == '\t' ? '\t' : ' ';
    marks += '^';
    std::uint32_t end = d.range.end > d.range.begin ? d.range.end : d.range.begin + 1;
    LineCol le = d.file->line_col(end);
    std::uint32_t last = le.line == lc.line ? le.col - 1 : static_cast<std::uint32_t>(text.size());
    for (std::uint32_t c = col0 + 1; c < last; ++c)
      marks += '~';
    os << gutter << " | " << marks << '\n';
  }
  for (const Diagnostic& n : d.notes)
    print_diagnostic(os, n);
}

void Diagnostics::print(std::ostream& os) const {
  for (const Diagnostic& d : diags_)
    print_diagnostic(os, d);
  if (errors_ > limit_)
    os << "ttgen: error: too many errors emitted (" << errors_ - limit_
       << " more not shown), stopping now\n";
  if (errors_ > 1)
    os << errors_ << " errors generated.\n";
}

std::string Diagnostics::str() const {
  std::ostringstream os;
  print(os);
  return os.str();
}

} // namespace tk
