// The renderer walks a parsed template with a chain of scopes (jinja2's scoping: a for body and
// a macro body get their own scope; if does not) and appends the output to a string.
#pragma once

#include "jinja/ast.hpp"
#include "jinja/value.hpp"

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tk::jinja {

class Environment;

/// Variables visible at one level; lookups walk outwards through the parents.
class Scope {
public:
  explicit Scope(Scope* parent = nullptr) : parent_(parent) {}
  const Value* lookup(std::string_view name) const;
  void set(std::string_view name, Value v);

private:
  Scope* parent_;
  std::vector<std::pair<std::string, Value>> vars_;
};

/// Renders `t` with `data` (a JSON object) as its top-level variables.
std::string render_template(const Environment& env, const std::shared_ptr<const Template>& t,
                            const nlohmann::json& data);
/// The same with `data` a dict Value (or none).
std::string render_template_value(const Environment& env, const std::shared_ptr<const Template>& t,
                                  const Value& data);

} // namespace tk::jinja
