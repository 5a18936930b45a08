// The reader's cursor over the tokens of a dump: lookahead, expectations with located errors
// ("expected ')', got 'x'"), and the literal forms shared by every part of the grammar.
#pragma once

#include "lowering/ir/lexer.hpp"
#include "lowering/ir/module.hpp"
#include "support/diagnostics.hpp"

#include <algorithm>
#include <charconv>
#include <optional>
#include <string>
#include <vector>

namespace tk::ir {

class TokenStream {
public:
  /// Thrown after the error has been reported, to unwind to the reader's entry point.
  struct Failed {};

  TokenStream(std::string_view text, Diagnostics& d) : toks_(lex(text)), diags_(d) {}

protected:
  const Token& peek(std::size_t ahead = 0) const {
    return toks_[std::min(pos_ + ahead, toks_.size() - 1)];
  }
  bool at(Token::Kind k) const { return peek().kind == k; }
  bool at_punct(std::string_view p, std::size_t ahead = 0) const {
    return peek(ahead).kind == Token::Kind::punct && peek(ahead).text == p;
  }
  bool at_word(std::string_view w) const { return at(Token::Kind::ident) && peek().text == w; }
  const Token& next() {
    const Token& t = peek();
    if (pos_ < toks_.size() - 1)
      ++pos_;
    return t;
  }
  [[noreturn]] void fail(SourceRange r, std::string msg) {
    diags_.error(r, std::move(msg));
    throw Failed{};
  }
  [[noreturn]] void fail_expected(std::string what) {
    const Token& t = peek();
    std::string got = t.kind == Token::Kind::end ? "end of file" : "'" + std::string(t.text) + "'";
    fail(t.range, "expected " + what + ", got " + got);
  }
  void expect(std::string_view p) {
    if (!at_punct(p))
      fail_expected("'" + std::string(p) + "'");
    next();
  }
  bool accept(std::string_view p) {
    if (!at_punct(p))
      return false;
    next();
    return true;
  }
  void expect_word(std::string_view w) {
    if (!at_word(w))
      fail_expected("'" + std::string(w) + "'");
    next();
  }
  bool accept_word(std::string_view w) {
    if (!at_word(w))
      return false;
    next();
    return true;
  }
  std::string ident(std::string_view what) {
    if (!at(Token::Kind::ident))
      fail_expected(std::string(what));
    return std::string(next().text);
  }
  std::int64_t integer(std::string_view what) {
    bool neg = accept("-");
    if (!at(Token::Kind::integer))
      fail_expected(std::string(what));
    const Token& t = next();
    std::int64_t v = 0;
    auto r = std::from_chars(t.text.data(), t.text.data() + t.text.size(), v);
    if (r.ec != std::errc())
      fail(t.range, "integer out of range");
    return neg ? -v : v;
  }
  template <class E>
  E word_of(std::optional<E> (*from)(std::string_view), std::string_view what) {
    if (!at(Token::Kind::ident))
      fail_expected(std::string(what));
    const Token& t = next();
    auto v = from(t.text);
    if (!v)
      fail(t.range, "unknown " + std::string(what) + " '" + std::string(t.text) + "'");
    return *v;
  }
  Grid grid() {
    if (!at(Token::Kind::grid))
      fail_expected("a grid like 8x8");
    std::string_view s = next().text;
    std::size_t x = s.find('x');
    Grid g;
    std::from_chars(s.data(), s.data() + x, g.x);
    std::from_chars(s.data() + x + 1, s.data() + s.size(), g.y);
    return g;
  }

  std::vector<Token> toks_;
  std::size_t pos_ = 0;
  Diagnostics& diags_;
};

} // namespace tk::ir
