// Data formats on the emulator: the unpacker's and packer's configured formats (an operation on a
// CB of another format is an error, as it would read or write garbage on the device) and the
// Bfp8_b tile format, packed by the host (tt-metalium/bfloat8.hpp) and unpacked exactly.
#include <algorithm>
#include <bit>
#include <cmath>
#include <random>

#include <tt-metalium/bfloat8.hpp>

#include "emu_program.hpp"
#include <tk_emulator/emulator.hpp>

#include "arch/wormhole_b0.hpp"

using namespace tk::test;

namespace {
constexpr uint32_t kF32Tile = 4096, kBfp8Tile = 1088;

// The Bfp8_b value of `x` in a face row whose largest exponent is `shared`, from the format's
// definition, in double: the magnitude |x| / 2^(shared - 133), first cut to 17 bits below the step
// (the SDK shifts the 24-bit mantissa to the row's exponent before rounding), then rounded to
// nearest even, at most 127.
double bfp8_value(float x, int shared) {
  const int e = (std::bit_cast<uint32_t>(x) >> 23) & 0xff;
  if (e == 0)
    return 0.0;
  const double step = std::ldexp(1.0, shared - 133);
  const double cut = std::floor(std::fabs(static_cast<double>(x)) / step * 0x1p17) * 0x1p-17;
  const double m = std::min(std::nearbyint(cut), 127.0);
  return std::copysign(m * step, x);
}

int exponent(float x) {
  return (std::bit_cast<uint32_t>(x) >> 23) & 0xff;
}

std::vector<float> random_tiles(std::size_t tiles, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> n(0.0f, 1.0f);
  std::uniform_int_distribution<int> scale(-12, 12);
  std::vector<float> v(tiles * 1024);
  for (float& x : v)
    x = std::ldexp(n(rng), scale(rng)); // rows mixing magnitudes: many values lose bits
  v[5] = 0.0f;
  v[6] = -0.0f;
  v[7] = 1e-40f; // a denormal packs as 0
  return v;
}

struct Formats {
  ProgramBuilder p;
  std::shared_ptr<distributed::MeshBuffer> in_f32 = p.dram(1, kF32Tile),
                                           in_bf16 = p.dram(1, kBf16Tile),
                                           out_f32 = p.dram(1, kF32Tile),
                                           out_bf16 = p.dram(1, kBf16Tile);
  std::vector<float> f32_values = random_tiles(1, 3);

  void run(std::map<std::string, std::string> defines) {
    distributed::EnqueueWriteMeshBuffer(p.dev->mesh_command_queue(), in_f32, f32_values, false);
    std::vector<bfloat16> bf(f32_values.begin(), f32_values.end());
    distributed::EnqueueWriteMeshBuffer(p.dev->mesh_command_queue(), in_bf16, bf, false);
    p.cb(tt::CBIndex::c_0, 1, kF32Tile, tt::DataFormat::Float32);
    p.cb(tt::CBIndex::c_1, 1, kBf16Tile, tt::DataFormat::Float16_b);
    p.cb(tt::CBIndex::c_16, 1, kF32Tile, tt::DataFormat::Float32);
    p.cb(tt::CBIndex::c_17, 1, kBf16Tile, tt::DataFormat::Float16_b);
    auto r = p.reader("dataflow/read_two_formats.cpp", {in_f32, in_bf16});
    auto w = p.writer("dataflow/write_two_formats.cpp", {out_f32, out_bf16});
    auto k = p.compute("compute/formats.cpp",
                       ComputeConfig{.fp32_dest_acc_en = true, .defines = std::move(defines)});
    const tt::tt_metal::CoreCoord core{0, 0};
    SetRuntimeArgs(p.program, r, core, {p.addr(in_f32), p.addr(in_bf16)});
    SetRuntimeArgs(p.program, w, core, {p.addr(out_f32), p.addr(out_bf16)});
    SetRuntimeArgs(p.program, k, core, {});
    p.run();
  }
};

std::string error_of(Formats& f, std::map<std::string, std::string> defines) {
  try {
    f.run(std::move(defines));
  } catch (const std::exception& e) {
    return e.what();
  }
  return "no error";
}
} // namespace

