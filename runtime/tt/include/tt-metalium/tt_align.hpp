// tt::align (mirrors tt_metal/api/tt-metalium/tt_align.hpp): `addr` rounded up to a multiple of the
// power-of-two `alignment`, in the common type of the two.
#pragma once
#include <cstdint>
#include <type_traits>

namespace tt {
template <typename T1, typename T2>
constexpr std::common_type_t<T1, T2> align(T1 addr, T2 alignment) {
  static_assert(std::is_integral_v<T1>, "align() requires integral types");
  static_assert(std::is_integral_v<T2>, "align() requires integral types");
  using T = std::common_type_t<T1, T2>;
  const T a = static_cast<T>(alignment);
  return (static_cast<T>(addr) + a - 1) / a * a;
}
} // namespace tt
