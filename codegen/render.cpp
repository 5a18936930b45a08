#include "codegen/render.hpp"

#include "codegen/layout.hpp"
#include "jinja/environment.hpp"
#include "jinja/error.hpp"
#include "jinja/value.hpp"
#include "support/diagnostics.hpp"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <future>
#include <mutex>
#include <string_view>
#include <vector>

namespace tk::codegen {

namespace {

// Every template of a file is rendered with these options (the conformance suite's
// tests/golden/jinja-templates/options.json says the same).
const jinja::Options kOptions{.trim_blocks = true, .lstrip_blocks = true};

std::string render(const jinja::Environment& env, const std::string& name, const jinja::Value& data,
                   const std::string& file) {
  try {
    return env.render_file_value(name, data);
  } catch (const jinja::TemplateError& e) {
    throw InternalError(std::string("internal error: rendering ") + file + ": " + e.what());
  }
}

} // namespace

std::filesystem::path template_dir() {
  if (const char* env = std::getenv("TILEKIT_TEMPLATE_DIR"); env && *env)
    return env;
  return TK_TEMPLATE_DIR;
}

namespace {

// Renders every file with `env`. The main thread is the longest path of a ttgen run once the
// templates lay out the files themselves (callgrind, docs/ttgen.md "Start-up"), so the kernels'
// files render on a thread of their own, the reader first, while this thread renders the host,
// CPU and header files, then takes the kernel files that thread has not started: the two share one
// list, each taking the next file, so neither waits on the other's last file. `rendered` is called
// for each file as soon as it is rendered, one call at a time.
std::map<std::string, std::string> render_with(const jinja::Environment& env,
                                               const Lowered& lowered, const std::string& file_stem,
                                               const RenderedFile& rendered) {
  std::map<std::string, std::string> files;
  std::mutex mutex; // guards `files` and the calls of `rendered`
  auto add = [&](const std::string& name, const std::string& tmpl, const jinja::Value& d) {
    std::string text = wrap_long_lines(render(env, tmpl, d, name));
    const std::lock_guard<std::mutex> lock(mutex);
    const std::string& kept = files[name] = std::move(text);
    if (rendered)
      rendered(name, kept);
  };
  // Built once for every file (the kernel files share it, plus their `kernel`).
  const jinja::Value data = template_data(lowered, file_stem);
  // Each kernel file is rendered from the whole data plus `kernel`: the name and TT data of the
  // program it belongs to (a reduction kernel launches two, kernels/<K>/ and kernels/<K>_combine/).
  struct KernelFile {
    std::string file, tmpl;
    jinja::Value data;
  };
  std::vector<KernelFile> kernel_files;
  if (lowered.tt)
    for (const jinja::Value& k : data.find("kernels")->as_list())
      for (const jinja::Value& launch : k.find("launches")->as_list()) {
        // The top-level entries in sorted key order (as template_data gives them), `kernel` among
        // them.
        jinja::Dict entries = data.as_dict();
        entries.emplace_back("kernel", launch);
        std::stable_sort(entries.begin(), entries.end(),
                         [](const auto& a, const auto& b) { return a.first < b.first; });
        const jinja::Value one = jinja::Value::dict(std::move(entries));
        for (const char* role : {"reader", "compute", "writer"})
          kernel_files.push_back(
              {"kernels/" + launch.find("name")->as_string() + "/" + role + ".cpp",
               std::string("tt/") + role + ".cpp.jinja", one});
      }
  std::atomic<std::size_t> next{0};
  auto take_kernel_files = [&] {
    for (std::size_t i; (i = next.fetch_add(1)) < kernel_files.size();)
      add(kernel_files[i].file, kernel_files[i].tmpl, kernel_files[i].data);
  };
  // Declared after what it uses: an exception on this thread waits for it (std::async's future).
  std::future<void> kernels;
  if (!kernel_files.empty())
    kernels = std::async(std::launch::async, take_kernel_files);
  if (lowered.tt)
    add(file_stem + "_tt.cpp", "tt/host_tt.cpp.jinja", data);
  if (lowered.cpu)
    add(file_stem + "_cpu.cpp", "cpu/kernel_cpu.cpp.jinja", data);
  add(file_stem + ".hpp", "common/header.hpp.jinja", data);
  take_kernel_files();
  if (kernels.valid())
    kernels.get(); // rethrows a kernel template's error
  return files;
}

} // namespace

std::map<std::string, std::string> render_files(const Lowered& lowered,
                                                const std::string& file_stem,
                                                const std::filesystem::path& templates,
                                                const RenderedFile& rendered) {
  const jinja::Environment env(templates, kOptions);
  return render_with(env, lowered, file_stem, rendered);
}

ParsedTemplates parse_templates_async(bool cpu, bool tt, const std::filesystem::path& templates) {
  return std::async(std::launch::async,
                    [cpu, tt, templates]() -> std::shared_ptr<const jinja::Environment> {
                      auto env = std::make_shared<jinja::Environment>(templates, kOptions);
                      for (const char* dir : {"common", "cpu", "tt"}) {
                        if ((dir == std::string_view("cpu") && !cpu) ||
                            (dir == std::string_view("tt") && !tt))
                          continue;
                        std::error_code ec;
                        for (const auto& e :
                             std::filesystem::directory_iterator(templates / dir, ec)) {
                          if (e.path().extension() != ".jinja")
                            continue;
                          // A template that does not parse is left out: the render that uses
                          // it parses it again and reports it as it always does.
                          try {
                            env->load(std::string(dir) + "/" + e.path().filename().string());
                          } catch (const jinja::TemplateError&) {
                          }
                        }
                      }
                      return env;
                    })
      .share();
}

std::map<std::string, std::string> render_files(const Lowered& lowered,
                                                const std::string& file_stem,
                                                const ParsedTemplates& templates,
                                                const RenderedFile& rendered) {
  const std::shared_ptr<const jinja::Environment> env = templates.get();
  return render_with(*env, lowered, file_stem, rendered);
}

} // namespace tk::codegen
