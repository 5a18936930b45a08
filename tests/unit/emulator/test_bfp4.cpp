// The Bfp4_b tile format on the emulator: packed by the host (tt-metalium/bfloat4.hpp) as
// tt-metal's pack_as_bfp4_tiles does (tt_metal/impl/data_format/blockfloat_common.cpp), unpacked
// exactly into the source registers and DST, and packed back by the packer.
#include <bit>
#include <cmath>
#include <random>

#include <tt-metalium/bfloat4.hpp>

#include "emu_program.hpp"
#include <tk_emulator/emulator.hpp>

using namespace tk::test;

namespace {
constexpr uint32_t kF32Tile = 4096, kBfp4Tile = 576;

int exponent(float x) {
  return (std::bit_cast<uint32_t>(x) >> 23) & 0xff;
}

// The Bfp4_b value of `x` in a face row whose largest exponent is `shared`, from the format's
// definition, in double: the magnitude |x| / 2^(shared - 129), first cut to 21 bits below the step
// (the SDK shifts the 24-bit mantissa to the row's exponent before rounding), then rounded to
// nearest even, at most 7.
double bfp4_value(float x, int shared) {
  if (exponent(x) == 0)
    return 0.0;
  const double step = std::ldexp(1.0, shared - 129);
  const double cut = std::floor(std::fabs(static_cast<double>(x)) / step * 0x1p21) * 0x1p-21;
  const double m = std::min(std::nearbyint(cut), 7.0);
  return std::copysign(m * step, x);
}

std::vector<float> random_tiles(std::size_t tiles, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> n(0.0f, 1.0f);
  std::uniform_int_distribution<int> scale(-6, 6);
  std::vector<float> v(tiles * 1024);
  for (float& x : v)
    x = std::ldexp(n(rng), scale(rng));
  v[5] = 0.0f;
  v[6] = -0.0f;
  v[7] = 1e-40f; // a denormal packs as 0
  return v;
}

std::vector<float> unpack(const std::vector<uint32_t>& words, bool row_major) {
  return unpack_bfp4_tiles_into_float_vec(ttsl::Span<const uint32_t>(words.data(), words.size()),
                                          row_major, false);
}
} // namespace

// Values worked by hand. Row 0 of face 0 shares exponent 127 (its largest, 1.875): the step is
// 2^-2. Row 1 shares exponent 130 (8.0): the step is 2.
TEST(EmulatorBfp4, HandComputedRoundTrip) {
  std::vector<float> v(1024, 0.0f);
  const float row0[8] = {
      1.0f,    // 4 steps: code 0x4
      0.375f,  // 1.5 steps, a tie: to 2 (even), 0.5: code 0x2
      0.625f,  // 2.5 steps, a tie: to 2, 0.5: code 0x2
      1.875f,  // 7.5 steps: to 8, saturates at 7, 1.75: code 0x7
      -0.3f,   // 1.2 steps: 1, -0.25: code 0x9 (sign bit 3)
      0.1f,    // 0.4 steps: 0, +0 (the sign is dropped): code 0x0
      -0.875f, // 3.5 steps, a tie: to 4, -1.0: code 0xc
      0x1p-30f // far below the step: 0
  };
  const float row1[4] = {8.0f, 3.0f, -6.0f, 13.0f}; // 4, 1.5 -> 2, -3, 6.5 -> 6 steps of 2
  for (int j = 0; j < 8; ++j)
    v[j] = row0[j];
  for (int j = 0; j < 4; ++j)
    v[32 + j] = row1[j]; // row-major input: tile row 1 is face 0's row 1
  const std::vector<uint32_t> p =
      pack_as_bfp4_tiles(ttsl::Span<const float>(v.data(), v.size()), true, false);
  ASSERT_EQ(p.size(), kBfp4Tile / 4);
  const auto* bytes = reinterpret_cast<const uint8_t*>(p.data());
  EXPECT_EQ(bytes[0], 127); // face 0 row 0's exponent
  EXPECT_EQ(bytes[1], 130); // face 0 row 1's
  EXPECT_EQ(bytes[2], 0);   // an all-zero row
  EXPECT_EQ(bytes[16], 0);  // face 1 row 0
  // Values from byte 64 on, two a byte, the first in the low nibble.
  EXPECT_EQ(bytes[64], 0x24);
  EXPECT_EQ(bytes[65], 0x72);
  EXPECT_EQ(bytes[66], 0x09);
  EXPECT_EQ(bytes[67], 0x0c);
  EXPECT_EQ(bytes[72], 0x24); // row 1 (values 16 on): 4 and 2 steps of 2
  EXPECT_EQ(bytes[73], 0x6b); // -3 steps: 0xb; 6.5 steps, a tie: to 6
  const std::vector<float> b = unpack(p, true);
  const float want0[8] = {1.0f, 0.5f, 0.5f, 1.75f, -0.25f, 0.0f, -1.0f, 0.0f};
  for (int j = 0; j < 8; ++j)
    EXPECT_EQ(b[j], want0[j]) << j;
  EXPECT_FALSE(std::signbit(b[5]));
  const float want1[4] = {8.0f, 4.0f, -6.0f, 12.0f};
  for (int j = 0; j < 4; ++j)
    EXPECT_EQ(b[32 + j], want1[j]) << j;
  for (int i = 0; i < 1024; ++i)
    if (i >= 36 || (i >= 8 && i < 32)) {
      ASSERT_EQ(b[i], 0.0f) << i;
    }
}

