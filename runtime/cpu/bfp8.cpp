// Bfp8_b rounding of the CPU target: <tilekit/cpu/bfp8.hpp>. Written from the format's definition
// (tt-metal's blockfloat_common.cpp is the device side's reference; no Debian package has it), and
// held to the emulator's host packing by tests/unit/cpu_runtime.
#include <tilekit/cpu/bfp8.hpp>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>

namespace tk::cpu {
namespace {

std::uint32_t exponent(float x) {
  return (std::bit_cast<std::uint32_t>(x) >> 23) & 0xffu;
}

float round_one(float x, std::uint32_t shared) {
  const std::uint32_t bits = std::bit_cast<std::uint32_t>(x);
  const std::uint32_t exp = exponent(x);
  if (exp == 0)
    return 0.0f;
  std::uint64_t m = (1u << 23) | (bits & 0x7fffffu);
  const std::uint32_t shift = shared - exp;
  m = shift >= 32 ? 0 : m >> shift;
  const std::uint64_t round = m & 0x1ffffu;
  m >>= 17;
  if (round > 0x10000u || (round == 0x10000u && (m & 1u)))
    ++m;
  m = std::min<std::uint64_t>(m, 127);
  if (m == 0)
    return 0.0f;
  if (exp == 0xffu) // an infinity (magnitude 64: the hidden bit alone) or a NaN
    return std::bit_cast<float>((bits & 0x80000000u) | (m == 64 ? 0x7f800000u : 0x7fc00000u));
  // m * 2^(shared - 133): exact in float (7 significant bits, at least 2^-132).
  const float v = std::ldexp(static_cast<float>(m), static_cast<int>(shared) - 133);
  return (bits & 0x80000000u) ? -v : v;
}

void round_rows(const float* in, float* out, std::int64_t rows, std::int64_t cols) {
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t c0 = 0; c0 < cols; c0 += 16) {
      const std::int64_t n = std::min<std::int64_t>(16, cols - c0);
      const float* x = in + r * cols + c0;
      std::uint32_t shared = 0; // the padding zeros do not raise it
      for (std::int64_t k = 0; k < n; ++k)
        shared = std::max(shared, exponent(x[k]));
      for (std::int64_t k = 0; k < n; ++k)
        out[r * cols + c0 + k] = round_one(x[k], shared);
    }
}

} // namespace

std::vector<float> round_to_bfp8(MatrixView<const float> v) {
  std::vector<float> out(static_cast<std::size_t>(v.size()));
  round_rows(v.data, out.data(), v.rows, v.cols);
  return out;
}

std::vector<float> round_to_bfp8(TensorView<const float> v) {
  std::vector<float> out(static_cast<std::size_t>(v.batch * v.rows * v.cols));
  round_rows(v.data, out.data(), v.batch * v.rows, v.cols);
  return out;
}

} // namespace tk::cpu
