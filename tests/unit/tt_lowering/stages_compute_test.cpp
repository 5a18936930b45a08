// TT stages from insert-compute-init to verify-kernels: the compute inits, the DST sections, the
// compute config and host plan of finalize-signature, and verify-kernels.
#include "stage_text.hpp"

namespace tk::lower {
namespace {

using namespace test;

const char* kInits = R"(// after insert-cb-protocol
program ci {
  options grid 8x8 cb_depth 2 fp32_acc false math_fidelity "HiFi4"
  tensor x: bf16[M, N] input layout dram interleaved tile 32x32 page 2048
  tensor y: bf16[M, N] output layout dram interleaved tile 32x32 page 2048
  cb cb_x index 0 format Float16_b page 2048 depth 2 role input tensor x
  cb cb_scaler index 1 format Float16_b page 2048 depth 1 role scaler
  cb cb_y index 16 format Float16_b page 2048 depth 2 role output tensor y
  cb cb_m index 24 format Float16_b page 2048 depth 1 role intermediate

  func compute ci_compute() runtime_args [Nt, count] compile_args [] {
    let Nt: i32 = get_arg_val(0)
    let count: u32 = get_arg_val(1)
    for i in 0 .. count per_core {
      for j in 0 .. Nt reduction {
        cb_wait_front(cb_x, 1)
        reduce_tile(PoolType::MAX, ReduceDim::REDUCE_ROW, cb_x, cb_scaler, 0, 0, 0)
        cb_pop_front(cb_x, 1)
      }
      pack_tile(0, cb_m)
      cb_wait_front(cb_m, 1)
      for j in 0 .. Nt serial {
        cb_wait_front(cb_x, 1)
        sub_tiles_bcast(BroadcastType::COL, cb_x, cb_m, 0, 0, 0)
        cb_pop_front(cb_x, 1)
        exp_tile(0)
        pack_tile(0, cb_y)
      }
      cb_pop_front(cb_m, 1)
      cb_wait_front(cb_x, 1)
      reduce_tile(PoolType::SUM, ReduceDim::REDUCE_COL, cb_x, cb_scaler, 0, 0, 1)
      cb_pop_front(cb_x, 1)
      pack_tile(1, cb_y)
    }
  }
}
)";

TEST(TTStages, InsertComputeInitHoistsUniformLoopsAndLeavesReduceMode) {
  EXPECT_EQ(function(after_text(kInits, "insert-compute-init"), "compute"),
            R"(  func compute ci_compute() runtime_args [Nt, count] compile_args [] {
    let Nt: i32 = get_arg_val(0)
    let count: u32 = get_arg_val(1)
    compute_kernel_hw_startup(cb_x, cb_scaler, cb_m)
    for i in 0 .. count per_core {
      reduce_init(PoolType::MAX, ReduceDim::REDUCE_ROW, cb_x, cb_scaler, cb_m)
      for j in 0 .. Nt reduction {
        cb_wait_front(cb_x, 1)
        reduce_tile(PoolType::MAX, ReduceDim::REDUCE_ROW, cb_x, cb_scaler, 0, 0, 0)
        cb_pop_front(cb_x, 1)
      }
      pack_tile(0, cb_m)
      cb_wait_front(cb_m, 1)
      reduce_uninit()
      for j in 0 .. Nt serial {
        cb_wait_front(cb_x, 1)
        sub_bcast_cols_init_short(cb_x, cb_m)
        sub_tiles_bcast(BroadcastType::COL, cb_x, cb_m, 0, 0, 0)
        cb_pop_front(cb_x, 1)
        exp_tile_init()
        exp_tile(0)
        pack_tile(0, cb_y)
      }
      cb_pop_front(cb_m, 1)
      cb_wait_front(cb_x, 1)
      reduce_init(PoolType::SUM, ReduceDim::REDUCE_COL, cb_x, cb_scaler, cb_y)
      reduce_tile(PoolType::SUM, ReduceDim::REDUCE_COL, cb_x, cb_scaler, 0, 0, 1)
      cb_pop_front(cb_x, 1)
      pack_tile(1, cb_y)
      reduce_uninit()
    }
  }
)");
}