// Random tiles: every value is the format's (exponent, rounding, saturation) as computed in double.
TEST(EmulatorBfp4, HostPackingFollowsTheFormat) {
  const std::vector<float> v = random_tiles(2, 7);
  const std::vector<uint32_t> packed =
      pack_as_bfp4_tiles(ttsl::Span<const float>(v.data(), v.size()), true, false);
  ASSERT_EQ(packed.size(), 2u * kBfp4Tile / 4);
  const std::vector<float> back = unpack(packed, true);
  ASSERT_EQ(back.size(), v.size());
  const auto* bytes = reinterpret_cast<const uint8_t*>(packed.data());
  int rounded = 0;
  for (std::size_t t = 0; t < 2; ++t)
    for (int r = 0; r < 32; ++r)
      for (int half = 0; half < 2; ++half) {
        int shared = 0;
        for (int c = half * 16; c < half * 16 + 16; ++c)
          shared = std::max(shared, exponent(v[t * 1024 + r * 32 + c]));
        EXPECT_EQ(bytes[t * kBfp4Tile + ((r / 16) * 2 + half) * 16 + r % 16], shared);
        for (int c = half * 16; c < half * 16 + 16; ++c) {
          const std::size_t i = t * 1024 + r * 32 + c;
          EXPECT_EQ(back[i], bfp4_value(v[i], shared)) << "(" << r << ", " << c << ") " << v[i];
          rounded += back[i] != v[i];
        }
      }
  EXPECT_GT(rounded, 1900); // nearly every normal value loses bits in 3
}

namespace {
// Three tiles of `in` (pages of `in_format`) through eltwise_sfpu.cpp with abs_tile into a Bfp4_b
// CB, written to DRAM as Bfp4_b pages; the words the host reads back.
template <typename T>
std::vector<uint32_t> abs_into_bfp4(const std::vector<T>& in, uint32_t in_page,
                                    tt::DataFormat in_format, bool precise) {
  ProgramBuilder p;
  auto src = p.dram(3, in_page);
  distributed::EnqueueWriteMeshBuffer(p.dev->mesh_command_queue(), src, in, false);
  auto dst = p.dram(3, kBfp4Tile);
  p.cb(tt::CBIndex::c_0, 2, in_page, in_format);
  p.cb(tt::CBIndex::c_16, 2, kBfp4Tile, tt::DataFormat::Bfp4_b);
  auto r = p.reader("dataflow/read_tile.cpp", {src});
  auto w = p.writer("dataflow/write_tile.cpp", {dst});
  auto k = p.compute(
      "compute/eltwise_sfpu.cpp",
      ComputeConfig{.fp32_dest_acc_en = true,
                    .bfp8_pack_precise = precise,
                    .defines = {{"SFPU_OP_INIT", "abs_tile_init"}, {"SFPU_OP", "abs_tile"}}});
  SetRuntimeArgs(p.program, r, tt::tt_metal::CoreCoord{0, 0}, {p.addr(src), 3u});
  SetRuntimeArgs(p.program, w, tt::tt_metal::CoreCoord{0, 0}, {p.addr(dst), 3u, 0u});
  SetRuntimeArgs(p.program, k, tt::tt_metal::CoreCoord{0, 0}, {3u});
  p.run();
  std::vector<uint32_t> words;
  distributed::EnqueueReadMeshBuffer(p.dev->mesh_command_queue(), words, dst, true);
  return words;
}
} // namespace

