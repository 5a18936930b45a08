// Formats generated C++ with clang's format library in the project's own style (the root
// .clang-format, embedded at build time), so output is byte-identical on every machine and the
// templates need not fuss over indentation.
#pragma once

#include <string>
#include <string_view>

namespace tk::codegen {

/// Returns `code` formatted; `file_name` only selects the language and appears in errors.
/// Throws tk::InternalError if clang cannot format it (generated code is ours, never the user's).
std::string format_cpp(std::string_view code, std::string_view file_name = "generated.cpp");

/// The embedded style, as YAML (the text of the repository's .clang-format).
std::string_view format_style_yaml();

} // namespace tk::codegen
