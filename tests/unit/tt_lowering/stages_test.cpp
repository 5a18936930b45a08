// One test per TT stage: IR text (or a small .tk kernel lowered to the stage before) through the
// stage, compared with the printed result: the CBs, an attribute line, or whole functions. The
// examples' golden dumps (golden_test.cpp) cover every stage on real kernels; these pin down the
// rules on inputs built to show them (offset parallel loops, L1 tensors, an intermediate holding
// two tiles, scalars, loops that need one init or several, reduce mode).
#include "dsl/check.hpp"
#include "lowering/tt/target.hpp"
#include "parser/parse.hpp"
#include "tt_test_util.hpp"

#include <sstream>

namespace tk::lower {
namespace {

const char* kColnorm = R"(// after infer-layout
program colnorm {
  options grid 4x2 cb_depth 3 fp32_acc true math_fidelity "HiFi2"
  tensor x: f32[M, 64] input layout dram interleaved tile 32x32 page 4096
  tensor v: bf16[1, 64] input layout dram interleaved tile 32x32 page 2048
  tensor y: f32[M, 64] output layout l1 interleaved tile 32x32 page 4096

  func kernel colnorm(x: tensor, v: tensor, y: tensor, M: i32) {
    let Mt: i32 = M / 32
    for i in 0 .. Mt parallel {
      for j in 1 .. +1 parallel {
        store y[i, j] = tile.mul(load x[i, j], tile.bcast_row(tile.colmax(load v[0, j])))
      }
    }
  }
}
)";

const char* kMini = R"(kernel mini(x: bf16[M, 64], b: bf16[1, 64], alpha: f32) -> (y: bf16[M, 64]) {
    parallel i in tiles(M), j in 0 .. 2 {
        y[i, j] = relu(x[i, j] + bcast_row(b[0, j])) * alpha
    }
}
)";

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

// The printed module after `stage`, resuming from IR text; the diagnostics on a user error.
std::string after_text(const std::string& text, const std::string& stage) {
  SourceFile file("dump.txt", text);
  Diagnostics diags(&file);
  PipelineOptions o;
  o.stop_after = stage;
  o.verify_each = true;
  std::optional<ir::Module> m = run_pipeline_from_dump(file, Target::tt, o, diags);
  return m ? ir::print(*m) : diags.str();
}

// The printed module after `stage`, lowering a .tk kernel.
std::string after_tk(const std::string& tk, const std::string& stage) {
  SourceFile file("k.tk", tk);
  Diagnostics diags(&file);
  std::optional<dsl::Module> ast = parser::parse(file, diags);
  EXPECT_TRUE(ast && dsl::check(*ast, diags)) << diags.str();
  if (!ast)
    return diags.str();
  PipelineOptions o;
  o.stop_after = stage;
  o.verify_each = true;
  std::optional<ir::Module> m = run_pipeline(*ast, Target::tt, o, diags);
  return m ? ir::print(*m) : diags.str();
}

std::string first_line(const std::string& text) {
  return text.substr(0, text.find('\n') + 1);
}

std::string cb_lines(const std::string& text) {
  std::istringstream in(text);
  std::string line, out;
  while (std::getline(in, line))
    if (line.rfind("  cb ", 0) == 0)
      out += line + "\n";
  return out;
}

// The function of the given kind, from its `func` line to its closing brace.
std::string function(const std::string& text, const std::string& kind) {
  std::istringstream in(text);
  std::string line, out;
  bool inside = false;
  while (std::getline(in, line)) {
    if (line.rfind("  func " + kind + " ", 0) == 0)
      inside = true;
    if (inside)
      out += line + "\n";
    if (inside && line == "  }")
      break;
  }
  return out;
}

std::string functions(const std::string& text, std::initializer_list<const char*> kinds) {
  std::string out;
  for (const char* k : kinds)
    out += function(text, k);
  return out;
}

TEST(TTStages, PlanBuffersGivesEveryTensorACbAndTheScaler) {
  EXPECT_EQ(cb_lines(after_text(kColnorm, "plan-buffers")),
            R"(  cb cb_x index 0 format Float32 page 4096 depth 3 role input tensor x
  cb cb_v index 1 format Float16_b page 2048 depth 3 role input tensor v
  cb cb_y index 16 format Float32 page 4096 depth 3 role output tensor y
  cb cb_scaler index 2 format Float16_b page 2048 depth 1 role scaler
)");
}

// The lines of the text that start with `prefix`.
std::string lines(const std::string& text, const std::string& prefix) {
  std::istringstream in(text);
  std::string line, out;
  while (std::getline(in, line))
    if (line.rfind(prefix, 0) == 0)
      out += line + "\n";
  return out;
}

// The host plan block, from `  host_plan {` to its closing brace.
std::string plan(const std::string& text) {
  std::size_t at = text.find("  host_plan {\n");
  return at == std::string::npos ? "" : text.substr(at, text.find("  }\n", at) + 4 - at);
}

TEST(TTStages, AttachAccessorsListsCompileTimeArgs) {
  std::string text = after_text(kColnorm, "attach-accessors");
  EXPECT_EQ(lines(text, "  accessor "), R"(  accessor x args [2, 4096]
  accessor v args [2, 2048]
  accessor y args [0, 4096]
)");
  EXPECT_EQ(first_line(text), "program colnorm {\n");
  EXPECT_EQ(lines(text, "  options "),
            "  options grid 4x2 cb_depth 3 fp32_acc true math_fidelity \"HiFi2\"\n");
}

TEST(TTStages, PartitionWorkAddsTheHostFunctionAndPlan) {
  std::string text = after_text(kColnorm, "partition-work");
  EXPECT_EQ(function(text, "host"), R"(  func host colnorm_host(M: u32) {
    let Mt: u32 = M / 32u
    let work_items: u32 = Mt
  }
)");
  EXPECT_EQ(plan(text), R"(  host_plan {
    split split_work_to_cores items work_items grid 4x2 row_wise false
  }
)");
}