// A CB of Bfp4_b tiles unpacked to DST and packed back into Bfp4_b: every value is exact on the
// way (3 bits of magnitude) and each face row keeps its exponent (its largest value keeps a
// magnitude of 4..7 steps), so the pages come back byte for byte as the host packs |x|.
TEST(EmulatorBfp4, Bfp4CbUnpacksToDstAndPacksBack) {
  const std::vector<float> v = random_tiles(3, 11);
  const std::vector<uint32_t> packed =
      pack_as_bfp4_tiles(ttsl::Span<const float>(v.data(), v.size()), false, false);
  const std::vector<uint32_t> words =
      abs_into_bfp4(packed, kBfp4Tile, tt::DataFormat::Bfp4_b, true);
  std::vector<float> q = unpack(packed, false);
  for (float& x : q)
    x = std::fabs(x);
  const std::vector<uint32_t> want =
      pack_as_bfp4_tiles(ttsl::Span<const float>(q.data(), q.size()), false, false);
  ASSERT_EQ(words.size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i)
    ASSERT_EQ(words[i], want[i]) << "word " << i;
  const std::vector<float> got = unpack(words, false);
  for (std::size_t i = 0; i < q.size(); ++i)
    ASSERT_EQ(got[i], q[i]) << i;
}

// From an fp32 DST the packer rounds into Bfp4_b as it does into Bfp8_b: bf16 truncation, then
// ties away from zero per face row (tt-isa-documentation, WormholeB0 Packer "Format Conversion").
TEST(EmulatorBfp4, PackerRoundsTiesAwayFromZero) {
  std::vector<float> v = random_tiles(3, 12);
  for (float& x : v)
    x = std::bit_cast<float>(std::bit_cast<uint32_t>(x) & 0xffff0000u);
  // The first tile's face rows: 1.0 (the step is 2^-2), then values halfway between two steps.
  for (int row = 0; row < 64; ++row) {
    v[row * 16] = 1.0f;
    for (int j = 1; j < 16; ++j)
      v[row * 16 + j] = (static_cast<float>((row + j) % 7) + 0.5f) * 0.25f * (j % 2 ? -1.0f : 1.0f);
  }
  const std::vector<uint32_t> words = abs_into_bfp4(v, kF32Tile, tt::DataFormat::Float32, true);
  const std::vector<float> got = unpack(words, false);
  int ties = 0;
  for (std::size_t row = 0; row < v.size() / 16; ++row) {
    int shared = 0;
    for (std::size_t j = 0; j < 16; ++j)
      shared = std::max(shared, exponent(std::fabs(v[row * 16 + j])));
    for (std::size_t j = 0; j < 16; ++j) {
      const float x = std::fabs(v[row * 16 + j]);
      const double step = std::ldexp(1.0, shared - 129);
      const double want = exponent(x) == 0 ? 0.0 : std::min(std::floor(x / step + 0.5), 7.0) * step;
      ties += want != bfp4_value(x, shared);
      ASSERT_EQ(got[row * 16 + j], want) << "value " << row * 16 + j << " = " << x;
    }
  }
  EXPECT_GT(ties, 400) << "ties to even would give other values for these";
}

TEST(EmulatorBfp4, PackingBfp4NeedsThePreciseMode) {
  const std::vector<float> v = random_tiles(3, 13);
  try {
    abs_into_bfp4(v, kF32Tile, tt::DataFormat::Float32, false);
    FAIL() << "packed Bfp4_b without bfp8_pack_precise";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find(
                  "pack_tile(0, c_16): c_16 holds Bfp4_b tiles, but the kernel's ComputeConfig has "
                  "bfp8_pack_precise = false; the emulator models the packer's rounding into "
                  "Bfp4_b only with bfp8_pack_precise = true"),
              std::string::npos)
        << e.what();
  }
}
