#include "codegen/format.hpp"

#include "codegen/format_style.inc" // kStyleYaml: the root .clang-format, embedded by CMake
#include "codegen/layout.hpp"
#include "support/diagnostics.hpp"

#include <clang/Format/Format.h>
#include <clang/Tooling/Core/Replacement.h>
#include <llvm/Support/Error.h>

#include <algorithm>

namespace tk::codegen {

std::string_view format_style_yaml() {
  return kStyleYaml;
}

static const clang::format::FormatStyle& style() {
  static const clang::format::FormatStyle s = [] {
    clang::format::FormatStyle st = clang::format::getLLVMStyle(clang::format::FormatStyle::LK_Cpp);
    if (std::error_code ec = clang::format::parseConfiguration(kStyleYaml, &st))
      throw InternalError("embedded .clang-format does not parse: " + ec.message());
    // reformat() runs a pass per fixer before the formatter, and each pass lexes, parses and
    // annotates the whole file again. The templates end every namespace with its comment and
    // write no using-declaration, so these two never change generated code (the goldens and
    // generated/ stay byte-identical) and cost a third of the formatting (callgrind,
    // docs/ttgen.md "Start-up").
    st.FixNamespaceComments = false;
    st.SortUsingDeclarations = clang::format::FormatStyle::SUD_Never;
    if (st.ColumnLimit != kColumnLimit)
      throw InternalError("the embedded .clang-format's ColumnLimit is not layout.hpp's");
    return st;
  }();
  return s;
}

bool needs_format(std::string_view code) {
  const std::size_t limit = kColumnLimit; // the style's (checked when it is parsed)
  if (code.empty() || code.front() == '\n' || code.back() != '\n' || code.ends_with("\n\n"))
    return true;
  // The line before: its last character ('\0': it was empty), and whether it opened a namespace.
  char previous = 'x';
  bool previous_namespace = false;
  for (std::size_t begin = 0; begin < code.size();) {
    const std::size_t end = code.find('\n', begin);
    const std::string_view line = code.substr(begin, end - begin);
    begin = end + 1;
    if (line.size() > limit || line.find('\t') != std::string_view::npos ||
        (!line.empty() && line.back() == ' '))
      return true;
    // clang-format keeps at most one empty line (MaxEmptyLinesToKeep), none at a block's start
    // (KeepEmptyLinesAtTheStartOfBlocks) nor before a closing brace, and writes an empty block
    // `{}`; a namespace's braces keep the empty line after and before them.
    const std::string_view text = line.substr(std::min(line.find_first_not_of(' '), line.size()));
    const bool closes = text.starts_with('}');
    if (previous == '\0' && (line.empty() || (closes && !text.starts_with("} // namespace"))))
      return true;
    if (previous == '{' && (closes || (line.empty() && !previous_namespace)))
      return true;
    previous = line.empty() ? '\0' : line.back();
    previous_namespace = text.starts_with("namespace ") && previous == '{';
  }
  return false;
}

std::string format_cpp(std::string_view code, std::string_view file_name) {
  llvm::StringRef text(code.data(), code.size());
  std::vector<clang::tooling::Range> ranges{{0, static_cast<unsigned>(code.size())}};
  clang::tooling::Replacements repl = clang::format::reformat(
      style(), text, ranges, llvm::StringRef(file_name.data(), file_name.size()));
  llvm::Expected<std::string> out = clang::tooling::applyAllReplacements(text, repl);
  if (!out)
    throw InternalError("clang-format failed on " + std::string(file_name) + ": " +
                        llvm::toString(out.takeError()));
  return std::move(*out);
}

} // namespace tk::codegen