TEST(TTStages, ToCoreLoopDecodesOffsetIndices) {
  EXPECT_EQ(lines(after_text(kColnorm, "to-core-loop"), "    per_core "),
            "    per_core start count\n");
  EXPECT_EQ(
      function(after_text(kColnorm, "to-core-loop"), "kernel"),
      R"(  func kernel colnorm(x: tensor, v: tensor, y: tensor, M: i32, start: u32, count: u32) {
    let Mt: i32 = M / 32
    for w in start .. +count per_core {
      let i: i32 = w / 1
      let j: i32 = w % 1 + 1
      store y[i, j] = tile.mul(load x[i, j], tile.bcast_row(tile.colmax(load v[0, j])))
    }
  }
)");
}

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
    for w in 0 .. count per_core {
      cb_wait_front(cb_x, 1)
      cb_wait_front(cb_b, 1)
      add_bcast_rows_init_short(cb_x, cb_b)
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
            "[x at 0, b at 2] processor riscv_1 noc noc_1 {\n"
            "  func compute mini_compute() runtime_args [alpha_bits, count] compile_args [] "
            "math_fidelity hifi4 fp32_dest_acc_en false math_approx_mode false {\n"
            "  func writer mini_writer() runtime_args [y_addr, start, count] compile_args [y at 0] "
            "processor riscv_0 noc noc_0 {\n"
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

TEST(TTStages, PlanBuffersRejectsANinthOutput) {
  std::string tk = "kernel k(x: bf16[M, N]) -> (";
  for (int o = 0; o < 9; ++o)
    tk += std::string(o ? ", " : "") + "y" + std::to_string(o) + ": bf16[M, N]";
  tk += ") {\n    parallel i in tiles(M), j in tiles(N) {\n";
  for (int o = 0; o < 9; ++o)
    tk += "        y" + std::to_string(o) + "[i, j] = x[i, j]\n";
  tk += "    }\n}\n";
  EXPECT_EQ(first_line(after_tk(tk, "plan-buffers")),
            "k.tk:1:157: error: kernel 'k' has more than 8 output tensors; a Tensix core has 8 "
            "output circular buffers (indices 16-23)\n");
}

TEST(TTStages, AssignCbsRejectsAnUnbalancedIntermediate) {
  std::string broken = kTwoPacks;
  broken.replace(broken.find("cb_pop_front(cb_t, 2)"), 21, "cb_pop_front(cb_t, 1)");
  ir::Module m = test::read_ir(broken);
  Diagnostics d;
  EXPECT_THROW(test::stage("assign-cbs")(m, d), InternalError); // its occupancy walk
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
        // along a row: column 0 sends to columns grid_cols - 1 down to 1 (NoC 1's corner first)
        "  func host_core mc_host_core(core_x: u32, core_y: u32, grid_cols: u32, grid_rows: u32) "
        "{\n"
        "    let A_mcast_receives: u32 = min(core_x, 1u)\n"
        "    let A_mcast_x0: u32 = tt.noc_x(grid_cols - 1u, core_y)\n"
        "    let A_mcast_y0: u32 = tt.noc_y(grid_cols - 1u, core_y)\n"
        "    let A_mcast_x1: u32 = tt.noc_x(min(1u, grid_cols - 1u), core_y)\n"
        "    let A_mcast_y1: u32 = tt.noc_y(min(1u, grid_cols - 1u), core_y)\n"
        "    let A_mcast_dests: u32 = grid_cols - 1u\n"
        "    let A_mcast_sender_x: u32 = tt.noc_x(0u, core_y)\n"
        "    let A_mcast_sender_y: u32 = tt.noc_y(0u, core_y)\n",
        // down a column: row 0 sends
        "    let B_mcast_receives: u32 = min(core_y, 1u)\n"
        "    let B_mcast_x0: u32 = tt.noc_x(core_x, grid_rows - 1u)\n",
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

// keep-rows: x is read at [i, j] by two loops: its row is read once per work item, in halves
// (both NoCs read and write all through the run): tiles [0, row_half) by the reader into cb_x_row,
// the rest by the writer into cb_x_row_w (256 pages each of the 1 MiB share: rows of up to 256
// tiles double-buffered in windows of 128 per half, longer ones up to 512 in one window of 256 per
// half, which row_single / row_double choose at run time), and the reader writes the y tiles of
// the loops over its half from cb_y_by_reader. Each loop splits into the two halves and the tiles
// past them. The row is read in chunks of 16 pages (the power of two at or below
// sqrt(256 x 397 / 256) = 19.9). z is read by one loop only, w at two different rows: both stay
// streamed.
const char* kKeepRows = R"(// after to-core-loop
program kr {
  options grid 8x8 cb_depth 2 fp32_acc false math_fidelity "HiFi4"
  tensor x: bf16[M, N] input layout dram interleaved tile 32x32 page 2048
  tensor z: bf16[M, N] input layout dram interleaved tile 32x32 page 2048
  tensor w: bf16[M, N] input layout dram interleaved tile 32x32 page 2048
  tensor y: bf16[M, N] output layout dram interleaved tile 32x32 page 2048
  cb cb_x index 0 format Float16_b page 2048 depth 2 role input tensor x
  cb cb_z index 1 format Float16_b page 2048 depth 2 role input tensor z
  cb cb_w index 2 format Float16_b page 2048 depth 2 role input tensor w
  cb cb_y index 16 format Float16_b page 2048 depth 2 role output tensor y

  func kernel kr(x: tensor, z: tensor, w: tensor, y: tensor, M: i32, N: i32, start: u32, count: u32) {
    let Mt: i32 = M / 32
    let Nt: i32 = N / 32
    for i in start .. +count per_core {
      let s: tile<f32> = tile.zeros()
      for j in 0 .. Nt reduction {
        s = tile.add(s, tile.rowsum(tile.add(load x[i, j], load w[i, j])))
      }
      for j in 0 .. Nt serial {
        store y[i, j] = tile.mul(tile.mul(load x[i, j], tile.bcast_col(s)), load z[i, j])
      }
      for j in 0 .. Nt serial {
        store y[i, j] = load w[0, j]
      }
    }
  }

  func host kr_host(M: u32, N: u32) {
    let Mt: u32 = M / 32u
    let work_items: u32 = Mt
  }

  host_plan {
    split split_work_to_cores items work_items grid 8x8 row_wise false
    per_core start count
  }
}
)";

TEST(TTStages, KeepRowsReadsARowOnceWhenLoopsReadItAgain) {
  const std::string out = test::run_stage("keep-rows", kKeepRows);
  for (
      const char* text :
      {"  cb cb_x_row index 3 format Float16_b page 2048 depth 256 role input\n"
       "  cb cb_x_row_w index 4 format Float16_b page 2048 depth 256 role input read_by writer\n"
       "  cb cb_y_by_reader index 17 format Float16_b page 2048 depth 2 role output written_by "
       "reader for cb_x_row tensor y\n",
       "    let row_single: i32 = min(4 * (Nt - min(Nt, 256)) / Nt, 1)\n"
       "    let row_double: i32 = 1 - row_single\n"
       "    let row_kept: i32 = min(Nt, 256 + 256 * row_single)\n"
       "    let row_half: i32 = min(128 + 128 * row_single, (row_kept + 31) / 32 * 16)\n"
       // the double-buffered windows one work item ahead: the first work item's row before
       // the per-core loop, ...
       "    let row_mid: i32 = min(row_half, row_kept)\n"
       "    for row_window in 0 .. row_double serial {\n"
       "      for row_chunk in 0 .. 8 serial {\n"
       "        let row_chunk_pages: i32 = min(max(min(row_half, row_kept) - row_chunk * 16, 0), "
       "16)\n"
       "        df.read_block(cb_x_row, x, start * Nt + row_chunk * 16, 1, 16, Nt, 1, 1, "
       "row_chunk_pages, 16)\n"
       "      }\n"
       "    }\n"
       "    for row_window_4 in 0 .. row_double serial {\n"
       "      for row_chunk_2 in 0 .. 8 serial {\n"
       "        let row_chunk_pages_2: i32 = min(max(row_kept - (row_half + row_chunk_2 * 16), 0), "
       "16)\n"
       "        df.read_block(cb_x_row_w, x, start * Nt + (row_half + row_chunk_2 * 16), 1, 16, "
       "Nt, 1, 1, row_chunk_pages_2, 16)\n"
       "      }\n"
       "    }\n"
       // ... and each iteration's the next work item's (an empty window after the core's
       // last); the one-window form reads this work item's row, as before
       "    for i in start .. +count per_core {\n"
       "      let row_next: i32 = min(start + count - 1u - i, 1u)\n"
       "      for row_window_1 in 0 .. row_double serial {\n"
       "        for row_chunk_1 in 0 .. 8 serial {\n"
       "          let row_chunk_pages_1: i32 = min(max(min(row_half, row_kept) * row_next - "
       "row_chunk_1 * 16, 0), 16)\n"
       "          df.read_block(cb_x_row, x, (i + 1) * Nt + row_chunk_1 * 16, 1, 16, Nt, 1, 1, "
       "row_chunk_pages_1, 16)\n"
       "        }\n"
       "      }\n"
       "      for row_window_5 in 0 .. row_double serial {\n"
       "        for row_chunk_3 in 0 .. 8 serial {\n"
       "          let row_chunk_pages_3: i32 = min(max(row_kept * row_next - (row_half + "
       "row_chunk_3 * 16), 0), 16)\n"
       "          df.read_block(cb_x_row_w, x, (i + 1) * Nt + (row_half + row_chunk_3 * 16), 1, "
       "16, Nt, 1, 1, row_chunk_pages_3, 16)\n"
       "        }\n"
       "      }\n"
       "      for row_window_8 in 0 .. row_single serial {\n"
       "        for row_chunk_4 in 0 .. 16 serial {\n"
       "          let row_chunk_pages_4: i32 = min(max(min(row_half, row_kept) - row_chunk_4 * 16, "
       "0), 16)\n"
       "          df.read_block(cb_x_row, x, i * Nt + row_chunk_4 * 16, 1, 16, Nt, 1, 1, "
       "row_chunk_pages_4, 16)\n",
       // w streams in the first walk (the reader pushes its tiles after the windows): the
       // halves are waited for whole before it, not tile by tile
       "      for row_window_10 in 0 .. row_double serial {\n"
       "        cb_wait_front(cb_x_row, 128)\n"
       "      }\n"
       "      for row_window_11 in 0 .. row_single serial {\n"
       "        cb_wait_front(cb_x_row, 256)\n"
       "      }\n"
       "      for row_window_14 in 0 .. row_double serial {\n"
       "        cb_wait_front(cb_x_row_w, 128)\n"
       "      }\n",
       // s = zeros and a loop of s += rowsum(e), e computed: the loop sums e into s_sum, and s
       // is its rowsum after the loop (one DST section a tile)
       "      let s_sum: tile<f32> = tile.zeros()\n"
       "      for j in 0 .. row_mid reduction {\n"
       "        s_sum = tile.add(s_sum, tile.add(cb.tile(cb_x_row, j), load w[i, j]))\n"
       "      }\n"
       "      for j in row_mid .. +row_kept - row_mid reduction {\n"
       "        s_sum = tile.add(s_sum, tile.add(cb.tile(cb_x_row_w, j - row_half), load w[i, "
       "j]))\n"
       "      }\n"
       "      for j in row_kept .. +Nt - row_kept reduction {\n"
       "        s_sum = tile.add(s_sum, tile.add(load x[i, j], load w[i, j]))\n"
       "      }\n"
       "      let s: tile<f32> = tile.rowsum(s_sum)\n",
       "        store y[i, j] = tile.mul(tile.mul(cb.tile(cb_x_row, j), tile.bcast_col(s)), load "
       "z[i, j])\n",
       "        store y[i, j] = tile.mul(tile.mul(cb.tile(cb_x_row_w, j - row_half), "
       "tile.bcast_col(s)), load z[i, j])\n",
       "      for j in 0 .. Nt serial {\n        store y[i, j] = load w[0, j]\n      }\n"
       "      for row_window_12 in 0 .. row_double serial {\n"
       "        cb_pop_front(cb_x_row, 128)\n"
       "      }\n"
       "      for row_window_13 in 0 .. row_single serial {\n"
       "        cb_pop_front(cb_x_row, 256)\n"
       "      }\n"
       "      for row_window_16 in 0 .. row_double serial {\n"
       "        cb_pop_front(cb_x_row_w, 128)\n"
       "      }\n"
       "      for row_window_17 in 0 .. row_single serial {\n"
       "        cb_pop_front(cb_x_row_w, 256)\n"
       "      }\n    }\n"
       // the empty window the last iteration pushed, waited for and popped after the loop
       "    for row_window_2 in 0 .. row_double serial {\n"
       "      cb_wait_front(cb_x_row, 128)\n"
       "    }\n"
       "    for row_window_3 in 0 .. row_double serial {\n"
       "      cb_pop_front(cb_x_row, 128)\n"
       "    }\n"
       "    for row_window_6 in 0 .. row_double serial {\n"
       "      cb_wait_front(cb_x_row_w, 128)\n"
       "    }\n"
       "    for row_window_7 in 0 .. row_double serial {\n"
       "      cb_pop_front(cb_x_row_w, 128)\n"
       "    }\n  }\n"})
    EXPECT_NE(out.find(text), std::string::npos) << text << "\n--- in ---\n" << out;
  EXPECT_EQ(out.find("cb.wait_upto"), std::string::npos) << out;
  EXPECT_EQ(out.find("cb_z_row"), std::string::npos) << out;
  EXPECT_EQ(out.find("cb_w_row"), std::string::npos) << out;
}

// keep-rows, shared rows: g is read at [0, j], the same row for every work item, so it is read
// once per core before the per-core loop into cb_g_row (one copy: 2048 B a page) and popped after
// it; x's row is read once per work item as before (two copies, in halves: cb_x_row and
// cb_x_row_w). Together 3 pages per tile of cap: 1 MiB / 6144 B = 170, rounded down to whole
// chunks of each half of x's row (16 pages: the power of two at or below sqrt(170 x 397 / 256) =
// 16.2), cap = 160. Past 160 tiles x's row is kept whole in one window of 160 per half while g's
// tiles past 160 are loaded: the output loop splits at both, and each part at row_half. b is read
// at [i, 0]: one tile a work item, not a row, so it streams.
const char* kSharedRows = R"(// after to-core-loop
program sr {
  options grid 8x8 cb_depth 2 fp32_acc false math_fidelity "HiFi4"
  tensor x: bf16[M, N] input layout dram interleaved tile 32x32 page 2048
  tensor g: bf16[1, N] input layout dram interleaved tile 32x32 page 2048
  tensor b: bf16[M, 32] input layout dram interleaved tile 32x32 page 2048
  tensor y: bf16[M, N] output layout dram interleaved tile 32x32 page 2048
  cb cb_x index 0 format Float16_b page 2048 depth 2 role input tensor x
  cb cb_g index 1 format Float16_b page 2048 depth 2 role input tensor g
  cb cb_b index 2 format Float16_b page 2048 depth 2 role input tensor b
  cb cb_y index 16 format Float16_b page 2048 depth 2 role output tensor y

  func kernel sr(x: tensor, g: tensor, b: tensor, y: tensor, M: i32, N: i32, start: u32, count: u32) {
    let Mt: i32 = M / 32
    let Nt: i32 = N / 32
    for i in start .. +count per_core {
      let s: tile<f32> = tile.zeros()
      for j in 0 .. Nt reduction {
        s = tile.add(s, tile.rowsum(load x[i, j]))
      }
      for j in 0 .. Nt serial {
        store y[i, j] = tile.mul(tile.mul(load x[i, j], tile.bcast_col(s)), tile.bcast_row(load g[0, j]))
      }
      store y[i, 0] = load b[i, 0]
    }
  }

  func host sr_host(M: u32, N: u32) {
    let Mt: u32 = M / 32u
    let work_items: u32 = Mt
  }

  host_plan {
    split split_work_to_cores items work_items grid 8x8 row_wise false
    per_core start count
  }
}
)";

