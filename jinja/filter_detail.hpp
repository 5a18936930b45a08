// Helpers shared by the filter implementations (filters.cpp, sequence_filters.cpp): Python-like
// argument binding, iteration and attribute paths, and the sequence filters. Private to the engine.
#pragma once

#include "jinja/filters.hpp"
#include "jinja/operators.hpp"

#include <algorithm>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

namespace tk::jinja::filter_detail {

using K = Value::Kind;

// Binds positional and keyword arguments to a filter's parameter names, like a Python call.
class Params {
public:
  Params(std::string_view filter, const CallArgs& a, std::initializer_list<const char*> names)
      : names_(names), slots_(names.size(), nullptr) {
    if (a.positional.size() > names_.size())
      throw OpError("filter '" + std::string(filter) + "' takes at most " +
                    std::to_string(names_.size()) + " argument(s)");
    for (std::size_t i = 0; i < a.positional.size(); ++i)
      slots_[i] = &a.positional[i];
    for (const auto& [k, v] : a.keyword) {
      auto it = std::find(names_.begin(), names_.end(), k);
      if (it == names_.end())
        throw OpError("filter '" + std::string(filter) + "' got an unexpected keyword argument '" +
                      k + "'");
      slots_[static_cast<std::size_t>(it - names_.begin())] = &v;
    }
  }
  const Value* get(std::size_t i) const { return slots_[i]; }
  Value get_or(std::size_t i, Value d) const { return slots_[i] ? *slots_[i] : std::move(d); }
  bool flag(std::size_t i) const { return slots_[i] && truthy(*slots_[i]); }

private:
  std::vector<const char*> names_;
  std::vector<const Value*> slots_;
};

// The items a Python for loop would see: list items, dict keys, string characters.
List iterate(const Value& v);
// jinja2's make_attrgetter: "a.b.0" walks dict keys and list indices.
Value attr_path(const Value& v, const std::string& path, const Value* fallback = nullptr);
// An attribute= argument as a path string (an int means an index).
std::string attribute_arg(const Value* v);

Value do_sort(const Value& v, const Params& p);
Value do_select(std::string_view name, const Value& v, const CallArgs& a);
Value do_map(const Value& v, const CallArgs& a);
Value do_min_max(std::string_view name, const Value& v, const Params& p);
Value do_unique(const Value& v, const Params& p);

} // namespace tk::jinja::filter_detail
