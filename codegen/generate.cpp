#include "codegen/generate.hpp"

#include "codegen/format.hpp"

#include <future>
#include <utility>
#include <vector>

namespace tk::codegen {

namespace {

// `render(rendered)` renders every file, calling `rendered` with each as soon as it is done.
template <class Render>
std::map<std::string, std::string> render_and_format(const Render& render, Formatting formatting) {
  // Formatting is most of a ttgen run (callgrind, docs/ttgen.md "Start-up"). The files are
  // independent and clang::format::reformat keeps its state per call (clangd formats from worker
  // threads the same way), so each file is formatted on a thread of its own, from a copy, as soon
  // as it is rendered, while the next one renders. The results replace the rendered texts in the
  // map's order; an exception (an InternalError) reaches the caller once every thread is done
  // (std::async's futures wait when destroyed).
  std::vector<std::pair<std::string, std::future<std::string>>> jobs;
  // With the default, a file goes to clang-format only when needs_format says the templates could
  // not lay it out (a line over the column limit); the rest are written as rendered.
  std::map<std::string, std::string> files =
      render([&jobs, formatting](const std::string& name, const std::string& text) {
        if (formatting == Formatting::never ||
            (formatting == Formatting::as_needed && !needs_format(text)))
          return;
        jobs.emplace_back(
            name, std::async(std::launch::async, [name, text] { return format_cpp(text, name); }));
      });
  for (auto& [name, job] : jobs)
    files[name] = job.get();
  return files;
}

} // namespace

std::map<std::string, std::string> generate(const Lowered& lowered, const std::string& file_stem,
                                            const std::filesystem::path& templates,
                                            Formatting formatting) {
  return render_and_format(
      [&](const RenderedFile& rendered) {
        return render_files(lowered, file_stem, templates, rendered);
      },
      formatting);
}

std::map<std::string, std::string> generate(const Lowered& lowered, const std::string& file_stem,
                                            const ParsedTemplates& templates,
                                            Formatting formatting) {
  return render_and_format(
      [&](const RenderedFile& rendered) {
        return render_files(lowered, file_stem, templates, rendered);
      },
      formatting);
}

std::map<std::string, std::string> generate(const ir::Module& lowered, lower::Target target,
                                            const std::string& file_stem) {
  Lowered l;
  (target == lower::Target::cpu ? l.cpu : l.tt) = lowered;
  return generate(l, file_stem);
}

} // namespace tk::codegen
