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

/// Whether ttgen must run format_cpp on a rendered file, or may write it as rendered. The templates
/// emit clang-format's fixed point (docs/codegen.md, "Formatted by the templates") for every line
/// they lay out; what they cannot lay out is a line longer than the style's column limit (a long
/// name or expression, which clang-format breaks where its line optimiser decides), and a tab,
/// trailing blank or a missing final newline would mean a template slipped. So: true when a line
/// is longer than the column limit (counted in bytes, so a line with multi-byte characters is
/// formatted when in doubt), holds a tab or ends in a blank, or when the file does not end in one
/// newline. tests/unit/render/format_rule_test.cpp checks that every file this passes for every
/// example, target and architecture (and tk-difftest's random programs) is a fixed point of
/// format_cpp.
bool needs_format(std::string_view code);

/// The embedded style, as YAML (the text of the repository's .clang-format).
std::string_view format_style_yaml();

} // namespace tk::codegen
