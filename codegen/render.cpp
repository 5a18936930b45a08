#include "codegen/render.hpp"

#include "jinja/environment.hpp"
#include "jinja/error.hpp"
#include "jinja/value.hpp"
#include "support/diagnostics.hpp"

#include <algorithm>
#include <cstdlib>

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

std::map<std::string, std::string> render_files(const Lowered& lowered,
                                                const std::string& file_stem,
                                                const std::filesystem::path& templates,
                                                const RenderedFile& rendered) {
  // Converted once for every file (the kernel files share it, plus their `kernel`).
  const jinja::Value data = jinja::Value::from_json(template_data(lowered, file_stem));
  jinja::Environment env(templates, kOptions);
  std::map<std::string, std::string> files;
  auto add = [&](const std::string& name, const std::string& tmpl, const jinja::Value& d) {
    const std::string& text = files[name] = render(env, tmpl, d, name);
    if (rendered)
      rendered(name, text);
  };
  add(file_stem + ".hpp", "common/header.hpp.jinja", data);
  if (lowered.cpu)
    add(file_stem + "_cpu.cpp", "cpu/kernel_cpu.cpp.jinja", data);
  if (lowered.tt) {
    add(file_stem + "_tt.cpp", "tt/host_tt.cpp.jinja", data);
    // Each kernel file is rendered from the whole data plus `kernel`: the name and TT data of the
    // program it belongs to (a reduction kernel launches two, kernels/<K>/ and
    // kernels/<K>_combine/).
    for (const jinja::Value& k : data.find("kernels")->as_list())
      for (const jinja::Value& launch : k.find("launches")->as_list()) {
        // The top-level entries in the key order nlohmann::json gives them, `kernel` among them.
        jinja::Dict entries = data.as_dict();
        entries.emplace_back("kernel", launch);
        std::stable_sort(entries.begin(), entries.end(),
                         [](const auto& a, const auto& b) { return a.first < b.first; });
        const jinja::Value one = jinja::Value::dict(std::move(entries));
        for (const char* role : {"reader", "compute", "writer"}) {
          const std::string file =
              "kernels/" + launch.find("name")->as_string() + "/" + role + ".cpp";
          add(file, std::string("tt/") + role + ".cpp.jinja", one);
        }
      }
  }
  return files;
}

} // namespace tk::codegen