TEST(TTStages, KeepRowsReadsASharedRowOncePerCore) {
  const std::string out = test::run_stage("keep-rows", kSharedRows);
  for (const char* text :
       {"  cb cb_x_row index 3 format Float16_b page 2048 depth 160 role input\n"
        "  cb cb_x_row_w index 4 format Float16_b page 2048 depth 160 role input read_by writer\n"
        "  cb cb_g_row index 5 format Float16_b page 2048 depth 160 role input\n"
        "  cb cb_y_by_reader index 17 format Float16_b page 2048 depth 2 role output written_by "
        "reader for cb_x_row tensor y\n",
        "    let shared_kept: i32 = min(Nt, 160)\n"
        "    let row_single: i32 = min(4 * (Nt - min(Nt, 160)) / Nt, 1)\n"
        "    let row_double: i32 = 1 - row_single\n"
        "    let row_kept: i32 = min(Nt, 160 + 160 * row_single)\n"
        "    let row_half: i32 = min(80 + 80 * row_single, (row_kept + 31) / 32 * 16)\n"
        "    let row_mid: i32 = min(row_half, row_kept)\n"
        "    let row_mid_1: i32 = min(row_half, shared_kept)\n"
        "    let row_mid_2: i32 = max(shared_kept, min(row_half, row_kept))\n"
        "    df.read_block(cb_g_row, g, 0, 1, shared_kept, Nt, 1, 1, shared_kept, 160)\n"
        "    cb_wait_front(cb_g_row, 160)\n"
        "    for row_window in 0 .. row_double serial {\n"
        "      for row_chunk in 0 .. 5 serial {\n"
        "        let row_chunk_pages: i32 = min(max(min(row_half, row_kept) - row_chunk * 16, 0), "
        "16)\n"
        "        df.read_block(cb_x_row, x, start * Nt + row_chunk * 16, 1, 16, Nt, 1, 1, "
        "row_chunk_pages, 16)\n"
        "      }\n"
        "    }\n",
        "      for row_window_9 in 0 .. row_single serial {\n"
        "        for row_chunk_5 in 0 .. 10 serial {\n"
        "          let row_chunk_pages_5: i32 = min(max(row_kept - (row_half + row_chunk_5 * 16), "
        "0), 16)\n"
        "          df.read_block(cb_x_row_w, x, i * Nt + (row_half + row_chunk_5 * 16), 1, 16, Nt, "
        "1, 1, row_chunk_pages_5, 16)\n",
        // the first walk takes x's tiles as they land, each half from its CB; the windows' waits
        // follow it
        "      for j in 0 .. row_mid reduction {\n"
        "        cb.wait_upto(cb_x_row, j + 1)\n"
        "        s = tile.add(s, tile.rowsum(cb.tile(cb_x_row, j)))\n"
        "      }\n"
        "      for j in row_mid .. +row_kept - row_mid reduction {\n"
        "        cb.wait_upto(cb_x_row_w, j - row_half + 1)\n"
        "        s = tile.add(s, tile.rowsum(cb.tile(cb_x_row_w, j - row_half)))\n"
        "      }\n"
        "      for row_window_10 in 0 .. row_double serial {\n"
        "        cb_wait_front(cb_x_row, 80)\n"
        "      }\n",
        // [0, shared_kept): both rows in L1; [shared_kept, row_kept): x's only; past: loaded;
        // each of the first two in x's halves
        "      for j in 0 .. row_mid_1 serial {\n"
        "        store y[i, j] = tile.mul(tile.mul(cb.tile(cb_x_row, j), tile.bcast_col(s)), "
        "tile.bcast_row(cb.tile(cb_g_row, j)))\n"
        "      }\n"
        "      for j in row_mid_1 .. +shared_kept - row_mid_1 serial {\n"
        "        store y[i, j] = tile.mul(tile.mul(cb.tile(cb_x_row_w, j - row_half), "
        "tile.bcast_col(s)), tile.bcast_row(cb.tile(cb_g_row, j)))\n"
        "      }\n"
        "      for j in shared_kept .. +row_mid_2 - shared_kept serial {\n"
        "        store y[i, j] = tile.mul(tile.mul(cb.tile(cb_x_row, j), tile.bcast_col(s)), "
        "tile.bcast_row(load g[0, j]))\n"
        "      }\n"
        "      for j in row_mid_2 .. +row_kept - row_mid_2 serial {\n"
        "        store y[i, j] = tile.mul(tile.mul(cb.tile(cb_x_row_w, j - row_half), "
        "tile.bcast_col(s)), tile.bcast_row(load g[0, j]))\n"
        "      }\n"
        "      for j in row_kept .. +Nt - row_kept serial {\n"
        "        store y[i, j] = tile.mul(tile.mul(load x[i, j], tile.bcast_col(s)), "
        "tile.bcast_row(load g[0, j]))\n",
        "      store y[i, 0] = load b[i, 0]\n"
        "      for row_window_12 in 0 .. row_double serial {\n"
        "        cb_pop_front(cb_x_row, 80)\n"
        "      }\n",
        "      for row_window_17 in 0 .. row_single serial {\n"
        "        cb_pop_front(cb_x_row_w, 160)\n"
        "      }\n"
        "    }\n",
        "      cb_pop_front(cb_x_row_w, 80)\n"
        "    }\n"
        "    cb_pop_front(cb_g_row, 160)\n"})
    EXPECT_NE(out.find(text), std::string::npos) << text << "\n--- in ---\n" << out;
  EXPECT_EQ(out.find("cb_b_row"), std::string::npos) << out;
}

