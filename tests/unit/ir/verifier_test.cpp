// The verifier catches hand-broken IR with an exact message and reports it as an internal error
// carrying the printed IR: the programs' headers and the module here, each function's body in
// verifier_function_test.cpp.
#include "ir_test_util.hpp"

#include "lowering/ir/verifier.hpp"
#include "support/diagnostics.hpp"

namespace tk::ir {
namespace {

TEST(Verifier, ValidModulePasses) {
  EXPECT_EQ(find_ir_error(test::matmul_module()), std::nullopt);
  EXPECT_NO_THROW(verify(test::matmul_module(), "to-tile-ir"));
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
