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

std::uint32_t exponent(std::uint32_t bits) {
  return (bits >> 23) & 0xffu;
}

enum class Ties { even, away };

float round_one(std::uint32_t bits, std::uint32_t shared, Ties ties) {
  const std::uint32_t exp = exponent(bits);
  if (exp == 0)
    return 0.0f;
  std::uint64_t m = (1u << 23) | (bits & 0x7fffffu);
  const std::uint32_t shift = shared - exp;
  m = shift >= 32 ? 0 : m >> shift;
  const std::uint64_t round = m & 0x1ffffu;
  m >>= 17;
  if (round > 0x10000u || (round == 0x10000u && (ties == Ties::away || (m & 1u))))
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

// `keep` masks each value's bits first: all of them for the host's packing, bf16's for the
// device packer, which truncates to bf16 before it rounds.
void round_rows(const float* in, float* out, std::int64_t rows, std::int64_t cols,
                std::uint32_t keep, Ties ties) {
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t c0 = 0; c0 < cols; c0 += 16) {
      const std::int64_t n = std::min<std::int64_t>(16, cols - c0);
      std::uint32_t bits[16];
      std::uint32_t shared = 0; // the padding zeros do not raise it
      for (std::int64_t k = 0; k < n; ++k) {
        bits[k] = std::bit_cast<std::uint32_t>(in[r * cols + c0 + k]) & keep;
        shared = std::max(shared, exponent(bits[k]));
      }
      for (std::int64_t k = 0; k < n; ++k)
        out[r * cols + c0 + k] = round_one(bits[k], shared, ties);
    }
}

} // namespace

std::vector<float> round_to_bfp8(MatrixView<const float> v) {
  std::vector<float> out(static_cast<std::size_t>(v.size()));
  round_rows(v.data, out.data(), v.rows, v.cols, 0xffffffffu, Ties::even);
  return out;
}

std::vector<float> round_to_bfp8(TensorView<const float> v) {
  std::vector<float> out(static_cast<std::size_t>(v.batch * v.rows * v.cols));
  round_rows(v.data, out.data(), v.batch * v.rows, v.cols, 0xffffffffu, Ties::even);
  return out;
}

void pack_to_bfp8(MatrixView<float> v) {
  round_rows(v.data, v.data, v.rows, v.cols, 0xffff0000u, Ties::away);
}

void pack_to_bfp8(TensorView<float> v) {
  round_rows(v.data, v.data, v.batch * v.rows, v.cols, 0xffff0000u, Ties::away);
}

} // namespace tk::cpu
