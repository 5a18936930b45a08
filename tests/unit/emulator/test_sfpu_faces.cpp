// An SFPU call on a VectorMode writes only the faces the mode covers (tt-llk's
// _llk_math_eltwise_{unary,binary}_sfpu_params_: RC faces 0-3, R faces 0 and 1, C faces 0 and 2,
// None face 0); the faces it skips keep what DST held, as on the chip (runtime/tt/src/
// compute_sfpu.cpp; docs/emulator.md, "SFPU vector modes"). Checked by execution through the SDK's
// own calls: the accurate exp_tile, recip_tile and binary_max_tile, each against a double reference
// on the faces it runs and against its unchanged input on the others.
#include <cmath>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <tk_emulator/emulator.hpp>

#include "emu_program.hpp"

namespace {
using namespace tk::test;
using tt::tt_metal::CoreCoord;

// One tile through eltwise_sfpu.cpp (copy_tile, the op with `args`, pack_tile to a bf16 CB).
std::vector<float> run_unary(const std::vector<bfloat16>& in, const std::string& init,
                             const std::string& op, const std::string& args) {
  ProgramBuilder p;
  auto src = p.dram(in);
  auto dst = p.dram(1);
  p.cb(tt::CBIndex::c_0, 2);
  p.cb(tt::CBIndex::c_16, 2);
  auto r = p.reader("dataflow/read_tile.cpp", {src});
  auto w = p.writer("dataflow/write_tile.cpp", {dst});
  const std::map<std::string, std::string> defines = {
      {"SFPU_OP_INIT", init}, {"SFPU_OP", op}, {"SFPU_OP_ARGS", args}};
  auto k = p.compute("compute/eltwise_sfpu.cpp", ComputeConfig{.defines = defines});
  SetRuntimeArgs(p.program, r, CoreCoord{0, 0}, {p.addr(src), 1u});
  SetRuntimeArgs(p.program, w, CoreCoord{0, 0}, {p.addr(dst), 1u, 0u});
  SetRuntimeArgs(p.program, k, CoreCoord{0, 0}, {1u});
  p.run();
  std::vector<float> out;
  for (const bfloat16& v : p.read(dst))
    out.push_back(v.to_float());
  return out;
}

// One tile of a and one of b through binary_sfpu.cpp: DST[0] = op(DST[0], DST[1]) with `args`.
std::vector<float> run_binary(const std::vector<bfloat16>& a, const std::vector<bfloat16>& b,
                              const std::string& op, const std::string& args) {
  ProgramBuilder p;
  auto sa = p.dram(a), sb = p.dram(b), dst = p.dram(1);
  for (auto cb : {tt::CBIndex::c_0, tt::CBIndex::c_1, tt::CBIndex::c_16})
    p.cb(cb, 2);
  auto r = p.reader("dataflow/read_tiles.cpp", {sa, sb});
  auto w = p.writer("dataflow/write_tile.cpp", {dst});
  auto k = p.compute("compute/binary_sfpu.cpp",
                     ComputeConfig{.defines = {{"SFPU_BINARY_INIT", op + "_init"},
                                               {"SFPU_BINARY_OP", op},
                                               {"SFPU_BINARY_ARGS", args}}});
  SetRuntimeArgs(p.program, r, CoreCoord{0, 0}, {p.addr(sa), p.addr(sb), 1u});
  SetRuntimeArgs(p.program, w, CoreCoord{0, 0}, {p.addr(dst), 1u, 0u});
  SetRuntimeArgs(p.program, k, CoreCoord{0, 0}, {1u});
  p.run();
  std::vector<float> out;
  for (const bfloat16& v : p.read(dst))
    out.push_back(v.to_float());
  return out;
}

// Inputs -4 ... 4 over the tile (distinct in every face), in the tile's face order.
std::vector<bfloat16> ramp(float lo, float hi) {
  std::vector<bfloat16> in;
  for (int i = 0; i < 1024; ++i)
    in.emplace_back(lo + (hi - lo) * static_cast<float>(i) / 1023.0f);
  return in;
}

// The faces each mode runs (tt-llk's llk_math_eltwise_unary_sfpu_params.h).
struct Mode {
  const char* args;
  bool faces[4];
};
const Mode kModes[] = {{", (int)VectorMode::RC", {true, true, true, true}},
                       {", (int)VectorMode::R", {true, true, false, false}},
                       {", (int)VectorMode::C", {true, false, true, false}},
                       {", (int)VectorMode::None", {true, false, false, false}}};

// bf16 result, bf16 DST: within 2 bf16 ulps (2^-7 relative) of the double reference.
void expect_near(float got, double want, int i) {
  ASSERT_NEAR(got, want, std::fabs(want) * 0x1p-7 + 1e-30) << "element " << i;
}

TEST(SfpuFaces, AccurateExpRunsOnlyTheModesFaces) {
  const auto in = ramp(-4.0f, 4.0f);
  for (const Mode& m : kModes) {
    SCOPED_TRACE(m.args);
    const auto out = run_unary(in, "exp_tile_init", "exp_tile", m.args);
    for (int i = 0; i < 1024; ++i) {
      const float x = in[i].to_float();
      if (m.faces[i / 256])
        expect_near(out[i], std::exp(static_cast<double>(x)), i);
      else
        ASSERT_EQ(out[i], x) << "element " << i << ": a face the mode skips changed";
    }
  }
}

TEST(SfpuFaces, RecipOnColumnsLeavesTheRightHalf) {
  const auto in = ramp(0.5f, 8.0f);
  const auto out = run_unary(in, "recip_tile_init", "recip_tile", ", (int)VectorMode::C");
  for (int i = 0; i < 1024; ++i) {
    const float x = in[i].to_float();
    const int face = i / 256;
    if (face == 0 || face == 2)
      expect_near(out[i], 1.0 / x, i);
    else
      ASSERT_EQ(out[i], x) << "element " << i;
  }
  // Columns 0-15 of every row are faces 0 and 2: column 0, a row statistic's, is covered.
  for (int r = 0; r < 32; ++r) {
    const int e = (r / 16) * 512 + (r % 16) * 16; // (r, 0) in face order
    expect_near(out[e], 1.0 / in[e].to_float(), e);
  }
}

TEST(SfpuFaces, BinaryMaxOnColumnsKeepsTheOutputsOtherFaces) {
  const auto a = ramp(-4.0f, 4.0f), b = ramp(4.0f, -4.0f);
  for (const Mode& m : kModes) {
    SCOPED_TRACE(m.args);
    const auto out = run_binary(a, b, "binary_max_tile", m.args);
    for (int i = 0; i < 1024; ++i) {
      const float x = a[i].to_float(), y = b[i].to_float();
      // The output is DST[0], a's tile: where the mode does not run, a's values stay.
      ASSERT_EQ(out[i], m.faces[i / 256] ? std::max(x, y) : x) << "element " << i;
    }
  }
}

} // namespace
