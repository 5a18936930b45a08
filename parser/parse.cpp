// The parser's driver: runs the grammar kernel by kernel, recovers after a syntax error, and turns
// X3's expectation failures into clang-style diagnostics with friendly wording.
#include "parser/parse.hpp"

#include "parser/grammar.hpp"

#include <cctype>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <string_view>
#include <vector>

namespace tk::parser {

namespace {

bool is_ident_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/// Skips blanks and comments, and newlines too when `newlines`.
Iterator skip_space(Iterator p, Iterator end, bool newlines) {
  while (p != end) {
    char c = *p;
    if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v' || (newlines && c == '\n'))
      ++p;
    else if (c == '/' && p + 1 != end && p[1] == '/')
      while (p != end && *p != '\n')
        ++p;
    else
      break;
  }
  return p;
}

/// A byte that can start no token of the language (outside comments).
bool is_invalid_char(unsigned char c) {
  if (c >= 0x7f)
    return true;
  if (c < 0x20)
    return c != '\t' && c != '\n' && c != '\r' && c != '\f' && c != '\v';
  return std::string_view("$#\"'?`\\!%^&|~<").find(static_cast<char>(c)) != std::string_view::npos;
}

std::string describe_invalid_char(unsigned char c) {
  char hex[8];
  std::snprintf(hex, sizeof hex, "0x%02X", c);
  if (c >= 0x80)
    return std::string("non-ASCII byte ") + hex + " outside a comment";
  if (c < 0x20 || c == 0x7f)
    return std::string("invalid byte ") + hex;
  return std::string("invalid character '") + static_cast<char>(c) + "'";
}

/// The innermost bracket opened in [from, to) and not closed there (comments skipped).
Iterator innermost_open(Iterator from, Iterator to) {
  std::vector<Iterator> open;
  for (Iterator p = from; p < to; ++p) {
    if (*p == '/' && p + 1 < to && p[1] == '/') {
      while (p < to && *p != '\n')
        ++p;
      continue;
    }
    if (*p == '(' || *p == '[' || *p == '{')
      open.push_back(p);
    else if ((*p == ')' || *p == ']' || *p == '}') && !open.empty())
      open.pop_back();
  }
  return open.empty() ? nullptr : open.back();
}

/// The start of the next line after `from` whose first token is `kernel` or `@options`.
Iterator next_kernel_start(Iterator from, Iterator end) {
  for (Iterator p = from; p < end; ++p) {
    if (p[-1] != '\n')
      continue;
    Iterator q = skip_space(p, end, false);
    std::string_view rest(q, static_cast<std::size_t>(end - q));
    if ((rest.starts_with("kernel") && (rest.size() == 6 || !is_ident_char(rest[6]))) ||
        rest.starts_with("@options"))
      return q;
  }
  return end;
}

/// X3's what() of a parser that is not a named rule: a mangled C++ type such as
/// `N2tk6parser7grammar6RejectI...` or a demangled `boost::spirit::x3::...`.
bool names_a_cpp_type(const std::string& which) {
  if (which.find("boost") != std::string::npos || which.find("spirit") != std::string::npos ||
      which.find("::") != std::string::npos)
    return true;
  return which.size() > 2 && which[0] == 'N' && std::isdigit(static_cast<unsigned char>(which[1]));
}

} // namespace

void report_syntax_error(State& st, Iterator where, const std::string& which) {
  auto off = [&](Iterator p) { return static_cast<std::uint32_t>(p - st.base); };
  if (where < st.base || where > st.end)
    where = st.end;
  std::string message;
  Iterator at =
      skip_space(where, st.end, st.failed_in_free_lines || where == st.free_lines_failed_at);
  SourceRange range{off(at), off(at)};
  bool closer_expected = false;
  char closer = 0;
  if (!which.empty() && which[0] == kFullMessage) {
    message = which.substr(1);
    if (st.error_end > at && st.error_end <= st.end)
      range.end = off(st.error_end);
  } else if (at != st.end && is_invalid_char(static_cast<unsigned char>(*at))) {
    message = describe_invalid_char(static_cast<unsigned char>(*at));
    range.end = range.begin + 1;
  } else if (names_a_cpp_type(which)) {
    // An expectation point whose parser has no rule name: X3 names it by its C++ type, which
    // means nothing to a user. Say what was found instead (every such point should get a name).
    Iterator w = at;
    while (w != st.end && is_ident_char(*w))
      ++w;
    if (w == at && at != st.end)
      ++w;
    message =
        at == st.end ? "unexpected end of file" : "unexpected '" + std::string(at, w) + "' here";
    range.end = off(w);
  } else {
    std::string what = which;
    for (char& c : what) // X3 quotes string literals with '"'; tokens read better as 'x'
      if (c == '"')
        c = '\'';
    message = "expected " + what;
    Iterator w = at;
    while (w != st.end && is_ident_char(*w))
      ++w;
    std::string_view word(at, static_cast<std::size_t>(w - at));
    if (is_reserved_word(word)) {
      std::string as; // what the word was meant to be
      if (what[0] != '\'' && what.ends_with(" name"))
        as = what;
      else if (what == "parameter" || what == "loop variable" || what == "option")
        as = what + " name";
      const std::string quoted = "'" + std::string(word) + "'";
      const std::string kind = is_dsl_keyword(word)   ? "reserved word"
                               : is_cpp_keyword(word) ? "C++ keyword"
                                                      : "name kept for the generated code";
      if (!as.empty()) {
        bool vowel = std::string_view("aeiou").find(as[0]) != std::string_view::npos;
        message =
            quoted + " is a " + kind + " and cannot be used as " + (vowel ? "an " : "a ") + as;
        if (is_cpp_keyword(word) && !is_dsl_keyword(word))
          message += " (the generated C++ uses names as they are written)";
        else if (word == "device")
          message += " (the generated run_tt takes the device under that name)";
        else if (is_generated_name(word))
          message += " (names starting with 'tk_' are the generated code's own)";
        range.end = off(w);
      } else if (what == "statement" || what == "expression") {
        message += ", found " + kind + " " + quoted;
        range.end = off(w);
      }
    }
    if (what == "expression" && at != st.end && *at == '-' && message == "expected expression")
      message += " (a '-' sign belongs to a number literal; write neg(x) to negate a tile)";
    if (what.size() >= 3 && what[0] == '\'' && what[2] == '\'' &&
        std::string_view(")]}").find(what[1]) != std::string_view::npos) {
      closer_expected = true;
      closer = what[1];
    }
  }
  Diagnostic& d = st.diags->error(range, message);
  d.file = st.file;
  // Like clang: a missing closer points back at its opener; so does any error at the end of
  // the input while a bracket is still open (the usual reason for a truncated file).
  Iterator open = innermost_open(st.item_begin, at);
  char opener = closer == ')' ? '(' : closer == ']' ? '[' : '{';
  if (open && ((closer_expected && *open == opener) || (!closer_expected && at == st.end)))
    d.note({off(open), off(open) + 1}, std::string("to match this '") + *open + "'");
}

std::optional<dsl::Module> parse(const SourceFile& file, Diagnostics& diags) {
  const std::string& text = file.text();
  if (text.size() >= std::numeric_limits<std::uint32_t>::max()) {
    diags.error("'" + file.name() + "' is too large (the limit is 4 GiB)");
    return std::nullopt;
  }
  State st;
  st.file = &file;
  st.diags = &diags;
  st.base = text.data();
  st.end = text.data() + text.size();

  dsl::Module module;
  bool failed = false;
  Iterator p = st.base;
  while (true) {
    p = skip_space(p, st.end, true);
    if (p == st.end)
      break;
    st.item_begin = p;
    st.depth = 0;
    st.operators = 0;
    st.free_lines = 0;
    st.failed_in_free_lines = false;
    st.free_lines_failed_at = nullptr;
    st.error_end = nullptr;
    dsl::Kernel kernel;
    std::size_t errors_before = diags.error_count();
    Iterator first = p;
    bool ok = x3::phrase_parse(first, st.end, x3::with<state_tag>(st)[kernel_item()], Skipper(&st),
                               kernel);
    if (ok) {
      module.kernels.push_back(std::move(kernel));
      p = first;
      continue;
    }
    failed = true;
    if (diags.error_count() == errors_before) // the grammar always throws; stay safe anyway
      report_syntax_error(st, p, "'kernel'");
    if (diags.at_limit())
      break;
    p = next_kernel_start(st.item_begin + 1, st.end);
  }
  if (failed)
    return std::nullopt;
  if (module.kernels.empty()) {
    Diagnostic& d = diags.error({0, 0}, "no kernel in file");
    d.file = &file;
    return std::nullopt;
  }
  return module;
}

} // namespace tk::parser
