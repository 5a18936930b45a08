// select-tile-ops: an approximate exp's argument `x - bcast_col(y)` subtracted on the FPU
// (select_tile_ops_fpu_exp.cpp; docs/language.md, "The argument of an approximate exp"): only
// when y is a value TF32 holds, and only under exp_approx_mode; otherwise the SFPU's fp32 `-`.
#include "tt_test_util.hpp"

#include <sstream>

namespace tk::lower {
namespace {

// attention's statistics in one work item: m, s, mn = max(m, rowmax(s)), c = exp(m - mn),
// p = exp(s - bcast_col(mn)); MN is mn's definition, OPTS the options' tail.
const char* kKernel = R"(// after to-core-loop
program k {
  options grid 8x8 cb_depth 2 fp32_acc true math_fidelity "HiFi4"OPTS
  tensor x: bf16[M, N] input layout dram interleaved tile 32x32 page 2048
  tensor y: bf16[M, N] output layout dram interleaved tile 32x32 page 2048
  cb cb_x index 0 format Float16_b page 2048 depth 2 role input tensor x
  cb cb_y index 16 format Float16_b page 2048 depth 2 role output tensor y
  cb cb_scaler index 2 format Float16_b page 2048 depth 1 role scaler
  
  func kernel k(x: tensor, alpha: f32, y: tensor, M: i32, N: i32, start: u32, count: u32) {
    let Mt: i32 = M / 32
    let Nt: i32 = N / 32
    for w in start .. +count per_core {
      let i: i32 = w / Nt
      let j: i32 = w % Nt
      let m: tile<f32> = tile.fill(-inf)
      let s: tile<f32> = tile.mul_scalar(load x[i, j], alpha)
      let mn: tile<f32> = MN
      let c: tile<f32> = tile.exp(tile.sub(m, mn))
      let p: tile<f32> = tile.exp(tile.sub(s, tile.bcast_col(mn)))
      store y[i, j] = tile.mul(p, c)
    }
  }
}
)";

// The selected statements from c's exp to p's, both excluded and included, less packs and waits.
std::string p_section(const std::string& mn, bool approx) {
  std::string in = kKernel;
  in.replace(in.find("OPTS"), 4, approx ? " exp_approx_mode" : "");
  in.replace(in.find("MN"), 2, mn);
  std::istringstream out(test::run_stage("select-tile-ops", in));
  std::string line, got;
  int exps = 0;
  while (std::getline(out, line)) {
    const bool exp = line.find("exp_tile") != std::string::npos;
    if (exps == 1 && line.find("pack_tile") == std::string::npos &&
        line.find("cb_wait_front") == std::string::npos)
      got += line.substr(line.find_first_not_of(' ')) + "\n";
    exps += exp;
  }
  return got;
}

TEST(FpuExpArg, AMaxIsSubtractedOnTheFpuFromBothCbs) {
  // The argument s - bcast_col(max(m, rowmax(s))) is also proved <= 0 (prove_nonpositive.hpp):
  // the unclamped exp follows the FPU's subtraction.
  EXPECT_EQ(p_section("tile.max(m, tile.rowmax(s))", true),
            "cb_pop_front(cb_m, 1)\n"
            "sub_tiles_bcast(BroadcastType::COL, cb_s, cb_mn, 0, 0, 0)\n"
            "exp_tile.approx_noclamp(0)\n");
}

TEST(FpuExpArg, AScaledMaxTf32DoesNotHoldStaysOnTheSfpu) {
  EXPECT_EQ(p_section("tile.mul_scalar(tile.rowmax(s), alpha)", true),
            "cb_pop_front(cb_m, 1)\n"
            "unary_bcast(BroadcastType::COL, cb_mn, 0, 0)\n"
            "copy_tile(cb_s, 0, 1)\n"
            "sub_binary_tile(1, 0, 1)\n"
            "exp_tile.approx(1)\n");
}

TEST(FpuExpArg, AnAccurateExpsArgumentStaysOnTheSfpu) {
  EXPECT_EQ(p_section("tile.max(m, tile.rowmax(s))", false),
            "cb_pop_front(cb_m, 1)\n"
            "unary_bcast(BroadcastType::COL, cb_mn, 0, 0)\n"
            "copy_tile(cb_s, 0, 1)\n"
            "sub_binary_tile(1, 0, 1)\n"
            "exp_tile(1)\n");
}

} // namespace
} // namespace tk::lower
