// exp_tile<true>: the emulator stores what tt-llk's approximate exp kernels store (runtime/tt/src/
// exp_approx.cpp; docs/emulator.md, "The approximate exp"). Values worked out by hand from the
// instruction sequence, the error and bias over [-90, 10] against a double exp within the bounds
// the algorithm gives, and the kernel path: its faces, its init, the packer's ReLU.
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <string>

#include <tk_emulator/emulator.hpp>
#include <tk_emulator/exp_approx.hpp>

#include "emu_program.hpp"

namespace {
using namespace tk::test;
namespace emu = tk::rt::emu;

constexpr std::uint32_t kOne = 0x3f800000u; // the init's default scale, 1.0f

std::uint32_t bits(float f) {
  return std::bit_cast<std::uint32_t>(f);
}
float value(std::uint32_t b) {
  return std::bit_cast<float>(b);
}
std::uint32_t clamped(float x, bool fp32 = true, std::uint32_t scale = kOne) {
  return emu::exp_approx_bits(bits(x), scale, true, fp32);
}
std::uint32_t unclamped(float x, bool fp32 = true, std::uint32_t scale = kOne) {
  return emu::exp_approx_bits(bits(x), scale, false, fp32);
}

// The constants as _init_exponential_ loads them: A = 256/ln2 = 369.329925537109375 (0x43b8aa3b),
// B - C = 32500.818359375 (0x46fde9a3); i = A·x + (B - C), rounded to the nearest integer (ties
// away from zero), shifted left by 15: the bits of the result.
//   x = 0:  i = 32500.818 -> 32501 = 0x7EF5 -> 0x3F7A8000 = 0.978515625 (-2.1%)
//   x = 1:  i = 32870.148 -> 32870 = 0x8066 -> 0x40330000 = 2.796875    (+2.9%)
//   x = -1: i = 32131.488 -> 32131 = 0x7D83 -> 0x3EC18000 = 0.3779296875 (+2.7%)
//   x = 10: i = 36194.118 -> 36194 = 0x8D62 -> 0x46B10000 = 22656        (+2.9%)
// A 16-bit DST keeps the high 16 bits (SFPSTORE truncates): 0x3F7A, 0x4033, 0x3EC1, 0x46B1.
TEST(ExpApprox, HandCheckedValues) {
  EXPECT_EQ(clamped(0.0f), 0x3F7A8000u);
  EXPECT_EQ(clamped(1.0f), 0x40330000u);
  EXPECT_EQ(clamped(-1.0f), 0x3EC18000u);
  EXPECT_EQ(clamped(10.0f), 0x46B10000u);
  EXPECT_EQ(clamped(0.0f, false), 0x3F7A0000u);
  EXPECT_EQ(clamped(1.0f, false), 0x40330000u);
  EXPECT_EQ(clamped(-1.0f, false), 0x3EC10000u);
  EXPECT_EQ(clamped(10.0f, false), 0x46B10000u);
  // The unclamped kernel's MAD and rounding are the same below the saturation.
  EXPECT_EQ(unclamped(0.0f), 0x3F7A8000u);
  EXPECT_EQ(unclamped(-1.0f), 0x3EC18000u);
  // x = 0.5: i = 32685.483 -> 32685 = 0x7FAD -> 0x3FD68000 = 1.67578125; 16-bit 0x3FD6.
  EXPECT_EQ(unclamped(0.5f), 0x3FD68000u);
  EXPECT_EQ(unclamped(0.5f, false), 0x3FD60000u);
  // A denormal input is zero to the MAD.
  EXPECT_EQ(clamped(value(1u)), 0x3F7A8000u);
}

// ClampToNegative: x below -88.5 becomes -88.5; i = 369.3299·(-88.5) + 32500.818 = -184.880, whose
// absolute value rounds to 185 (the UINT16 mode): 185 << 15 = 0x005C8000, a denormal 8.5e-39 in an
// fp32 DST, +0 in a 16-bit one (SFPSTORE flushes). So -inf gives 8.5e-39, not 0, in fp32.
// Above about 88.7 i passes 65280: the exponent field is 255, the output a NaN (0x7FAD8000 at 89);
// +inf and NaN saturate at 65535: 0x7FFF8000.
TEST(ExpApprox, ClampedEdges) {
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_EQ(clamped(-88.5f), 0x005C8000u);
  EXPECT_EQ(clamped(-100.0f), 0x005C8000u);
  EXPECT_EQ(clamped(-inf), 0x005C8000u);
  EXPECT_EQ(clamped(-inf, false), 0u);
  EXPECT_EQ(clamped(-88.5f, false), 0u);
  EXPECT_EQ(clamped(89.0f), 0x7FAD8000u);
  EXPECT_EQ(clamped(inf), 0x7FFF8000u);
  EXPECT_EQ(clamped(inf, false), 0x7FFF0000u);
  EXPECT_EQ(clamped(std::numeric_limits<float>::quiet_NaN()), 0x7FFF8000u);
  // The init's scale multiplies A (in fp32) and divides the threshold: with 0.125, A = 46.166 and
  // the threshold -708, so x = 8 is x = 1 above and -1000 is clamped to the same 0x005C8000.
  EXPECT_EQ(clamped(8.0f, true, 0x3E000000u), 0x40330000u);
  EXPECT_EQ(clamped(-1000.0f, true, 0x3E000000u), 0x005C8000u);
}

// InputClamping::None: the sign-magnitude INT16 mode saturates at 32767 = 0x7FFF -> 0x3FFF8000 =
// 1.99609375 from x = 0.72 on (i = 32767), +inf too; below about -88 i is negative and SETSGN
// gives a negative output: at -100 i = -4432.17 -> -4432 = 0x1150 -> 0x88A80000 = -1.01e-33, at
// -inf -1.99609375; in (-88.03, -88.0] |i| < 0.5: +0.
TEST(ExpApprox, UnclampedEdges) {
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_EQ(unclamped(0.75f), 0x3FFF8000u);
  EXPECT_EQ(unclamped(10.0f), 0x3FFF8000u);
  EXPECT_EQ(unclamped(inf), 0x3FFF8000u);
  EXPECT_EQ(unclamped(-100.0f), 0x88A80000u);
  EXPECT_EQ(unclamped(-inf), 0xBFFF8000u);
  EXPECT_EQ(unclamped(-inf, false), 0xBFFF0000u);
  EXPECT_EQ(unclamped(-88.0f), 0u);
  // -88.5: i = -184.880 -> -185 -> 0x805C8000 in fp32; a 16-bit DST flushes it to -0.
  EXPECT_EQ(unclamped(-88.5f), 0x805C8000u);
  EXPECT_EQ(unclamped(-88.5f, false), 0x80000000u);
  // A NaN saturates too; the MAD's NaN may carry either sign on the chip.
  EXPECT_EQ(unclamped(std::numeric_limits<float>::quiet_NaN()) & 0x7fffffffu, 0x3FFF8000u);
}

struct Sweep {
  double worst = 0, bias = 0; // the largest |relative error| and the mean signed one
  long n = 0;
};

// x on a grid of 1/1024 over [lo, hi] (rounded to bf16 for a 16-bit DST, as DST holds it), the
// output against exp(x·scale) in double.
Sweep sweep(bool clamp, bool fp32, double lo, double hi, std::uint32_t scale = kOne) {
  Sweep s;
  double sum = 0;
  const double sc = value(scale);
  for (long k = std::lround(lo * 1024); k <= std::lround(hi * 1024); ++k) {
    float x = static_cast<float>(k / 1024.0 / sc);
    if (!fp32)
      x = static_cast<float>(bfloat16(x));
    const double want = std::exp(static_cast<double>(x) * sc);
    const double got = value(emu::exp_approx_bits(bits(x), scale, clamp, fp32));
    const double rel = (got - want) / want;
    s.worst = std::max(s.worst, std::fabs(rel));
    sum += rel;
    ++s.n;
  }
  s.bias = sum / static_cast<double>(s.n);
  return s;
}

// The bounds follow from the construction: the output is 2^k·(1 + f) where exp is 2^(k + f) ·
// 2^(C/256), C = 32512 - 32500.818 = 11.18: (1 + f)/2^f lies in [1, 1.06147] (its peak at f =
// 1/ln2 - 1: 1.061476), times 2^(-C/256) = 0.970178, times the rounding of i to an integer,
// 2^(+-1/512), and of the MAD's result to fp32 (half an ulp of i < 65536, 2^(2^-9/256)): from
// -3.113% to +3.1227%. Its mean over f in [0, 1) is 1.04068 · 0.970178 - 1 = +0.965% (the
// constant C balances the extremes, not the mean). A 16-bit DST truncates i's last bit: down by up
// to 1/256 more (-3.492%), and by 1/512 of the mantissa on average: 0.970178 · (1.04068 - 0.5/256
// · 0.72135) - 1 = +0.828% (0.72135 = the mean of 2^-f). The bias bounds allow the grid's
// sampling of f 0.05% either way.
// Measured within [-87, 10] (clamped) and [-87, 0.72] (unclamped): below -87.34 the outputs are
// denormal or flushed, and the unclamped kernel saturates above 0.72; both checked apart below.
TEST(ExpApprox, ErrorAndBiasOverTheSweep) {
  for (bool fp32 : {true, false}) {
    const double worst = fp32 ? 0.031227 : 0.03493;
    const double bias_lo = fp32 ? 0.00915 : 0.00778, bias_hi = fp32 ? 0.01015 : 0.00878;
    for (bool clamp : {true, false}) {
      const Sweep s = sweep(clamp, fp32, -87.0, clamp ? 10.0 : 0.72);
      SCOPED_TRACE(std::string(clamp ? "clamped" : "unclamped") + (fp32 ? ", fp32" : ", bf16"));
      EXPECT_LE(s.worst, worst);
      EXPECT_GT(s.worst, 0.029); // the construction's error, not a tighter exp
      EXPECT_GE(s.bias, bias_lo);
      EXPECT_LE(s.bias, bias_hi);
      std::printf(
          "exp_tile<true> %s %s DST: worst |rel err| %.4f%%, mean rel err %+.4f%% (%ld x)\n",
          clamp ? "ClampToNegative" : "InputClamping::None", fp32 ? "fp32" : "16-bit",
          100 * s.worst, 100 * s.bias, s.n);
    }
  }
  // The scale 1/sqrt(128) as SDPA passes it (fp32 bits 0x3DB504F3): the same bounds in x·scale.
  const Sweep s = sweep(false, true, -87.0, 0.72, 0x3DB504F3u);
  EXPECT_LE(s.worst, 0.031227);
  EXPECT_GE(s.bias, 0.00915);
  EXPECT_LE(s.bias, 0.01015);
}

// Below the range: the clamped kernel's outputs stay within 2^-125 of exp (denormals or zero), the
// unclamped one's are <= 0 from -88 down to -90, and -2 < output (ReLU'd to 0 by its callers).
TEST(ExpApprox, BelowTheRange) {
  for (bool fp32 : {true, false})
    for (long k = -90 * 1024; k <= -87 * 1024; ++k) {
      const float x = static_cast<float>(k / 1024.0);
      const double want = std::exp(static_cast<double>(x));
      EXPECT_LE(std::fabs(value(clamped(x, fp32)) - want), std::ldexp(1.0, -125)) << x;
      if (x <= -88.0f) {
        EXPECT_LE(value(unclamped(x, fp32)), 0.0f) << x;
        EXPECT_GT(value(unclamped(x, fp32)), -2.0f) << x;
      }
    }
}

// The kernel path: eltwise_sfpu.cpp (copy_tile, the op, pack_tile to a bf16 CB) on one tile of
// inputs -8 ... 2 (1/1024 steps over the tile's elements), against exp_approx_bits packed to bf16
// (round to nearest even), with the init and call `init`, `op` and the arguments `args`.
std::vector<float> run_tile(const std::vector<bfloat16>& in, bool fp32, const std::string& init,
                            const std::string& op, const std::string& args = "",
                            bool relu = false) {
  ProgramBuilder p;
  auto src = p.dram(in);
  auto dst = p.dram(1);
  p.cb(tt::CBIndex::c_0, 2);
  p.cb(tt::CBIndex::c_16, 2);
  auto r = p.reader("dataflow/read_tile.cpp", {src});
  auto w = p.writer("dataflow/write_tile.cpp", {dst});
  std::map<std::string, std::string> defines = {
      {"SFPU_OP_INIT", init}, {"SFPU_OP", op}, {"SFPU_OP_ARGS", args}};
  if (relu)
    defines["PACK_RELU"] = "1";
  auto k = p.compute("compute/eltwise_sfpu.cpp",
                     ComputeConfig{.fp32_dest_acc_en = fp32, .defines = defines});
  SetRuntimeArgs(p.program, r, CoreCoord{0, 0}, {p.addr(src), 1u});
  SetRuntimeArgs(p.program, w, CoreCoord{0, 0}, {p.addr(dst), 1u, 0u});
  SetRuntimeArgs(p.program, k, CoreCoord{0, 0}, {1u});
  p.run();
  std::vector<float> out;
  for (const bfloat16& v : p.read(dst))
    out.push_back(v.to_float());
  return out;
}

std::vector<bfloat16> ramp(float lo, float step) {
  std::vector<bfloat16> in;
  for (int i = 0; i < 1024; ++i)
    in.emplace_back(lo + step * static_cast<float>(i));
  return in;
}

float packed(std::uint32_t b) {
  return bfloat16(value(b)).to_float();
}

TEST(ExpApprox, KernelStoresTheKernelsValues) {
  const auto in = ramp(-8.0f, 10.0f / 1024);
  for (bool fp32 : {true, false}) {
    SCOPED_TRACE(fp32 ? "fp32 DST" : "16-bit DST");
    const auto a = run_tile(in, fp32, "exp_tile_init<true>", "exp_tile<true>");
    const auto b = run_tile(in, fp32, "exp_tile_init<true, 0x3F800000u, InputClamping::None>",
                            "exp_tile<true, false, InputClamping::None>");
    const auto c =
        run_tile(in, fp32, "exp_tile_init<true, 0x3F800000u, InputClamping::None>",
                 "exp_tile<true, false, InputClamping::None, 32>", ", (int)VectorMode::None");
    for (int i = 0; i < 1024; ++i) {
      const std::uint32_t x = bits(in[i].to_float());
      ASSERT_EQ(a[i], packed(emu::exp_approx_bits(x, kOne, true, fp32))) << i;
      ASSERT_EQ(b[i], packed(emu::exp_approx_bits(x, kOne, false, fp32))) << i;
      ASSERT_EQ(c[i], packed(emu::exp_approx_bits(x, kOne, false, fp32))) << i;
    }
  }
  // By hand: x = 0 (element 819: -8 + 819·10/1024 = -0.0019..., so the tile of zeros instead).
  const auto z = run_tile(std::vector<bfloat16>(1024, bfloat16(0.0f)), false, "exp_tile_init<true>",
                          "exp_tile<true>");
  EXPECT_EQ(z[0], 0.9765625f); // 0x3F7A
  const auto o = run_tile(std::vector<bfloat16>(1024, bfloat16(1.0f)), true, "exp_tile_init<true>",
                          "exp_tile<true>");
  EXPECT_EQ(o[5], 2.796875f); // 0x40330000 packs exactly
}

// The init's scale applies; exp_tile's scale argument does not (tt-llk ignores it in approximate
// mode): a matching argument runs, another is a watcher violation, and with the watcher off the
// kernel multiplies by the init's scale, as the chip does.
TEST(ExpApprox, TheInitsScaleApplies) {
  const auto in = ramp(-8.0f, 10.0f / 1024);
  const auto s = run_tile(in, true, "exp_tile_init<true, 0x3E000000u>", "exp_tile<true, true>",
                          ", (int)VectorMode::RC, 0x3E00");
  for (int i = 0; i < 1024; ++i)
    ASSERT_EQ(s[i], packed(emu::exp_approx_bits(bits(in[i].to_float()), 0x3E000000u, true, true)))
        << i;
  try {
    run_tile(in, true, "exp_tile_init<true>", "exp_tile<true, true>",
             ", (int)VectorMode::RC, 0x3E00");
    ADD_FAILURE() << "a scale the kernel ignores ran";
  } catch (const emu::EmulatorError& e) {
    EXPECT_NE(std::string(e.what()).find(
                  "exp_tile<true, true>(..., scale = 0x3E00): tt-llk's approximate exp ignores the "
                  "scale argument and multiplies by the scale of exp_tile_init<true, scale> "
                  "(0x3F800000); pass the scale to the init"),
              std::string::npos)
        << e.what();
  }
  setenv("TK_EMULATOR_WATCHER", "off", 1);
  const auto off = run_tile(in, true, "exp_tile_init<true>", "exp_tile<true, true>",
                            ", (int)VectorMode::RC, 0x3E00");
  unsetenv("TK_EMULATOR_WATCHER");
  for (int i = 0; i < 1024; ++i)
    ASSERT_EQ(off[i], packed(emu::exp_approx_bits(bits(in[i].to_float()), kOne, true, true))) << i;
}

// Without its init (or after the accurate one, or with the other clamping) the kernel would run
// whatever the SFPU holds: an error.
TEST(ExpApprox, NeedsItsInit) {
  const auto in = ramp(-8.0f, 10.0f / 1024);
  for (const char* init : {"exp_tile_init<false>", "exp_tile_init<true>"}) {
    try {
      run_tile(in, true, init, "exp_tile<true, false, InputClamping::None>");
      ADD_FAILURE() << init;
    } catch (const emu::EmulatorError& e) {
      EXPECT_NE(std::string(e.what()).find(
                    "exp_tile<true, ..., InputClamping::None>: the SFPU is not set up for it; call "
                    "exp_tile_init<true, scale, InputClamping::None>() first"),
                std::string::npos)
          << e.what();
    }
  }
}

// VectorMode::C covers faces 0 and 2 (the tile's left 16 columns), R faces 0 and 1: the other
// faces keep their inputs.
TEST(ExpApprox, VectorModeFaces) {
  const auto in = ramp(-8.0f, 10.0f / 1024);
  const auto c =
      run_tile(in, true, "exp_tile_init<true>", "exp_tile<true>", ", (int)VectorMode::C");
  const auto r =
      run_tile(in, true, "exp_tile_init<true>", "exp_tile<true>", ", (int)VectorMode::R");
  for (int i = 0; i < 1024; ++i) {
    const float e = packed(emu::exp_approx_bits(bits(in[i].to_float()), kOne, true, true));
    const int face = i / 256;
    ASSERT_EQ(c[i], face == 0 || face == 2 ? e : in[i].to_float()) << i;
    ASSERT_EQ(r[i], face == 0 || face == 1 ? e : in[i].to_float()) << i;
  }
}

// The unclamped kernel's negative outputs below -88 (-1.996 at -inf), zeroed by the packer's ReLU
// (llk_pack_relu_config(ReluType::ZERO_RELU)) as TTNN's SDPA does.
TEST(ExpApprox, PackerReluZeroesTheUnclampedGarbage) {
  std::vector<bfloat16> in = ramp(-8.0f, 10.0f / 1024);
  in[3] = bfloat16(-std::numeric_limits<float>::infinity());
  in[4] = bfloat16(-100.0f);
  const std::string init = "exp_tile_init<true, 0x3F800000u, InputClamping::None>";
  const std::string op = "exp_tile<true, false, InputClamping::None>";
  const auto raw = run_tile(in, false, init, op);
  EXPECT_EQ(raw[3], -1.9921875f); // 0xBFFF (16-bit DST)
  EXPECT_LT(raw[4], 0.0f);
  const auto relu = run_tile(in, false, init, op, "", true);
  EXPECT_EQ(relu[3], 0.0f);
  EXPECT_EQ(relu[4], 0.0f);
  for (int i = 5; i < 1024; ++i)
    ASSERT_EQ(relu[i], raw[i]) << i;
}
} // namespace
