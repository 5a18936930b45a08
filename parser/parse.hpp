// Parsing .tk text into the DSL AST. The grammar itself (Boost.Spirit X3) stays inside parser/.
#pragma once

#include "dsl/ast.hpp"
#include "support/diagnostics.hpp"
#include "support/source.hpp"

#include <optional>

namespace tk::parser {

/// Parses every kernel of `file`. Returns nullopt iff a syntax error was reported to `diags`
/// (located in `file`, clang style). After an error the parser skips to the next line that starts
/// with `kernel` or `@options`, so errors in several kernels are reported in one run. On success
/// every node's Loc holds its byte range in `file`.
std::optional<dsl::Module> parse(const SourceFile& file, Diagnostics& diags);

} // namespace tk::parser
