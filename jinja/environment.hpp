// The public face of TileKit's Jinja engine: an Environment loads templates from one directory,
// parses each once (cached), and renders it with JSON data. Output is byte-identical to Python's
// jinja2 with StrictUndefined for the supported subset (docs/templates.md).
#pragma once

#include "jinja/error.hpp"

#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

namespace tk::jinja {

struct Template;
class Value;

/// Same names and defaults as jinja2.Environment's options, plus TileKit's max_work.
struct Options {
  bool trim_blocks = false;   // drop the first newline after a block tag
  bool lstrip_blocks = false; // drop spaces and tabs before a block tag at the start of a line
  bool keep_trailing_newline = false;
  /// Not jinja2's: when non-zero, the most work one render may do, counting one per statement
  /// executed, loop iteration and expression evaluated plus one per character or item each
  /// produces; past it the render fails with "render budget exceeded". For templates that are not
  /// TileKit's own (the fuzzer): a short template can loop for hours or double a string until
  /// memory runs out, in jinja2 too. 0: no limit (TileKit's templates are trusted).
  std::uint64_t max_work = 0;
};

class Environment {
public:
  explicit Environment(std::filesystem::path template_dir = {}, Options options = {});
  ~Environment();
  Environment(const Environment&) = delete;
  Environment& operator=(const Environment&) = delete;

  /// Renders `template_dir / name`; `name` also names the template in errors.
  std::string render_file(const std::string& name, const nlohmann::json& data) const;
  /// The same with data already converted (Value::from_json, a dict): data rendered by several
  /// templates is converted once, and dicts share their entries.
  /// (A name of its own: an overload would make every json argument probe Value's conversions.)
  std::string render_file_value(const std::string& name, const Value& data) const;
  /// Renders template source held in memory; {% include %} still loads from template_dir.
  std::string render_string(std::string_view source, const nlohmann::json& data,
                            std::string name = "<string>") const;

  const Options& options() const { return options_; }
  const std::filesystem::path& template_dir() const { return dir_; }

  /// The parsed template `name`, loaded and parsed on first use. Throws TemplateError when it
  /// cannot be read or does not parse.
  std::shared_ptr<const Template> load(const std::string& name) const;
  /// Like load(), but nullptr when the file does not exist.
  std::shared_ptr<const Template> find(const std::string& name) const;
  /// Parses `source` (not cached).
  std::shared_ptr<const Template> parse(std::string_view source, std::string name) const;

private:
  std::filesystem::path dir_;
  Options options_;
  mutable std::mutex mutex_;
  mutable std::map<std::string, std::shared_ptr<const Template>> cache_;
};

} // namespace tk::jinja