// keep-rows: in a walk over a kept row, `let d = e` read only as `tile.mul(d, d)` by the next
// statement becomes tile.square(e) there (one DST section: the let, read twice, would be packed
// into a CB and copied back twice). A let read anywhere else stays (u: also stored).
TEST(TTStages, KeepRowsSquaresALetTheNextStatementMultipliesByItself) {
  std::string in = kKeepRows;
  const std::string walk = "      for j in 0 .. Nt reduction {\n"
                           "        s = tile.add(s, tile.rowsum(tile.add(load x[i, j], load w[i, "
                           "j])))\n"
                           "      }\n";
  in.replace(in.find(walk), walk.size(),
             "      for j in 0 .. Nt reduction {\n"
             "        let d: tile<f32> = tile.sub(load x[i, j], tile.bcast_col(s))\n"
             "        s = tile.add(s, tile.rowsum(tile.mul(d, d)))\n"
             "      }\n"
             "      for j in 0 .. Nt serial {\n"
             "        let u: tile<f32> = tile.sub(load x[i, j], tile.bcast_col(s))\n"
             "        s = tile.add(s, tile.rowsum(tile.mul(u, u)))\n"
             "        store y[i, j] = u\n"
             "      }\n");
  const std::string out = test::run_stage("keep-rows", in);
  for (const char* text :
       {"      for j in 0 .. row_mid reduction {\n"
        "        cb.wait_upto(cb_x_row, j + 1)\n"
        "        s = tile.add(s, tile.rowsum(tile.square(tile.sub(cb.tile(cb_x_row, j), "
        "tile.bcast_col(s)))))\n"
        "      }\n",
        "      for j in row_kept .. +Nt - row_kept reduction {\n"
        "        s = tile.add(s, tile.rowsum(tile.square(tile.sub(load x[i, j], "
        "tile.bcast_col(s)))))\n"
        "      }\n",
        "        let u: tile<f32> = tile.sub(cb.tile(cb_x_row, j), tile.bcast_col(s))\n"
        "        s = tile.add(s, tile.rowsum(tile.mul(u, u)))\n"})
    EXPECT_NE(out.find(text), std::string::npos) << text << "\n--- in ---\n" << out;
  EXPECT_EQ(out.find("let d:"), std::string::npos) << out;
}

