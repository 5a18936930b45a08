#include "codegen/generate.hpp"

#include "codegen/format.hpp"

#include <future>
#include <vector>

namespace tk::codegen {

std::map<std::string, std::string> generate(const Lowered& lowered, const std::string& file_stem,
                                            const std::filesystem::path& templates) {
  std::map<std::string, std::string> files = render_files(lowered, file_stem, templates);
  // The files are independent and formatting is most of ttgen's time: one thread each.
  std::vector<std::future<void>> formatted;
  for (auto& [name, text] : files)
    formatted.push_back(std::async(
        std::launch::async, [&name = name, &text = text] { text = format_cpp(text, name); }));
  for (std::future<void>& f : formatted)
    f.get(); // rethrows a formatting error; the other threads finish first (~future)
  return files;
}

std::map<std::string, std::string> generate(const ir::Module& lowered, lower::Target target,
                                            const std::string& file_stem) {
  Lowered l;
  (target == lower::Target::cpu ? l.cpu : l.tt) = lowered;
  return generate(l, file_stem);
}

} // namespace tk::codegen
