// Token-level X3 primitives of the expression grammar: names, keywords, numbers and strings,
// each a small hand-written parser that records the exact offset of its token. Included only by
// expr_grammar.cpp (the one translation unit that instantiates the grammar).
#pragma once

#include "jinja/ast.hpp"
#include "jinja/string_util.hpp"

#include <boost/spirit/home/x3.hpp>

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>

namespace tk::jinja::expr_parser {

namespace x3 = boost::spirit::x3;
using boost::fusion::at_c;
using It = const char*;
struct base_tag;

inline bool ident_start(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_';
}
inline bool ident_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}
inline bool reserved(std::string_view w) {
  return w == "and" || w == "or" || w == "not" || w == "in" || w == "is" || w == "if" ||
         w == "else";
}

template <class Ctx>
std::uint32_t offset_of(const Ctx& ctx, It it) {
  return static_cast<std::uint32_t>(it - x3::get<base_tag>(ctx));
}

inline ExprPtr node(ExprKind k, std::uint32_t pos) {
  auto n = std::make_shared<Expr>();
  n->kind = k;
  n->pos = pos;
  return n;
}

// ---- token primitives --------------------------------------------------------------------

// The current position after whitespace; consumes nothing.
struct pos_parser : x3::parser<pos_parser> {
  using attribute_type = It;
  static bool const has_attribute = true;
  template <class I, class Ctx, class RCtx, class Attr>
  bool parse(I& first, I const& last, Ctx const& ctx, RCtx&, Attr& attr) const {
    x3::skip_over(first, last, ctx);
    if constexpr (!std::is_same_v<Attr, x3::unused_type>)
      attr = first;
    return true;
  }
};

// A name; `any` also accepts the reserved words (attribute, filter and test names).
struct ident_parser : x3::parser<ident_parser> {
  using attribute_type = std::string;
  static bool const has_attribute = true;
  bool any = false;
  template <class I, class Ctx, class RCtx, class Attr>
  bool parse(I& first, I const& last, Ctx const& ctx, RCtx&, Attr& attr) const {
    x3::skip_over(first, last, ctx);
    if (first == last || !ident_start(*first))
      return false;
    I end = first;
    while (end != last && ident_char(*end))
      ++end;
    std::string word(first, end);
    if (!any && reserved(word))
      return false;
    if constexpr (!std::is_same_v<Attr, x3::unused_type>)
      attr = std::move(word);
    first = end;
    return true;
  }
};

// A keyword as a whole word.
struct kw_parser : x3::parser<kw_parser> {
  using attribute_type = x3::unused_type;
  static bool const has_attribute = false;
  const char* word;
  template <class I, class Ctx, class RCtx, class Attr>
  bool parse(I& first, I const& last, Ctx const& ctx, RCtx&, Attr&) const {
    x3::skip_over(first, last, ctx);
    std::size_t n = std::strlen(word);
    if (static_cast<std::size_t>(last - first) < n || std::strncmp(first, word, n) != 0)
      return false;
    if (first + n != last && ident_char(first[n]))
      return false;
    first += n;
    return true;
  }
};

// Integer and float literals as jinja2 lexes them: 12, 1_000, 1.5, 2e3, 1.5e-3.
struct number_parser : x3::parser<number_parser> {
  using attribute_type = Value;
  static bool const has_attribute = true;
  template <class I, class Ctx, class RCtx, class Attr>
  bool parse(I& first, I const& last, Ctx const& ctx, RCtx&, Attr& attr) const {
    x3::skip_over(first, last, ctx);
    I p = first;
    std::string digits;
    auto run = [&](I& q) { // (\d+_)*\d+
      if (q == last || !std::isdigit(static_cast<unsigned char>(*q)))
        return false;
      while (q != last &&
             (std::isdigit(static_cast<unsigned char>(*q)) ||
              (*q == '_' && q + 1 != last && std::isdigit(static_cast<unsigned char>(q[1]))))) {
        if (*q != '_')
          digits += *q;
        ++q;
      }
      return true;
    };
    if (!run(p))
      return false;
    bool is_float = false;
    if (p != last && *p == '.' && p + 1 != last && std::isdigit(static_cast<unsigned char>(p[1]))) {
      digits += '.';
      ++p;
      run(p);
      is_float = true;
    }
    if (p != last && (*p == 'e' || *p == 'E')) {
      I q = p + 1;
      std::string saved = digits;
      digits += 'e';
      if (q != last && (*q == '+' || *q == '-'))
        digits += *q++;
      if (run(q)) {
        p = q;
        is_float = true;
      } else {
        digits = saved;
      }
    }
    Value v;
    errno = 0;
    if (is_float) {
      v = Value::floating(std::strtod(digits.c_str(), nullptr));
    } else {
      long long i = std::strtoll(digits.c_str(), nullptr, 10);
      if (errno == ERANGE)
        return false; // reported as a bad expression; Python ints are unbounded, ours 64-bit
      v = Value::integer(i);
    }
    if constexpr (!std::is_same_v<Attr, x3::unused_type>)
      attr = v;
    first = p;
    return true;
  }
};

// A quoted string with Python escapes.
struct string_parser : x3::parser<string_parser> {
  using attribute_type = std::string;
  static bool const has_attribute = true;
  template <class I, class Ctx, class RCtx, class Attr>
  bool parse(I& first, I const& last, Ctx const& ctx, RCtx&, Attr& attr) const {
    x3::skip_over(first, last, ctx);
    if (first == last || (*first != '\'' && *first != '"'))
      return false;
    I p = first + 1;
    while (p != last && *p != *first)
      p += (*p == '\\' && p + 1 != last) ? 2 : 1;
    if (p == last)
      return false;
    if constexpr (!std::is_same_v<Attr, x3::unused_type>)
      attr = decode_string_literal(
          std::string_view(first + 1, static_cast<std::size_t>(p - first - 1)));
    first = p + 1;
    return true;
  }
};

pos_parser const pos{};
ident_parser const ident{{}, false};
ident_parser const any_ident{{}, true};
number_parser const number{};
string_parser const string_lit{};
inline kw_parser kw(const char* w) {
  return kw_parser{{}, w};
}

} // namespace tk::jinja::expr_parser
