// Inits are checked: a compute call that runs the unpacker's and the math thread's programs under
// an init of another operation is an error naming what they are configured for, by which init,
// and the init to call (tk_emulator/op_inits.hpp; docs/emulator.md, "Inits").
#include <string>

#include <tk_emulator/emulator.hpp>

#include "emu_program.hpp"

namespace {
using namespace tk::test;

// broken/op_inits.cpp with `define` on one tile of inputs; returns the error ("" if none) and the
// output in `out`.
std::string run(const std::string& define, std::vector<float>* out = nullptr) {
  ProgramBuilder p;
  std::vector<bfloat16> in;
  for (int i = 0; i < 1024; ++i)
    in.emplace_back(static_cast<float>(i % 37) - 18.0f);
  auto src = p.dram(in);
  auto dst = p.dram(1);
  p.cb(tt::CBIndex::c_0, 2);
  p.cb(tt::CBIndex::c_16, 2);
  auto r = p.reader("dataflow/read_tile.cpp", {src});
  auto w = p.writer("dataflow/write_tile.cpp", {dst});
  std::map<std::string, std::string> defines;
  if (!define.empty())
    defines[define] = "1";
  auto k = p.compute("broken/op_inits.cpp", ComputeConfig{.defines = defines});
  SetRuntimeArgs(p.program, r, CoreCoord{0, 0}, {p.addr(src), 1u});
  SetRuntimeArgs(p.program, w, CoreCoord{0, 0}, {p.addr(dst), 1u, 0u});
  SetRuntimeArgs(p.program, k, CoreCoord{0, 0}, {1u});
  try {
    p.run();
  } catch (const tk::rt::emu::EmulatorError& e) {
    return e.what();
  }
  if (out) {
    out->clear();
    for (const bfloat16& v : p.read(dst))
      out->push_back(v.to_float());
    for (int i = 0; i < 1024; ++i)
      EXPECT_EQ((*out)[i], in[i].to_float()) << i;
  }
  return "";
}

const std::string prefix = kernel("broken/op_inits.cpp") + ": core (0,0): ";

// unary_bcast_init<NONE> is copy_tile_to_dst_init_short's pair of inits (llk_unpack_A_init<NONE>,
// llk_math_eltwise_unary_datacopy_init<A2D, NONE>): copy_tile runs and copies.
TEST(EmulatorOpInits, CompatibleInitRuns) {
  std::vector<float> out;
  EXPECT_EQ(run("", &out), "");
  EXPECT_EQ(out.size(), 1024u);
}

TEST(EmulatorOpInits, CallUnderAnotherOpsInit) {
  EXPECT_EQ(run("MUL_AFTER_ADD_INIT"),
            prefix + "mul_tiles: the math thread is configured for ELWADD (by add_tiles_init), not "
                     "for ELWMUL; call mul_tiles_init(icb0, icb1) first");
  EXPECT_EQ(run("COPY_AFTER_REDUCE_INIT"),
            prefix + "copy_tile: the unpacker is configured for AB reduce REDUCE_ROW (by "
                     "reduce_init), not for A; call copy_tile_to_dst_init_short(cb) first");
  EXPECT_EQ(run("REDUCE_OTHER_POOL"),
            prefix + "reduce_tile: the math thread is configured for reduce SUM REDUCE_ROW (by "
                     "reduce_init), not for reduce MAX REDUCE_ROW; call reduce_init<PoolType::MAX, "
                     "ReduceDim::REDUCE_ROW> first");
  EXPECT_EQ(run("BCAST_AFTER_COPY_INIT"),
            prefix + "unary_bcast: the unpacker is configured for A (by "
                     "copy_tile_to_dst_init_short), not for A bcast COL; call "
                     "unary_bcast_init<BroadcastType::COL>(icb, ocb) first");
  EXPECT_EQ(run("SUB_BCAST_AFTER_ADD_BCAST_INIT"),
            prefix + "an FPU binary op with broadcast: the math thread is configured for ELWADD "
                     "bcast COL (by add_bcast_cols_init_short), not for ELWSUB bcast COL; call "
                     "sub_bcast_cols_init_short(icb0, icb1) first");
  EXPECT_EQ(run("COPY_AFTER_MATMUL_INIT"),
            prefix + "copy_tile: the unpacker is configured for AB matmul (by mm_init_short), not "
                     "for A; call copy_tile_to_dst_init_short(cb) first");
}

// compute_kernel_hw_startup configures formats only; binary_op_init_common the unpacker but not
// the math thread (tt-metal's eltwise_binary.h: llk_unpack_AB_init, no llk_math_*_init).
TEST(EmulatorOpInits, HardwareStartupsConfigureNoMathOp) {
  EXPECT_EQ(run("NO_INIT"),
            prefix + "copy_tile: the unpacker is not configured for any operation (no init since "
                     "the kernel started), not for A; call copy_tile_to_dst_init_short(cb) first");
  EXPECT_EQ(run("ADD_AFTER_BINARY_COMMON_ONLY"),
            prefix + "add_tiles: the math thread is not configured for any operation (no init "
                     "since the kernel started), not for ELWADD; call add_tiles_init(icb0, icb1) "
                     "first");
}
// An SFPU init that loads the programmable constants (silu_tile_init: _init_sfpu_reciprocal_,
// vConstFloatPrgm0..2) overwrites the approximate exp's A, B - C and threshold: exp_tile<true>
// after it needs exp_tile_init<true> again. recip_tile_init's default (legacy_compat) loads none.
std::string run_sfpu(const std::string& init, const std::string& op) {
  ProgramBuilder p;
  auto src = p.dram(std::vector<bfloat16>(1024, bfloat16(0.5f)));
  auto dst = p.dram(1);
  p.cb(tt::CBIndex::c_0, 2);
  p.cb(tt::CBIndex::c_16, 2);
  auto r = p.reader("dataflow/read_tile.cpp", {src});
  auto w = p.writer("dataflow/write_tile.cpp", {dst});
  auto k = p.compute("compute/eltwise_sfpu.cpp",
                     ComputeConfig{.defines = {{"SFPU_OP_INIT", init}, {"SFPU_OP", op}}});
  SetRuntimeArgs(p.program, r, CoreCoord{0, 0}, {p.addr(src), 1u});
  SetRuntimeArgs(p.program, w, CoreCoord{0, 0}, {p.addr(dst), 1u, 0u});
  SetRuntimeArgs(p.program, k, CoreCoord{0, 0}, {1u});
  try {
    p.run();
  } catch (const tk::rt::emu::EmulatorError& e) {
    return e.what();
  }
  return "";
}

TEST(EmulatorOpInits, SfpuInitsThatReloadTheConstantsClearTheApproximateExp) {
  EXPECT_EQ(run_sfpu("exp_tile_init<true>(); recip_tile_init", "exp_tile<true>"), "");
  EXPECT_EQ(run_sfpu("exp_tile_init<true>(); silu_tile_init", "exp_tile<true>"),
            kernel("compute/eltwise_sfpu.cpp") +
                ": core (0,0): exp_tile<true, ..., InputClamping::ClampToNegative>: the SFPU is "
                "not set up for it; call exp_tile_init<true, scale, "
                "InputClamping::ClampToNegative>() first (the kernel runs the macro program and "
                "the constants its init loads; no approximate exp init since silu_tile_init, "
                "which reloads the programmable constants it reads)");
}
} // namespace
