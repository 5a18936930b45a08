// Rendering: lowered IR -> template data -> the Jinja templates of each target, as text laid out
// as clang-format would lay it out where the templates can (layout.hpp). generate.hpp adds the
// formatting step (clang::format, where needed); this half needs no LLVM, so the fuzz harnesses
// (fuzz/) link it alone.
#pragma once

#include "codegen/template_data.hpp"

#include <filesystem>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <string>

namespace tk::jinja {
class Environment;
}

namespace tk::codegen {

/// Where the templates are read from: $TILEKIT_TEMPLATE_DIR when set and non-empty, else the
/// source tree's templates/ directory baked in at compile time (TK_TEMPLATE_DIR).
std::filesystem::path template_dir();

/// Relative path -> rendered, not yet formatted text of every file generate() writes (the same
/// names, docs/codegen.md). Throws tk::InternalError when a template fails (the templates are
/// ours, never the user's). `rendered`, when given, is called with each file as soon as it is
/// rendered (generate() starts formatting a copy while the next one renders), one call at a time
/// but not always from the calling thread: the kernels' files render on a thread of their own.
/// The text is the templates' with the long lines layout.hpp lays out wrapped, not yet formatted.
using RenderedFile = std::function<void(const std::string& name, const std::string& text)>;
std::map<std::string, std::string>
render_files(const Lowered& lowered, const std::string& file_stem,
             const std::filesystem::path& templates = template_dir(),
             const RenderedFile& rendered = {});

/// The templates of a run, being parsed on a thread of its own.
using ParsedTemplates = std::shared_future<std::shared_ptr<const jinja::Environment>>;
/// Starts parsing, on a thread of its own, every template render_files renders for the targets
/// asked for (common/ and the targets' directories, includes among them), so that the parse
/// overlaps the lowering: ttgen starts it before the lowering chains run. The future rethrows a
/// template's parse error (as tk::InternalError).
ParsedTemplates parse_templates_async(bool cpu, bool tt,
                                      const std::filesystem::path& templates = template_dir());
/// render_files with templates parse_templates_async has parsed (or is parsing: waits for them).
std::map<std::string, std::string> render_files(const Lowered& lowered,
                                                const std::string& file_stem,
                                                const ParsedTemplates& templates,
                                                const RenderedFile& rendered = {});

} // namespace tk::codegen
