// The layout the templates give the generated files themselves, so that ttgen need not run
// clang-format on them (docs/codegen.md, "Formatted by the templates"): the column limit, and the
// layout decisions the templates cannot make, wrapping the lines whose length depends on names.
// No LLVM here: the render layer (render.hpp) applies it, and the fuzz harnesses link it alone.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace tk::codegen {

/// The root .clang-format's ColumnLimit (format.cpp checks that the embedded style says the same).
inline constexpr std::size_t kColumnLimit = 100;

/// `text` with the long lines the templates cannot lay out themselves, because their length
/// depends on the names in them, laid out as clang-format lays them out:
/// - a line that is only a `//` comment and longer than kColumnLimit is reflowed: split at the last
///   blank that leaves it within the limit, the rest carried to the start of the next comment
///   line of the same block when that line continues the paragraph (the same indentation, not
///   empty, not a list item), else onto a line of its own;
/// - a function declaration or definition head at column 0 (`void f(A a, B b);` or `... {`) has
///   its parameters packed onto each line while they fit, continuation lines aligned after `(`;
/// - an indented call statement (`INDENT NAME(ARGS);`) whose arguments are names, numbers and
///   arithmetic has them packed onto each line while they fit, aligned after `(`, or from four
///   columns further in after a break at `(` when that takes fewer lines; when an argument would
///   not fit on its line aligned after `(`, the line stays long (clang-format then breaks inside
///   an argument, by penalties not modelled here).
/// - an indented declaration with a value (`INDENT TYPE NAME = VALUE;`, the value of the same kinds
///   of expression) is broken after its `=`, the value four columns further in, when it fits there.
/// Other lines are copied unchanged. A line no rule can shorten (one long word, a long
/// statement) stays long, and needs_format (format.hpp) then sends the file to clang-format.
std::string wrap_long_lines(std::string text);

} // namespace tk::codegen
