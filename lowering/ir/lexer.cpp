#include "lowering/ir/lexer.hpp"

#include <cctype>

namespace tk::ir {

namespace {
bool ident_start(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_';
}
bool ident_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}
bool digit(char c) {
  return std::isdigit(static_cast<unsigned char>(c)) != 0;
}
} // namespace

std::vector<Token> lex(std::string_view s) {
  std::vector<Token> out;
  std::size_t i = 0, n = s.size();
  auto push = [&](Token::Kind k, std::size_t b, std::size_t e) {
    Token t;
    t.kind = k;
    t.text = s.substr(b, e - b);
    t.range = {static_cast<std::uint32_t>(b), static_cast<std::uint32_t>(e)};
    out.push_back(t);
  };
  while (i < n) {
    char c = s[i];
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
      continue;
    }
    if (c == '/' && i + 1 < n && s[i + 1] == '/') {
      while (i < n && s[i] != '\n')
        ++i;
      continue;
    }
    std::size_t b = i;
    if (ident_start(c)) {
      // Dotted names (`tile.add`) are one token; `..` is never part of a name.
      while (i < n && ident_char(s[i]))
        ++i;
      while (i + 1 < n && s[i] == '.' && ident_start(s[i + 1])) {
        ++i;
        while (i < n && ident_char(s[i]))
          ++i;
      }
      push(Token::Kind::ident, b, i);
      continue;
    }
    if (digit(c)) {
      while (i < n && digit(s[i]))
        ++i;
      if (i + 1 < n && s[i] == 'x' && digit(s[i + 1])) { // a grid: 8x8
        ++i;
        while (i < n && digit(s[i]))
          ++i;
        push(Token::Kind::grid, b, i);
        continue;
      }
      bool is_float = false;
      if (i + 1 < n && s[i] == '.' && digit(s[i + 1])) {
        is_float = true;
        ++i;
        while (i < n && digit(s[i]))
          ++i;
      }
      if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        std::size_t j = i + 1;
        if (j < n && (s[j] == '+' || s[j] == '-'))
          ++j;
        if (j < n && digit(s[j])) {
          is_float = true;
          i = j;
          while (i < n && digit(s[i]))
            ++i;
        }
      }
      if (!is_float && i < n && s[i] == 'u') {
        push(Token::Kind::integer, b, i);
        out.back().unsigned_suffix = true;
        out.back().range.end = static_cast<std::uint32_t>(++i);
        continue;
      }
      push(is_float ? Token::Kind::floating : Token::Kind::integer, b, i);
      continue;
    }
    if (c == '"') {
      ++i;
      while (i < n && s[i] != '"' && s[i] != '\n')
        i += s[i] == '\\' && i + 1 < n ? 2 : 1;
      if (i >= n || s[i] != '"') {
        push(Token::Kind::bad, b, i);
        continue;
      }
      push(Token::Kind::string, b + 1, i);
      out.back().range = {static_cast<std::uint32_t>(b), static_cast<std::uint32_t>(i + 1)};
      ++i;
      continue;
    }
    static constexpr std::string_view two[] = {"..", "::", "<=", ">=", "==", "!=", "&&", "||"};
    bool matched = false;
    for (std::string_view t : two)
      if (s.substr(i, 2) == t) {
        push(Token::Kind::punct, i, i + 2);
        i += 2;
        matched = true;
        break;
      }
    if (matched)
      continue;
    if (std::string_view("()[]{},:=<>+-*/%").find(c) != std::string_view::npos) {
      push(Token::Kind::punct, i, i + 1);
      ++i;
      continue;
    }
    push(Token::Kind::bad, i, i + 1);
    ++i;
  }
  push(Token::Kind::end, n, n);
  return out;
}

} // namespace tk::ir