// copy_tile_to_dst_init_short and mm_init_short read only their CBs' tile shapes and formats
// (tt-metal a8c5af0f5a26 llk_unpack_A_init, llk_unpack_AB_matmul_init): a copy from another CB of
// the same format, or a matmul of other CBs with the same transposition, needs no init of its
// own; a copy from a CB of another format does.
const char* kSameFormatInits = R"(// after insert-cb-protocol
program sf {
  options grid 8x8 cb_depth 2 fp32_acc false math_fidelity "HiFi4"
  tensor x: bf16[M, N] input layout dram interleaved tile 32x32 page 2048
  tensor y: bf16[M, N] output layout dram interleaved tile 32x32 page 2048
  cb cb_a index 0 format Float16_b page 2048 depth 2 role input tensor x
  cb cb_b index 1 format Float16_b page 2048 depth 2 role input tensor x
  cb cb_c index 2 format Float32 page 4096 depth 2 role input tensor x
  cb cb_y index 16 format Float16_b page 2048 depth 2 role output tensor y

  func compute sf_compute() runtime_args [count] compile_args [] {
    let count: u32 = get_arg_val(0)
    for i in 0 .. count per_core {
      cb_wait_front(cb_a, 1)
      cb_wait_front(cb_b, 1)
      cb_wait_front(cb_c, 1)
      copy_tile(cb_a, 0, 0)
      copy_tile(cb_b, 0, 1)
      copy_tile(cb_c, 0, 2)
      matmul_tiles(cb_a, cb_b, 0, 0, 3)
      matmul_tiles(cb_b, cb_a, 0, 0, 3)
      cb_pop_front(cb_a, 1)
      cb_pop_front(cb_b, 1)
      cb_pop_front(cb_c, 1)
      pack_tile(0, cb_y)
      pack_tile(3, cb_y)
    }
  }
}
)";

TEST(TTStages, InsertComputeInitKeepsAnInitForCbsOfTheSameFormat) {
  EXPECT_EQ(function(after_text(kSameFormatInits, "insert-compute-init"), "compute"),
            R"(  func compute sf_compute() runtime_args [count] compile_args [] {
    let count: u32 = get_arg_val(0)
    compute_kernel_hw_startup(cb_a, cb_a, cb_y)
    for i in 0 .. count per_core {
      cb_wait_front(cb_a, 1)
      cb_wait_front(cb_b, 1)
      cb_wait_front(cb_c, 1)
      copy_tile_to_dst_init_short(cb_a)
      copy_tile(cb_a, 0, 0)
      copy_tile(cb_b, 0, 1)
      reconfig_data_format_srca(cb_c)
      copy_tile_to_dst_init_short(cb_c)
      copy_tile(cb_c, 0, 2)
      reconfig_data_format_srca(cb_b)
      mm_init_short(cb_a, cb_b)
      matmul_tiles(cb_a, cb_b, 0, 0, 3)
      matmul_tiles(cb_b, cb_a, 0, 0, 3)
      cb_pop_front(cb_a, 1)
      cb_pop_front(cb_b, 1)
      cb_pop_front(cb_c, 1)
      pack_tile(0, cb_y)
      pack_tile(3, cb_y)
    }
  }
)");
}

