// Code generation: lowered IR -> template data (template_data.hpp) -> the Jinja templates of each
// target -> tk::codegen::format_cpp -> files (the names are listed in docs/codegen.md).
#pragma once

#include "codegen/template_data.hpp"
#include "lowering/pipeline.hpp"

#include <filesystem>
#include <map>
#include <string>

namespace tk::codegen {

/// Where the templates are read from: $TILEKIT_TEMPLATE_DIR when set and non-empty, else the
/// source tree's templates/ directory baked in at compile time (TK_TEMPLATE_DIR).
std::filesystem::path template_dir();

/// Relative path -> formatted text of every file for the targets in `lowered`: F.hpp; F_cpu.cpp
/// for the cpu target; F_tt.cpp and kernels/K/{reader,compute,writer}.cpp per kernel K for the tt
/// target. Throws tk::InternalError when a template fails (the templates are ours, never the
/// user's).
std::map<std::string, std::string>
generate(const Lowered& lowered, const std::string& file_stem,
         const std::filesystem::path& templates = template_dir());

/// One target: the header (declaring only that target) and its files.
std::map<std::string, std::string> generate(const ir::Module& lowered, lower::Target target,
                                            const std::string& file_stem);

} // namespace tk::codegen
