// Built-in filters ({{ x | indent(4) }}), tests ({% if x is even %}) and the few methods
// templates call on values (d.items(), s.upper(), loop.cycle(...)), with jinja2 3.1 semantics.
#pragma once

#include "jinja/value.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tk::jinja {

struct CallArgs {
  std::vector<Value> positional;
  std::vector<std::pair<std::string, Value>> keyword;
};

bool is_filter(std::string_view name);
bool is_test(std::string_view name);

/// Applies filter `name`. `subject` is undefined only for `default`. A result may be undefined
/// (e.g. `first` of an empty list) without a location; failures throw OpError.
Value apply_filter(std::string_view name, const Value& subject, const CallArgs& args);
/// Applies test `name` to a defined value (defined/undefined are the renderer's).
bool apply_test(std::string_view name, const Value& subject, const CallArgs& args);
/// Calls method `name` of `obj`; nullopt when the type has no such method.
std::optional<Value> call_method(const Value& obj, std::string_view name, const CallArgs& args);

} // namespace tk::jinja