// keep-rows sums e tile by tile and takes one rowsum after the loop only when e is computed (a
// tile read as it is, rowsum(x[i, j]), stays: reduce_tile sums it straight from its CB into DST)
// and nothing assigns the sum after the loop (here the square test's u loop adds to s again).
TEST(TTStages, KeepRowsSumsBeforeTheRowsumOnlyAComputedTermNotAssignedAfter) {
  std::string in = kKeepRows;
  const std::string walk = "        s = tile.add(s, tile.rowsum(tile.add(load x[i, j], load w[i, "
                           "j])))\n";
  in.replace(in.find(walk), walk.size(), "        s = tile.add(s, tile.rowsum(load x[i, j]))\n");
  std::string out = test::run_stage("keep-rows", in);
  EXPECT_EQ(out.find("s_sum"), std::string::npos) << out;
  EXPECT_NE(out.find("        s = tile.add(s, tile.rowsum(cb.tile(cb_x_row, j)))\n"),
            std::string::npos)
      << out;
  in = kKeepRows;
  const std::string store = "        store y[i, j] = load w[0, j]\n";
  in.replace(in.find(store), store.size(), store + "        s = tile.add(s, load w[0, j])\n");
  out = test::run_stage("keep-rows", in);
  EXPECT_EQ(out.find("s_sum"), std::string::npos) << out;
}

// One fact, read by four decisions: a kernel's intermediates are Float32 when it has an f32
// tensor (tt::intermediates_f32). The same rmsnorm-like kernel with a bf16 output and with an f32
// one: with bf16 intermediates keep-rows sums the squares before the rowsum (select-tile-ops
// then splits the reduced fp32 sum into hi + lo) and select-tile-ops' temporaries are bf16; with
// Float32 ones the rowsum stays tile by tile (the reduce would read the sum as TF32), the
// temporaries are Float32, and DST is fp32 whatever else the kernel does.
TEST(TTStages, IntermediatesAreFloat32ExactlyWhenTheKernelHasAnF32Tensor) {
  const std::string bf16 = R"(kernel n(x: bf16[M, N]) -> (y: bf16[M, N]) {
    parallel i in tiles(M) {
        ss = zeros()
        for j in tiles(N) { ss += rowsum(square(x[i, j])) }
        r = rsqrt(ss * (1.0 / N))
        for j in tiles(N) { y[i, j] = x[i, j] * bcast_col(r) }
    }
}
)";
  std::string f32 = bf16;
  f32.replace(f32.find("(y: bf16"), 8, "(y: f32");
  auto module_after = [](const std::string& tk, const std::string& stage) {
    SourceFile file("k.tk", tk);
    Diagnostics diags(&file);
    std::optional<dsl::Module> ast = parser::parse(file, diags);
    if (!ast || !dsl::check(*ast, diags)) {
      ADD_FAILURE() << diags.str();
      return ir::Module{};
    }
    PipelineOptions o;
    o.stop_after = stage;
    std::optional<ir::Module> m = run_pipeline(*ast, Target::tt, o, diags);
    EXPECT_TRUE(m) << diags.str();
    return m ? *m : ir::Module{};
  };
  EXPECT_FALSE(tt::intermediates_f32(module_after(bf16, "plan-buffers").programs.at(0)));
  EXPECT_TRUE(tt::intermediates_f32(module_after(f32, "plan-buffers").programs.at(0)));
  EXPECT_NE(after_tk(bf16, "keep-rows").find("ss_sum"), std::string::npos);
  EXPECT_EQ(after_tk(f32, "keep-rows").find("ss_sum"), std::string::npos);
  const std::string sel_bf16 = cb_lines(after_tk(bf16, "select-tile-ops"));
  const std::string sel_f32 = cb_lines(after_tk(f32, "select-tile-ops"));
  EXPECT_NE(sel_bf16.find("format Float16_b page 2048 depth 1 role intermediate"),
            std::string::npos)
      << sel_bf16;
  EXPECT_EQ(sel_f32.find("format Float16_b page 2048 depth 1 role intermediate"), std::string::npos)
      << sel_f32;
  // An f32 tensor alone makes DST fp32: an element-wise kernel accumulates nothing.
  const std::string copy = "kernel c(x: f32[M, N]) -> (y: f32[M, N]) {\n"
                           "    parallel i in tiles(M), j in tiles(N) { y[i, j] = exp(x[i, j]) }\n"
                           "}\n";
  EXPECT_TRUE(tt::dst_fp32(module_after(copy, "select-tile-ops").programs.at(0)));
}

