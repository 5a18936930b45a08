// The X3 grammar of the tile language, declared here, defined in grammar_def.hpp and instantiated
// once in grammar.cpp (the layout of Spirit's own examples). Only parser/ includes this file.
#pragma once

#include "dsl/ast.hpp"
#include "support/diagnostics.hpp"

#include <boost/spirit/home/x3.hpp>

#include <cstdint>
#include <string_view>

namespace tk::parser {

namespace x3 = boost::spirit::x3;
using Iterator = const char*;

/// Deepest nesting of '(' and '{' the parser accepts: bounds the parser's recursion, so a file
/// of a million '(' is an error, not a stack overflow.
inline constexpr int kMaxNesting = 256;
/// Most binary operators in one statement: a left-associative chain builds a tree as deep as it
/// is long, and every later pass recurses over it. With the 256 levels of nesting, a tree is at
/// most 512 deep: that fits the stack of sanitizer builds too (1024 operators overflowed 8 MiB in
/// the checker of the asan preset's ttgen, and of the fuzz build).
inline constexpr int kMaxOperators = 256;

/// Per-parse state, reachable from every rule through the context (x3::with<state_tag>).
struct State {
  const SourceFile* file = nullptr;
  Diagnostics* diags = nullptr;
  Iterator base = nullptr; // text().data(): node offsets are relative to it
  Iterator end = nullptr;
  Iterator item_begin = nullptr;     // where the kernel being parsed starts (for bracket notes)
  int depth = 0;                     // current nesting of '(' and '{'
  int operators = 0;                 // binary operators in the current statement
  int free_lines = 0;                // > 0 inside '(' and '[': newlines are blanks there
  bool failed_in_free_lines = false; // the syntax error was raised inside '(' or '['
  Iterator free_lines_failed_at = nullptr; // where the last '(' or '[' content failed
  Iterator error_end = nullptr;            // end of the range of a fail_with() error
};
struct state_tag;

/// The keywords of dsl.md, and `inf` (a number literal).
inline bool is_dsl_keyword(std::string_view w) {
  for (std::string_view k : {"kernel", "parallel", "for", "in", "tiles", "zeros", "fill", "inf"})
    if (w == k)
      return true;
  return false;
}

/// C++20's keywords and alternative tokens: the generated C++ names kernels, parameters,
/// dimensions, loop variables and values as they are written, so none of these can be one.
inline bool is_cpp_keyword(std::string_view w) {
  for (std::string_view k : {"alignas",       "alignof",     "and",
                             "and_eq",        "asm",         "auto",
                             "bitand",        "bitor",       "bool",
                             "break",         "case",        "catch",
                             "char",          "char8_t",     "char16_t",
                             "char32_t",      "class",       "compl",
                             "concept",       "const",       "consteval",
                             "constexpr",     "constinit",   "const_cast",
                             "continue",      "co_await",    "co_return",
                             "co_yield",      "decltype",    "default",
                             "delete",        "do",          "double",
                             "dynamic_cast",  "else",        "enum",
                             "explicit",      "export",      "extern",
                             "false",         "float",       "for",
                             "friend",        "goto",        "if",
                             "inline",        "int",         "long",
                             "mutable",       "namespace",   "new",
                             "noexcept",      "not",         "not_eq",
                             "nullptr",       "operator",    "or",
                             "or_eq",         "private",     "protected",
                             "public",        "register",    "reinterpret_cast",
                             "requires",      "return",      "short",
                             "signed",        "sizeof",      "static",
                             "static_assert", "static_cast", "struct",
                             "switch",        "template",    "this",
                             "thread_local",  "throw",       "true",
                             "try",           "typedef",     "typeid",
                             "typename",      "union",       "unsigned",
                             "using",         "virtual",     "void",
                             "volatile",      "wchar_t",     "while",
                             "xor",           "xor_eq"})
    if (w == k)
      return true;
  return false;
}

/// Names the generated code keeps for its own: its variables (tk_program, tk_begin, ...) and
/// run_tt's first parameter, `device`.
inline bool is_generated_name(std::string_view w) {
  return w.starts_with("tk_") || w == "device";
}

/// Words that cannot name anything.
inline bool is_reserved_word(std::string_view w) {
  return is_dsl_keyword(w) || is_cpp_keyword(w) || is_generated_name(w);
}

/// A message that is not "expected ..." travels as an expectation_failure whose `which` starts
/// with this marker, so the one error handler on the top rule reports every syntax error.
inline constexpr char kFullMessage = '\x01';

/// Reports a syntax error at `where` (skipping to the next token on the same line).
void report_syntax_error(State& st, Iterator where, const std::string& which);

/// Skips blanks and `//` comments, and newlines too while the parser is inside '(' or '['
/// (State::free_lines > 0). One skipper type with a run-time switch: an x3::skip[] directive in
/// the recursive expression rules would nest context types without bound.
struct Skipper : x3::parser<Skipper> {
  using attribute_type = x3::unused_type;
  static bool const has_attribute = false;
  const State* state;
  explicit Skipper(const State* s) : state(s) {}

  template <class It, class Ctx, class RCtx, class Attr>
  bool parse(It& first, const It& last, const Ctx&, RCtx&, Attr&) const {
    bool newlines = state->free_lines > 0;
    It start = first;
    while (first != last) {
      char c = *first;
      if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v' || (newlines && c == '\n')) {
        ++first;
      } else if (c == '/' && first + 1 != last && first[1] == '/') {
        while (first != last && *first != '\n')
          ++first;
      } else {
        break;
      }
    }
    return first != start;
  }
};

using context_type = x3::context<state_tag, State, x3::phrase_parse_context<Skipper>::type>;

namespace grammar {
/// One kernel, with the `@options(...)` before it. The error handler sits on this rule only.
using kernel_item_type = x3::rule<class kernel_item_class, dsl::Kernel>;
BOOST_SPIRIT_DECLARE(kernel_item_type)
} // namespace grammar

const grammar::kernel_item_type& kernel_item();

} // namespace tk::parser
