// Reference-renderer plumbing for the conformance tests (see jinja2_reference.hpp).
#include "tests/unit/jinja/jinja2_reference.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <unistd.h>

namespace tk::test {

namespace fs = std::filesystem;

namespace {

std::string quote(const std::string& s) {
  std::string out = "'";
  for (char c : s)
    out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

} // namespace

ReferenceResult render_with_jinja2(const ReferenceRequest& r) {
  // The interpreter is pinned: `python3` on PATH may be another Python with another jinja2.
  std::string cmd = "/usr/bin/python3 " +
                    quote(std::string(TK_SOURCE_DIR) + "/tests/unit/jinja/render_jinja2.py") +
                    " --template " + quote(r.template_name);
  for (const auto& s : r.search)
    cmd += " --search " + quote(s.string());
  if (!r.data.empty())
    cmd += " --data " + quote(r.data.string());
  if (!r.options.empty())
    cmd += " --options " + quote(r.options.string());
  if (r.parse_only)
    cmd += " --parse-only";
  fs::path err_file =
      fs::temp_directory_path() / ("tk_jinja2_" + std::to_string(::getpid()) + ".err");
  cmd += " 2>" + quote(err_file.string());
  ReferenceResult res;
  FILE* p = ::popen(cmd.c_str(), "r");
  if (!p)
    throw std::runtime_error("cannot run " + cmd);
  std::array<char, 4096> buf;
  std::size_t n;
  while ((n = std::fread(buf.data(), 1, buf.size(), p)) > 0)
    res.output.append(buf.data(), n);
  int status = ::pclose(p);
  res.ok = status == 0;
  res.error = slurp(err_file);
  fs::remove(err_file);
  return res;
}

jinja::Options read_options(const fs::path& file) {
  jinja::Options o;
  if (file.empty() || !fs::exists(file))
    return o;
  auto j = nlohmann::json::parse(slurp(file));
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (it.key() == "trim_blocks")
      o.trim_blocks = it.value().get<bool>();
    else if (it.key() == "lstrip_blocks")
      o.lstrip_blocks = it.value().get<bool>();
    else if (it.key() == "keep_trailing_newline")
      o.keep_trailing_newline = it.value().get<bool>();
    else
      throw std::runtime_error(file.string() + ": unknown option '" + it.key() + "'");
  }
  return o;
}

std::vector<std::string> conformance_cases(const fs::path& corpus) {
  std::vector<std::string> out;
  if (!fs::is_directory(corpus))
    return out;
  for (const auto& e : fs::directory_iterator(corpus))
    if (e.is_directory() && fs::exists(e.path() / "template.jinja"))
      out.push_back(e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<ProjectTemplate> project_templates(const fs::path& templates_root,
                                               const fs::path& data_root) {
  std::vector<ProjectTemplate> out;
  if (!fs::is_directory(templates_root))
    return out;
  for (const auto& e : fs::recursive_directory_iterator(templates_root)) {
    if (!e.is_regular_file() || e.path().extension() != ".jinja")
      continue;
    ProjectTemplate t;
    t.name = fs::relative(e.path(), templates_root).generic_string();
    if (fs::path d = data_root / (t.name + ".json"); fs::exists(d))
      t.data = d;
    if (fs::path o = data_root / (t.name + ".options.json"); fs::exists(o))
      t.options = o;
    else if (fs::path all = data_root / "options.json"; fs::exists(all))
      t.options = all;
    out.push_back(std::move(t));
  }
  std::sort(out.begin(), out.end(),
            [](const ProjectTemplate& a, const ProjectTemplate& b) { return a.name < b.name; });
  return out;
}

std::string test_name(const std::string& path) {
  std::string out;
  for (char c : path)
    out += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return out;
}

} // namespace tk::test