TEST(EmulatorFormats, ReconfiguredUnpackerAndPackerCopyBothFormats) {
  Formats f;
  f.run({});
  std::vector<float> f32;
  distributed::EnqueueReadMeshBuffer(f.p.dev->mesh_command_queue(), f32, f.out_f32, true);
  std::vector<bfloat16> bf16 = f.p.read(f.out_bf16);
  for (std::size_t i = 0; i < 1024; ++i) {
    // Float32 through srcA is TF32 (no UnpackToDestFp32 here); bf16 is exact.
    EXPECT_EQ(std::bit_cast<uint32_t>(f32[i]),
              std::bit_cast<uint32_t>(f.f32_values[i]) & 0xFFFFE000u)
        << i;
    EXPECT_EQ(bf16[i], bfloat16(f.f32_values[i])) << i;
  }
}

// pack_reconfig_data_format runs on the pack thread alone (tt-metal a8c5af0f5a26
// api/compute/pack.h: PACK(llk_pack_reconfig_data_format)), as pack_reconfig_l1_acc does: the
// timing model charges it to the pack thread, and reconfig_data_format_srca (UNPACK and MATH) to
// the unpack/math thread.
TEST(EmulatorFormats, PackReconfigurationIsThePackThreads) {
  tk::rt::emu::set_timing(true);
  Formats f;
  f.run({});
  const auto& t = tk::rt::emu::last_timing();
  tk::rt::emu::set_timing(std::nullopt);
  ASSERT_TRUE(t.has_value());
  const auto compute = std::find_if(t->kernels.begin(), t->kernels.end(),
                                    [](const auto& k) { return k.risc == "trisc"; });
  ASSERT_NE(compute, t->kernels.end());
  const double init = tk::arch::kWormholeB0.init_call.value;
  EXPECT_EQ(compute->busy_by.at("pack: reconfig"), init);
  EXPECT_EQ(compute->busy_by.at("reconfig"), init);
}

TEST(EmulatorFormats, UnpackingAnotherFormatIsAnError) {
  Formats f;
  const std::string e = error_of(f, {{"FORGET_UNPACK", "1"}});
  EXPECT_NE(e.find("copy_tile: c_1 holds Float16_b tiles, but the unpacker's srcA is configured "
                   "for Float32 (from c_0); call reconfig_data_format_srca(c_0, c_1) first"),
            std::string::npos)
      << e;
}

TEST(EmulatorFormats, PackingAnotherFormatIsAnError) {
  Formats f;
  const std::string e = error_of(f, {{"FORGET_PACK", "1"}});
  EXPECT_NE(e.find("pack_tile(0, c_17): c_17 holds Float16_b tiles, but the packer is configured "
                   "for Float32 (from c_16); call pack_reconfig_data_format(c_16, c_17) first"),
            std::string::npos)
      << e;
}

TEST(EmulatorBfp8, HostPackingFollowsTheFormat) {
  const std::vector<float> v = random_tiles(2, 7);
  const std::vector<uint32_t> packed =
      pack_as_bfp8_tiles(ttsl::Span<const float>(v.data(), v.size()), true, false);
  ASSERT_EQ(packed.size(), 2u * kBfp8Tile / 4);
  const std::vector<float> back = unpack_bfp8_tiles_into_float_vec(
      ttsl::Span<const uint32_t>(packed.data(), packed.size()), true, false);
  ASSERT_EQ(back.size(), v.size());
  const auto* bytes = reinterpret_cast<const uint8_t*>(packed.data());
  for (std::size_t t = 0; t < 2; ++t)
    for (int r = 0; r < 32; ++r)
      for (int half = 0; half < 2; ++half) {
        // A face row: 16 values of one tile row, sharing the largest exponent among them.
        int shared = 0;
        for (int c = half * 16; c < half * 16 + 16; ++c)
          shared = std::max(shared, exponent(v[t * 1024 + r * 32 + c]));
        const int face = (r / 16) * 2 + half;
        EXPECT_EQ(bytes[t * kBfp8Tile + face * 16 + r % 16], shared) << t << " " << r;
        for (int c = half * 16; c < half * 16 + 16; ++c) {
          const std::size_t i = t * 1024 + r * 32 + c;
          EXPECT_EQ(back[i], bfp8_value(v[i], shared))
              << "tile " << t << " (" << r << ", " << c << ") from " << v[i];
        }
      }
}

