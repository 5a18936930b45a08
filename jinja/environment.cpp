// Environment: template loading, the parse cache, and the TemplateError format.
#include "jinja/environment.hpp"

#include "jinja/ast.hpp"
#include "jinja/lexer.hpp"
#include "jinja/parser.hpp"
#include "jinja/renderer.hpp"

#include <nlohmann/json.hpp>

#include <fstream>
#include <sstream>

namespace tk::jinja {

namespace {

std::string format_error(const std::string& name, std::uint32_t line, std::uint32_t col,
                         const std::string& message) {
  if (line == 0) // no place in the template, e.g. the file is missing
    return name + ": error: " + message;
  return name + ":" + std::to_string(line) + ":" + std::to_string(col) + ": error: " + message;
}

} // namespace

TemplateError::TemplateError(std::string name, std::uint32_t line, std::uint32_t col,
                             std::string message)
    : std::runtime_error(format_error(name, line, col, message)), name_(std::move(name)),
      line_(line), col_(col), message_(std::move(message)) {}

void fail(const Template& t, std::uint32_t offset, const std::string& message) {
  LineCol lc = t.file.line_col(offset);
  throw TemplateError(t.file.name(), lc.line, lc.col, message);
}

Environment::Environment(std::filesystem::path template_dir, Options options)
    : dir_(std::move(template_dir)), options_(options) {}

Environment::~Environment() = default;

std::shared_ptr<const Template> Environment::parse(std::string_view source,
                                                   std::string name) const {
  auto t = std::make_shared<Template>(std::move(name), normalize_source(source, options_));
  parse_template(*t, options_);
  return t;
}

std::shared_ptr<const Template> Environment::find(const std::string& name) const {
  {
    std::lock_guard lock(mutex_);
    if (auto it = cache_.find(name); it != cache_.end())
      return it->second;
  }
  std::filesystem::path path = dir_.empty() ? std::filesystem::path(name) : dir_ / name;
  std::ifstream in(path, std::ios::binary);
  if (!in || std::filesystem::is_directory(path))
    return nullptr;
  std::ostringstream text;
  text << in.rdbuf();
  auto t = parse(text.str(), name);
  std::lock_guard lock(mutex_);
  return cache_.emplace(name, std::move(t)).first->second;
}

std::shared_ptr<const Template> Environment::load(const std::string& name) const {
  if (auto t = find(name))
    return t;
  throw TemplateError(name, 0, 0, "template '" + name + "' not found in '" + dir_.string() + "'");
}

std::string Environment::render_file(const std::string& name, const nlohmann::json& data) const {
  return render_template(*this, load(name), data);
}

std::string Environment::render_file_value(const std::string& name, const Value& data) const {
  return render_template_value(*this, load(name), data);
}

std::string Environment::render_string(std::string_view source, const nlohmann::json& data,
                                       std::string name) const {
  // Keyed by name and text, in a separate namespace ("\n" never occurs in a file name we load).
  std::string key = "\n" + name + "\n" + std::string(source);
  std::shared_ptr<const Template> t;
  {
    std::lock_guard lock(mutex_);
    if (auto it = cache_.find(key); it != cache_.end())
      t = it->second;
  }
  if (!t) {
    t = parse(source, std::move(name));
    std::lock_guard lock(mutex_);
    cache_.emplace(key, t);
  }
  return render_template(*this, t, data);
}

} // namespace tk::jinja
