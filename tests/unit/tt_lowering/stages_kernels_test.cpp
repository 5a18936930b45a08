// TT stages from assign-cbs to insert-cb-protocol: CB depths and the L1 budget, the split into
// reader, compute and writer, multicast reads, runtime args and the CB protocol of the streams.
#include "stage_text.hpp"

namespace tk::lower {
namespace {

using namespace test;

const char* kTwoPacks = R"(// after select-tile-ops
program ad {
  options grid 8x8 cb_depth 2 fp32_acc false math_fidelity "HiFi4"
  tensor x: bf16[M, N] input layout dram interleaved tile 32x32 page 2048
  tensor y: bf16[M, N] output layout dram interleaved tile 32x32 page 2048
  cb cb_x index 0 format Float16_b page 2048 depth 2 role input tensor x
  cb cb_y index 16 format Float16_b page 2048 depth 2 role output tensor y
  cb cb_t index 24 format Float16_b page 2048 depth 1 role intermediate

  func kernel ad(x: tensor, y: tensor, M: i32, N: i32, start: u32, count: u32) {
    for w in start .. +count per_core {
      df.read_tile(cb_x, x, w)
      cb_wait_front(cb_x, 1)
      copy_tile(cb_x, 0, 0)
      cb_pop_front(cb_x, 1)
      exp_tile(0)
      copy_tile(cb_x, 0, 1)
      pack_tile(0, cb_t)
      pack_tile(1, cb_t)
      cb_wait_front(cb_t, 2)
      add_tiles(cb_t, cb_t, 0, 1, 0)
      cb_pop_front(cb_t, 2)
      pack_tile(0, cb_y)
      df.write_tile(cb_y, y, w)
    }
  }
}
)";

TEST(TTStages, AssignCbsSizesIntermediatesByTheirPeak) {
  EXPECT_EQ(cb_lines(after_text(kTwoPacks, "assign-cbs")),
            R"(  cb cb_x index 0 format Float16_b page 2048 depth 2 role input tensor x
  cb cb_y index 16 format Float16_b page 2048 depth 2 role output tensor y
  cb cb_t index 24 format Float16_b page 2048 depth 2 role intermediate
)");
}

TEST(TTStages, SplitKernelsKeepsOnlyTheNeededLoops) {
  EXPECT_EQ(functions(after_tk(kMini, "split-kernels"), {"reader", "compute", "writer"}),
            R"(  func reader mini_reader(x: tensor, b: tensor, start: u32, count: u32) {
    for w in start .. +count per_core {
      let i: i32 = w / 2
      let j: i32 = w % 2
      df.read_tile(cb_x, x, i * 2 + j)
      df.read_tile(cb_b, b, j)
    }
  }
  func compute mini_compute(alpha: f32, count: u32) {
    for w in 0 .. count per_core {
      cb_wait_front(cb_x, 1)
      cb_wait_front(cb_b, 1)
      add_tiles_bcast(BroadcastType::ROW, cb_x, cb_b, 0, 0, 0)
      cb_pop_front(cb_x, 1)
      cb_pop_front(cb_b, 1)
      relu_tile(0)
      mul_unary_tile(0, float_bits(alpha))
      pack_tile(0, cb_y)
    }
  }
  func writer mini_writer(y: tensor, start: u32, count: u32) {
    for w in start .. +count per_core {
      let i: i32 = w / 2
      let j: i32 = w % 2
      df.write_tile(cb_y, y, i * 2 + j)
    }
  }
)");
}

TEST(TTStages, BindRuntimeArgsReadsArgsAndMovesScalarsToTheHost) {
  std::string text = after_tk(kMini, "bind-runtime-args");
  EXPECT_EQ(functions(text, {"compute", "host"}),
            R"(  func compute mini_compute() runtime_args [alpha_bits, count] compile_args [] {
    let alpha_bits: u32 = get_arg_val(0)
    let count: u32 = get_arg_val(1)
    for w in 0 .. count per_core {
      cb_wait_front(cb_x, 1)
      cb_wait_front(cb_b, 1)
      add_tiles_bcast(BroadcastType::ROW, cb_x, cb_b, 0, 0, 0)
      cb_pop_front(cb_x, 1)
      cb_pop_front(cb_b, 1)
      relu_tile(0)
      mul_unary_tile(0, alpha_bits)
      pack_tile(0, cb_y)
    }
  }
  func host mini_host(alpha: f32, M: u32) {
    let Mt: u32 = M / 32u
    let work_items: u32 = Mt * 2u
    let alpha_bits: u32 = float_bits(alpha)
  }
)");
  EXPECT_EQ(plan(text), R"(  host_plan {
    split split_work_to_cores items work_items grid 8x8 row_wise false
    per_core start count
    buffer x address x_addr
    buffer b address b_addr
    buffer y address y_addr
  }
)");
}

