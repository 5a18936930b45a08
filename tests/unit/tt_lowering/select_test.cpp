// select-tile-ops on small kernels: which primitive each tile op becomes, where values live
// (CB or DST), when a section ends, and the streams to and from DRAM. Each case gives the
// statements of the per-core loop after `let j`; the expectation lists the intermediate CBs
// declared and the loop body selected.
#include "tt_test_util.hpp"

#include <sstream>

namespace tk::lower {
namespace {

const char* kHead = R"(// after to-core-loop
program k {
  options grid 8x8 cb_depth 2 fp32_acc FP32 math_fidelity "HiFi4"
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

std::string input(bool fp32_acc, const std::string& body) {
  std::string h = kHead;
  h.replace(h.find("FP32"), 4, fp32_acc ? "true" : "false");
  h.replace(h.find("BODY"), 4, body);
  return h;
}

// The intermediate CBs, then the per-core loop body after `let j`, unindented.
std::string selected(bool fp32_acc, const std::string& body) {
  std::istringstream in(test::run_stage("select-tile-ops", input(fp32_acc, body)));
  std::string line, out;
  bool inside = false;
  while (std::getline(in, line)) {
    if (line.rfind("  cb ", 0) == 0 && line.find("role intermediate") != std::string::npos)
      out += line.substr(2) + "\n";
    if (inside && line.rfind("    }", 0) == 0)
      inside = false;
    if (inside)
      out += line.substr(6) + "\n";
    if (line.find("let j: i32") != std::string::npos)
      inside = true;
  }
  return out;
}

TEST(SelectTileOps, FpuBroadcastOnTheLeftOfAMinusIsNegated) {
  EXPECT_EQ(
      selected(false, R"(      store y[i, j] = tile.sub(tile.bcast_col(load v[i, 0]), load x[i, j])
)"),
      R"(df.read_tile(cb_x, x, i * Nt + j)
cb_wait_front(cb_x, 1)
df.read_tile(cb_v, v, i)
cb_wait_front(cb_v, 1)
sub_tiles_bcast(BroadcastType::COL, cb_x, cb_v, 0, 0, 0)
cb_pop_front(cb_x, 1)
cb_pop_front(cb_v, 1)
negative_tile(0)
pack_tile(0, cb_y)
df.write_tile(cb_y, y, i * Nt + j)
)");
}

TEST(SelectTileOps, TwoTilesOfOneInputCbPassThroughATemporary) {
  EXPECT_EQ(selected(false, R"(      store y[i, j] = tile.mul(load x[i, j], load x[i, j + 1])
)"),
            R"(cb cb_tmp0 index 24 format Float16_b page 2048 depth 1 role intermediate
df.read_tile(cb_x, x, i * Nt + j)
cb_wait_front(cb_x, 1)
copy_tile(cb_x, 0, 0)
cb_pop_front(cb_x, 1)
pack_tile(0, cb_tmp0)
cb_wait_front(cb_tmp0, 1)
df.read_tile(cb_x, x, i * Nt + (j + 1))
cb_wait_front(cb_x, 1)
mul_tiles(cb_tmp0, cb_x, 0, 0, 0)
cb_pop_front(cb_tmp0, 1)
cb_pop_front(cb_x, 1)
pack_tile(0, cb_y)
df.write_tile(cb_y, y, i * Nt + j)
)");
}

TEST(SelectTileOps, ResultStaysInDstForItsOnlyNextUse) {
  EXPECT_EQ(selected(false, R"(      let a: tile<f32> = tile.exp(load x[i, j])
      store y[i, j] = tile.mul_scalar(a, alpha)
)"),
            R"(df.read_tile(cb_x, x, i * Nt + j)
cb_wait_front(cb_x, 1)
copy_tile(cb_x, 0, 0)
cb_pop_front(cb_x, 1)
exp_tile(0)
mul_unary_tile(0, float_bits(alpha))
pack_tile(0, cb_y)
df.write_tile(cb_y, y, i * Nt + j)
)");
}

// With an fp32 DST, `x * bcast_col(r)` runs on the SFPU (r is not a value bf16 holds), and the
// matmul takes copies of s and r in the intermediates' format.
TEST(SelectTileOps, AccumulationThroughACbWhenTheOperandIsComputed) {
  EXPECT_EQ(selected(false, R"(      let r: tile<f32> = tile.exp(load v[i, 0])
      let s: tile<f32> = tile.fill(-1.0)
      for k in 0 .. Nt reduction {
        s = tile.max(s, tile.rowmax(tile.mul(load x[i, k], tile.bcast_col(r))))
      }
      store y[i, j] = tile.relu(tile.matmul(s, r))
)"),
            R"(cb cb_r index 24 format Float32 page 4096 depth 1 role intermediate
cb cb_s index 25 format Float32 page 4096 depth 1 role intermediate
cb cb_tmp0 index 26 format Float16_b page 2048 depth 1 role intermediate
cb cb_sum0 index 27 format Float32 page 4096 depth 1 role intermediate
cb cb_tmp1 index 28 format Float16_b page 2048 depth 1 role intermediate
df.read_tile(cb_v, v, i)
cb_wait_front(cb_v, 1)
copy_tile(cb_v, 0, 0)
cb_pop_front(cb_v, 1)
exp_tile(0)
pack_tile(0, cb_r)
cb_wait_front(cb_r, 1)
fill_tile(0, -1.0)
pack_tile(0, cb_s)
cb_wait_front(cb_s, 1)
for k in 0 .. Nt reduction {
  unary_bcast(BroadcastType::COL, cb_r, 0, 0)
  df.read_tile(cb_x, x, i * Nt + k)
  cb_wait_front(cb_x, 1)
  copy_tile(cb_x, 0, 1)
  cb_pop_front(cb_x, 1)
  mul_binary_tile(1, 0, 1)
  pack_tile(1, cb_tmp0)
  cb_wait_front(cb_tmp0, 1)
  copy_tile(cb_s, 0, 0)
  reduce_tile(PoolType::MAX, ReduceDim::REDUCE_ROW, cb_tmp0, cb_scaler, 0, 0, 0)
  cb_pop_front(cb_tmp0, 1)
  cb_pop_front(cb_s, 1)
  pack_tile(0, cb_s)
  cb_wait_front(cb_s, 1)
}
copy_tile(cb_s, 0, 0)
copy_tile(cb_r, 0, 1)
pack_tile(0, cb_tmp0)
pack_tile(1, cb_sum0)
cb_wait_front(cb_tmp0, 1)
cb_wait_front(cb_sum0, 1)
copy_tile(cb_sum0, 0, 0)
cb_pop_front(cb_sum0, 1)
pack_tile(0, cb_tmp1)
cb_wait_front(cb_tmp1, 1)
dst.assume_zero(0)
matmul_tiles(cb_tmp0, cb_tmp1, 0, 0, 0)
cb_pop_front(cb_tmp0, 1)
cb_pop_front(cb_tmp1, 1)
relu_tile(0)
pack_tile(0, cb_y)
df.write_tile(cb_y, y, i * Nt + j)
cb_pop_front(cb_r, 1)
cb_pop_front(cb_s, 1)
)");
}

// max(s, rowmax(t)) is 1 off column 0 when s = fill(1.0), but a reduction into s's slot is packed
// under the packer's reduce mask, which writes 0 there: the reduction is computed alone (packed
// under its mask) and combined with s by the SFPU.
TEST(SelectTileOps, ReductionIntoAValueNonZeroOffItsColumnIsCombinedAfter) {
  EXPECT_EQ(selected(false, R"(      let s: tile<f32> = tile.fill(1.0)
      for k in 0 .. Nt reduction {
        s = tile.max(s, tile.rowmax(load x[i, k]))
      }
      store y[i, j] = s
)"),
            R"(cb cb_s index 24 format Float32 page 4096 depth 1 role intermediate
cb cb_sum0 index 25 format Float32 page 4096 depth 1 role intermediate
fill_tile(0, 1.0)
pack_tile(0, cb_s)
cb_wait_front(cb_s, 1)
for k in 0 .. Nt reduction {
  fill_tile(0, -inf)
  df.read_tile(cb_x, x, i * Nt + k)
  cb_wait_front(cb_x, 1)
  reduce_tile(PoolType::MAX, ReduceDim::REDUCE_ROW, cb_x, cb_scaler, 0, 0, 0)
  cb_pop_front(cb_x, 1)
  pack_tile(0, cb_sum0)
  cb_wait_front(cb_sum0, 1)
  copy_tile(cb_s, 0, 0)
  copy_tile(cb_sum0, 0, 1)
  cb_pop_front(cb_sum0, 1)
  binary_max_tile(0, 1, 0)
  cb_pop_front(cb_s, 1)
  pack_tile(0, cb_s)
  cb_wait_front(cb_s, 1)
}
copy_tile(cb_s, 0, 0)
pack_tile(0, cb_y)
df.write_tile(cb_y, y, i * Nt + j)
cb_pop_front(cb_s, 1)
)");
}

// A reduction used in DST (here scaled) is packed under its mask first, through a temporary, and
// copied back: off column 0 DST holds -inf (the emulator) or scratch (the device), the CB tile 0.
// With an fp32 DST the temporary is dest-only Float32, so the copy back is exact.
TEST(SelectTileOps, ReductionUsedInDstGoesThroughItsMaskedPack) {
  EXPECT_EQ(selected(false, R"(      store y[i, j] = tile.mul_scalar(tile.rowmax(load x[i, j]), 2.0)
)"),
            R"(cb cb_sum0 index 24 format Float32 page 4096 depth 1 role intermediate
fill_tile(0, -inf)
df.read_tile(cb_x, x, i * Nt + j)
cb_wait_front(cb_x, 1)
reduce_tile(PoolType::MAX, ReduceDim::REDUCE_ROW, cb_x, cb_scaler, 0, 0, 0)
cb_pop_front(cb_x, 1)
pack_tile(0, cb_sum0)
cb_wait_front(cb_sum0, 1)
copy_tile(cb_sum0, 0, 0)
cb_pop_front(cb_sum0, 1)
mul_unary_tile(0, 1073741824u)
pack_tile(0, cb_y)
df.write_tile(cb_y, y, i * Nt + j)
)");
}

TEST(SelectTileOps, AccumulationLoopStaysInDstWithAVariableOperandInACb) {
  EXPECT_EQ(selected(false, R"(      let r: tile<f32> = tile.exp(load v[i, 0])
      let s: tile<f32> = tile.zeros()
      for k in 0 .. Nt reduction {
        s = tile.matmul_acc(s, load x[i, k], r)
      }
      store y[i, j] = tile.min(s, tile.rsub_scalar(s, 2.0))
)"),
            R"(cb cb_r index 24 format Float32 page 4096 depth 1 role intermediate
cb cb_s index 25 format Float32 page 4096 depth 1 role intermediate
df.read_tile(cb_v, v, i)
cb_wait_front(cb_v, 1)
copy_tile(cb_v, 0, 0)
cb_pop_front(cb_v, 1)
exp_tile(0)
pack_tile(0, cb_r)
cb_wait_front(cb_r, 1)
dst.assume_zero(0)
for k in 0 .. Nt reduction {
  df.read_tile(cb_x, x, i * Nt + k)
  cb_wait_front(cb_x, 1)
  matmul_tiles(cb_x, cb_r, 0, 0, 0)
  cb_pop_front(cb_x, 1)
}
pack_tile(0, cb_s)
cb_wait_front(cb_s, 1)
cb_pop_front(cb_r, 1)
copy_tile(cb_s, 0, 0)
rsub_unary_tile(0, 1073741824u)
copy_tile(cb_s, 0, 1)
binary_min_tile(1, 0, 1)
pack_tile(1, cb_y)
df.write_tile(cb_y, y, i * Nt + j)
cb_pop_front(cb_s, 1)
)");
}

// zeros() takes a fresh slot and no instruction: it relies on DST being zero since
// tile_regs_acquire and says so, even right after a store packed the same slot number.
TEST(SelectTileOps, ZeroTileAfterAStoreIsAssumedZero) {
  EXPECT_EQ(selected(false, R"(      store y[i, j] = load x[i, j]
      let s: tile<f32> = tile.zeros()
      store y[i, j] = s
)"),
            R"(df.read_tile(cb_x, x, i * Nt + j)
cb_wait_front(cb_x, 1)
copy_tile(cb_x, 0, 0)
cb_pop_front(cb_x, 1)
pack_tile(0, cb_y)
df.write_tile(cb_y, y, i * Nt + j)
dst.assume_zero(0)
pack_tile(0, cb_y)
df.write_tile(cb_y, y, i * Nt + j)
)");
}

// The fifth value finds DST full (four values live at once: the right-leaning tree keeps every
// left operand until its right one is done): the four before it leave in one section, through a
// dest-only Float32 temporary (an fp32 DST), exact when copied back.
TEST(SelectTileOps, FullDstEndsTheSection) {
  EXPECT_EQ(
      selected(
          true,
          R"(      store y[i, j] = tile.max(tile.exp(load x[i, j]), tile.max(tile.log(load x[i, j]), tile.max(tile.sqrt(load x[i, j]), tile.max(tile.abs(load x[i, j]), tile.neg(load x[i, j])))))
)"),
      R"(cb cb_sum0 index 24 format Float32 page 4096 depth 1 role intermediate
cb cb_sum1 index 25 format Float32 page 4096 depth 1 role intermediate
cb cb_sum2 index 26 format Float32 page 4096 depth 1 role intermediate
cb cb_sum3 index 27 format Float32 page 4096 depth 1 role intermediate
df.read_tile(cb_x, x, i * Nt + j)
cb_wait_front(cb_x, 1)
copy_tile(cb_x, 0, 0)
cb_pop_front(cb_x, 1)
exp_tile(0)
df.read_tile(cb_x, x, i * Nt + j)
cb_wait_front(cb_x, 1)
copy_tile(cb_x, 0, 1)
cb_pop_front(cb_x, 1)
log_tile(1)
df.read_tile(cb_x, x, i * Nt + j)
cb_wait_front(cb_x, 1)
copy_tile(cb_x, 0, 2)
cb_pop_front(cb_x, 1)
sqrt_tile(2)
df.read_tile(cb_x, x, i * Nt + j)
cb_wait_front(cb_x, 1)
copy_tile(cb_x, 0, 3)
cb_pop_front(cb_x, 1)
abs_tile(3)
pack_tile(0, cb_sum0)
pack_tile(1, cb_sum1)
pack_tile(2, cb_sum2)
pack_tile(3, cb_sum3)
cb_wait_front(cb_sum0, 1)
cb_wait_front(cb_sum1, 1)
cb_wait_front(cb_sum2, 1)
cb_wait_front(cb_sum3, 1)
df.read_tile(cb_x, x, i * Nt + j)
cb_wait_front(cb_x, 1)
copy_tile(cb_x, 0, 0)
cb_pop_front(cb_x, 1)
negative_tile(0)
copy_tile(cb_sum3, 0, 1)
cb_pop_front(cb_sum3, 1)
binary_max_tile(1, 0, 1)
copy_tile(cb_sum2, 0, 0)
cb_pop_front(cb_sum2, 1)
binary_max_tile(0, 1, 0)
copy_tile(cb_sum1, 0, 1)
cb_pop_front(cb_sum1, 1)
binary_max_tile(1, 0, 1)
copy_tile(cb_sum0, 0, 0)
cb_pop_front(cb_sum0, 1)
binary_max_tile(0, 1, 0)
pack_tile(0, cb_y)
df.write_tile(cb_y, y, i * Nt + j)
)");
}

// A slot is free again once its value's last use has run (the second operand of an SFPU op):
// `(x - bcast_col(m)) * bcast_col(m) * bcast_col(m) + bcast_col(m)`, five values with at most two
// live, runs in slots 0 and 1 in one section (before: five slots, DST full at the fifth, the
// first four packed and copied back). A zero tile still takes a slot nothing wrote since the
// section began: slot 2, not the broadcast's dead slot 1.
TEST(SelectTileOps, TheSlotOfADeadValueIsReused) {
  EXPECT_EQ(selected(true, R"(      let m: tile<f32> = tile.exp(load v[i, 0])
      let s: tile<f32> = tile.sub(load x[i, j], tile.bcast_col(m))
      store y[i, j] = tile.add(tile.mul(tile.mul(s, tile.bcast_col(m)), tile.bcast_col(m)), tile.bcast_col(m))
      store y[i, j] = tile.add(tile.mul(tile.exp(load x[i, j]), tile.bcast_col(m)), tile.zeros())
)"),
            R"(cb cb_m index 24 format Float32 page 4096 depth 1 role intermediate
df.read_tile(cb_v, v, i)
cb_wait_front(cb_v, 1)
copy_tile(cb_v, 0, 0)
cb_pop_front(cb_v, 1)
exp_tile.col(0)
pack_tile(0, cb_m)
cb_wait_front(cb_m, 1)
unary_bcast(BroadcastType::COL, cb_m, 0, 0)
df.read_tile(cb_x, x, i * Nt + j)
cb_wait_front(cb_x, 1)
copy_tile(cb_x, 0, 1)
cb_pop_front(cb_x, 1)
sub_binary_tile(1, 0, 1)
unary_bcast(BroadcastType::COL, cb_m, 0, 0)
mul_binary_tile(1, 0, 1)
unary_bcast(BroadcastType::COL, cb_m, 0, 0)
mul_binary_tile(1, 0, 1)
unary_bcast(BroadcastType::COL, cb_m, 0, 0)
add_binary_tile(1, 0, 1)
pack_tile(1, cb_y)
df.write_tile(cb_y, y, i * Nt + j)
df.read_tile(cb_x, x, i * Nt + j)
cb_wait_front(cb_x, 1)
copy_tile(cb_x, 0, 0)
cb_pop_front(cb_x, 1)
exp_tile(0)
unary_bcast(BroadcastType::COL, cb_m, 0, 1)
mul_binary_tile(0, 1, 0)
dst.assume_zero(2)
add_binary_tile(0, 2, 0)
pack_tile(0, cb_y)
df.write_tile(cb_y, y, i * Nt + j)
cb_pop_front(cb_m, 1)
)");
}

// A carried sum whose term is computed in DST beside it, nothing packed (layernorm's variance
// walk, `v += square(x - bcast_col(m))`), stays in DST across the loop: one section, the term in
// the two slots after the sum's, no pack and copy of the sum per tile. A term that would pack a
// value (x[i, k] * x[i, j]: two tiles to arrive in cb_x, the first through a temporary) keeps the
// sum in its dest-only CB, packed and copied back each iteration.
TEST(SelectTileOps, ACarriedSumOfATermComputedInDstStaysInDst) {
  EXPECT_EQ(selected(true, R"(      let m: tile<f32> = tile.exp(load v[i, 0])
      let s: tile<f32> = tile.zeros()
      for k in 0 .. Nt reduction {
        s = tile.add(s, tile.square(tile.sub(load x[i, k], tile.bcast_col(m))))
      }
      store y[i, j] = s
)"),
            R"(cb cb_m index 24 format Float32 page 4096 depth 1 role intermediate
df.read_tile(cb_v, v, i)
cb_wait_front(cb_v, 1)
copy_tile(cb_v, 0, 0)
cb_pop_front(cb_v, 1)
exp_tile.col(0)
pack_tile(0, cb_m)
cb_wait_front(cb_m, 1)
dst.assume_zero(0)
for k in 0 .. Nt reduction {
  unary_bcast(BroadcastType::COL, cb_m, 0, 1)
  df.read_tile(cb_x, x, i * Nt + k)
  cb_wait_front(cb_x, 1)
  copy_tile(cb_x, 0, 2)
  cb_pop_front(cb_x, 1)
  sub_binary_tile(2, 1, 2)
  square_tile(2)
  add_binary_tile(0, 2, 0)
}
cb_pop_front(cb_m, 1)
pack_tile(0, cb_y)
df.write_tile(cb_y, y, i * Nt + j)
)");
  EXPECT_EQ(selected(true, R"(      let s: tile<f32> = tile.zeros()
      for k in 0 .. Nt reduction {
        s = tile.add(s, tile.mul(load x[i, k], load x[i, j]))
      }
      store y[i, j] = s
)"),
            R"(cb cb_s index 24 format Float32 page 4096 depth 1 role intermediate
cb cb_sum0 index 25 format Float32 page 4096 depth 1 role intermediate
dst.assume_zero(0)
pack_tile(0, cb_s)
cb_wait_front(cb_s, 1)
for k in 0 .. Nt reduction {
  df.read_tile(cb_x, x, i * Nt + k)
  cb_wait_front(cb_x, 1)
  copy_tile(cb_x, 0, 0)
  cb_pop_front(cb_x, 1)
  pack_tile(0, cb_sum0)
  cb_wait_front(cb_sum0, 1)
  copy_tile(cb_sum0, 0, 0)
  cb_pop_front(cb_sum0, 1)
  df.read_tile(cb_x, x, i * Nt + j)
  cb_wait_front(cb_x, 1)
  copy_tile(cb_x, 0, 1)
  cb_pop_front(cb_x, 1)
  mul_binary_tile(0, 1, 0)
  copy_tile(cb_s, 0, 1)
  add_binary_tile(1, 0, 1)
  cb_pop_front(cb_s, 1)
  pack_tile(1, cb_s)
  cb_wait_front(cb_s, 1)
}
copy_tile(cb_s, 0, 0)
pack_tile(0, cb_y)
df.write_tile(cb_y, y, i * Nt + j)
cb_pop_front(cb_s, 1)
)");
}

TEST(SelectTileOps, ReductionWithoutScalerCbIsAnInternalError) {
  std::string in = input(
      false,
      "      store y[i, j] = tile.add(load x[i, j], tile.bcast_col(tile.rowsum(load x[i, j])))\n");
  in.erase(in.find("  cb cb_scaler"),
           in.find("\n", in.find("  cb cb_scaler")) + 1 - in.find("  cb cb_scaler"));
  ir::Module m = test::read_ir(in);
  Diagnostics d;
  EXPECT_THROW(test::stage("select-tile-ops")(m, d), InternalError);
}

// The online softmax's statistics (attention's key step): `l * c + rowsum(p)` reduces into the
// slot where l * c was just computed, one section packed under the reduce mask, because l * c is
// 0 off column 0: l is (zeros, then a row sum's masked pack) and c = exp(m - mn) is in [0, 1]
// there (m at most 0: fill(-inf), then mn; mn = max(m, rowmax(s)) is 0). The value rowmax reads
// next, s, in a dest-only CB, is also packed to an ordinary temporary in the section that
// computed it, so the reduction reads that copy: no section of its own to copy s back and pack it.
TEST(SelectTileOps, OnlineSoftmaxStatisticsReduceIntoTheirSection) {
  EXPECT_EQ(selected(true, R"(      let m: tile<f32> = tile.fill(-inf)
      let l: tile<f32> = tile.zeros()
      for k in 0 .. Nt reduction {
        let s: tile<f32> = tile.mul_scalar(load x[i, k], 2.0)
        let mn: tile<f32> = tile.max(m, tile.rowmax(s))
        let c: tile<f32> = tile.exp(tile.sub(m, mn))
        l = tile.add(tile.mul(l, c), tile.rowsum(tile.exp(tile.sub(s, tile.bcast_col(mn)))))
        m = mn
      }
      store y[i, j] = l
)"),
            R"(cb cb_m index 24 format Float32 page 4096 depth 1 role intermediate
cb cb_l index 25 format Float32 page 4096 depth 1 role intermediate
cb cb_s index 26 format Float32 page 4096 depth 1 role intermediate
cb cb_tmp0 index 27 format Float16_b page 2048 depth 1 role intermediate
cb cb_mn index 28 format Float32 page 4096 depth 1 role intermediate
cb cb_sum0 index 29 format Float32 page 4096 depth 1 role intermediate
fill_tile(0, -inf)
pack_tile(0, cb_m)
cb_wait_front(cb_m, 1)
dst.assume_zero(0)
pack_tile(0, cb_l)
cb_wait_front(cb_l, 1)
for k in 0 .. Nt reduction {
  df.read_tile(cb_x, x, i * Nt + k)
  cb_wait_front(cb_x, 1)
  copy_tile(cb_x, 0, 0)
  cb_pop_front(cb_x, 1)
  mul_unary_tile(0, 1073741824u)
  pack_tile(0, cb_tmp0)
  pack_tile(0, cb_s)
  cb_wait_front(cb_s, 1)
  cb_wait_front(cb_tmp0, 1)
  copy_tile(cb_m, 0, 0)
  reduce_tile(PoolType::MAX, ReduceDim::REDUCE_ROW, cb_tmp0, cb_scaler, 0, 0, 0)
  cb_pop_front(cb_tmp0, 1)
  pack_tile(0, cb_mn)
  cb_wait_front(cb_mn, 1)
  copy_tile(cb_m, 0, 0)
  copy_tile(cb_mn, 0, 1)
  sub_binary_tile(0, 1, 0)
  exp_tile(0)
  unary_bcast(BroadcastType::COL, cb_mn, 0, 1)
  copy_tile(cb_s, 0, 2)
  sub_binary_tile(2, 1, 2)
  exp_tile(2)
  pack_tile(0, cb_sum0)
  pack_tile(2, cb_tmp0)
  cb_wait_front(cb_sum0, 1)
  cb_wait_front(cb_tmp0, 1)
  copy_tile(cb_l, 0, 0)
  copy_tile(cb_sum0, 0, 1)
  cb_pop_front(cb_sum0, 1)
  mul_binary_tile(0, 1, 0)
  reduce_tile(PoolType::SUM, ReduceDim::REDUCE_ROW, cb_tmp0, cb_scaler, 0, 0, 0)
  cb_pop_front(cb_tmp0, 1)
  cb_pop_front(cb_l, 1)
  pack_tile(0, cb_l)
  cb_wait_front(cb_l, 1)
  cb_pop_front(cb_s, 1)
  copy_tile(cb_mn, 0, 0)
  cb_pop_front(cb_m, 1)
  pack_tile(0, cb_m)
  cb_wait_front(cb_m, 1)
  cb_pop_front(cb_mn, 1)
}
cb_pop_front(cb_m, 1)
copy_tile(cb_l, 0, 0)
pack_tile(0, cb_y)
df.write_tile(cb_y, y, i * Nt + j)
cb_pop_front(cb_l, 1)
)");
}

// The same with a factor that may be anything off column 0 (exp of a loaded tile: it may
// overflow, and 0 * inf is NaN where the masked pack would write 0): the row sum is computed
// alone, packed under its mask, and added after.
TEST(SelectTileOps, ARowSumIntoAProductWithAFactorUnboundedOffColumn0IsAddedAfter) {
  EXPECT_EQ(selected(true, R"(      let l: tile<f32> = tile.zeros()
      for k in 0 .. Nt reduction {
        l = tile.add(tile.mul(l, tile.exp(load x[i, k])), tile.rowsum(load x[i, j]))
      }
      store y[i, j] = l
)"),
            R"(cb cb_l index 24 format Float32 page 4096 depth 1 role intermediate
cb cb_sum0 index 25 format Float32 page 4096 depth 1 role intermediate
cb cb_sum1 index 26 format Float32 page 4096 depth 1 role intermediate
dst.assume_zero(0)
pack_tile(0, cb_l)
cb_wait_front(cb_l, 1)
for k in 0 .. Nt reduction {
  df.read_tile(cb_x, x, i * Nt + k)
  cb_wait_front(cb_x, 1)
  copy_tile(cb_x, 0, 0)
  cb_pop_front(cb_x, 1)
  exp_tile(0)
  copy_tile(cb_l, 0, 1)
  mul_binary_tile(1, 0, 1)
  pack_tile(1, cb_sum0)
  cb_wait_front(cb_sum0, 1)
  dst.assume_zero(0)
  df.read_tile(cb_x, x, i * Nt + j)
  cb_wait_front(cb_x, 1)
  reduce_tile(PoolType::SUM, ReduceDim::REDUCE_ROW, cb_x, cb_scaler, 0, 0, 0)
  cb_pop_front(cb_x, 1)
  pack_tile(0, cb_sum1)
  cb_wait_front(cb_sum1, 1)
  copy_tile(cb_sum0, 0, 0)
  cb_pop_front(cb_sum0, 1)
  copy_tile(cb_sum1, 0, 1)
  cb_pop_front(cb_sum1, 1)
  add_binary_tile(0, 1, 0)
  cb_pop_front(cb_l, 1)
  pack_tile(0, cb_l)
  cb_wait_front(cb_l, 1)
}
copy_tile(cb_l, 0, 0)
pack_tile(0, cb_y)
df.write_tile(cb_y, y, i * Nt + j)
cb_pop_front(cb_l, 1)
)");
}

} // namespace
} // namespace tk::lower