// The wait for a tile compute packed itself goes down to the first statement that mentions its CB:
// t's pack overlaps the section that computes u, and the wait for u, which the block reads no
// more, goes to the block's end. Neither leaves the loop.
const char* kOwnWaits = R"(// after insert-compute-init
program ow {
  options grid 8x8 cb_depth 2 fp32_acc false math_fidelity "HiFi4"
  tensor x: bf16[M, N] input layout dram interleaved tile 32x32 page 2048
  tensor y: bf16[M, N] output layout dram interleaved tile 32x32 page 2048
  cb cb_x index 0 format Float16_b page 2048 depth 2 role input tensor x
  cb cb_y index 16 format Float16_b page 2048 depth 2 role output tensor y
  cb cb_t index 24 format Float16_b page 2048 depth 1 role intermediate
  cb cb_u index 25 format Float16_b page 2048 depth 1 role intermediate

  func compute ow_compute() runtime_args [count] compile_args [] {
    let count: u32 = get_arg_val(0)
    compute_kernel_hw_startup(cb_x, cb_x, cb_t)
    for i in 0 .. count per_core {
      cb_wait_front(cb_x, 1)
      copy_tile_to_dst_init_short(cb_x)
      copy_tile(cb_x, 0, 0)
      exp_tile_init()
      exp_tile(0)
      pack_tile(0, cb_t)
      cb_wait_front(cb_t, 1)
      copy_tile_to_dst_init_short(cb_x)
      copy_tile(cb_x, 0, 0)
      cb_pop_front(cb_x, 1)
      pack_tile(0, cb_u)
      cb_wait_front(cb_u, 1)
      copy_tile(cb_t, 0, 0)
      cb_pop_front(cb_t, 1)
      pack_tile(0, cb_y)
      cb_pop_front(cb_u, 1)
    }
  }
}
)";

TEST(TTStages, InsertDstManagementWaitsForOwnTilesWhereTheyAreRead) {
  EXPECT_EQ(function(after_text(kOwnWaits, "insert-dst-management"), "compute"),
            R"(  func compute ow_compute() runtime_args [count] compile_args [] {
    let count: u32 = get_arg_val(0)
    compute_kernel_hw_startup(cb_x, cb_x, cb_t)
    for i in 0 .. count per_core {
      cb_wait_front(cb_x, 1)
      copy_tile_to_dst_init_short(cb_x)
      tile_regs_acquire()
      copy_tile(cb_x, 0, 0)
      exp_tile_init()
      exp_tile(0)
      tile_regs_commit()
      tile_regs_wait()
      cb_reserve_back(cb_t, 1)
      pack_tile(0, cb_t)
      cb_push_back(cb_t, 1)
      tile_regs_release()
      copy_tile_to_dst_init_short(cb_x)
      tile_regs_acquire()
      copy_tile(cb_x, 0, 0)
      cb_pop_front(cb_x, 1)
      tile_regs_commit()
      tile_regs_wait()
      cb_reserve_back(cb_u, 1)
      pack_tile(0, cb_u)
      cb_push_back(cb_u, 1)
      tile_regs_release()
      tile_regs_acquire()
      cb_wait_front(cb_t, 1)
      copy_tile(cb_t, 0, 0)
      cb_pop_front(cb_t, 1)
      tile_regs_commit()
      tile_regs_wait()
      cb_reserve_back(cb_y, 1)
      pack_tile(0, cb_y)
      cb_push_back(cb_y, 1)
      tile_regs_release()
      cb_wait_front(cb_u, 1)
      cb_pop_front(cb_u, 1)
    }
  }
)");
}