// select-tile-ops splits a reduced sum into hi + lo with Float32 intermediates too: in an f32
// kernel, rowsum(x + x) packs hi to a bf16 CB (the packer rounds), lo = v - hi to a second bf16
// one, and reduces both, each read exactly through SrcA; one Float32 temporary would have been
// truncated to TF32 there (Sums/RowSumF32 on both targets).
TEST(TTStages, SelectTileOpsSplitsAReducedSumIntoBf16PartsWithFloat32Intermediates) {
  const std::string tk = R"(kernel r(x: f32[M, N]) -> (y: f32[M, 1]) {
    parallel i in tiles(M) {
        s = zeros()
        for j in tiles(N) { s += rowsum(x[i, j] + x[i, j]) }
        y[i, 0] = s
    }
}
)";
  const std::string after = after_tk(tk, "select-tile-ops");
  const std::string cbs = cb_lines(after);
  EXPECT_NE(
      cbs.find("  cb cb_tmp0 index 26 format Float16_b page 2048 depth 1 role intermediate\n"
               "  cb cb_tmp1 index 27 format Float16_b page 2048 depth 1 role intermediate\n"),
      std::string::npos)
      << cbs;
  EXPECT_NE(after.find(R"(        copy_tile(cb_sum0, 0, 0)
        pack_tile(0, cb_tmp0)
        cb_wait_front(cb_tmp0, 1)
        copy_tile(cb_sum0, 0, 0)
        cb_pop_front(cb_sum0, 1)
        copy_tile(cb_tmp0, 0, 1)
        sub_binary_tile(0, 1, 0)
        pack_tile(0, cb_tmp1)
        cb_wait_front(cb_tmp1, 1)
        copy_tile(cb_s, 0, 0)
        reduce_tile(PoolType::SUM, ReduceDim::REDUCE_ROW, cb_tmp0, cb_scaler, 0, 0, 0)
        reduce_tile(PoolType::SUM, ReduceDim::REDUCE_ROW, cb_tmp1, cb_scaler, 0, 0, 0)
)"),
            std::string::npos)
      << after;
}

// keep-rows, halves: a work item's row is read half by the reader (NoC 1) and half by the writer
// (NoC 0), and the reader writes the outputs of the loops over its half, so that both NoCs carry
// reads and writes all through the run. That takes a second input CB per row and an output CB
// per tensor stored beside the row: with every input index but one taken (x, z, w and four
// others), x's row keeps one CB that the reader fills, and the outputs stay the writer's.
TEST(TTStages, KeepRowsReadsARowOnOneNocWhenNoSecondCbIsLeft) {
  std::string in = kKeepRows;
  const std::string after =
      "  cb cb_w index 2 format Float16_b page 2048 depth 2 role input tensor w\n";
  std::string more;
  for (int n = 3; n <= 6; ++n)
    more += "  cb cb_p" + std::to_string(n) + " index " + std::to_string(n) +
            " format Float16_b page 2048 depth 2 role input tensor w\n";
  in.replace(in.find(after), after.size(), after + more);
  const std::string out = test::run_stage("keep-rows", in);
  EXPECT_NE(out.find("  cb cb_x_row index 7 format Float16_b page 2048 depth 512 role input\n"),
            std::string::npos)
      << out;
  EXPECT_EQ(out.find("cb_x_row_w"), std::string::npos) << out;
  EXPECT_EQ(out.find("written_by reader"), std::string::npos) << out;
  EXPECT_EQ(out.find("row_half"), std::string::npos) << out;
}

// batch-sections: FlashAttention's output row, `o[d] = o[d] * bcast_col(c) + p @ V[h, j, d]`, one
// DST section of one tile per d, runs as batches of three tiles in one section (fp32 DST: 4 slots;
// the broadcast of c, which every d reads alike, once per batch in slot 0, o's tiles in 1 to 3),
// each operation once per tile of the batch, the row CB cb_o waited for, popped and packed three
// at a time; two tiles left over run as one batch of two (D = 64), one as the body was. Batches
// run only when cb_o's 64 pages hold whole rows (64 % Dt == 0), so that no batch wraps around the
// CB's end. The loop over the streamed tail of V (a df.read_tile in its body) is left as it was.
TEST(TTStages, BatchSectionsRunsARowLoopOfOneTileSectionsAsBatches) {
  // The example with its Q chunk fixed at one row (the example's own kernel runs these loops
  // inside chunk-rows' loop over the chunk's rows).
  const std::string tk = tk::test::read_file(tk::test::source_dir() / "bench" / "attention_q1.tk");
  const std::string before = after_tk(tk, "chunk-rows");
  const std::string after = after_tk(tk, "batch-sections");
  const std::string one_tile = R"(        for d in 0 .. stream_kept reduction {
          cb_wait_front(cb_o, 1)
          unary_bcast(BroadcastType::COL, cb_c, 0, 0)
          copy_tile(cb_o, 0, 1)
          mul_binary_tile(1, 0, 1)
          matmul_tiles(cb_p, cb_V_win, 0, d, 1)
          cb_pop_front(cb_o, 1)
          pack_tile(1, cb_o)
        }
)";
  ASSERT_NE(before.find(one_tile), std::string::npos) << before;
  EXPECT_EQ(after.find(one_tile), std::string::npos) << after;
  const std::string batched = R"(        let d_batched: i32 = stream_kept * (1 - min(64 % Dt, 1))
        for db in 0 .. d_batched / 3 reduction {
          cb_wait_front(cb_o, 3)
          unary_bcast(BroadcastType::COL, cb_c, 0, 0)
          copy_tile(cb_o, 0, 1)
          copy_tile(cb_o, 1, 2)
          copy_tile(cb_o, 2, 3)
          mul_binary_tile(1, 0, 1)
          mul_binary_tile(2, 0, 2)
          mul_binary_tile(3, 0, 3)
          matmul_tiles(cb_p, cb_V_win, 0, db * 3, 1)
          matmul_tiles(cb_p, cb_V_win, 0, db * 3 + 1, 2)
          matmul_tiles(cb_p, cb_V_win, 0, db * 3 + 2, 3)
          cb_pop_front(cb_o, 3)
          pack_tile(1, cb_o)
          pack_tile(2, cb_o)
          pack_tile(3, cb_o)
        }
        for db_1 in 0 .. d_batched % 3 / 2 reduction {
          cb_wait_front(cb_o, 2)
          unary_bcast(BroadcastType::COL, cb_c, 0, 0)
          copy_tile(cb_o, 0, 1)
          copy_tile(cb_o, 1, 2)
          mul_binary_tile(1, 0, 1)
          mul_binary_tile(2, 0, 2)
          matmul_tiles(cb_p, cb_V_win, 0, d_batched - d_batched % 3 + db_1 * 2, 1)
          matmul_tiles(cb_p, cb_V_win, 0, d_batched - d_batched % 3 + db_1 * 2 + 1, 2)
          cb_pop_front(cb_o, 2)
          pack_tile(1, cb_o)
          pack_tile(2, cb_o)
        }
        for d in d_batched - d_batched % 3 % 2 .. +stream_kept - d_batched + d_batched % 3 % 2 reduction {
          cb_wait_front(cb_o, 1)
          unary_bcast(BroadcastType::COL, cb_c, 0, 0)
          copy_tile(cb_o, 0, 1)
          mul_binary_tile(1, 0, 1)
          matmul_tiles(cb_p, cb_V_win, 0, d, 1)
          cb_pop_front(cb_o, 1)
          pack_tile(1, cb_o)
        }
        for d in stream_kept .. +Dt - stream_kept reduction {
          cb_wait_front(cb_o, 1)
          unary_bcast(BroadcastType::COL, cb_c, 0, 0)
          copy_tile(cb_o, 0, 1)
          mul_binary_tile(1, 0, 1)
          df.read_tile(cb_V, V, (h * St + j) * Dt + d)
)";
  EXPECT_NE(after.find(batched), std::string::npos) << after;
  // After the chain, one section holds the batch: one acquire, one reservation of three pages.
  const std::string compute = function(after_tk(tk, "insert-dst-management"), "compute");
  const std::string packs = R"(          cb_pop_front(cb_o, 3)
          tile_regs_commit()
          tile_regs_wait()
          cb_reserve_back(cb_o, 3)
          pack_tile(1, cb_o)
          pack_tile(2, cb_o)
          pack_tile(3, cb_o)
          cb_push_back(cb_o, 3)
          tile_regs_release()
)";
  EXPECT_NE(compute.find(packs), std::string::npos) << compute;
}

