// select-tile-ops under @options(exp_approx_mode = true): tile.exp becomes tt-llk's approximate
// exp_tile<true> (exp_tile.approx), but for an exp that rescales a carried value (a factor of
// `x = ... x * f ...`, or what such a factor is computed from), whose error would compound once
// per iteration: that one stays the accurate exp_tile (select_tile_ops_exp.cpp). Without the
// option every exp is exp_tile.
#include "tt_test_util.hpp"

#include <sstream>

namespace tk::lower {
namespace {

const char* kHead = R"(// after to-core-loop
program k {
  options grid 8x8 cb_depth 2 fp32_acc true math_fidelity "HiFi4"APPROX
  tensor x: bf16[M, N] input layout dram interleaved tile 32x32 page 2048
  tensor v: bf16[M, 1] input layout dram interleaved tile 32x32 page 2048
  tensor y: bf16[M, N] output layout dram interleaved tile 32x32 page 2048
  cb cb_x index 0 format Float16_b page 2048 depth 2 role input tensor x
  cb cb_v index 1 format Float16_b page 2048 depth 2 role input tensor v
  cb cb_y index 16 format Float16_b page 2048 depth 2 role output tensor y
  cb cb_scaler index 2 format Float16_b page 2048 depth 1 role scaler
  
  func kernel k(x: tensor, v: tensor, alpha: f32, y: tensor, M: i32, N: i32, start: u32, count: u32) {
    let Mt: i32 = M / 32
    let Nt: i32 = N / 32
    for w in start .. +count per_core {
      let i: i32 = w / Nt
      let j: i32 = w % Nt
BODY    }
  }
}
)";

// How many lines of select-tile-ops' output call `call(`.
int calls(bool approx, const std::string& body, const std::string& call) {
  std::string h = kHead;
  h.replace(h.find("APPROX"), 6, approx ? " exp_approx_mode" : "");
  h.replace(h.find("BODY"), 4, body);
  std::istringstream in(test::run_stage("select-tile-ops", h));
  int n = 0;
  for (std::string line; std::getline(in, line);)
    n += line.find(" " + call + "(") != std::string::npos ? 1 : 0;
  return n;
}

TEST(ApproxExp, EveryExpIsApproximateWithTheOption) {
  const std::string body =
      R"(      store y[i, j] = tile.exp(tile.sub(load x[i, j], tile.bcast_col(load v[i, 0])))
)";
  EXPECT_EQ(calls(true, body, "exp_tile.approx"), 1);
  EXPECT_EQ(calls(true, body, "exp_tile"), 0);
  EXPECT_EQ(calls(false, body, "exp_tile.approx"), 0);
  EXPECT_EQ(calls(false, body, "exp_tile"), 1);
}

TEST(ApproxExp, AnExpRescalingACarriedValueStaysAccurate) {
  // acc's factor exp(v) would multiply its error into acc once per step; the exp added is used
  // once.
  const std::string body = R"(      let acc: tile<f32> = tile.zeros()
      for k in 0 .. Nt reduction {
        acc = tile.add(tile.mul(acc, tile.exp(load v[i, 0])), tile.exp(load x[i, k]))
      }
      store y[i, j] = acc
)";
  EXPECT_EQ(calls(true, body, "exp_tile.approx"), 1);
  EXPECT_EQ(calls(true, body, "exp_tile"), 1);
  EXPECT_EQ(calls(false, body, "exp_tile.approx"), 0);
  EXPECT_EQ(calls(false, body, "exp_tile"), 2);
}

TEST(ApproxExp, AFactorNamedOrComputedThroughLetsStaysAccurate) {
  // FlashAttention's shape: c = exp(m - mn) rescales l (through c2 = c * c here); p does not.
  const std::string body = R"(      let m: tile<f32> = tile.fill(-inf)
      let l: tile<f32> = tile.zeros()
      for k in 0 .. Nt reduction {
        let mn: tile<f32> = tile.max(m, tile.rowmax(load x[i, k]))
        let c: tile<f32> = tile.exp(tile.sub(m, mn))
        let c2: tile<f32> = tile.mul(c, c)
        let p: tile<f32> = tile.exp(tile.sub(load x[i, k], tile.bcast_col(mn)))
        l = tile.add(tile.mul(c2, l), tile.rowsum(p))
        m = mn
      }
      store y[i, j] = l
)";
  // p's argument is at most 0 (mn >= rowmax of the same tile): the unclamped form
  // (prove_nonpositive_test.cpp).
  EXPECT_EQ(calls(true, body, "exp_tile.approx_noclamp"), 1);
  EXPECT_EQ(calls(true, body, "exp_tile.approx"), 0);
  EXPECT_EQ(calls(true, body, "exp_tile"), 1);
}

} // namespace
} // namespace tk::lower