TEST(EmulatorBfp8, TiesRoundToEvenAndMagnitudesSaturate) {
  std::vector<float> v(1024, 0.0f);
  v[0] = 1.0f;           // shared exponent 127: the step is 2^-6
  v[1] = 1.5f * 0x1p-6f; // 1.5 steps: a tie, to 2 (even)
  v[2] = 2.5f * 0x1p-6f; // a tie, to 2
  v[3] = 0x1.fffffep0f;  // rounds up to 128 steps: saturates at 127
  const std::vector<uint32_t> p =
      pack_as_bfp8_tiles(ttsl::Span<const float>(v.data(), 1024), true, false);
  const std::vector<float> b =
      unpack_bfp8_tiles_into_float_vec(ttsl::Span<const uint32_t>(p.data(), p.size()), true, false);
  EXPECT_EQ(b[0], 1.0f);
  EXPECT_EQ(b[1], 2.0f * 0x1p-6f);
  EXPECT_EQ(b[2], 2.0f * 0x1p-6f);
  EXPECT_EQ(b[3], 127.0f * 0x1p-6f);
}

// A Bfp8_b CB feeds the unpacker exactly: |x| through eltwise_sfpu.cpp into a Float16_b CB is the
// Bfp8_b value's magnitude (seven bits, exact in bf16).
TEST(EmulatorBfp8, Bfp8CbUnpacksExactly) {
  const std::vector<float> v = random_tiles(3, 11);
  const std::vector<uint32_t> packed =
      pack_as_bfp8_tiles(ttsl::Span<const float>(v.data(), v.size()), true, false);
  ProgramBuilder p;
  auto src = p.dram(3, kBfp8Tile);
  distributed::EnqueueWriteMeshBuffer(p.dev->mesh_command_queue(), src, packed, false);
  auto dst = p.dram(3);
  p.cb(tt::CBIndex::c_0, 2, kBfp8Tile, tt::DataFormat::Bfp8_b);
  p.cb(tt::CBIndex::c_16, 2);
  auto r = p.reader("dataflow/read_tile.cpp", {src});
  auto w = p.writer("dataflow/write_tile.cpp", {dst});
  auto k = p.compute(
      "compute/eltwise_sfpu.cpp",
      ComputeConfig{.defines = {{"SFPU_OP_INIT", "abs_tile_init"}, {"SFPU_OP", "abs_tile"}}});
  SetRuntimeArgs(p.program, r, tt::tt_metal::CoreCoord{0, 0}, {p.addr(src), 3u});
  SetRuntimeArgs(p.program, w, tt::tt_metal::CoreCoord{0, 0}, {p.addr(dst), 3u, 0u});
  SetRuntimeArgs(p.program, k, tt::tt_metal::CoreCoord{0, 0}, {3u});
  p.run();
  const std::vector<bfloat16> out = p.read(dst);
  const std::vector<float> q =
      unpack_bfp8_tiles_into_float_vec(ttsl::Span<const uint32_t>(packed.data(), packed.size()),
                                       false, false); // face order, as the device's pages
  ASSERT_EQ(out.size(), q.size());
  for (std::size_t i = 0; i < q.size(); ++i)
    EXPECT_EQ(static_cast<float>(out[i]), std::fabs(q[i])) << i;
}

