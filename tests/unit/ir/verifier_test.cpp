// The verifier catches hand-broken IR with an exact message and reports it as an internal error
// carrying the printed IR.
#include "ir_test_util.hpp"

#include "lowering/ir/verifier.hpp"
#include "support/diagnostics.hpp"

namespace tk::ir {
namespace {

// A module whose one kernel function has `body` (text, inside the function).
std::string error_of(const std::string& body, const std::string& params = "") {
  std::string text = "program p {\n"
                     "  tensor A: bf16[M, K] input\n"
                     "  tensor C: bf16[M, K] output\n"
                     "  cb cb_in0 index 0 format Float16_b page 2048 depth 2 role input tensor A\n"
                     "  func kernel f(" +
                     params + ") {\n" + body + "  }\n}\n";
  Module m = test::read_text(text);
  return find_ir_error(m).value_or("<valid>");
}

TEST(Verifier, ValidModulePasses) {
  EXPECT_EQ(find_ir_error(test::matmul_module()), std::nullopt);
  EXPECT_NO_THROW(verify(test::matmul_module(), "to-tile-ir"));
}

TEST(Verifier, UseBeforeDefinition) {
  Module m = test::matmul_module();
  Function& f = m.programs[0].functions[0];
  // Drop `let Kt = K / 32`: the reduction loop now reads an undefined variable.
  const auto* b = as<Block>(f.body);
  std::vector<Stmt> stmts = b->stmts;
  stmts.erase(stmts.begin() + 1);
  f.body = block(stmts);
  EXPECT_EQ(find_ir_error(m), "in function 'matmul': use of undefined variable 'Kt'");
  try {
    verify(m, "infer-layout");
    FAIL() << "verify did not throw";
  } catch (const InternalError& e) {
    EXPECT_STREQ(e.what(), "internal error: IR invalid after infer-layout: in function 'matmul': "
                           "use of undefined variable 'Kt'");
    EXPECT_EQ(e.detail(), print(m));
  }
}

TEST(Verifier, VariableUsedWithWrongType) {
  Module m = test::matmul_module();
  Function& f = m.programs[0].functions[0];
  std::vector<Stmt> stmts = as<Block>(f.body)->stmts;
  stmts.insert(stmts.begin() + 3, decl("x", Type::f32(), var("Mt", Type::f32())));
  f.body = block(stmts);
  EXPECT_EQ(find_ir_error(m), "in function 'matmul': variable 'Mt' used as f32 but declared i32");
}

TEST(Verifier, StoreToInputAndLoadFromOutput) {
  EXPECT_EQ(error_of("    store A[0, 0] = tile.zeros()\n"),
            "in function 'f': store to input tensor 'A'");
  EXPECT_EQ(error_of("    let t: tile<f32> = load C[0, 0]\n"),
            "in function 'f': load from output tensor 'C'");
  EXPECT_EQ(error_of("    let t: tile<f32> = load A[0]\n"),
            "in function 'f': tensor 'A' has rank 2 but is indexed with 1 indices");
}

TEST(Verifier, IntrinsicArityAndArgumentKinds) {
  Module m = test::matmul_module();
  Function& f = m.programs[0].functions[0];
  std::vector<Stmt> stmts = as<Block>(f.body)->stmts;
  stmts.push_back(evaluate(call(Intrinsic::cb_push_back, {int_imm(1)})));
  f.body = block(stmts);
  EXPECT_EQ(find_ir_error(m),
            "in function 'matmul': intrinsic 'cb_push_back' takes 2 arguments, got 1");
  EXPECT_EQ(error_of("    cb_push_back(1, cb_in0)\n"),
            "in function 'f': argument 1 of 'cb_push_back' must be cb, got 1 of type i32");
  EXPECT_EQ(error_of("    let n: u32 = get_arg_val(x)\n", "x: i32"),
            "in function 'f': argument 1 of 'get_arg_val' must be const, got x of type i32");
  EXPECT_EQ(error_of("    reduce_uninit()\n    let t: tile<f32> = tile.exp(1.0)\n"),
            "in function 'f': argument 1 of 'tile.exp' must be tile, got 1.0 of type f32");
}

TEST(Verifier, EffectsAndStatements) {
  EXPECT_EQ(error_of("    tile.zeros()\n"),
            "in function 'f': result of intrinsic 'tile.zeros' is discarded");
  Module m = test::read_text("program p {\n  func kernel f() {\n  }\n}\n");
  m.programs[0].functions[0].body =
      block({decl("x", Type::tile(DType::f32), call(Intrinsic::tile_regs_acquire, {}))});
  EXPECT_EQ(
      find_ir_error(m),
      "in function 'f': intrinsic 'tile_regs_acquire' has side effects and is used as a value");
}

TEST(Verifier, LoopRoles) {
  EXPECT_EQ(
      error_of("    for i in 0 .. 4 serial {\n      for j in 0 .. 4 parallel {\n      }\n    }\n"),
      "in function 'f': parallel loop 'j' nested in a serial loop");
  EXPECT_EQ(
      error_of(
          "    for i in 0 .. 4 parallel {\n      for t in 0 .. 4 per_core {\n      }\n    }\n"),
      "in function 'f': per_core loop 't' is not outermost");
  Module m = test::read_text(
      "program p {\n  func reader r() {\n    for i in 0 .. 4 parallel {\n    }\n  }\n}\n");
  EXPECT_EQ(find_ir_error(m), "in function 'r': parallel loop 'i' in a reader function");
}

TEST(Verifier, ScopesAndAssignments) {
  // (The reader already rejects this text, so the module is built directly.)
  Module m = test::read_text(
      "program p {\n  func kernel f() {\n    for i in 0 .. 4 serial {\n    }\n  }\n}\n");
  m.programs[0].functions[0].body =
      block({for_loop("i", int_imm(0), int_imm(4), ForRole::serial,
                      block({decl("t", Type::tile(DType::f32), call(Intrinsic::tile_zeros, {}))})),
             assign("t", call(Intrinsic::tile_zeros, {}))});
  EXPECT_EQ(find_ir_error(m), "in function 'f': assignment to undeclared variable 't'");
  EXPECT_EQ(error_of("    for i in 0 .. 4 serial {\n      i = 2\n    }\n"),
            "in function 'f': assignment to loop variable or parameter 'i'");
  EXPECT_EQ(error_of("    let A: i32 = 1\n"),
            "in function 'f': variable 'A' shadows a tensor or circular buffer");
  EXPECT_EQ(error_of("    let x: i32 = 1\n    let x: i32 = 2\n"),
            "in function 'f': redeclaration of 'x'");
  EXPECT_EQ(error_of("    if 1 {\n    }\n"), "in function 'f': if condition is not a bool: 1");
  EXPECT_EQ(error_of("    let x: f32 = 1.0 % 2.0\n"),
            "in function 'f': invalid operands f32 and f32 of '%': 1.0 % 2.0");
}

// A row of tiles is declared by row.alloc, updated in place by `o = row.set(o, d, t)`, read by
// row.get; it is never copied, stored or computed with as a tile.
TEST(Verifier, RowsOfTiles) {
  const std::string row = "    let o: row<f32> = row.alloc(4)\n";
  EXPECT_EQ(error_of(row + "    for d in 0 .. 4 reduction {\n"
                           "      o = row.set(o, d, tile.add(row.get(o, d), load A[0, d]))\n"
                           "    }\n    store C[0, 1] = row.get(o, 1)\n"),
            "<valid>");
  EXPECT_EQ(error_of(row + "    let p: row<f32> = o\n"),
            "in function 'f': row 'p' initialised with o; a row is declared with row.alloc(n)");
  EXPECT_EQ(error_of(row + "    let p: row<f32> = row.alloc(2)\n"
                           "    o = row.set(p, 0, tile.zeros())\n"),
            "in function 'f': assignment 'o' = row.set(p, 0, tile.zeros()); a row is updated "
            "only as o = row.set(o, d, t)");
  EXPECT_EQ(error_of("    let t: tile<f32> = row.get(row.alloc(2), 0)\n"),
            "in function 'f': 'row.alloc' used as a value in row.alloc(2); it is only the whole "
            "value of a row's let (row.alloc) or update (row.set)");
  EXPECT_EQ(error_of(row + "    let t: tile<f32> = row.get(row.set(o, 0, tile.zeros()), 0)\n"),
            "in function 'f': 'row.set' used as a value in row.set(o, 0, tile.zeros()); it is "
            "only the whole value of a row's let (row.alloc) or update (row.set)");
  EXPECT_EQ(error_of(row + "    let t: tile<f32> = tile.exp(o)\n"),
            "in function 'f': argument 1 of 'tile.exp' must be tile, got o of type row<f32>");
  EXPECT_EQ(error_of(row + "    store C[0, 0] = o\n"),
            "in function 'f': store of a non-tile value to 'C'");
  EXPECT_EQ(error_of(row + "    let t: tile<f32> = row.get(o, 1.0)\n"),
            "in function 'f': argument 2 of 'row.get' must be int, got 1.0 of type f32");
}

TEST(Verifier, ProgramLevelInvariants) {
  Module m = test::matmul_module();
  m.programs[0].cbs = {{"cb_a", 3, DataFormat::Float16_b, 2048, 2, CBRole::input, "A"},
                       {"cb_b", 3, DataFormat::Float16_b, 2048, 2, CBRole::input, "B"}};
  EXPECT_EQ(find_ir_error(m), "circular buffer index 3 used twice");
  m.programs[0].cbs = {{"cb_a", 32, DataFormat::Float16_b, 2048, 2, CBRole::input, "A"}};
  EXPECT_EQ(find_ir_error(m), "circular buffer 'cb_a' has index 32 outside 0..31");
  m.programs[0].cbs = {{"cb_a", 1, DataFormat::Float16_b, 2048, 2, CBRole::input, "Q"}};
  EXPECT_EQ(find_ir_error(m), "circular buffer 'cb_a' streams unknown tensor 'Q'");
  // Only an input CB may be filled by the writer (stream-rows' reads on the writer's NoC).
  m.programs[0].cbs = {{"cb_c", 16, DataFormat::Float16_b, 2048, 2, CBRole::output, "C"}};
  m.programs[0].cbs[0].read_by_writer = true;
  EXPECT_EQ(find_ir_error(m),
            "circular buffer 'cb_c' is read by the writer but its role is output, not input");
  // Only an output CB of a tensor may be drained by the reader (keep-rows' halves), beside a CB
  // of the program.
  m.programs[0].cbs = {{"cb_a", 0, DataFormat::Float16_b, 2048, 2, CBRole::input, "A"}};
  m.programs[0].cbs[0].reader_writes_for = "cb_a";
  EXPECT_EQ(find_ir_error(m), "circular buffer 'cb_a' is written by the reader but is not an "
                              "output CB of a tensor");
  m.programs[0].cbs = {{"cb_c", 16, DataFormat::Float16_b, 2048, 2, CBRole::output, "C"}};
  m.programs[0].cbs[0].reader_writes_for = "cb_x_row";
  EXPECT_EQ(find_ir_error(m),
            "circular buffer 'cb_c' is written by the reader for unknown CB 'cb_x_row'");
  m.programs[0].cbs.clear();
  m.programs[0].functions[0].params[0].name = "Q";
  EXPECT_EQ(find_ir_error(m),
            "in function 'matmul': tensor parameter 'Q' names no tensor of the program");
}

// The options fit the program's architecture, and choose-blocks' decision fits its DST and CBs.
TEST(Verifier, OptionsAndBlockingFitTheArchitecture) {
  Module m = test::matmul_module();
  Program& p = m.programs[0];
  p.options->arch = "grayskull";
  EXPECT_EQ(find_ir_error(m), "the options name an unknown architecture 'grayskull'; the known "
                              "ones are wormhole_b0, blackhole");
  p.options->arch = "";
  p.options->grid = Grid{13, 10};
  EXPECT_EQ(find_ir_error(m), "the options' grid 13x10 does not fit wormhole_b0 (n150, 8x8)");
  p.options->arch = "blackhole";
  EXPECT_EQ(find_ir_error(m), std::nullopt);
  p.options->cb_depth = 0;
  EXPECT_EQ(find_ir_error(m), "the options' cb_depth 0 is not positive");
  p.options->cb_depth = 2;
  p.options->q_chunk = -1;
  EXPECT_EQ(find_ir_error(m), "the options' q_chunk -1 is negative");
  p.options->q_chunk = 0; // the host's rule at run time
  EXPECT_EQ(find_ir_error(m), std::nullopt);
  p.blocking = Blocking{.sub_rows = 2,
                        .sub_cols = 2,
                        .cap_a = 128,
                        .cap_b = 128,
                        .cap_partials = 128,
                        .costs = {71, 68, 28, 66, 2048, 2048, 30, 933, 2048, 30}};
  EXPECT_EQ(find_ir_error(m), std::nullopt);
  p.blocking->sub_cols = 4; // 8 tiles: a 16-bit DST's, not an fp32 one's
  EXPECT_EQ(find_ir_error(m),
            "the blocking's sub-block 2x4 does not fit the 4 fp32 tiles of DST on blackhole");
  p.blocking->sub_cols = 2;
  p.blocking->cap_b = 127;
  EXPECT_EQ(find_ir_error(m), "the blocking's CBs of A and B hold 128 and 127 tiles; each must "
                              "hold two K steps' blocks (an even count)");
  p.blocking->cap_b = 128;
  p.options->matmul_rows = 6;
  p.options->matmul_cols = 4;
  EXPECT_EQ(find_ir_error(m), std::nullopt);
  p.options->matmul_cols = 3;
  EXPECT_EQ(find_ir_error(m), "the options' matmul_block 6x3 is not whole 2x2 sub-blocks within "
                              "the blocking's CBs");
  p.options->matmul_rows = 66;
  p.options->matmul_cols = 2;
  EXPECT_EQ(find_ir_error(m), "the options' matmul_block 66x2 is not whole 2x2 sub-blocks within "
                              "the blocking's CBs");
  p.options->matmul_rows = 4;
  p.blocking->costs.dram = 0;
  EXPECT_EQ(find_ir_error(m), "the blocking's costs must be positive (rates, pages and cycles)");
}

// The host plan's references: accessors and buffers name tensors, configs sit on kernels of
// their kind, the plan names the host function's lets and launches reader/compute/writer
// functions.
TEST(Verifier, HostPlanReferences) {
  const std::string head = "program p {\n"
                           "  tensor A: bf16[M, 32] input\n"
                           "  accessor A args [2, 2048]\n";
  const std::string tail = "  func host p_host(M: u32) {\n"
                           "    let n: u32 = M / 32u\n"
                           "    let A_bytes: u32 = n * 2048u\n"
                           "  }\n"
                           "  host_plan {\n"
                           "    split split_work_to_cores items n grid 8x8 row_wise false\n"
                           "    per_core start count\n"
                           "    buffer A address A_addr size A_bytes page 2048\n"
                           "    kernels [p_reader]\n"
                           "  }\n}\n";
  const std::string reader = "  func reader p_reader() runtime_args [A_addr] compile_args [A at 0] "
                             "processor riscv_1 noc noc_1 {\n  }\n";
  auto error = [](const std::string& text) {
    return find_ir_error(test::read_text(text)).value_or("<valid>");
  };
  EXPECT_EQ(error(head + reader + tail), "<valid>");
  auto edit = [](std::string text, const std::string& from, const std::string& to) {
    std::size_t at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    return at == std::string::npos ? text : text.replace(at, from.size(), to);
  };
  std::string all = head + reader + tail;
  EXPECT_EQ(error(edit(all, "  accessor A args [2, 2048]\n",
                       "  accessor A args [2, 2048]\n  accessor A args [2]\n")),
            "two accessors of tensor 'A'");
  EXPECT_EQ(error(edit(all, "args [2, 2048]", "args []")),
            "the accessor of 'A' has no compile-time args");
  EXPECT_EQ(error(edit(all, "  accessor A args [2, 2048]\n", "")),
            "in function 'p_reader': compile-time args of 'A', which has no accessor");
  EXPECT_EQ(error(edit(all, "processor riscv_1 noc noc_1",
                       "math_fidelity hifi4 fp32_dest_acc_en false math_approx_mode false")),
            "in function 'p_reader': a reader has a compute config (math_fidelity, ...)");
  EXPECT_EQ(error(edit(all, "func reader p_reader()", "func compute p_reader()")),
            "in function 'p_reader': a compute kernel has a data-movement config (processor, noc)");
  EXPECT_EQ(error(edit(all, "func host p_host(M: u32) {",
                       "func host p_host(M: u32) runtime_args [] "
                       "compile_args [] {")),
            "in function 'p_host': a host function has a kernel config");
  EXPECT_EQ(error(edit(all, "items n", "items m")),
            "the host plan's work-item count 'm' is no let of 'p_host'");
  EXPECT_EQ(error(edit(all, "size A_bytes", "size A_size")),
            "the host plan's size of buffer 'A_size' is no let of 'p_host'");
  EXPECT_EQ(error(edit(all, "    buffer A address A_addr size A_bytes page 2048\n",
                       "    buffer A address A_addr\n    buffer A address A_addr\n")),
            "the host plan has two buffers of tensor 'A'");
  EXPECT_EQ(error(edit(all, "kernels [p_reader]", "kernels [p_host]")),
            "the host plan launches 'p_host', which is no reader, compute or writer function");
  EXPECT_EQ(error(edit(all, "kernels [p_reader]", "kernels [p_reader, p_reader]")),
            "the host plan launches 'p_reader' twice");
  EXPECT_EQ(error(edit(all, "grid 8x8", "grid 0x8")), "the host plan's grid is empty");
  EXPECT_EQ(error(edit(all, "func host p_host", "func cpu p_host")),
            "a host plan without a host function");
  // A core grid: its extents are host lets, its split says so, and it replaces per_core.
  const std::string grid = "    core_grid x y cols gx rows gy across n down n\n";
  std::string gridded = edit(edit(all, "    per_core start count\n", grid),
                             "split split_work_to_cores", "split core_grid");
  EXPECT_EQ(error(gridded), "<valid>");
  EXPECT_EQ(error(edit(gridded, "across n", "across m")),
            "the host plan's items across 'm' is no let of 'p_host'");
  EXPECT_EQ(error(edit(gridded, "split core_grid", "split split_work_to_cores")),
            "the host plan has a core_grid but splits the work with split_work_to_cores");
  EXPECT_EQ(error(edit(gridded, grid, "    per_core start count\n" + grid)),
            "the host plan has both per_core values and a core_grid");
}

} // namespace
} // namespace tk::ir
