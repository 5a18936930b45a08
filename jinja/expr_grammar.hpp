// The expression grammar (Boost.Spirit X3), reached through a Cursor over one tag's content.
// The statement parser walks a tag with a Cursor: keywords, names and punctuation by hand-sized
// steps, expressions through the X3 grammar. Every failure is a located TemplateError.
#pragma once

#include "jinja/ast.hpp"

#include <cstdint>
#include <optional>
#include <string>

namespace tk::jinja {

class Cursor {
public:
  /// Walks [begin, end) of t.file.text().
  Cursor(const Template& t, std::uint32_t begin, std::uint32_t end);

  /// Consumes `word` if it comes next as a whole word.
  bool keyword(const char* word);
  /// Consumes a name that is not a reserved word (and, or, not, in, is, if, else).
  std::optional<std::string> name();
  std::string expect_name(const char* what);
  /// Consumes any word, reserved or not (a tag's keyword).
  std::optional<std::string> word();
  /// Consumes `c` if it comes next.
  bool punct(char c);
  void expect(char c);
  /// A whole expression, `a if c else b` included.
  ExprPtr expression();
  /// An expression without the conditional form, as after `for x in`.
  ExprPtr or_expression();
  /// Fails with "expected <what>" unless only whitespace is left.
  void expect_end(const std::string& what);
  bool at_end();
  /// The offset of the next token.
  std::uint32_t offset();
  [[noreturn]] void error(const std::string& message);

private:
  void skip();
  const Template& t_;
  const char* base_;
  const char* first_;
  const char* last_;
};

} // namespace tk::jinja