TEST(TTStages, InsertDstManagementBracketsEachSection) {
  EXPECT_EQ(function(after_text(kInits, "insert-dst-management"), "compute"),
            R"(  func compute ci_compute() runtime_args [Nt, count] compile_args [] {
    let Nt: i32 = get_arg_val(0)
    let count: u32 = get_arg_val(1)
    compute_kernel_hw_startup(cb_x, cb_scaler, cb_m)
    for i in 0 .. count per_core {
      reduce_init(PoolType::MAX, ReduceDim::REDUCE_ROW, cb_x, cb_scaler, cb_m)
      tile_regs_acquire()
      for j in 0 .. Nt reduction {
        cb_wait_front(cb_x, 1)
        reduce_tile(PoolType::MAX, ReduceDim::REDUCE_ROW, cb_x, cb_scaler, 0, 0, 0)
        cb_pop_front(cb_x, 1)
      }
      tile_regs_commit()
      tile_regs_wait()
      cb_reserve_back(cb_m, 1)
      pack_tile(0, cb_m)
      cb_push_back(cb_m, 1)
      tile_regs_release()
      reduce_uninit()
      cb_wait_front(cb_m, 1)
      for j in 0 .. Nt serial {
        cb_wait_front(cb_x, 1)
        sub_bcast_cols_init_short(cb_x, cb_m)
        tile_regs_acquire()
        sub_tiles_bcast(BroadcastType::COL, cb_x, cb_m, 0, 0, 0)
        cb_pop_front(cb_x, 1)
        exp_tile_init()
        exp_tile(0)
        tile_regs_commit()
        tile_regs_wait()
        cb_reserve_back(cb_y, 1)
        pack_tile(0, cb_y)
        cb_push_back(cb_y, 1)
        tile_regs_release()
      }
      cb_pop_front(cb_m, 1)
      cb_wait_front(cb_x, 1)
      reduce_init(PoolType::SUM, ReduceDim::REDUCE_COL, cb_x, cb_scaler, cb_y)
      tile_regs_acquire()
      reduce_tile(PoolType::SUM, ReduceDim::REDUCE_COL, cb_x, cb_scaler, 0, 0, 1)
      cb_pop_front(cb_x, 1)
      tile_regs_commit()
      tile_regs_wait()
      cb_reserve_back(cb_y, 1)
      pack_tile(1, cb_y)
      cb_push_back(cb_y, 1)
      tile_regs_release()
      reduce_uninit()
    }
  }
)");
}

// A store of m then `s = zeros()`: the zero tile must not be packed from the slot m was just
// packed from (it read as m, the store_then_zeros miscompile); dst.assume_zero opens a section.
TEST(TTStages, InsertDstManagementGivesAnAssumedZeroAFreshSection) {
  std::string compute =
      function(after_tk(R"(kernel k(x: bf16[M, N]) -> (a: bf16[M, 1], b: bf16[M, 1]) {
    parallel i in tiles(M) {
        m = fill(-inf)
        for j in tiles(N) { m = max(m, rowmax(x[i, j])) }
        a[i, 0] = m
        s = zeros()
        for j in tiles(N) { s += rowsum(x[i, j] - bcast_col(m)) }
        b[i, 0] = s
    }
}
)",
                        "insert-dst-management"),
               "compute");
  std::size_t from = compute.find("      copy_tile(cb_m, 0, 0)\n");
  // (keep-rows sums x - bcast_col(m) tile by tile into s_sum, s its rowsum after the loop; the
  // wait for s_sum comes where it is first read, after the srcB reconfiguration)
  std::size_t to = compute.find("      cb_wait_front(cb_s_sum, 1)\n");
  ASSERT_NE(from, std::string::npos) << compute;
  ASSERT_NE(to, std::string::npos) << compute;
  EXPECT_EQ(compute.substr(from, to - from), R"(      copy_tile(cb_m, 0, 0)
      pack_reconfig_data_format(cb_a)
      tile_regs_commit()
      tile_regs_wait()
      cb_reserve_back(cb_a, 1)
      pack_tile(0, cb_a)
      cb_push_back(cb_a, 1)
      tile_regs_release()
      tile_regs_acquire()
      dst.assume_zero(0)
      pack_reconfig_data_format(cb_s_sum)
      tile_regs_commit()
      tile_regs_wait()
      cb_reserve_back(cb_s_sum, 1)
      pack_tile(0, cb_s_sum)
      cb_push_back(cb_s_sum, 1)
      tile_regs_release()
      reconfig_data_format_srcb(cb_m)
)");
}