// The second accessor of a kernel is chained after the first; its compile-time args start where
// the first one's words end (the accessors' counts), which compile_args states.
TEST(TTStages, BindRuntimeArgsChainsTheAccessors) {
  std::string text = after_text(kColnorm, "bind-runtime-args");
  EXPECT_EQ(lines(function(text, "reader"), "  func reader "),
            "  func reader colnorm_reader() runtime_args [x_addr, v_addr, start, count] "
            "compile_args [x at 0, v at 2] {\n");
  EXPECT_EQ(lines(function(text, "reader"), "    tensor_accessor"),
            "    tensor_accessor(x, 0, x_addr, 4096u)\n"
            "    tensor_accessor.chained(v, x, v_addr, 2048u)\n");
  // Three words for x: v's args start at 3.
  std::string wide = after_text(kColnorm, "attach-accessors");
  wide.replace(wide.find("accessor x args [2, 4096]"), 25, "accessor x args [2, 4096, 1]");
  EXPECT_EQ(lines(function(after_text("// after attach-accessors\n" + wide, "bind-runtime-args"),
                           "reader"),
                  "  func reader "),
            "  func reader colnorm_reader() runtime_args [x_addr, v_addr, start, count] "
            "compile_args [x at 0, v at 3] {\n");
}

TEST(TTStages, InsertCbProtocolExpandsTheStreams) {
  EXPECT_EQ(
      functions(after_tk(kMini, "insert-cb-protocol"), {"reader", "writer"}),
      R"(  func reader mini_reader() runtime_args [x_addr, b_addr, start, count] compile_args [x at 0, b at 2] {
    let x_addr: u32 = get_arg_val(0)
    let b_addr: u32 = get_arg_val(1)
    let start: u32 = get_arg_val(2)
    let count: u32 = get_arg_val(3)
    tensor_accessor(x, 0, x_addr, 2048u)
    tensor_accessor.chained(b, x, b_addr, 2048u)
    for w in start .. +count per_core {
      let i: i32 = w / 2
      let j: i32 = w % 2
      cb_reserve_back(cb_x, 1)
      cb_reserve_back(cb_b, 1)
      noc_async_read_page(i * 2 + j, x, get_write_ptr(cb_x))
      noc_async_read_page(j, b, get_write_ptr(cb_b))
      noc_async_read_barrier()
      cb_push_back(cb_x, 1)
      cb_push_back(cb_b, 1)
    }
  }
  func writer mini_writer() runtime_args [y_addr, start, count] compile_args [y at 0] {
    let y_addr: u32 = get_arg_val(0)
    let start: u32 = get_arg_val(1)
    let count: u32 = get_arg_val(2)
    tensor_accessor(y, 0, y_addr, 2048u)
    for w in start .. +count per_core {
      let i: i32 = w / 2
      let j: i32 = w % 2
      cb_wait_front(cb_y, 1)
      noc_async_write_page(i * 2 + j, y, get_read_ptr(cb_y))
      noc_async_writes_flushed()
      cb_pop_front(cb_y, 1)
    }
    noc_async_write_barrier()
  }
)");
}

TEST(TTStages, AssignCbsReportsL1OverflowAtTheFirstUseOfTheCbThatDoesNotFit) {
  std::string deep = kTwoPacks;
  for (std::size_t at; (at = deep.find("depth 2 role")) != std::string::npos;)
    deep.replace(at, 7, "depth 400");
  deep.replace(deep.find("cb_depth 2"), 10, "cb_depth 400");
  EXPECT_EQ(after_text(deep, "assign-cbs"),
            "dump.txt:23:7: error: the circular buffers of kernel 'ad' need 1642496 bytes of L1 "
            "(cb_depth 400), but a wormhole_b0 core has 1395424 for them (its L1 from 0x19520 to "
            "0x16e000); the one for 'y' does not fit: lower cb_depth\n"
            "  23 |       pack_tile(0, cb_y)\n"
            "     |       ^~~~~~~~~\n");
}

TEST(TTStages, AssignCbsRejectsAnUnbalancedIntermediate) {
  std::string broken = kTwoPacks;
  broken.replace(broken.find("cb_pop_front(cb_t, 2)"), 21, "cb_pop_front(cb_t, 1)");
  ir::Module m = test::read_ir(broken);
  Diagnostics d;
  EXPECT_THROW(test::stage("assign-cbs")(m, d), InternalError); // its occupancy walk
}

