// Tokens of the tile IR's text form, for the reader. `//` comments are skipped; each token keeps
// its byte range so the reader reports `file:line:col: error: ...`.
#pragma once

#include "support/source.hpp"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tk::ir {

struct Token {
  enum class Kind : std::uint8_t { ident, integer, floating, string, grid, punct, end, bad };
  Kind kind = Kind::end;
  std::string_view text; // as written (for string: without quotes, still escaped)
  SourceRange range;
  bool unsigned_suffix = false; // integer written `5u`
};

/// Splits the whole text; a character that starts no token gives a `bad` token, and the reader
/// reports it where it is reached.
std::vector<Token> lex(std::string_view text);

} // namespace tk::ir