namespace {
// A Bfp8_b output as the packer writes it (tt-isa-documentation, WormholeB0 Packer "Format
// Conversion", with bfp8_pack_precise): each value truncated to bf16, then rounded to its face
// row's largest exponent `shared` to nearest with ties away from zero, at most 127.
double packer_bfp8_value(float x, int shared) {
  const float t = std::bit_cast<float>(std::bit_cast<uint32_t>(x) & 0xffff0000u);
  if (exponent(t) == 0)
    return 0.0;
  const double step = std::ldexp(1.0, shared - 133);
  const double m = std::min(std::floor(std::fabs(static_cast<double>(t)) / step + 0.5), 127.0);
  return std::copysign(m * step, t);
}

// |x| of three f32 tiles through eltwise_sfpu.cpp into a Bfp8_b CB, written to DRAM as Bfp8_b
// pages; the words the host reads back.
std::vector<uint32_t> abs_into_bfp8(const std::vector<float>& v, bool precise) {
  ProgramBuilder p;
  auto src = p.dram(3, kF32Tile);
  distributed::EnqueueWriteMeshBuffer(p.dev->mesh_command_queue(), src, v, false);
  auto dst = p.dram(3, kBfp8Tile);
  p.cb(tt::CBIndex::c_0, 2, kF32Tile, tt::DataFormat::Float32);
  p.cb(tt::CBIndex::c_16, 2, kBfp8Tile, tt::DataFormat::Bfp8_b);
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

// The packer rounds an fp32 DST into Bfp8_b pages: bf16 truncation, then ties away from zero per
// face row; the host's unpack_bfp8_tiles_into_float_vec reads them back.
TEST(EmulatorBfp8, PackerRoundsTiesAwayFromZero) {
  // bf16 values, so that many fall exactly halfway between two Bfp8_b magnitudes.
  std::vector<float> v = random_tiles(3, 12);
  for (float& x : v)
    x = std::bit_cast<float>(std::bit_cast<uint32_t>(x) & 0xffff0000u);
  const std::vector<uint32_t> words = abs_into_bfp8(v, true);
  ASSERT_EQ(words.size(), 3u * kBfp8Tile / 4);
  const std::vector<float> got = unpack_bfp8_tiles_into_float_vec(
      ttsl::Span<const uint32_t>(words.data(), words.size()), false, false);
  int ties = 0;
  for (std::size_t row = 0; row < v.size() / 16; ++row) { // face rows: the tiles are in face order
    int shared = 0;
    for (std::size_t j = 0; j < 16; ++j)
      shared = std::max(shared, exponent(std::fabs(v[row * 16 + j])));
    for (std::size_t j = 0; j < 16; ++j) {
      const float x = std::fabs(v[row * 16 + j]);
      const double want = packer_bfp8_value(x, shared);
      ties += want != 0 && want != bfp8_value(x, shared);
      ASSERT_EQ(got[row * 16 + j], want) << "value " << row * 16 + j << " = " << x;
    }
  }
  EXPECT_GT(ties, 50) << "ties to even would give other values for these"; // 81 with this seed
}

// Without bfp8_pack_precise the packer's source format is Bfp8_b and its rounding is not
// documented: the emulator refuses to guess.
TEST(EmulatorBfp8, PackingBfp8NeedsThePreciseMode) {
  const std::vector<float> v = random_tiles(3, 13);
  try {
    abs_into_bfp8(v, false);
    FAIL() << "packed Bfp8_b without bfp8_pack_precise";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find(
                  "pack_tile(0, c_16): c_16 holds Bfp8_b tiles, but the kernel's ComputeConfig has "
                  "bfp8_pack_precise = false; the emulator models the packer's rounding into "
                  "Bfp8_b only with bfp8_pack_precise = true"),
              std::string::npos)
        << e.what();
  }
}

// The format checks stay without the arithmetic (TK_EMULATOR_MATH=off).
TEST(EmulatorFormats, FormatChecksHoldWithoutTheArithmetic) {
  for (const char* which : {"FORGET_UNPACK", "FORGET_PACK"}) {
    Formats on, off;
    const std::string with = error_of(on, {{which, "1"}});
    tk::rt::emu::set_math(false);
    const std::string without = error_of(off, {{which, "1"}});
    tk::rt::emu::set_math(std::nullopt);
    EXPECT_NE(with, "no error");
    EXPECT_EQ(without, with);
  }
}