// multicast-reads: a block read that depends on the core's row only (A, through i) is multicast
// along the row, one that depends on its column only (B) down the column; one that depends on
// both (D) or sits in a loop whose trip count depends on the column stays a read of its own. The
// per-core values and the semaphores follow.
const char* kMulticast = R"(// after split-kernels
program mc {
  options grid 8x8 cb_depth 2 fp32_acc false math_fidelity "HiFi4"
  tensor A: bf16[M, K] input layout dram interleaved tile 32x32 page 2048
  tensor B: bf16[K, N] input layout dram interleaved tile 32x32 page 2048
  tensor D: bf16[M, N] input layout dram interleaved tile 32x32 page 2048
  cb cb_A index 0 format Float16_b page 2048 depth 8 role input tensor A
  cb cb_B index 1 format Float16_b page 2048 depth 8 role input tensor B
  cb cb_D index 2 format Float16_b page 2048 depth 8 role input tensor D

  func reader mc_reader(A: tensor, B: tensor, D: tensor, Kt: i32, Nt: i32, core_x: i32, core_y: i32, grid_cols: i32, grid_rows: i32) {
    for r in 0 .. 2 serial {
      let i: i32 = r * grid_rows + core_y
      let j: i32 = core_x
      df.read_block(cb_A, A, i * Kt, 2, 2, Kt, 1, 2, 2, 4)
      df.read_block(cb_B, B, j * 2, 2, 2, Nt, 1, 2, 2, 4)
      df.read_block(cb_D, D, i * Nt + j, 2, 2, Nt, 1, 2, 2, 4)
      for t in 0 .. core_x serial {
        df.read_block(cb_A, A, i * Kt, 2, 2, Kt, 1, 2, 2, 4)
      }
    }
  }

  func host mc_host(M: u32, N: u32) {
    let Mb: u32 = M / 64
    let Nb: u32 = N / 64
    let work_items: u32 = Mb * Nb
  }

  host_plan {
    split core_grid items work_items grid 8x8 row_wise false
    core_grid core_x core_y cols grid_cols rows grid_rows across Nb down Mb
  }
}
)";

TEST(TTStages, MulticastReadsSharesWhatARowOrAColumnReadsAlike) {
  const std::string out = test::run_stage("multicast-reads", kMulticast);
  for (const char* line :
       {"      df.mcast_block(cb_A, A, i * Kt, 2, 2, Kt, 1, 2, 2, 4, A_mcast_receives, A_mcast_x0, "
        "A_mcast_y0, A_mcast_x1, A_mcast_y1, A_mcast_dests, A_mcast_sender_x, "
        "A_mcast_sender_y, A_mcast_ready, A_mcast_valid)\n",
        "      df.mcast_block(cb_B, B, j * 2, 2, 2, Nt, 1, 2, 2, 4, B_mcast_receives, B_mcast_x0, "
        "B_mcast_y0, B_mcast_x1, B_mcast_y1, B_mcast_dests, B_mcast_sender_x, "
        "B_mcast_sender_y, B_mcast_ready, B_mcast_valid)\n",
        "      df.read_block(cb_D, D, i * Nt + j, 2, 2, Nt, 1, 2, 2, 4)\n",
        "      for t in 0 .. core_x serial {\n"
        "        df.read_block(cb_A, A, i * Kt, 2, 2, Kt, 1, 2, 2, 4)\n",
        // along a row: column 0 sends to columns 1 up to grid_cols - 1 (the reader is on NoC 0,
        // whose rectangle starts at its smallest corner)
        "  func host_core mc_host_core(core_x: u32, core_y: u32, grid_cols: u32, grid_rows: u32) "
        "{\n"
        "    let A_mcast_receives: u32 = min(core_x, 1u)\n"
        "    let A_mcast_x0: u32 = tt.noc_x(min(1u, grid_cols - 1u), core_y)\n"
        "    let A_mcast_y0: u32 = tt.noc_y(min(1u, grid_cols - 1u), core_y)\n"
        "    let A_mcast_x1: u32 = tt.noc_x(grid_cols - 1u, core_y)\n"
        "    let A_mcast_y1: u32 = tt.noc_y(grid_cols - 1u, core_y)\n"
        "    let A_mcast_dests: u32 = grid_cols - 1u\n"
        "    let A_mcast_sender_x: u32 = tt.noc_x(0u, core_y)\n"
        "    let A_mcast_sender_y: u32 = tt.noc_y(0u, core_y)\n",
        // down a column: row 0 sends
        "    let B_mcast_receives: u32 = min(core_y, 1u)\n"
        "    let B_mcast_x0: u32 = tt.noc_x(core_x, min(1u, grid_rows - 1u))\n",
        "    let B_mcast_sender_y: u32 = tt.noc_y(core_x, 0u)\n  }\n",
        "    semaphores [A_mcast_ready, A_mcast_valid, B_mcast_ready, B_mcast_valid]\n"})
    EXPECT_NE(out.find(line), std::string::npos) << line << "\n--- in ---\n" << out;
  // Ten new reader parameters per multicast, after the kernel's own.
  EXPECT_NE(out.find("grid_rows: i32, A_mcast_receives: i32, A_mcast_x0: i32"), std::string::npos)
      << out;
  EXPECT_NE(out.find("B_mcast_ready: i32, B_mcast_valid: i32) {"), std::string::npos) << out;
}

// A program split with split_work_to_cores has no core grid: multicast-reads leaves it alone.
TEST(TTStages, MulticastReadsNeedsACoreGrid) {
  std::string in = kMulticast;
  const std::string grid =
      "    core_grid core_x core_y cols grid_cols rows grid_rows across Nb down Mb\n";
  in.replace(in.find(grid), grid.size(), "    per_core core_x core_y\n");
  in.replace(in.find("split core_grid"), 15, "split split_work_to_cores");
  const std::string out = test::run_stage("multicast-reads", in);
  EXPECT_EQ(out.find("df.mcast_block"), std::string::npos) << out;
  EXPECT_EQ(out.find("host_core"), std::string::npos) << out;
}

} // namespace
} // namespace tk::lower