// batch-sections, an output walk: layernorm's `y[i, j] = (x - mean) * r * gamma + beta` over its
// kept row, one DST section of one tile per j in two slots (fp32 DST: 4), packed into an output
// and written, runs as batches of two tiles in one section: each operation, and so each init,
// once per pair; the writes of the pair follow its packs, in the body's order. The output CB
// (two pages, drained tile by tile by the writer) takes the pair a page at a time: each pack
// reserves and pushes its own page in the one section, so that no reservation can run past the
// CB's end.
TEST(TTStages, BatchSectionsRunsAnOutputWalkAsBatchesEachPackItsOwnPage) {
  const std::string tk = tk::test::read_file(tk::test::source_dir() / "examples" / "layernorm.tk");
  const std::string before = after_tk(tk, "peel-mask");
  const std::string after = after_tk(tk, "batch-sections");
  const std::string one_tile = R"(      for j in 0 .. row_mid_1 serial {
        unary_bcast(BroadcastType::COL, cb_mean, 0, 0)
        copy_tile(cb_x_row, j, 1)
        sub_binary_tile(1, 0, 1)
        unary_bcast(BroadcastType::COL, cb_r, 0, 0)
        mul_binary_tile(1, 0, 1)
        unary_bcast(BroadcastType::ROW, cb_gamma_row, j, 0)
        mul_binary_tile(1, 0, 1)
        unary_bcast(BroadcastType::ROW, cb_beta_row, j, 0)
        add_binary_tile(1, 0, 1)
        pack_tile(1, cb_y_by_reader)
        df.write_tile(cb_y_by_reader, y, i * Nt + j)
      }
)";
  ASSERT_NE(before.find(one_tile), std::string::npos) << before;
  EXPECT_EQ(after.find(one_tile), std::string::npos) << after;
  const std::string batched = R"(      let j_batched: i32 = row_mid_1
      for jb in 0 .. j_batched / 2 serial {
        unary_bcast(BroadcastType::COL, cb_mean, 0, 0)
        unary_bcast(BroadcastType::COL, cb_mean, 0, 2)
        copy_tile(cb_x_row, jb * 2, 1)
        copy_tile(cb_x_row, jb * 2 + 1, 3)
        sub_binary_tile(1, 0, 1)
        sub_binary_tile(3, 2, 3)
        unary_bcast(BroadcastType::COL, cb_r, 0, 0)
        unary_bcast(BroadcastType::COL, cb_r, 0, 2)
        mul_binary_tile(1, 0, 1)
        mul_binary_tile(3, 2, 3)
        unary_bcast(BroadcastType::ROW, cb_gamma_row, jb * 2, 0)
        unary_bcast(BroadcastType::ROW, cb_gamma_row, jb * 2 + 1, 2)
        mul_binary_tile(1, 0, 1)
        mul_binary_tile(3, 2, 3)
        unary_bcast(BroadcastType::ROW, cb_beta_row, jb * 2, 0)
        unary_bcast(BroadcastType::ROW, cb_beta_row, jb * 2 + 1, 2)
        add_binary_tile(1, 0, 1)
        add_binary_tile(3, 2, 3)
        pack_tile(1, cb_y_by_reader)
        pack_tile(3, cb_y_by_reader)
        df.write_tile(cb_y_by_reader, y, i * Nt + jb * 2)
        df.write_tile(cb_y_by_reader, y, i * Nt + (jb * 2 + 1))
      }
      for j in j_batched - j_batched % 2 .. +row_mid_1 - j_batched + j_batched % 2 serial {
)";
  EXPECT_NE(after.find(batched), std::string::npos) << after;
  const std::string compute = function(after_tk(tk, "insert-dst-management"), "compute");
  const std::string packs = R"(        add_binary_tile(3, 2, 3)
        tile_regs_commit()
        tile_regs_wait()
        cb_reserve_back(cb_y_by_reader, 1)
        pack_tile(1, cb_y_by_reader)
        cb_push_back(cb_y_by_reader, 1)
        cb_reserve_back(cb_y_by_reader, 1)
        pack_tile(3, cb_y_by_reader)
        cb_push_back(cb_y_by_reader, 1)
        tile_regs_release()
)";
  EXPECT_NE(compute.find(packs), std::string::npos) << compute;
}

// batch-sections, a loop inside one open section: layernorm's variance walk keeps v_sum in DST
// across the row and broadcast the mean into slot 1 every tile; nothing else writes slot 1 and
// nothing reads it before, so the broadcast runs once before each of the walk's loops (its init
// and the srcA reconfiguration for x's row then once too). The streamed tail, which waits for
// each tile, keeps it.
TEST(TTStages, BatchSectionsHoistsAnInvariantBroadcastOutOfAnOpenSectionsLoop) {
  const std::string tk = tk::test::read_file(tk::test::source_dir() / "examples" / "layernorm.tk");
  const std::string after = after_tk(tk, "batch-sections");
  EXPECT_NE(after.find(R"(      unary_bcast(BroadcastType::COL, cb_mean, 0, 1)
      for j in 0 .. row_mid reduction {
        copy_tile(cb_x_row, j, 2)
        sub_binary_tile(2, 1, 2)
        square_tile(2)
        add_binary_tile(0, 2, 0)
      }
      unary_bcast(BroadcastType::COL, cb_mean, 0, 1)
      for j in row_mid .. +row_kept - row_mid reduction {
)"),
            std::string::npos)
      << after;
  EXPECT_NE(after.find(R"(      for j in row_kept .. +Nt - row_kept reduction {
        unary_bcast(BroadcastType::COL, cb_mean, 0, 1)
)"),
            std::string::npos)
      << after;
}

// An output walk over a streamed window (stream-rows: the row read as one block, its tiles read
// in place) batches as many tiles as a 16-bit DST holds, 8, then 4 and 2; a loop whose section
// reads tiles from a stream's front (waits for each and pops it: an element-wise kernel's) is
// left as it was, as its CB, two pages deep, may not hold a batch's tiles.
TEST(TTStages, BatchSectionsBatchesAWindowedWalkAndLeavesAStreamedOne) {
  const std::string tk = R"(kernel k(x: bf16[M, N]) -> (y: bf16[M, N]) {
    parallel i in tiles(M) {
        for j in tiles(N) { y[i, j] = exp(x[i, j]) }
    }
}
)";
  const std::string after = after_tk(tk, "batch-sections");
  EXPECT_NE(after.find(R"(      for jb in 0 .. j_batched / 8 serial {
        copy_tile(cb_x_win, jb * 8, 0)
)"),
            std::string::npos)
      << after;
  EXPECT_NE(after.find(R"(        pack_tile(7, cb_y)
        df.write_tile(cb_y, y, i * Nt + jb * 8)
)"),
            std::string::npos)
      << after;
  EXPECT_NE(after.find("      for jb_2 in 0 .. j_batched % 8 % 4 / 2 serial {\n"),
            std::string::npos)
      << after;
  const std::string streamed = R"(kernel e(x: bf16[M, N]) -> (y: bf16[M, N]) {
    parallel i in tiles(M), j in tiles(N) { y[i, j] = exp(x[i, j]) }
}
)";
  const std::string before = after_tk(streamed, "chunk-rows");
  ASSERT_NE(before.find("exp_tile(0)"), std::string::npos) << before;
  EXPECT_EQ(after_tk(streamed, "batch-sections"), before);
}

