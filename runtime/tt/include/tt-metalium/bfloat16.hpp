// Host bfloat16 (mirrors tt_metal/api/tt-metalium/bfloat16.hpp): construction rounds to nearest,
// ties to even.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <iostream>
#include <random>
#include <type_traits>
#include <utility>
#include <vector>

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

// Host helpers the SDK declares beside bfloat16 (tt_metal/api/tt-metalium/bfloat16.hpp; behaviour
// as tt_metal/impl/data_format/bfloat16.cpp; the random vectors: uniform floats in [0, rand_max)
// from one mt19937 seeded with `seed`, plus offset, drawn in element order).

/// first -> low 16 bits, second -> high 16 bits.
inline std::uint32_t pack_two_bfloat16_into_uint32(std::pair<bfloat16, bfloat16> two_bfloats) {
  return static_cast<std::uint32_t>(two_bfloats.first.to_uint16()) |
         (static_cast<std::uint32_t>(two_bfloats.second.to_uint16()) << 16);
}

inline std::vector<bfloat16> create_random_vector_of_bfloat16_native(std::size_t num_bytes,
                                                                     float rand_max_float, int seed,
                                                                     float offset = 0.0f) {
  auto rand_float =
      std::bind(std::uniform_real_distribution<float>(0, rand_max_float), std::mt19937(seed));
  std::vector<bfloat16> vec(num_bytes / sizeof(bfloat16), bfloat16(0.0f));
  for (auto& elem : vec)
    elem = bfloat16(rand_float() + offset);
  return vec;
}

/// Two bfloat16 per uint32 word (pack_two_bfloat16_into_uint32).
inline std::vector<std::uint32_t> create_random_vector_of_bfloat16(std::size_t num_bytes,
                                                                   int rand_max_float, int seed,
                                                                   float offset = 0.0f) {
  auto rand_float =
      std::bind(std::uniform_real_distribution<float>(0, static_cast<float>(rand_max_float)),
                std::mt19937(seed));
  std::vector<std::uint32_t> vec(num_bytes / sizeof(std::uint32_t), 0);
  for (std::uint32_t& elem : vec) {
    const float first = rand_float() + offset;
    const float second = rand_float() + offset;
    elem = pack_two_bfloat16_into_uint32({bfloat16(first), bfloat16(second)});
  }
  return vec;
}

/// rows x cols zeros with ones on the first num_ones diagonal elements (row-major).
inline std::vector<bfloat16> create_identity_matrix(int rows, int cols, int num_ones) {
  std::vector<bfloat16> vec(static_cast<std::size_t>(rows) * cols, bfloat16(0.0f));
  for (int i = 0; i < num_ones; i++)
    vec.at(static_cast<std::size_t>(i) * cols + i) = bfloat16(1.0f);
  return vec;
}

/// Two bfloat16 `value`s per uint32 word; a single word holds (value, 0).
inline std::vector<std::uint32_t> create_constant_vector_of_bfloat16(std::size_t num_bytes,
                                                                     float value) {
  const std::size_t words = std::max<std::size_t>(1, num_bytes / sizeof(std::uint32_t));
  const bfloat16 second = words == 1 ? bfloat16(0.0f) : bfloat16(value);
  return std::vector<std::uint32_t>(words,
                                    pack_two_bfloat16_into_uint32({bfloat16(value), second}));
}

/// Element 2i in the low half of word i, 2i + 1 in the high half.
inline std::vector<std::uint32_t>
pack_bfloat16_vec_into_uint32_vec(const std::vector<bfloat16>& data) {
  std::vector<std::uint32_t> result(data.size() / 2);
  for (std::size_t i = 0; i < result.size(); ++i)
    result[i] = pack_two_bfloat16_into_uint32({data[2 * i], data[2 * i + 1]});
  return result;
}

inline bfloat16 bfloat16_identity_transform(const bfloat16& input) {
  return input;
}

/// The inverse of pack_bfloat16_vec_into_uint32_vec, each element through `transform`.
inline std::vector<bfloat16> unpack_uint32_vec_into_bfloat16_vec(
    const std::vector<std::uint32_t>& data,
    const std::function<bfloat16(const bfloat16&)>& transform = bfloat16_identity_transform) {
  std::vector<bfloat16> result;
  result.reserve(data.size() * 2);
  for (const std::uint32_t packed : data) {
    result.push_back(transform(bfloat16::from_bits(static_cast<std::uint16_t>(packed & 0xffffu))));
    result.push_back(transform(bfloat16::from_bits(static_cast<std::uint16_t>(packed >> 16))));
  }
  return result;
}

/// numpy's isclose: |a - b| <= atol, or <= rtol * max(|a|, |b|); a miss is printed, as the SDK
/// does.
inline bool is_close(float a, float b, float rtol = 0.01f, float atol = 0.001f) {
  const float absdiff = std::fabs(a - b);
  const float reldenom = std::fmax(std::fabs(a), std::fabs(b));
  const bool result = absdiff <= atol || absdiff <= rtol * reldenom;
  if (!result) {
    std::cout << "Discrepacy: A = " << a << " B = " << b << std::endl;
    std::cout << "   absdiff = " << absdiff << std::endl;
    std::cout << "   reldiff = " << absdiff / (reldenom + 1e-6f) << std::endl;
  }
  return result;
}
