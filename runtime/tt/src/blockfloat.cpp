// Bfp8_b and Bfp4_b tiles: bfp8.hpp and bfp4.hpp. One encoder and decoder for both, by the width
// of the magnitude (7 or 3 bits), as tt-metal's blockfloat_common.cpp has one per width.
#include "bfp4.hpp"
#include "bfp8.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace tk::rt::emu {
namespace {

std::uint32_t bits_of(float f) {
  std::uint32_t b = 0;
  std::memcpy(&b, &f, 4);
  return b;
}

enum class Ties { even, away };

// One value against its row's shared exponent: sign and a `width`-bit magnitude, rounded to
// nearest with ties as given.
std::uint8_t encode(std::uint32_t bits, std::uint32_t shared_exp, int width, Ties ties) {
  const std::uint32_t exp = (bits >> 23) & 0xffu;
  if (exp == 0) // zero or a denormal
    return 0;
  std::uint64_t mantissa = (1u << 23) | (bits & 0x7fffffu);
  const std::uint32_t shift = shared_exp - exp;
  mantissa = shift >= 32 ? 0 : mantissa >> shift;
  // 24 bits -> width: 24 - width bits are rounded away.
  const int cut = 24 - width;
  const std::uint64_t tie = std::uint64_t{1} << (cut - 1);
  const std::uint64_t round = mantissa & ((std::uint64_t{1} << cut) - 1);
  mantissa >>= cut;
  if (round > tie || (round == tie && (ties == Ties::away || (mantissa & 1u))))
    ++mantissa;
  mantissa = std::min<std::uint64_t>(mantissa, (1u << width) - 1);
  const std::uint32_t sign = mantissa == 0 ? 0 : bits >> 31;
  return static_cast<std::uint8_t>((sign << width) | mantissa);
}

// The value as the SDK reads it back: m normalized to a leading 1 (its top bit is the hidden
// bit), the exponent lowered by the shift. A row exponent of 255 (an infinity or a NaN was
// packed) decodes to infinities and NaNs as the bits say.
float decode(std::uint8_t code, std::uint32_t shared_exp, int width) {
  const std::uint32_t top = 1u << (width - 1);
  const std::uint32_t magnitude = code & ((top << 1) - 1);
  const std::uint32_t sign = static_cast<std::uint32_t>(code >> width) << 31;
  if (magnitude == 0)
    return sign ? -0.0f : 0.0f;
  std::uint32_t m = magnitude;
  int shift = 0;
  while ((m & top) == 0) {
    m <<= 1;
    ++shift;
  }
  const int exp = static_cast<int>(shared_exp) - shift;
  if (exp <= 0) { // below the normal range: the exact value, as a denormal
    const float v =
        std::ldexp(static_cast<float>(magnitude), static_cast<int>(shared_exp) - 127 - (width - 1));
    return sign ? -v : v;
  }
  const std::uint32_t fraction = (m << 1) & ((top << 1) - 1); // the hidden bit dropped
  const std::uint32_t bits =
      sign | (static_cast<std::uint32_t>(exp) << 23) | (fraction << (23 - width));
  float f = 0;
  std::memcpy(&f, &bits, 4);
  return f;
}

// A page: 64 exponent bytes, then the 1024 codes of `width` + 1 bits, packed from the low bits
// of each byte up.
void encode_rows(const float* values, std::uint8_t* page, int width, bool truncate_to_bf16,
                 Ties ties) {
  const int code_bits = width + 1;
  std::memset(page + 64, 0, 1024 * code_bits / 8);
  for (int row = 0; row < 64; ++row) {
    std::uint32_t bits[16];
    std::uint32_t shared = 0;
    for (int j = 0; j < 16; ++j) {
      bits[j] = bits_of(values[row * 16 + j]) & (truncate_to_bf16 ? 0xffff0000u : 0xffffffffu);
      shared = std::max(shared, (bits[j] >> 23) & 0xffu);
    }
    page[row] = static_cast<std::uint8_t>(shared);
    for (int j = 0; j < 16; ++j) {
      const int bit = (row * 16 + j) * code_bits;
      page[64 + bit / 8] |=
          static_cast<std::uint8_t>(encode(bits[j], shared, width, ties) << (bit % 8));
    }
  }
}

std::array<float, 1024> decode_rows(const std::uint8_t* page, int width) {
  const int code_bits = width + 1;
  const std::uint32_t mask = (1u << code_bits) - 1;
  std::array<float, 1024> out{};
  for (int row = 0; row < 64; ++row) // 4 faces x 16 rows
    for (int j = 0; j < 16; ++j) {
      const int bit = (row * 16 + j) * code_bits;
      const auto code = static_cast<std::uint8_t>((page[64 + bit / 8] >> (bit % 8)) & mask);
      out[row * 16 + j] = decode(code, page[row], width);
    }
  return out;
}

} // namespace

namespace bfp8 {
std::array<float, 1024> decode_tile(const std::uint8_t* page) {
  return decode_rows(page, 7);
}
float decode_value(std::uint8_t code, std::uint8_t shared_exp) {
  return decode(code, shared_exp, 7);
}
void encode_tile(const float* values, std::uint8_t* page) {
  encode_rows(values, page, 7, false, Ties::even);
}
void encode_tile_packer(const float* values, std::uint8_t* page) {
  encode_rows(values, page, 7, true, Ties::away);
}
} // namespace bfp8

namespace bfp4 {
std::array<float, 1024> decode_tile(const std::uint8_t* page) {
  return decode_rows(page, 3);
}
float decode_value(std::uint8_t code, std::uint8_t shared_exp) {
  return decode(code, shared_exp, 3);
}
void encode_tile(const float* values, std::uint8_t* page) {
  encode_rows(values, page, 3, false, Ties::even);
}
void encode_tile_packer(const float* values, std::uint8_t* page) {
  encode_rows(values, page, 3, true, Ties::away);
}
} // namespace bfp4

} // namespace tk::rt::emu
