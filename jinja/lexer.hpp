// The lexer splits a template into text, {{ output }} and {% block %} tokens, dropping comments
// and applying whitespace control ({%- -%}, trim_blocks, lstrip_blocks) exactly as jinja2 does.
// Tag contents are kept as byte ranges and parsed later by the expression grammar.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tk::jinja {

struct Options;
struct Template;

enum class TokenKind : std::uint8_t { text, output, block };

struct Token {
  TokenKind kind = TokenKind::text;
  std::uint32_t tag = 0;   // offset of the opening "{{" / "{%" (of the text for text tokens)
  std::uint32_t begin = 0; // content range: the text, or what lies between the delimiters
  std::uint32_t end = 0;
};

/// jinja2's source preparation: line ends become "\n", and one trailing newline is dropped
/// unless keep_trailing_newline is set.
std::string normalize_source(std::string_view source, const Options& options);

/// Tokenizes t.file.text(). Throws TemplateError on an unclosed tag, comment or string.
std::vector<Token> tokenize(const Template& t, const Options& options);

} // namespace tk::jinja
