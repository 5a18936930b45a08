// fmt formatters the SDK's tt_stl/fmt.hpp gives (mirrors tt_stl/tt_stl/fmt.hpp of tt-metal
// a8c5af0f5a26): it includes <fmt/format.h> and the standard containers' headers, and formats any
// enum as enchantum::scoped::to_string does, "Type::NAME" with the enum's unqualified type name
// (an empty string for a value that names no enumerator). The emulator reads the names from the
// compiler's __PRETTY_FUNCTION__ (GCC and Clang), for values in [-16, 256) ([0, 256) when
// unsigned), instead of enchantum.
#pragma once
#include <fmt/format.h>

#include <array>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <variant>
#include <vector>

namespace tk_emu_enum_names {
// "Type::NAME" for V, or "" when V names no enumerator (the compiler then shows "(Type)3").
template <auto V>
constexpr std::string_view scoped_name() {
  std::string_view s =
      __PRETTY_FUNCTION__; // "... [with auto V = ns::Type::NAME; ...]" or "[V = ...]"
  const std::size_t b = s.find("V = ") + 4;
  s = s.substr(b, s.find_first_of(";]", b) - b);
  if (s.find('(') != std::string_view::npos)
    return {};
  const std::size_t last = s.rfind("::");
  if (last == std::string_view::npos)
    return {};
  const std::size_t type = s.rfind("::", last - 1);
  return type == std::string_view::npos ? s : s.substr(type + 2);
}

template <typename E, int First, int... I>
constexpr std::array<std::string_view, sizeof...(I)> names(std::integer_sequence<int, I...>) {
  return {scoped_name<static_cast<E>(First + I)>()...};
}

template <typename E>
constexpr int first = std::is_signed_v<std::underlying_type_t<E>> ? -16 : 0;
template <typename E>
inline constexpr auto table = names<E, first<E>>(std::make_integer_sequence<int, 256 - first<E>>{});

template <typename E>
constexpr std::string_view to_string(E value) {
  const auto& table = tk_emu_enum_names::table<E>;
  const long long index = static_cast<long long>(value) - first<E>;
  return index >= 0 && index < static_cast<long long>(table.size()) ? table[index]
                                                                    : std::string_view();
}
} // namespace tk_emu_enum_names

template <typename T>
  requires std::is_enum_v<T>
struct fmt::formatter<T> {
  constexpr auto parse(format_parse_context& ctx) -> format_parse_context::iterator {
    return ctx.end();
  }
  auto format(const T& value, format_context& ctx) const -> format_context::iterator {
    return fmt::format_to(ctx.out(), "{}", tk_emu_enum_names::to_string(value));
  }
};
