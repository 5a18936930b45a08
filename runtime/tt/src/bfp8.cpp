#include "bfp8.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace tk::rt::emu::bfp8 {
namespace {

std::uint32_t bits_of(float f) {
  std::uint32_t b = 0;
  std::memcpy(&b, &f, 4);
  return b;
}

enum class Ties { even, away };

// One value against its row's shared exponent: sign and 7-bit magnitude, rounded to nearest with
// ties as given.
std::uint8_t encode(std::uint32_t bits, std::uint32_t shared_exp, Ties ties) {
  const std::uint32_t exp = (bits >> 23) & 0xffu;
  if (exp == 0) // zero or a denormal
    return 0;
  std::uint64_t mantissa = (1u << 23) | (bits & 0x7fffffu);
  const std::uint32_t shift = shared_exp - exp;
  mantissa = shift >= 32 ? 0 : mantissa >> shift;
  // 24 bits -> 7: 17 bits are rounded away.
  const std::uint64_t round = mantissa & 0x1ffffu;
  mantissa >>= 17;
  if (round > 0x10000u || (round == 0x10000u && (ties == Ties::away || (mantissa & 1u))))
    ++mantissa;
  mantissa = std::min<std::uint64_t>(mantissa, 127);
  const std::uint32_t sign = mantissa == 0 ? 0 : bits >> 31;
  return static_cast<std::uint8_t>((sign << 7) | mantissa);
}

// The value as the SDK reads it back: m normalized to a leading 1 (its top bit is the hidden
// bit), the exponent lowered by the shift. A row exponent of 255 (an infinity or a NaN was
// packed) decodes to infinities and NaNs as the bits say.
float decode(std::uint8_t byte, std::uint32_t shared_exp) {
  std::uint32_t m = byte & 0x7fu;
  const std::uint32_t sign = static_cast<std::uint32_t>(byte >> 7) << 31;
  if (m == 0)
    return sign ? -0.0f : 0.0f;
  int shift = 0;
  while ((m & 0x40u) == 0) {
    m <<= 1;
    ++shift;
  }
  const int exp = static_cast<int>(shared_exp) - shift;
  if (exp <= 0) { // below the normal range: the exact value, as a denormal
    const float v =
        std::ldexp(static_cast<float>(byte & 0x7fu), static_cast<int>(shared_exp) - 133);
    return sign ? -v : v;
  }
  const std::uint32_t bits =
      sign | (static_cast<std::uint32_t>(exp) << 23) | (((m << 1) & 0x7fu) << 16);
  float f = 0;
  std::memcpy(&f, &bits, 4);
  return f;
}

void encode_rows(const float* values, std::uint8_t* page, bool truncate_to_bf16, Ties ties) {
  for (int row = 0; row < 64; ++row) {
    std::uint32_t bits[16];
    std::uint32_t shared = 0;
    for (int j = 0; j < 16; ++j) {
      bits[j] = bits_of(values[row * 16 + j]) & (truncate_to_bf16 ? 0xffff0000u : 0xffffffffu);
      shared = std::max(shared, (bits[j] >> 23) & 0xffu);
    }
    page[row] = static_cast<std::uint8_t>(shared);
    for (int j = 0; j < 16; ++j)
      page[64 + row * 16 + j] = encode(bits[j], shared, ties);
  }
}

} // namespace

std::array<float, 1024> decode_tile(const std::uint8_t* page) {
  std::array<float, 1024> out{};
  for (int row = 0; row < 64; ++row) // 4 faces x 16 rows
    for (int j = 0; j < 16; ++j)
      out[row * 16 + j] = decode(page[64 + row * 16 + j], page[row]);
  return out;
}

void encode_tile(const float* values, std::uint8_t* page) {
  encode_rows(values, page, false, Ties::even);
}

void encode_tile_packer(const float* values, std::uint8_t* page) {
  encode_rows(values, page, true, Ties::away);
}

} // namespace tk::rt::emu::bfp8
