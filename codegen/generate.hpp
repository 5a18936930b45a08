// Code generation: lowered IR -> template data (template_data.hpp) -> the Jinja templates of each
// target -> tk::codegen::format_cpp where needs_format says so -> files (the names are listed in
// docs/codegen.md).
#pragma once

#include "codegen/render.hpp"
#include "codegen/template_data.hpp"
#include "lowering/pipeline.hpp"

#include <filesystem>
#include <map>
#include <string>

namespace tk::codegen {

/// Which rendered files generate() runs through format_cpp (format.hpp).
enum class Formatting {
  as_needed, ///< those needs_format() says the templates could not lay out (the default)
  always,    ///< every file (what ttgen did before the templates emitted formatted text)
  never,     ///< none: the templates' text as rendered (for working on the templates)
};

/// Relative path -> formatted text of every file for the targets in `lowered`: F.hpp; F_cpu.cpp
/// for the cpu target; F_tt.cpp and kernels/K/{reader,compute,writer}.cpp per kernel K for the tt
/// target (render.hpp's render_files, then format_cpp as `formatting` says). Throws
/// tk::InternalError when a template fails (the templates are ours, never the user's).
std::map<std::string, std::string> generate(const Lowered& lowered, const std::string& file_stem,
                                            const std::filesystem::path& templates = template_dir(),
                                            Formatting formatting = Formatting::as_needed);

/// The same with the templates parse_templates_async (render.hpp) is parsing: ttgen starts that
/// before it lowers, so that the parse overlaps the lowering.
std::map<std::string, std::string> generate(const Lowered& lowered, const std::string& file_stem,
                                            const ParsedTemplates& templates,
                                            Formatting formatting = Formatting::as_needed);
/// One target: the header (declaring only that target) and its files.
std::map<std::string, std::string> generate(const ir::Module& lowered, lower::Target target,
                                            const std::string& file_stem);

} // namespace tk::codegen
