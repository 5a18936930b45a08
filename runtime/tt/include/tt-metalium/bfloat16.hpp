// Host bfloat16 (mirrors tt_metal/api/tt-metalium/bfloat16.hpp): construction rounds to nearest,
// ties to even.
#pragma once
#include <cstdint>
#include <cstring>
#include <type_traits>

class bfloat16 {
public:
  constexpr bfloat16() = default;
  template <typename T, typename = std::enable_if_t<std::is_arithmetic_v<T>>>
  bfloat16(T value) : uint16_data(round_to_nearest_even(static_cast<float>(value))) {}

  static bfloat16 truncate(float value) {
    std::uint32_t bits = 0;
    std::memcpy(&bits, &value, 4);
    return from_bits(static_cast<std::uint16_t>(bits >> 16));
  }
  static constexpr bfloat16 from_bits(std::uint16_t bits) {
    bfloat16 b;
    b.uint16_data = bits;
    return b;
  }
  float to_float() const {
    std::uint32_t bits = static_cast<std::uint32_t>(uint16_data) << 16;
    float f = 0;
    std::memcpy(&f, &bits, 4);
    return f;
  }
  operator float() const { return to_float(); }
  std::uint16_t to_uint16() const { return uint16_data; }
  bool operator==(const bfloat16& o) const { return uint16_data == o.uint16_data; }
  bool operator!=(const bfloat16& o) const { return uint16_data != o.uint16_data; }

private:
  static std::uint16_t round_to_nearest_even(float value) {
    std::uint32_t bits = 0;
    std::memcpy(&bits, &value, 4);
    if ((bits & 0x7f800000u) == 0x7f800000u && (bits & 0x007fffffu) != 0) {
      return static_cast<std::uint16_t>((bits >> 16) | 0x40); // keep NaN a NaN
    }
    const std::uint32_t lsb = (bits >> 16) & 1u;
    return static_cast<std::uint16_t>((bits + 0x7fffu + lsb) >> 16);
  }
  std::uint16_t uint16_data = 0;
};
static_assert(sizeof(bfloat16) == 2);
