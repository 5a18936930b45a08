#include "codegen/generate.hpp"

#include "codegen/format.hpp"

namespace tk::codegen {

std::map<std::string, std::string> generate(const Lowered& lowered, const std::string& file_stem,
                                            const std::filesystem::path& templates) {
  std::map<std::string, std::string> files = render_files(lowered, file_stem, templates);
  for (auto& [name, text] : files)
    text = format_cpp(text, name);
  return files;
}

std::map<std::string, std::string> generate(const ir::Module& lowered, lower::Target target,
                                            const std::string& file_stem) {
  Lowered l;
  (target == lower::Target::cpu ? l.cpu : l.tt) = lowered;
  return generate(l, file_stem);
}

} // namespace tk::codegen
