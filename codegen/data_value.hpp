// Building the template data as the renderer's own values (tk::jinja::Value), with no JSON in
// between: a dict built entry by entry whose keys come out sorted, as --emit=template-data prints
// them and as the templates have always iterated them, and `val` for the leaves and lists.
#pragma once

#include "jinja/value.hpp"

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

namespace tk::codegen {

using jinja::Value;

/// A value of the template data from a bool, an integer, a string (anything convertible to
/// std::string_view), a Value, or a range of those (a list).
template <class T>
Value val(const T& x) {
  if constexpr (std::is_same_v<T, Value>)
    return x;
  else if constexpr (std::is_same_v<T, bool>)
    return Value::boolean(x);
  else if constexpr (std::is_integral_v<T>)
    return Value::integer(static_cast<std::int64_t>(x));
  else if constexpr (std::is_convertible_v<const T&, std::string_view>)
    return Value::string(std::string(std::string_view(x)));
  else {
    jinja::List items;
    for (const auto& e : x)
      items.push_back(val(e));
    return Value::list(std::move(items));
  }
}

/// A dict of the template data. Keys are unique (set replaces); value() sorts them.
class DictBuilder {
public:
  DictBuilder() = default;
  DictBuilder(std::initializer_list<std::pair<std::string, Value>> entries) : entries_(entries) {}

  template <class T>
  DictBuilder& set(std::string_view key, const T& x) {
    return put(key, val(x));
  }
  DictBuilder& put(std::string_view key, Value v) {
    for (auto& [k, old] : entries_)
      if (k == key) {
        old = std::move(v);
        return *this;
      }
    entries_.emplace_back(std::string(key), std::move(v));
    return *this;
  }
  /// The dict, its keys in std::string's order (nlohmann::json's).
  Value value() && {
    std::sort(entries_.begin(), entries_.end(),
              [](const auto& a, const auto& b) { return a.first < b.first; });
    return Value::dict(std::move(entries_));
  }

private:
  jinja::Dict entries_;
};

/// A dict from its entries (keys unique).
inline Value dict(std::initializer_list<std::pair<std::string, Value>> entries) {
  return DictBuilder(entries).value();
}

} // namespace tk::codegen
