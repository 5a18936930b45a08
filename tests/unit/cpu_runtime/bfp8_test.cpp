// The CPU target's bfp8 rounding (tk::cpu::round_to_bfp8) against the TT host's packing
// (pack_as_bfp8_tiles, then unpacked, on the emulator's SDK-shaped API): both targets must compute
// on the same values, bit for bit, zeros, denormals, infinities and NaNs included.
#include <tilekit/cpu/bfp8.hpp>

#include <tt-metalium/bfloat8.hpp>

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <limits>
#include <random>

namespace {

// The device's values for a rows x cols matrix (both multiples of 32): tile by tile, row-major.
std::vector<float> through_tt(const std::vector<float>& m, std::int64_t rows, std::int64_t cols) {
  std::vector<float> out(m.size());
  for (std::int64_t tr = 0; tr < rows / 32; ++tr)
    for (std::int64_t tc = 0; tc < cols / 32; ++tc) {
      std::vector<float> tile(1024);
      for (int r = 0; r < 32; ++r)
        for (int c = 0; c < 32; ++c)
          tile[r * 32 + c] = m[static_cast<std::size_t>((tr * 32 + r) * cols + tc * 32 + c)];
      const std::vector<std::uint32_t> packed =
          pack_as_bfp8_tiles(ttsl::Span<const float>(tile.data(), tile.size()), true, false);
      const std::vector<float> back = unpack_bfp8_tiles_into_float_vec(
          ttsl::Span<const std::uint32_t>(packed.data(), packed.size()), true, false);
      for (int r = 0; r < 32; ++r)
        for (int c = 0; c < 32; ++c)
          out[static_cast<std::size_t>((tr * 32 + r) * cols + tc * 32 + c)] = back[r * 32 + c];
    }
  return out;
}

TEST(CpuBfp8, RoundsExactlyAsTheTtHostPacks) {
  std::mt19937 rng(42);
  std::normal_distribution<float> n(0.0f, 1.0f);
  std::uniform_int_distribution<int> e(-30, 30);
  const std::int64_t rows = 64, cols = 96;
  std::vector<float> m(static_cast<std::size_t>(rows * cols));
  for (float& x : m)
    x = std::ldexp(n(rng), e(rng));
  m[3] = 0.0f;
  m[4] = -0.0f;
  m[5] = 1e-41f;                                  // a denormal
  m[40] = std::numeric_limits<float>::infinity(); // its row's other values flush toward 0
  m[41] = 3e38f;                                  // ... unless they are near it
  m[80] = -std::numeric_limits<float>::infinity();
  m[200] = std::numeric_limits<float>::quiet_NaN();
  m[1000] = 0x1.fffffep127f; // the largest float: saturates at 127
  const std::vector<float> cpu =
      tk::cpu::round_to_bfp8(tk::MatrixView<const float>{m.data(), rows, cols});
  const std::vector<float> tt = through_tt(m, rows, cols);
  for (std::size_t i = 0; i < m.size(); ++i) {
    if (std::isnan(tt[i])) {
      EXPECT_TRUE(std::isnan(cpu[i])) << i;
      continue;
    }
    EXPECT_EQ(std::bit_cast<std::uint32_t>(cpu[i]), std::bit_cast<std::uint32_t>(tt[i]))
        << i << ": " << m[i] << " -> " << cpu[i] << " on the CPU, " << tt[i] << " on TT";
  }
}

// A column vector's row is one value and 15 padding zeros on the device: its own exponent.
TEST(CpuBfp8, AVectorRowSharesItsExponentWithZeros) {
  const std::vector<float> v = {1.0f + 0x1p-7f, 3.0f, -0.3f};
  const std::vector<float> r = tk::cpu::round_to_bfp8(tk::MatrixView<const float>{v.data(), 3, 1});
  EXPECT_EQ(r[0], 1.0f); // 1 + 2^-7 is a tie between 64 and 65 steps of 2^-6: even
  EXPECT_EQ(r[1], 3.0f);
  EXPECT_EQ(r[2], -0.30078125f); // 0.3 / 2^-8 = 76.8 -> 77 steps
}

} // namespace

// pack_to_bfp8, the packer's rounding of a bfp8 output, worked by hand on one run of 16 whose
// largest value 1.9921875 (exponent 0, bf16 significand 0xff) sets the unit to 2^-6.
TEST(CpuBfp8, PacksAnOutputAsTheDevicePacker) {
  const float u = 0x1p-6f;
  std::vector<float> row = {
      1.9921875f,          // 127.5 units: rounds away to 128, saturates at 127
      2.5f * u,            // a tie: away from zero, 3 units (ties to even would give 2)
      -2.5f * u,           // -3 units
      3.5f * u,            // 4 units
      1.5f * u,            // 2 units
      2.5f * u + 0x1p-20f, // truncated to bf16 first: the tie 2.5 units, then 3
      2.25f * u,           // 2 units
      0.49f * u,           // 0
      1e-41f,              // a denormal: 0
      1.0f,                // 64 units, exact
      -0.0f,               // 0
      64.5f * u,           // 1.0078125 = 64.5 units: a tie, 65
      0.75f * u,           // 1 unit
      -0.5f * u,           // a tie at half a unit: -1 unit
      100.0f * u,          // exact
      -126.75f * u,        // -127
  };
  const std::vector<float> want = {127 * u, 3 * u, -3 * u, 4 * u, 2 * u,  3 * u,   2 * u,   0, 0,
                                   64 * u,  0,     65 * u, 1 * u, -1 * u, 100 * u, -127 * u};
  std::vector<float> m(32 * 32, 0.0f); // one tile; the other runs are zeros
  std::copy(row.begin(), row.end(), m.begin());
  tk::cpu::pack_to_bfp8(tk::MatrixView<float>{m.data(), 32, 32});
  for (int c = 0; c < 16; ++c)
    EXPECT_EQ(m[static_cast<std::size_t>(c)], want[static_cast<std::size_t>(c)]) << "column " << c;
  for (std::size_t i = 16; i < m.size(); ++i)
    ASSERT_EQ(m[i], 0.0f) << i;
}