// The compute config's unpack_to_dest_fp32: the Float32 CBs that only copy_tile (or unary_bcast)
// reads (an SFPU op's input: in an f32 kernel, + - * too); an FPU operand stays on the default
// path (SrcA/SrcB, TF32).
TEST(TTStages, FinalizeSignatureUnpacksF32ToDestOnlyForCopyTile) {
  auto compute_line = [](const std::string& tk) {
    std::string f = function(after_tk(tk, "finalize-signature"), "compute");
    return f.substr(f.find("math_fidelity"), f.find(" {\n") - f.find("math_fidelity"));
  };
  EXPECT_EQ(compute_line(R"(kernel e(x: f32[M, N]) -> (y: f32[M, N]) {
    parallel i in tiles(M), j in tiles(N) { y[i, j] = exp(x[i, j]) }
}
)"),
            "math_fidelity hifi4 fp32_dest_acc_en true math_approx_mode false "
            "unpack_to_dest_fp32 [cb_x]");
  EXPECT_EQ(compute_line(R"(kernel a(x: f32[M, N], z: f32[M, N]) -> (y: f32[M, N]) {
    parallel i in tiles(M), j in tiles(N) { y[i, j] = x[i, j] + z[i, j] }
}
)"),
            "math_fidelity hifi4 fp32_dest_acc_en true math_approx_mode false "
            "unpack_to_dest_fp32 [cb_x, cb_z]");
  EXPECT_EQ(compute_line(R"(kernel t(x: f32[M, N]) -> (y: f32[N, M]) {
    parallel i in tiles(M), j in tiles(N) { y[j, i] = transpose(x[i, j]) }
}
)"),
            "math_fidelity hifi4 fp32_dest_acc_en true math_approx_mode false");
}

// A bfp8 output: compute packs into a Bfp8_b CB, so the packer is asked for its precise mode (the
// one whose rounding into Bfp8_b is documented); nothing else sets it.
TEST(TTStages, FinalizeSignatureSetsBfp8PackPreciseForABfp8Output) {
  const std::string text = after_tk(R"(kernel s(x: f32[M, N]) -> (y: bfp8[M, N]) {
    parallel i in tiles(M), j in tiles(N) { y[i, j] = x[i, j] * 3.0 }
}
)",
                                    "finalize-signature");
  const std::string f = function(text, "compute");
  EXPECT_EQ(f.substr(f.find("math_fidelity"), f.find(" {\n") - f.find("math_fidelity")),
            "math_fidelity hifi4 fp32_dest_acc_en true math_approx_mode false "
            "unpack_to_dest_fp32 [cb_x] bfp8_pack_precise");
  EXPECT_NE(text.find("cb cb_y index 16 format Bfp8_b page 1088"), std::string::npos) << text;
}

TEST(TTStages, FinalizeSignatureCompletesTheHostPlan) {
  std::string text = after_tk(kMini, "finalize-signature");
  EXPECT_EQ(
      functions(text, {"compute", "host"}),
      R"(  func compute mini_compute() runtime_args [alpha_bits, count] compile_args [] math_fidelity hifi4 fp32_dest_acc_en false math_approx_mode false {
    let alpha_bits: u32 = get_arg_val(0)
    let count: u32 = get_arg_val(1)
    compute_kernel_hw_startup(cb_x, cb_b, cb_y)
    add_bcast_rows_init_short(cb_x, cb_b)
    for w in 0 .. count per_core {
      cb_wait_front(cb_x, 1)
      cb_wait_front(cb_b, 1)
      tile_regs_acquire()
      add_tiles_bcast(BroadcastType::ROW, cb_x, cb_b, 0, 0, 0)
      cb_pop_front(cb_x, 1)
      cb_pop_front(cb_b, 1)
      relu_tile_init()
      relu_tile(0)
      binop_with_scalar_tile_init()
      mul_unary_tile(0, alpha_bits)
      tile_regs_commit()
      tile_regs_wait()
      cb_reserve_back(cb_y, 1)
      pack_tile(0, cb_y)
      cb_push_back(cb_y, 1)
      tile_regs_release()
    }
  }
  func host mini_host(alpha: f32, M: u32) {
    let Mt: u32 = M / 32u
    let work_items: u32 = Mt * 2u
    let alpha_bits: u32 = float_bits(alpha)
    let x_bytes: u32 = Mt * 2u * 2048u
    let b_bytes: u32 = 4096u
    let y_bytes: u32 = Mt * 2u * 2048u
  }
)");
  EXPECT_EQ(lines(text, "  func "),
            "  func reader mini_reader() runtime_args [x_addr, b_addr, start, count] compile_args "
            "[x at 0, b at 2] processor riscv_1 noc noc_0 {\n"
            "  func compute mini_compute() runtime_args [alpha_bits, count] compile_args [] "
            "math_fidelity hifi4 fp32_dest_acc_en false math_approx_mode false {\n"
            "  func writer mini_writer() runtime_args [y_addr, start, count] compile_args [y at 0] "
            "processor riscv_0 noc noc_1 {\n"
            "  func host mini_host(alpha: f32, M: u32) {\n");
  EXPECT_EQ(plan(text), R"(  host_plan {
    split split_work_to_cores items work_items grid 8x8 row_wise false
    per_core start count
    buffer x address x_addr size x_bytes page 2048
    buffer b address b_addr size b_bytes page 2048
    buffer y address y_addr size y_bytes page 2048
    kernels [mini_reader, mini_compute, mini_writer]
  }
)");
}