// peel-mask: `s = where(tril(i, j), s * scale, fill(-inf))` is `s * scale` for every key step
// below the row's diagonal (j < i), so the key loop `for j in 0 .. i + 1` runs as `for j in 0 ..
// j_below` without the mask group (no fill, no mask tile from the reader, no wait, copy, pop or
// where; the scaled score packed from its own slot, to the copy for rowmax and to s's CB) and `for
// j in j_below .. +i + 1 - j_below` as before. With the Q chunk, i is `min(qc * 4 + qr, St - 1)`
// inside `for qr in 0 .. 4`: the bound below every row of the chunk is min(qc * 4, St - 1).
// (bench/attention_q1.tk is the example with its chunk fixed at one row: the example's own kernel
// is chunked by the host's rule.)
TEST(TTStages, PeelMaskRunsTheStepsBelowTheDiagonalWithoutTheMask) {
  const std::string tk = tk::test::read_file(tk::test::source_dir() / "bench" / "attention_q1.tk");
  const std::string after = after_tk(tk, "peel-mask");
  EXPECT_NE(after.find("      let j_below: i32 = max(min(i, i + 1), 0)\n"
                       "      for j in 0 .. j_below reduction {\n"),
            std::string::npos)
      << after;
  EXPECT_NE(after.find("      for j in j_below .. +i + 1 - j_below reduction {\n"),
            std::string::npos)
      << after;
  const std::size_t below = after.find("      for j in 0 .. j_below reduction {\n");
  const std::size_t diagonal = after.find("      for j in j_below ..");
  ASSERT_LT(below, diagonal);
  const std::string unmasked = after.substr(below, diagonal - below);
  EXPECT_EQ(unmasked.find("tril"), std::string::npos) << unmasked;
  EXPECT_EQ(unmasked.find("where_tile"), std::string::npos) << unmasked;
  EXPECT_EQ(unmasked.find("fill_tile"), std::string::npos) << unmasked;
  // Both packs of the score (the copy rowmax reads, then s's own CB) from the scaled slot.
  EXPECT_NE(unmasked.find("        mul_unary_tile(0, float_bits(scale))\n"
                          "        pack_tile(0, cb_tmp0)\n"
                          "        pack_tile(0, cb_s)\n"),
            std::string::npos)
      << unmasked;
  const std::string masked = after.substr(diagonal);
  EXPECT_NE(masked.find("        df.tril_tile(cb_mask, DataFormat::Float16_b, 32 * (j - i))\n"),
            std::string::npos)
      << masked;

  const std::string q4 = after_tk(
      tk::test::read_file(tk::test::source_dir() / "bench" / "attention_q4.tk"), "peel-mask");
  EXPECT_NE(q4.find("      let j_below: i32 = max(min(min(qc * 4, St - 1), qend), 0)\n"),
            std::string::npos)
      << q4;
}

// chunk-rows without @options(q_chunk): the host's rule chooses q at run time. The kernel lets q
// = tt.q_chunk(H, St, Dt, the rule's constant inputs: the 8x8 grid's 64 cores, Q's window of 32
// pages, chunks of at most 8 rows, a key step's cycles fixed and per tile of D (0 and 0 here:
// price-q-chunk prices them from the final compute kernel, price_q_chunk_test.cpp), a 2048-byte
// page, wormhole_b0's 66.1 DRAM bytes per cycle as 66100 per 1000 cycles), the window's pages per
// row W / q and the chunks per head; the host computes the same q before its work items (H *
// chunks); every loop over the chunk's rows runs to q; the row's state CBs hold the largest chunk's
// rows. A kernel without a row-bounded key loop is left as it is (no error, unlike a fixed q > 1).
TEST(TTStages, ChunkRowsLetsTheHostsRuleChooseQ) {
  const std::string tk = tk::test::read_file(tk::test::source_dir() / "examples" / "attention.tk");
  const std::string after = after_tk(tk, "chunk-rows");
  for (const char* line :
       {"    let Dt: i32 = D / 32\n"
        "    let q: i32 = tt.q_chunk(H, St, Dt, 64, 32, 8, 0, 0, 2048, 66100)\n"
        "    let q_cols: i32 = 32 / q\n"
        "    let chunks: i32 = (St + q - 1) / q\n",
        "      let qend: i32 = min(qc * q + q, St)\n"
        "      for qr in 0 .. q serial {\n",
        "      df.read_block(cb_Q_win, Q, (h * St + qc * q) * Dt, q, q_cols, Dt, 1, qend - qc * q, "
        "stream_kept, 32)\n",
        "            matmul_tiles.bt(cb_Q_win, cb_K_win, (i - qc * q) * q_cols + e, e, 0)\n",
        "    let St: u32 = S / 32u\n"
        "    let Dt: u32 = D / 32u\n"
        "    let q: u32 = tt.q_chunk(H, St, Dt, 64, 32, 8, 0, 0, 2048, 66100)\n"
        "    let chunks: u32 = (St + q - 1u) / q\n"
        "    let work_items: u32 = H * chunks\n"})
    EXPECT_NE(after.find(line), std::string::npos) << line << "\n" << after;
  const std::string cbs = after_tk(tk, "assign-cbs");
  EXPECT_NE(cbs.find("  cb cb_m index 24 format Float32 page 4096 depth 8 role intermediate\n"),
            std::string::npos)
      << cbs;
  EXPECT_NE(cbs.find("  cb cb_l index 25 format Float32 page 4096 depth 8 role intermediate\n"),
            std::string::npos)
      << cbs;
  const std::string softmax =
      tk::test::read_file(tk::test::source_dir() / "examples" / "softmax.tk");
  EXPECT_EQ(after_tk(softmax, "chunk-rows"), after_tk(softmax, "select-tile-ops"));
}

} // namespace
} // namespace tk::lower
