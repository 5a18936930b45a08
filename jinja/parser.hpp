// The statement parser: turns the lexer's tokens into the template's statement tree
// (if/elif/else, for/else, set, macro, call, include), parsing tag contents with Cursor.
#pragma once

namespace tk::jinja {

struct Options;
struct Template;

/// Fills t.body from t.file.text(). Throws TemplateError on the first syntax error.
void parse_template(Template& t, const Options& options);

} // namespace tk::jinja