// The option's spelling (HiFi2) becomes the TileKit enumerator; an unknown one in a hand-edited
// dump is a user error, not a template failure.
TEST(TTStages, FinalizeSignatureTakesTheMathFidelityOption) {
  std::string before = after_tk(kMini, "insert-dst-management");
  std::string hifi2 = before;
  hifi2.replace(hifi2.find("math_fidelity \"HiFi4\""), 21, "math_fidelity \"HiFi2\"");
  EXPECT_NE(after_text("// after insert-dst-management\n" + hifi2, "finalize-signature")
                .find("math_fidelity hifi2 fp32_dest_acc_en false"),
            std::string::npos);
  std::string bad = before;
  bad.replace(bad.find("math_fidelity \"HiFi4\""), 21, "math_fidelity \"HiFi5\"");
  EXPECT_EQ(after_text("// after insert-dst-management\n" + bad, "finalize-signature"),
            "ttgen: error: kernel 'mini': unknown math_fidelity 'HiFi5'; use LoFi, HiFi2, HiFi3 or "
            "HiFi4\n");
}

TEST(TTStages, InsertDstManagementRejectsMathThatIsNeverPacked) {
  std::string broken = kInits;
  broken.replace(broken.find("      pack_tile(1, cb_y)\n"), 25, "");
  ir::Module m = test::read_ir(broken);
  Diagnostics d;
  try {
    test::stage("insert-dst-management")(m, d);
    ADD_FAILURE() << "no internal error";
  } catch (const InternalError& e) {
    EXPECT_EQ(std::string(e.what()), "internal error: insert-dst-management: in 'ci_compute', a "
                                     "DST section computes without packing");
  }
}

// Found while probing lower_fuzzer with deep kernels: verify-kernels walked a loop body twice (what
// the next iteration finds) at every level of a nest, so 24 nested loops took 40 s and 32 would
// take hours. A second walk from the state the first one left is only needed when that state
// differs.
TEST(TTStages, VerifyKernelsStaysFastOnDeeplyNestedLoops) {
  std::string tk = "kernel deep(x: bf16[M, N]) -> (y: bf16[M, 32]) {\n"
                   "    parallel i in tiles(M) {\n        acc = zeros()\n";
  const int depth = 32; // the most the checker allows
  for (int k = 0; k < depth; ++k)
    tk += "        for k" + std::to_string(k) + " in tiles(N) {\n";
  tk += "            acc += x[i, k0]\n";
  for (int k = 0; k < depth; ++k)
    tk += "        }\n";
  tk += "        y[i, 0] = rowsum(acc)\n    }\n}\n";
  std::string out = after_tk(tk, "verify-kernels");
  EXPECT_NE(out.find("func compute deep_compute()"), std::string::npos) << out;
}

} // namespace
} // namespace tk::lower
