// verify-kernels proves every example's final IR balanced, and rejects hand-broken IR with an
// internal error that names the broken invariant (exact messages) and carries the printed IR.
#include "lowering/tt/verify_kernels.hpp"
#include "tt_test_util.hpp"

#include <filesystem>

namespace tk::lower {
namespace {

namespace fs = std::filesystem;

// The last dump before verify-kernels, without its header line. "matmul" and "matmul_f32" are the
// per-tile matmuls (fixtures/*_per_tile.ir, the examples' dumps before they became blocked
// matmuls), "softmax_rowsum_per_tile" softmax's before keep-rows summed its exponentials tile by
// tile (a reduce of a computed tile in every iteration), whose lines the hand-broken cases below
// edit; every other name is the example's own.
std::string final_ir(const std::string& example) {
  const fs::path fixtures = tk::test::source_dir() / "tests/unit/tt_lowering/fixtures";
  fs::path path =
      example == "matmul" || example == "matmul_f32" ? fixtures / (example + "_per_tile.ir")
      : example == "softmax_rowsum_per_tile"         ? fixtures / (example + ".ir")
                                                     : tk::test::source_dir() / "tests/golden/ir" /
                                                   example / "tt/after-finalize-signature.txt";
  std::string text = tk::test::read_file(path);
  EXPECT_FALSE(text.empty()) << "no golden dump for " << example;
  return text.substr(text.find('\n') + 1);
}

// Replaces the one occurrence of `from` in `text`.
std::string edit(std::string text, const std::string& from, const std::string& to) {
  std::size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << "no '" << from << "' to replace";
  EXPECT_EQ(text.find(from, at + 1), std::string::npos) << "'" << from << "' is not unique";
  if (at != std::string::npos)
    text.replace(at, from.size(), to);
  return text;
}

// Replaces the first occurrence of `from` in `text`, which has more (a loop over a row kept in L1
// and the loop over its tiles past the CB repeat the same body).
std::string edit_first(std::string text, const std::string& from, const std::string& to) {
  std::size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << "no '" << from << "' to replace";
  EXPECT_NE(text.find(from, at + 1), std::string::npos) << "'" << from << "' is unique: use edit";
  if (at != std::string::npos)
    text.replace(at, from.size(), to);
  return text;
}

// The internal error verify-kernels throws on `text`, or "" when it passes.
std::string verify_error(const std::string& text) {
  ir::Module m = test::read_ir(text);
  Diagnostics diags;
  try {
    verify_kernels(m, diags);
  } catch (const InternalError& e) {
    EXPECT_EQ(e.detail(), ir::print(m)) << "the error carries the printed IR";
    return e.what();
  }
  return "";
}

TEST(Verify, PassesOnEveryExample) {
  for (const auto& e : fs::directory_iterator(tk::test::source_dir() / "examples")) {
    if (e.path().extension() != ".tk")
      continue;
    std::string name = e.path().stem().string();
    std::string text = tk::test::read_file(tk::test::source_dir() / "tests/golden/ir" / name /
                                           "tt/after-finalize-signature.txt");
    text = text.substr(text.find('\n') + 1);
    EXPECT_EQ(verify_error(text), "") << name;
    ir::Module m = test::read_ir(text);
    Diagnostics d;
    EXPECT_TRUE(ir::identical(verify_kernels(m, d), m)) << "verify changes nothing";
  }
  EXPECT_EQ(verify_error(final_ir("matmul")), "") << "the per-tile matmul";
  EXPECT_EQ(verify_error(final_ir("matmul_f32")), "") << "the per-tile f32 matmul";
  EXPECT_EQ(verify_error(final_ir("softmax_rowsum_per_tile")), "") << "softmax, a reduce a tile";
}

TEST(Verify, DroppedPush) {
  std::string broken = edit(final_ir("matmul"), "        cb_push_back(cb_B, 1)\n", "");
  EXPECT_EQ(verify_error(broken),
            "internal error: 'matmul_reader' pushes and 'matmul_compute' waits differ on cb_A, "
            "cb_B: pushes `count { Kt { cb_A } }`, waits `count { Kt { cb_A cb_B } }` after "
            "verify-kernels");
}

// keep-rows reads a row's window one work item ahead: the reader pushes the first work item's
// before the per-core loop and each iteration the next one's (an empty window after the core's
// last), so compute waits for and pops one window more after the loop. Without that wait the
// reader's pushes, read one ahead, are not compute's waits.
TEST(Verify, ARowReadOneAheadIsWaitedForAfterTheLoop) {
  std::string text = final_ir("softmax");
  const std::string wait = "    for row_window_2 in 0 .. row_double serial {\n"
                           "      cb_wait_front(cb_x_row, 128)\n"
                           "    }\n";
  const std::string pop = "    for row_window_3 in 0 .. row_double serial {\n"
                          "      cb_pop_front(cb_x_row, 128)\n"
                          "    }\n";
  EXPECT_EQ(verify_error(text), "");
  text = edit(edit(text, wait, ""), pop, "");
  EXPECT_EQ(verify_error(text),
            "internal error: 'softmax_reader' pushes and 'softmax_compute' waits differ on "
            "cb_scaler, cb_x, cb_x_row: pushes `cb_scaler row_double { cb_x_row x128 } count { "
            "row_double { cb_x_row x128 } row_single { cb_x_row x256 } Nt - row_kept { cb_x } Nt "
            "- row_kept { cb_x } Nt - row_kept { cb_x } }`, waits `cb_scaler count { row_double { "
            "cb_x_row x128 } row_single { cb_x_row x256 } Nt - row_kept { cb_x } Nt - row_kept { "
            "cb_x } Nt - row_kept { cb_x } }` after verify-kernels");
}

TEST(Verify, SwappedPushesInTheReader) {
  std::string text = final_ir("matmul");
  text = edit(text, "        cb_push_back(cb_A, 1)\n", "        cb_push_back(cb_X, 1)\n");
  text = edit(text, "        cb_push_back(cb_B, 1)\n", "        cb_push_back(cb_A, 1)\n");
  text = edit(text, "        cb_push_back(cb_X, 1)\n", "        cb_push_back(cb_B, 1)\n");
  EXPECT_EQ(verify_error(text),
            "internal error: 'matmul_reader' pushes and 'matmul_compute' waits differ on cb_A, "
            "cb_B: pushes `count { Kt { cb_B cb_A } }`, waits `count { Kt { cb_A cb_B } }` after "
            "verify-kernels");
}

TEST(Verify, WriterPopsWhatItNeverWaitedFor) {
  std::string broken = edit(final_ir("eltwise_add"), "      cb_wait_front(cb_z, 1)\n", "");
  EXPECT_EQ(verify_error(broken),
            "internal error: 'eltwise_add_compute' pushes and 'eltwise_add_writer' waits differ on "
            "cb_z: pushes `count { cb_z }`, waits `nothing` after verify-kernels");
}

TEST(Verify, DstSlotOverCapacity) {
  // A 16-bit DST in half-sync mode holds 8 tiles.
  std::string broken = edit(final_ir("eltwise_add"), "add_tiles(cb_x, cb_y, 0, 0, 0)",
                            "add_tiles(cb_x, cb_y, 0, 0, 8)");
  EXPECT_EQ(verify_error(broken),
            "internal error: in 'eltwise_add_compute', add_tiles(cb_x, cb_y, 0, 0, 8) uses DST "
            "slot 8 but DST holds 8 tiles (dst_fp32 = false) after verify-kernels");
  // An fp32 DST holds 4; every kernel with `@` gets one (matrix products accumulate in fp32).
  for (std::string name : {"matmul", "matmul_f32"}) {
    std::string f32 = edit(final_ir(name), "matmul_tiles(cb_A, cb_B, 0, 0, 0)",
                           "matmul_tiles(cb_A, cb_B, 0, 0, 4)");
    EXPECT_EQ(verify_error(f32),
              "internal error: in '" + name +
                  "_compute', matmul_tiles(cb_A, cb_B, 0, 0, 4) uses "
                  "DST slot 4 but DST holds 4 tiles (dst_fp32 = true) after verify-kernels");
  }
}

// DST reads as zero only where nothing touched the slot since tile_regs_acquire: a value that
// relies on it (dst.assume_zero) in a slot the section already wrote or packed reads garbage.
TEST(Verify, AssumeZeroAfterAPackOfTheSameSlot) {
  // The shape of the store_then_zeros miscompile: a zero tile packed from the slot just packed.
  std::string broken = edit(final_ir("eltwise_add"), "      pack_tile(0, cb_z)\n",
                            "      pack_tile(0, cb_z)\n      dst.assume_zero(0)\n");
  EXPECT_EQ(verify_error(broken),
            "internal error: in 'eltwise_add_compute', dst.assume_zero(0) reads DST slot 0 as "
            "zero, but `add_tiles(cb_x, cb_y, 0, 0, 0)` used it earlier in the same section (DST "
            "is zero only where nothing wrote it since tile_regs_acquire) after verify-kernels");
}

TEST(Verify, AssumeZeroAfterMathInTheSameSlot) {
  std::string broken = edit(final_ir("eltwise_add"), "      cb_pop_front(cb_y, 1)\n",
                            "      cb_pop_front(cb_y, 1)\n      dst.assume_zero(0)\n");
  EXPECT_EQ(verify_error(broken),
            "internal error: in 'eltwise_add_compute', dst.assume_zero(0) reads DST slot 0 as "
            "zero, but `add_tiles(cb_x, cb_y, 0, 0, 0)` used it earlier in the same section (DST "
            "is zero only where nothing wrote it since tile_regs_acquire) after verify-kernels");
}

TEST(Verify, AssumeZeroInsideALoopTheSectionSpans) {
  // The second iteration finds the slot written by the first one's matmul.
  std::string text = edit(final_ir("matmul"), "      dst.assume_zero(0)\n", "");
  text = edit(text, "        matmul_tiles(cb_A, cb_B, 0, 0, 0)\n",
              "        dst.assume_zero(0)\n        matmul_tiles(cb_A, cb_B, 0, 0, 0)\n");
  EXPECT_EQ(verify_error(text),
            "internal error: in 'matmul_compute', dst.assume_zero(0) reads DST slot 0 as zero, "
            "but `dst.assume_zero(0)` used it earlier in the same section (DST is zero only where "
            "nothing wrote it since tile_regs_acquire) after verify-kernels");
}

// reduce_init sets the packer's edge mask until reduce_uninit: packs keep only the reduction's
// row or column 0 and write zeros elsewhere. A reduction must be packed with it (off that row or
// column DST holds no defined value on the device), anything else without it.
TEST(Verify, ReductionPackedWithoutItsMask) {
  std::string broken = edit(final_ir("softmax"),
                            "      reduce_init(PoolType::MAX, ReduceDim::REDUCE_ROW, cb_x, "
                            "cb_scaler, cb_m)\n",
                            "");
  EXPECT_EQ(verify_error(broken),
            "internal error: in 'softmax_compute', pack_tile(0, cb_m) packs a reduction without "
            "reduce_init's packer mask: off its column 0 DST holds no defined value on the device "
            "after verify-kernels");
}

TEST(Verify, ValuePackedUnderTheReduceMask) {
  // Without the reduce_uninit that ends each iteration, the next one packs exp(x - m) masked.
  std::string broken = edit_first(final_ir("softmax_rowsum_per_tile"),
                                  "        reduce_uninit()\n      }\n", "      }\n");
  EXPECT_EQ(verify_error(broken),
            "internal error: in 'softmax_compute', pack_tile(0, cb_tmp0) packs a value that is not "
            "a reduction while reduce_init's packer mask keeps only its column 0 (reduce_uninit "
            "clears the mask) after verify-kernels");
}

TEST(Verify, ValueComputedInDstFromAReduction) {
  std::string broken = edit_first(
      final_ir("softmax_rowsum_per_tile"),
      "        reduce_tile(PoolType::SUM, ReduceDim::REDUCE_ROW, cb_tmp0, cb_scaler, 0, 0, 0)\n",
      "        reduce_tile(PoolType::SUM, ReduceDim::REDUCE_ROW, cb_tmp0, cb_scaler, 0, 0, 0)\n"
      "        recip_tile(0)\n");
  EXPECT_EQ(
      verify_error(broken),
      "internal error: in 'softmax_compute', pack_tile(0, cb_s) packs a value computed in DST "
      "from a reduction, which is defined only in its row or column 0 on the device; pack "
      "the reduction under its mask first after verify-kernels");
}

// tt-llk's unclamped approximate exp leaves negative values in DST below -88: only a pack may read
// it, with the packer's ReLU on (guard-fast-exp), and no other pack may run with the ReLU on.
TEST(Verify, UnclampedExpReadInDst) {
  std::string broken =
      edit(final_ir("unary_chain"), "      exp_tile(0)\n", "      exp_tile.approx_noclamp(0)\n");
  EXPECT_EQ(verify_error(broken),
            "internal error: in 'unary_chain_compute', mul_unary_tile(0, 1056964608u) reads DST "
            "slot 0 holding the unclamped approximate exp's value, negative below -88 until the "
            "packer's ReLU writes it after verify-kernels");
}

TEST(Verify, UnclampedExpPackedWithoutTheRelu) {
  const std::string unclamped =
      edit(final_ir("unary_chain"), "      gelu_tile(0)\n", "      exp_tile.approx_noclamp(0)\n");
  EXPECT_EQ(verify_error(unclamped),
            "internal error: in 'unary_chain_compute', pack_tile(0, cb_y) packs the unclamped "
            "approximate exp's value without the packer's ReLU "
            "(pack_relu_config(ReluType::ZERO_RELU)) after verify-kernels");
  EXPECT_EQ(verify_error(edit(unclamped, "      pack_tile(0, cb_y)\n",
                              "      pack_relu_config.zero_relu()\n"
                              "      pack_tile(0, cb_y)\n"
                              "      pack_relu_config.no_relu()\n")),
            "");
  // Any other value packed under the ReLU.
  EXPECT_EQ(verify_error(edit(final_ir("unary_chain"), "      pack_tile(0, cb_y)\n",
                              "      pack_relu_config.zero_relu()\n"
                              "      pack_tile(0, cb_y)\n")),
            "internal error: in 'unary_chain_compute', pack_tile(0, cb_y) packs a value with the "
            "packer's ReLU on, which only the unclamped exp's may have after verify-kernels");
}

TEST(Verify, PackOutsideWaitRelease) {
  std::string broken = edit(final_ir("matmul"), "      tile_regs_wait()\n", "");
  EXPECT_EQ(
      verify_error(broken),
      "internal error: in 'matmul_compute', pack_tile(0, cb_C) reads DST after "
      "tile_regs_commit, not between tile_regs_wait and tile_regs_release after verify-kernels");
}

TEST(Verify, MathOutsideAcquireCommit) {
  std::string broken = edit(final_ir("eltwise_add"), "      tile_regs_acquire()\n", "");
  EXPECT_EQ(verify_error(broken),
            "internal error: in 'eltwise_add_compute', add_tiles(cb_x, cb_y, 0, 0, 0) writes DST "
            "outside any DST section, not between tile_regs_acquire and tile_regs_commit after "
            "verify-kernels");
}

TEST(Verify, RuntimeArgNeverSet) {
  std::string text = edit(final_ir("matmul"), "runtime_args [A_addr, B_addr, Kt, Nt, start, count]",
                          "runtime_args [A_addr, B_addr, Kt, Nt, start, count, bogus]");
  text = edit(text, "    let count: u32 = get_arg_val(5)\n    tensor_accessor(A",
              "    let count: u32 = get_arg_val(5)\n    let bogus: u32 = get_arg_val(6)\n"
              "    tensor_accessor(A");
  EXPECT_EQ(verify_error(text),
            "internal error: runtime arg 6 'bogus' of 'matmul_reader' is never set by the host "
            "plan after verify-kernels");
}

TEST(Verify, RuntimeArgReadButNotPassed) {
  std::string text = edit(final_ir("matmul"), "runtime_args [Kt, count]", "runtime_args [Kt]");
  EXPECT_EQ(verify_error(text),
            "internal error: 'matmul_compute' reads runtime arg 1, but the host plan sets 1 "
            "(runtime_args) after verify-kernels");
}

TEST(Verify, IntermediateNeverPopped) {
  std::string text = edit(final_ir("softmax"), "      cb_pop_front(cb_r, 1)\n", "");
  EXPECT_EQ(verify_error(text),
            "internal error: in 'softmax_compute', loop 'i' changes the tiles held in 'cb_r' "
            "from 0 to 1 per iteration after verify-kernels");
}

TEST(Verify, CbIndexOutOfItsRange) {
  std::string text = edit(final_ir("matmul"), "cb cb_C index 16", "cb cb_C index 2");
  EXPECT_EQ(verify_error(text),
            "internal error: circular buffer 'cb_C' (output) has index 2, outside 16-23 after "
            "verify-kernels");
}

// The accessor chain: the first accessor at its compile-time offset, each next chained after the
// one before, every offset in compile_args where the previous accessor's words end.
TEST(Verify, AccessorChain) {
  std::string fixed = edit(final_ir("matmul"), "tensor_accessor.chained(B, A, B_addr, 2048u)",
                           "tensor_accessor(B, 2, B_addr, 2048u)");
  EXPECT_EQ(verify_error(fixed), "internal error: 'matmul_reader' binds the accessor of 'B' at a "
                                 "fixed offset, not chained after 'A' after verify-kernels");
  std::string first = edit(final_ir("matmul"), "tensor_accessor(C, 0, C_addr, 2048u)",
                           "tensor_accessor(C, 2, C_addr, 2048u)");
  EXPECT_EQ(verify_error(first), "internal error: 'matmul_writer' binds the accessor of 'C' at "
                                 "compile-time offset 2, but compile_args puts it at 0 after "
                                 "verify-kernels");
  std::string offsets =
      edit(final_ir("matmul"), "compile_args [A at 0, B at 2]", "compile_args [A at 0, B at 3]");
  EXPECT_EQ(verify_error(offsets), "internal error: compile_args of 'matmul_reader' puts 'B' at 3, "
                                   "but the words before it end at 2 after verify-kernels");
  std::string order =
      edit(final_ir("matmul"), "compile_args [A at 0, B at 2]", "compile_args [B at 0, A at 2]");
  EXPECT_EQ(verify_error(order), "internal error: 'matmul_reader' binds accessor 0 to 'A', but "
                                 "compile_args has 'B' there after verify-kernels");
}

// The plan the templates render is complete: every buffer sized, the three kernels launched, each
// with the config of its kind.
TEST(Verify, HostPlanIsComplete) {
  EXPECT_EQ(verify_error(edit(final_ir("matmul"),
                              "    kernels [matmul_reader, matmul_compute, matmul_writer]\n", "")),
            "internal error: the host plan of 'matmul' does not launch one reader, compute and "
            "writer after verify-kernels");
  EXPECT_EQ(verify_error(edit(final_ir("matmul"), "buffer C address C_addr size C_bytes page 2048",
                              "buffer C address C_addr")),
            "internal error: the host plan's buffer of 'C' has no size or page after "
            "verify-kernels");
  EXPECT_EQ(verify_error(edit(final_ir("matmul"), " processor riscv_0 noc noc_0", "")),
            "internal error: 'matmul_writer' has no data-movement config after verify-kernels");
  EXPECT_EQ(verify_error(edit(final_ir("matmul"), "    per_core start count\n", "")),
            "internal error: the host plan of 'matmul' sets no per-core values after "
            "verify-kernels");
}

// UnpackToDestFp32 only on a Float32 CB that copy_tile alone reads, with an fp32 DST: the unpacker
// cannot send such a CB to SrcA/SrcB, and a 16-bit DST cannot hold its values.
TEST(Verify, UnpackToDestFp32) {
  const std::string config = "fp32_dest_acc_en true math_approx_mode false";
  EXPECT_EQ(
      verify_error(edit(final_ir("matmul_f32"), config, config + " unpack_to_dest_fp32 [cb_A]")),
      "internal error: in 'matmul_f32_compute', unpack_to_dest_fp32 lists 'cb_A', which an "
      "FPU, matmul, broadcast or reduce call also reads through SrcA/SrcB after "
      "verify-kernels");
  EXPECT_EQ(verify_error(edit(final_ir("matmul"), config, config + " unpack_to_dest_fp32 [cb_A]")),
            "internal error: in 'matmul_compute', unpack_to_dest_fp32 lists 'cb_A', whose format "
            "is Float16_b, not Float32 after verify-kernels");
  EXPECT_EQ(verify_error(edit(final_ir("matmul"), config, config + " unpack_to_dest_fp32 [cb_Z]")),
            "internal error: in 'matmul_compute', unpack_to_dest_fp32 lists 'cb_Z', which is not "
            "a CB of the program after verify-kernels");
}

} // namespace
} // namespace tk::lower
