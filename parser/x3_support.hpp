// X3 support for the tile-language grammar: the per-parse State accessors, location annotation,
// the nesting and free-newline directives, custom error reports, and readable x3::what() names
// for the wrappers the grammar uses. Included by grammar_def.hpp only.
#pragma once

#include "parser/grammar.hpp"

#include <boost/fusion/include/at_c.hpp>

#include <string>

namespace tk::parser {
namespace grammar {

using boost::fusion::at_c;
using x3::_attr;
using x3::_val;
using x3::eoi;
using x3::eol;
using x3::lexeme;
using x3::lit;
using x3::raw;

template <class Ctx>
State& state(const Ctx& ctx) {
  return x3::get<state_tag>(ctx);
}
template <class Ctx>
std::uint32_t offset(const Ctx& ctx, Iterator p) {
  return static_cast<std::uint32_t>(p - state(ctx).base);
}
/// Reports `message` at [where, end) (end null: a point) through the top rule's error handler.
[[noreturn]] inline void fail_with(State& st, Iterator where, const std::string& message,
                                   Iterator end = nullptr) {
  st.error_end = end;
  throw x3::expectation_failure<Iterator>(where, kFullMessage + message);
}

/// Sets `loc` of the rule's node to the matched text (X3 has skipped leading blanks already).
/// X3 hands on_success the node only when the rule's own definition has no semantic action, so
/// a rule that builds its node in an action is split: `X_def = X_body` annotates, X_body builds.
struct annotate {
  template <class Attr, class Ctx>
  void on_success(const Iterator& first, const Iterator& last, Attr& node, const Ctx& ctx) const {
    if constexpr (requires { node.loc.range; })
      node.loc.range = {offset(ctx, first), offset(ctx, last)};
  }
};

template <class T>
struct Located {
  T value{};
  dsl::Loc loc;
};

// ---- nesting limit ------------------------------------------------------------------------------
template <class Subject>
struct NestDirective : x3::unary_parser<Subject, NestDirective<Subject>> {
  using base_type = x3::unary_parser<Subject, NestDirective<Subject>>;
  static bool const is_pass_through_unary = true;
  constexpr NestDirective(const Subject& s) : base_type(s) {}

  template <class It, class Ctx, class RCtx, class Attr>
  bool parse(It& first, const It& last, const Ctx& ctx, RCtx& rctx, Attr& attr) const {
    State& st = state(ctx);
    if (st.depth >= kMaxNesting)
      fail_with(st, first,
                "nesting is too deep (the limit is " + std::to_string(kMaxNesting) +
                    " levels of parentheses and blocks)");
    ++st.depth;
    struct Leave {
      int& d;
      ~Leave() { --d; }
    } leave{st.depth};
    return this->subject.parse(first, last, ctx, rctx, attr);
  }
};
struct NestGen {
  template <class S>
  constexpr NestDirective<typename x3::extension::as_parser<S>::value_type>
  operator[](const S& s) const {
    return {x3::as_parser(s)};
  }
};
inline constexpr NestGen nest{};

// ---- newlines are blanks inside '(' and '['
// -------------------------------------------------------
template <class Subject>
struct FreeLinesDirective : x3::unary_parser<Subject, FreeLinesDirective<Subject>> {
  using base_type = x3::unary_parser<Subject, FreeLinesDirective<Subject>>;
  static bool const is_pass_through_unary = true;
  constexpr FreeLinesDirective(const Subject& s) : base_type(s) {}

  template <class It, class Ctx, class RCtx, class Attr>
  bool parse(It& first, const It& last, const Ctx& ctx, RCtx& rctx, Attr& attr) const {
    State& st = state(ctx);
    ++st.free_lines;
    struct Leave {
      int& n;
      ~Leave() { --n; }
    } leave{st.free_lines};
    // A syntax error inside '(' or '[' is reported at the next token even on a later line.
    It start = first;
    try {
      if (this->subject.parse(first, last, ctx, rctx, attr))
        return true;
      st.free_lines_failed_at = start; // an expectation point may throw right here
      return false;
    } catch (const x3::expectation_failure<It>&) {
      st.failed_in_free_lines = true;
      throw;
    }
  }
};
struct FreeLinesGen {
  template <class S>
  constexpr FreeLinesDirective<typename x3::extension::as_parser<S>::value_type>
  operator[](const S& s) const {
    return {x3::as_parser(s)};
  }
};
inline constexpr FreeLinesGen free_lines{};

} // namespace grammar
} // namespace tk::parser

// Expectation failures name what was expected through x3::what(); these wrappers are named after
// what they wrap (X3's default would be a mangled type name).
namespace boost::spirit::x3 {
template <class Subject, class Action>
struct get_info<action<Subject, Action>> {
  using result_type = std::string;
  std::string operator()(const action<Subject, Action>& p) const { return what(p.subject); }
};
template <class Subject>
struct get_info<expect_directive<Subject>> {
  using result_type = std::string;
  std::string operator()(const expect_directive<Subject>& p) const { return what(p.subject); }
};
template <class Subject>
struct get_info<lexeme_directive<Subject>> {
  using result_type = std::string;
  std::string operator()(const lexeme_directive<Subject>& p) const { return what(p.subject); }
};
template <class Left, class Right>
struct get_info<sequence<Left, Right>> { // a sequence is expected by its first element
  using result_type = std::string;
  std::string operator()(const sequence<Left, Right>& p) const { return what(p.left); }
};
template <class Subject>
struct get_info<tk::parser::grammar::NestDirective<Subject>> {
  using result_type = std::string;
  std::string operator()(const tk::parser::grammar::NestDirective<Subject>& p) const {
    return what(p.subject);
  }
};
template <class Subject>
struct get_info<tk::parser::grammar::FreeLinesDirective<Subject>> {
  using result_type = std::string;
  std::string operator()(const tk::parser::grammar::FreeLinesDirective<Subject>& p) const {
    return what(p.subject);
  }
};
} // namespace boost::spirit::x3
