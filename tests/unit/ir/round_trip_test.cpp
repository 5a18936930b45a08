// print(read(print(m))) == print(m), on a module that uses every intrinsic, every enum constant,
// every attribute kind, every function kind, every loop role and every part of the host plan
// (accessors, kernel configs of both kinds, a complete and a partial buffer); the module is also
// valid IR.
#include "ir_test_util.hpp"

#include "lowering/ir/equal.hpp"
#include "lowering/ir/verifier.hpp"

#include <random>

namespace tk::ir {
namespace {

Expr arg_of_kind(ArgKind k) {
  switch (k) {
  case ArgKind::int_:
  case ArgKind::slot:
    return var("n", Type::u32());
  case ArgKind::const_:
    return int_imm(3);
  case ArgKind::f32:
    return var("alpha", Type::f32());
  case ArgKind::tile:
    return var("t", Type::tile(DType::bf16));
  case ArgKind::cb:
    return cb_ref("cb_in0");
  case ArgKind::row:
    return var("o", Type::row(DType::f32));
  case ArgKind::tensor:
  case ArgKind::src:
  case ArgKind::dst:
    return tensor_ref("T"); // intermediate: may be read and written
  default:
    for (EnumConst e : all_enum_consts())
      if (arg_kind_of(e) == k)
        return enum_imm(e);
  }
  return nullptr;
}

Module everything_module() {
  Program p;
  p.name = "all";
  p.options = Options{.arch = "blackhole",
                      .grid = Grid{13, 10},
                      .cb_depth = 3,
                      .fp32_acc = true,
                      .math_fidelity = "LoFi",
                      .matmul_rows = 4,
                      .matmul_cols = 6};
  p.blocking = Blocking{.sub_rows = 2,
                        .sub_cols = 2,
                        .cap_a = 128,
                        .cap_b = 64,
                        .cap_partials = 128,
                        .costs = {71, 68, 28, 66, 2048, 1088, 30, 933, 2048, 30},
                        .why = "a \"quoted\" reason\nover two lines"};
  p.attrs["per_core_args"] = {std::vector<AttrValue>{
      {std::vector<AttrValue>{{std::int64_t{0}}, {std::int64_t{-4}}}}, {std::string("a b")}}};
  p.tensors = {{"X",
                DType::bf16,
                {{"M", 0}, {"", 64}},
                TensorRole::input,
                Layout{MemoryKind::dram, LayoutKind::interleaved, 32, 32, 2048},
                {}},
               {"Y", DType::f32, {{"", 1}, {"N", 0}}, TensorRole::output, {}, {}},
               {"T",
                DType::bf16,
                {{"", 32}, {"", 32}},
                TensorRole::intermediate,
                Layout{MemoryKind::l1, LayoutKind::sharded, 32, 32, 2048},
                {}}};
  p.cbs = {{"cb_in0", 0, DataFormat::Float16_b, 2048, 2, CBRole::input, "X"},
           {"cb_out0", 16, DataFormat::Float32, 4096, 2, CBRole::output, "Y"},
           {"cb_scaler", 24, DataFormat::Bfp8_b, 1088, 1, CBRole::scaler, ""},
           {"cb_tmp", 25, DataFormat::Float16_b, 2048, 4, CBRole::intermediate, ""},
           {"cb_o", 8, DataFormat::Float32, 4096, 64, CBRole::row, ""}};

  // One kernel function calling every intrinsic once.
  std::vector<Stmt> body = {
      decl("n", Type::u32(), call(Intrinsic::get_arg_val, {int_imm(0)})),
      decl("t", Type::tile(DType::bf16), load("X", DType::bf16, {int_imm(0), int_imm(1)})),
      decl("o", Type::row(DType::f32), call(Intrinsic::row_alloc, {var("n", Type::u32())}))};
  int k = 0;
  for (Intrinsic in : all_intrinsics()) {
    std::vector<Expr> args;
    for (ArgKind a : info(in).args)
      args.push_back(arg_of_kind(a));
    Expr c = call(in, args);
    if (in == Intrinsic::row_set) // a row is updated in place: `o = row.set(o, d, t)`
      body.push_back(assign("o", c));
    else if (info(in).effect == Effect::writes || info(in).effect == Effect::init)
      body.push_back(evaluate(c));
    else
      body.push_back(decl("v" + std::to_string(k++), c->type, c));
  }
  // Every enum constant, each in an intrinsic that takes its kind.
  for (EnumConst e : all_enum_consts()) {
    Expr x = enum_imm(e), cb = cb_ref("cb_in0"), n = var("n", Type::u32());
    switch (arg_kind_of(e)) {
    case ArgKind::pool:
      body.push_back(
          evaluate(call(Intrinsic::reduce_init, {x, enum_imm(EnumConst::reduce_row), cb, cb, cb})));
      break;
    case ArgKind::rdim:
      body.push_back(evaluate(
          call(Intrinsic::reduce_tile, {enum_imm(EnumConst::pool_max), x, cb, cb, n, n, n})));
      break;
    case ArgKind::bcast:
      body.push_back(
          evaluate(call(Intrinsic::mul_tiles_bcast, {x, cb, cb, n, int_imm(0), int_imm(1)})));
      break;
    case ArgKind::dformat:
      body.push_back(evaluate(call(Intrinsic::where_tile, {x, n, n, n, n})));
      break;
    default:
      body.push_back(
          evaluate(call(Intrinsic::init_bcast, {x, enum_imm(EnumConst::bcast_col), cb, cb, cb})));
    }
  }
  Expr i = var("i", Type::i32());
  body.push_back(for_loop(
      "i", int_imm(0), var("n", Type::u32()), ForRole::parallel,
      block({for_loop("j", int_imm(2), int_imm(5), ForRole::serial,
                      block({store("Y", {int_imm(0), i + var("j", Type::i32())},
                                   call(Intrinsic::tile_add_scalar,
                                        {var("t", Type::tile(DType::bf16)), float_imm(-0.5)}))})),
             for_loop("r", int_imm(0), int_imm(4), ForRole::reduction,
                      block({assign("t", call(Intrinsic::tile_fill, {float_imm(1e-5)}))}))})));
  Function kernel{"all",
                  FuncKind::kernel,
                  {{"X", Type::tensor()},
                   {"Y", Type::tensor()},
                   {"alpha", Type::f32()},
                   {"M", Type::i32()},
                   {"N", Type::i32()}},
                  {{"note", {std::string("kernel attrs")}}},
                  block(body),
                  {}};

  Expr n = var("n", Type::u32()), t = var("t", Type::i32());
  Stmt per_core = for_loop(
      "t", var("start", Type::u32()), n, ForRole::per_core,
      block({if_then_else(
          binary(BinaryOp::logical_or, binary(BinaryOp::lt, t % int_imm(2), int_imm(1)),
                 binary(BinaryOp::ge, binary(BinaryOp::max, t, int_imm(0)), int_imm(7))),
          block({evaluate(call(Intrinsic::cb_reserve_back, {cb_ref("cb_in0"), int_imm(1)}))}),
          block({evaluate(call(Intrinsic::noc_async_read_barrier, {}))}))}));
  Function reader{"all_reader",
                  FuncKind::reader,
                  {{"start", Type::u32()}, {"n", Type::u32()}},
                  {{"args", {std::vector<AttrValue>{{std::string("start")}, {std::string("n")}}}}},
                  block({per_core}),
                  {},
                  KernelConfig{{"start", "n"},
                               {{"X", 0}, {"Y", 2}},
                               {},
                               DataMovementConfig{Processor::riscv_1, Noc::noc_1},
                               std::nullopt}};
  Function writer{
      "all_writer",
      FuncKind::writer,
      {{"count", Type::i32()}},
      {},
      block({for_loop(
          "w", int_imm(0), var("count", Type::i32()), ForRole::serial,
          block({if_then_else(binary(BinaryOp::eq, var("w", Type::i32()), int_imm(0)),
                              block({evaluate(call(Intrinsic::noc_async_write_barrier, {}))}))}))}),
      {},
      KernelConfig{{}, {}, {}, DataMovementConfig{Processor::riscv_0, Noc::noc_0}, std::nullopt}};
  Function cpu{
      "all_cpu",
      FuncKind::cpu,
      {{"flag", Type::boolean()}},
      {},
      block({for_loop(
          "p", int_imm(0), int_imm(8), ForRole::per_thread,
          block({decl("q", Type::f32(), binary(BinaryOp::mul, float_imm(2.0), float_imm(0.1)))}))}),
      {}};
  Function host{"all_host",
                FuncKind::host,
                {{"M", Type::u32()}},
                {},
                block({decl("items", Type::u32(), var("M", Type::u32()) / int_imm(32, Type::u32())),
                       decl("X_bytes", Type::u32(), int_imm(4096, Type::u32()))}),
                {}};
  Function compute{"all_compute",
                   FuncKind::compute,
                   {},
                   {},
                   block({}),
                   {},
                   KernelConfig{{"items"},
                                {},
                                {"X_bytes"}, // a compile-time value (fold-scale-args)
                                std::nullopt,
                                ComputeConfig{MathFidelity::hifi3, true, true, {}, true}}};
  p.functions = {kernel, reader, compute, writer, cpu, host};
  p.accessors = {{"X", {2, 2048}}, {"Y", {0, 4096, 7}}};
  p.host_plan = HostPlan{WorkSplit::split_work_to_cores,
                         "items",
                         Grid{4, 2},
                         true,
                         PerCore{"start", "n"},
                         {{"X", "X_addr", "X_bytes", 2048}, {"Y", "Y_addr", "", 0}},
                         {"all_reader", "all_compute", "all_writer"}};
  HostPlan grid = *p.host_plan; // a core_grid split and semaphores, for a second program below
  grid.split = WorkSplit::core_grid;
  grid.per_core.reset();
  grid.core_grid = CoreGrid{"cx", "cy", "cols", "rows", "Nb", "Mb"};
  grid.semaphores = {"A_ready", "A_valid"};

  Module m;
  m.attrs["target"] = {std::string("tt")};
  m.programs.push_back(p);
  Program second;
  second.name = "second";
  second.tensors = {{"Z", DType::f32, {{"", 32}, {"", 32}}, TensorRole::input, {}, {}}};
  second.functions = {{"second", FuncKind::kernel, {}, {}, block({}), {}}};
  m.programs.push_back(second);
  Program gridded; // a core_grid split, its host_core function and semaphores
  gridded.name = "gridded";
  gridded.tensors = second.tensors;
  Expr u_cx = var("cx", Type::u32());
  gridded.functions = {
      {"gridded_host",
       FuncKind::host,
       {},
       {},
       block({decl("items", Type::u32(), int_imm(4, Type::u32())),
              decl("Nb", Type::u32(), int_imm(2, Type::u32())),
              decl("Mb", Type::u32(), int_imm(2, Type::u32()))}),
       {}},
      {"gridded_host_core",
       FuncKind::host_core,
       {{"cx", Type::u32()}, {"cy", Type::u32()}},
       {},
       block({decl("sender", Type::u32(), binary(BinaryOp::min, u_cx, int_imm(1, Type::u32())))}),
       {}}};
  gridded.host_plan = grid;
  gridded.host_plan->buffers.clear();
  gridded.host_plan->kernels.clear();
  m.programs.push_back(gridded);
  return m;
}

TEST(RoundTrip, EverythingModuleIsValid) {
  EXPECT_EQ(find_ir_error(everything_module()), std::nullopt);
}

TEST(RoundTrip, EverythingModuleReadsBackToTheSameText) {
  std::string text = print(everything_module());
  Module back = test::read_text(text);
  EXPECT_EQ(print(back), text);
  EXPECT_TRUE(equal(back, everything_module()));
  EXPECT_EQ(find_ir_error(back), std::nullopt);
  for (Intrinsic in : all_intrinsics())
    EXPECT_NE(text.find(std::string(to_string(in)) + "("), std::string::npos) << to_string(in);
  for (EnumConst e : all_enum_consts())
    EXPECT_NE(text.find(to_string(e)), std::string::npos) << to_string(e);
}

TEST(RoundTrip, EveryHostPlanPartPrintsOnce) {
  std::string text = print(everything_module());
  for (const char* part :
       {"  accessor X args [2, 2048]\n", "  accessor Y args [0, 4096, 7]\n",
        "func reader all_reader(start: u32, n: u32) attributes {args = [\"start\", \"n\"]} "
        "runtime_args [start, n] compile_args [X at 0, Y at 2] processor riscv_1 noc noc_1 {\n",
        "func compute all_compute() runtime_args [items] compile_args [] compile_values [X_bytes] "
        "math_fidelity hifi3 "
        "fp32_dest_acc_en true math_approx_mode true bfp8_pack_precise {\n",
        "func writer all_writer(count: i32) runtime_args [] compile_args [] processor riscv_0 noc "
        "noc_0 {\n",
        "  host_plan {\n"
        "    split split_work_to_cores items items grid 4x2 row_wise true\n"
        "    per_core start n\n"
        "    buffer X address X_addr size X_bytes page 2048\n"
        "    buffer Y address Y_addr\n"
        "    kernels [all_reader, all_compute, all_writer]\n"
        "  }\n}\n",
        "  func host_core gridded_host_core(cx: u32, cy: u32) {\n",
        "  host_plan {\n"
        "    split core_grid items items grid 4x2 row_wise true\n"
        "    core_grid cx cy cols cols rows rows across Nb down Mb\n"
        "    semaphores [A_ready, A_valid]\n"
        "  }\n"})
    EXPECT_NE(text.find(part), std::string::npos) << part << "\nin\n" << text;
}

// Every enumerator of the host plan has one printed name that reads back to it.
TEST(RoundTrip, HostPlanEnumeratorsReadBack) {
  for (Processor e : {Processor::riscv_0, Processor::riscv_1})
    EXPECT_EQ(processor_from_string(to_string(e)), e);
  for (Noc e : {Noc::noc_0, Noc::noc_1})
    EXPECT_EQ(noc_from_string(to_string(e)), e);
  for (MathFidelity e :
       {MathFidelity::lofi, MathFidelity::hifi2, MathFidelity::hifi3, MathFidelity::hifi4})
    EXPECT_EQ(math_fidelity_from_string(to_string(e)), e);
  EXPECT_EQ(work_split_from_string(to_string(WorkSplit::split_work_to_cores)),
            WorkSplit::split_work_to_cores);
  EXPECT_EQ(math_fidelity_from_string("HiFi4"), std::nullopt); // the SDK's spelling is not ours
}

// A plan as partition-work leaves it: no per-core values, buffers or kernels yet.
TEST(RoundTrip, PartialHostPlanReadsBack) {
  std::string text = "program p {\n"
                     "  tensor A: bf16[M, 32] input\n"
                     "\n"
                     "  func host p_host(M: u32) {\n"
                     "    let work_items: u32 = M / 32u\n"
                     "  }\n"
                     "\n"
                     "  host_plan {\n"
                     "    split split_work_to_cores items work_items grid 8x8 row_wise false\n"
                     "  }\n"
                     "}\n";
  Module m = test::read_text(text);
  EXPECT_EQ(print(m), text);
  ASSERT_TRUE(m.programs[0].host_plan);
  EXPECT_EQ(m.programs[0].host_plan->per_core, std::nullopt);
  EXPECT_EQ(find_ir_error(m), std::nullopt);
  Module changed = m;
  changed.programs[0].host_plan->row_wise = true;
  EXPECT_FALSE(equal(changed, m));
  EXPECT_FALSE(identical(changed, m));
}

TEST(RoundTrip, MatmulReadsBackWithTheSameTypes) {
  Module m = test::matmul_module();
  Module back = test::read_text(print(m));
  EXPECT_EQ(print(back), print(m));
  EXPECT_TRUE(equal(back, m));
  EXPECT_EQ(find_ir_error(back), std::nullopt);
  EXPECT_EQ(back.programs[0].tensors, m.programs[0].tensors);
  EXPECT_EQ(back.programs[0].attrs, m.programs[0].attrs);
}

// The options and choose-blocks' decision are typed fields: printed on lines of their own, read
// back field by field, and a change to any of them makes the modules differ.
TEST(RoundTrip, OptionsAndBlockingReadBackTyped) {
  const Module m = everything_module();
  const std::string text = print(m);
  EXPECT_NE(text.find("program all attributes {per_core_args = [[0, -4], \"a b\"]} {\n"
                      "  options arch \"blackhole\" grid 13x10 cb_depth 3 fp32_acc true "
                      "math_fidelity \"LoFi\" matmul_block 4x6\n"
                      "  blocking sub_block 2x2 caps 128 64 128 costs 71 68 28 66 2048 1088 30 933 "
                      "2048 30 why \"a \\\"quoted\\\" reason\\nover two lines\"\n"
                      "  tensor X:"),
            std::string::npos)
      << text;
  const Module back = test::read_text(text);
  ASSERT_TRUE(back.programs[0].options && back.programs[0].blocking);
  EXPECT_EQ(*back.programs[0].options, *m.programs[0].options);
  EXPECT_EQ(*back.programs[0].blocking, *m.programs[0].blocking);
  EXPECT_EQ(back.programs[0].blocking->why, "a \"quoted\" reason\nover two lines");
  // The defaults print without arch, grid and matmul_block.
  Module d = test::matmul_module();
  d.programs[0].options = Options{};
  EXPECT_NE(print(d).find("  options cb_depth 2 fp32_acc false math_fidelity \"HiFi4\"\n"),
            std::string::npos);
  EXPECT_TRUE(equal(test::read_text(print(d)), d));
  Module changed = m;
  changed.programs[0].blocking->costs.step_latency = 934;
  EXPECT_FALSE(equal(changed, m));
  EXPECT_FALSE(identical(changed, m));
  changed = m;
  changed.programs[0].options->cb_depth = 2;
  EXPECT_FALSE(equal(changed, m));
  EXPECT_FALSE(identical(changed, m));
  // q_chunk prints only when it is not the default 0 (the host's rule: the options line above
  // ends at matmul_block), after matmul_block, and reads back; a fixed 1 prints.
  changed = m;
  changed.programs[0].options->q_chunk = 1;
  EXPECT_NE(print(changed).find("matmul_block 4x6 q_chunk 1\n"), std::string::npos);
  EXPECT_EQ(test::read_text(print(changed)).programs[0].options->q_chunk, 1);
  changed.programs[0].options->q_chunk = 4;
  const std::string chunked = print(changed);
  EXPECT_NE(chunked.find("math_fidelity \"LoFi\" matmul_block 4x6 q_chunk 4\n"), std::string::npos)
      << chunked;
  EXPECT_EQ(test::read_text(chunked).programs[0].options->q_chunk, 4);
  EXPECT_TRUE(equal(test::read_text(chunked), changed));
  EXPECT_FALSE(equal(changed, m));
  // exp_approx_mode prints only when true, last, and reads back.
  changed.programs[0].options->exp_approx_mode = true;
  const std::string approx = print(changed);
  EXPECT_NE(approx.find("matmul_block 4x6 q_chunk 4 exp_approx_mode\n"), std::string::npos)
      << approx;
  EXPECT_TRUE(test::read_text(approx).programs[0].options->exp_approx_mode);
  EXPECT_TRUE(equal(test::read_text(approx), changed));
  EXPECT_FALSE(test::read_text(chunked).programs[0].options->exp_approx_mode);
}

TEST(RoundTrip, CommentsAndStageHeaderAreSkipped) {
  std::string text = "// after infer-layout\n" + print(test::matmul_module());
  EXPECT_EQ(read_stage_header(text), "infer-layout");
  EXPECT_EQ(print(test::read_text(text)), print(test::matmul_module()));
  EXPECT_EQ(read_stage_header("program p {}\n"), std::nullopt);
}

// Random index expressions over every binary operator: the printed text parses back to the very
// same tree, so precedence and parenthesisation are right (seeded, so failures reproduce).
Expr random_expr(std::mt19937& rng, int depth, bool want_bool) {
  std::uniform_int_distribution<int> pick(0, 99);
  if (want_bool) {
    if (depth > 0 && pick(rng) < 30) {
      BinaryOp op = pick(rng) % 2 ? BinaryOp::logical_and : BinaryOp::logical_or;
      return binary(op, random_expr(rng, depth - 1, true), random_expr(rng, depth - 1, true));
    }
    static constexpr BinaryOp cmp[] = {BinaryOp::lt, BinaryOp::le, BinaryOp::gt,
                                       BinaryOp::ge, BinaryOp::eq, BinaryOp::ne};
    return binary(cmp[pick(rng) % 6], random_expr(rng, depth - 1, false),
                  random_expr(rng, depth - 1, false));
  }
  if (depth <= 0 || pick(rng) < 25) {
    int r = pick(rng);
    if (r < 40)
      return var(r % 2 ? "a" : "b", Type::i32());
    if (r < 50)
      return var("u", Type::u32());
    return int_imm(r - 70, r % 3 ? Type::i32() : Type::u32());
  }
  static constexpr BinaryOp arith[] = {BinaryOp::add, BinaryOp::sub, BinaryOp::mul, BinaryOp::div,
                                       BinaryOp::mod, BinaryOp::min, BinaryOp::max};
  return binary(arith[pick(rng) % 7], random_expr(rng, depth - 1, false),
                random_expr(rng, depth - 1, false));
}

TEST(RoundTrip, RandomExpressionsParseBackToTheSameTree) {
  std::mt19937 rng(20261121);
  for (int n = 0; n < 500; ++n) {
    Expr e = random_expr(rng, 5, n % 3 == 0);
    std::string text =
        "program p {\n  func kernel f(a: i32, b: i32, u: u32) {\n    let x: " + to_string(e->type) +
        " = " + print(e) + "\n  }\n}\n";
    Module m = test::read_text(text);
    const auto* d = as<Decl>(as<Block>(m.programs.at(0).functions.at(0).body)->stmts.at(0));
    ASSERT_NE(d, nullptr);
    ASSERT_TRUE(equal(d->value, e)) << print(e) << "\nread back as\n" << print(d->value);
  }
}

} // namespace
} // namespace tk::ir

namespace tk::ir {
namespace {

// The typed header fields (signature, combine, dst_fp32) print among the program's attributes, in
// key order with the others, and read back typed; a wrong type is a located error, and the
// verifier checks that a combine names another program of the module.
TEST(RoundTrip, HeaderFieldsReadBackTyped) {
  Module m = test::matmul_module();
  m.programs[0].attrs["note"] = {std::string("kept")};
  m.programs[0].signature = {"A", "B", "C"};
  m.programs[0].dst_fp32 = true;
  Program second = m.programs[0];
  second.name = "matmul_combine";
  second.signature = {"C"};
  second.dst_fp32 = std::nullopt;
  m.programs[0].combine = "matmul_combine";
  m.programs.push_back(second);
  const std::string text = print(m);
  EXPECT_NE(text.find("program matmul attributes {combine = \"matmul_combine\", dst_fp32 = true, "
                      "note = \"kept\", signature = [\"A\", \"B\", \"C\"]} {\n"),
            std::string::npos)
      << text;
  EXPECT_NE(
      text.find("program matmul_combine attributes {note = \"kept\", signature = [\"C\"]} {\n"),
      std::string::npos)
      << text;
  const Module back = test::read_text(text);
  EXPECT_TRUE(equal(back, m));
  EXPECT_EQ(back.programs[0].attrs.size(), 1u); // only `note` stays an attribute
  EXPECT_EQ(back.programs[0].signature, (std::vector<std::string>{"A", "B", "C"}));
  EXPECT_EQ(back.programs[0].combine, "matmul_combine");
  EXPECT_EQ(back.programs[0].dst_fp32, true);
  EXPECT_EQ(back.programs[1].dst_fp32, std::nullopt);
  EXPECT_EQ(find_ir_error(back), std::nullopt);
  Module changed = m;
  changed.programs[0].dst_fp32 = false;
  EXPECT_FALSE(equal(changed, m));
  EXPECT_FALSE(identical(changed, m));

  auto error = [](const std::string& attrs) {
    const std::string e = test::read_error("program p attributes {" + attrs + "} {\n}\n");
    return e.substr(0, e.find('\n'));
  };
  EXPECT_EQ(error("dst_fp32 = 1"),
            "dump.txt:1:22: error: attribute 'dst_fp32' must be true or false");
  EXPECT_EQ(error("combine = 2"),
            "dump.txt:1:22: error: attribute 'combine' must be a program name");
  EXPECT_EQ(error("signature = [\"A\", 3]"),
            "dump.txt:1:22: error: attribute 'signature' must be a list of names");
  EXPECT_EQ(error("signature = \"A\""),
            "dump.txt:1:22: error: attribute 'signature' must be a list of names");

  Module bad = m;
  bad.programs[0].combine = "nowhere";
  EXPECT_EQ(find_ir_error(bad),
            "program 'matmul' names combine program 'nowhere', which the module does not hold");
  bad.programs[0].combine = "matmul";
  EXPECT_EQ(find_ir_error(bad), "program 'matmul' names combine program 'matmul', itself");

  // lower-gemm's cpu_packed_a: read back typed, and one of the program's outputs.
  Module packed = m;
  packed.programs[0].cpu_packed_a = "C";
  const Module packed_back = test::read_text(print(packed));
  EXPECT_EQ(packed_back.programs[0].cpu_packed_a, "C");
  EXPECT_TRUE(equal(packed_back, packed));
  EXPECT_FALSE(equal(packed_back, m));
  EXPECT_EQ(error("cpu_packed_a = 1"),
            "dump.txt:1:22: error: attribute 'cpu_packed_a' must be a tensor name");
  packed.programs[0].cpu_packed_a = "A";
  EXPECT_EQ(find_ir_error(packed),
            "program 'matmul' stores 'A' packed (cpu_packed_a), which is not one of its outputs");
}

// to-tile-ir's grouped_dims and select-tile-ops' rows: typed fields printed as lists among the
// attributes (the form the goldens show), read back typed, compared, and checked by the verifier.
TEST(RoundTrip, GroupedDimsAndRowsReadBackTyped) {
  Module m = test::matmul_module();
  Program& p = m.programs[0];
  p.grouped_dims = {{"M", 2, "N"}, {"K", 4, "N"}};
  p.rows = {{"o", "K", 64, true}, {"s", "B", 8, false}};
  p.cbs = {{"cb_o", 8, DataFormat::Float32, 4096, 64, CBRole::row, ""},
           {"cb_s", 9, DataFormat::Float32, 4096, 8, CBRole::row, ""}};
  const std::string text = print(m);
  EXPECT_NE(text.find("program matmul attributes {grouped_dims = [[\"M\", 2, \"N\"], [\"K\", 4, "
                      "\"N\"]], rows = [[\"o\", \"K\", 64, true], [\"s\", \"B\", 8, false]]} {\n"),
            std::string::npos)
      << text;
  const Module back = test::read_text(text);
  EXPECT_TRUE(equal(back, m));
  EXPECT_TRUE(back.programs[0].attrs.empty());
  EXPECT_EQ(back.programs[0].grouped_dims, p.grouped_dims);
  EXPECT_EQ(back.programs[0].rows, p.rows);
  EXPECT_EQ(find_ir_error(back), std::nullopt);
  Module changed = m;
  changed.programs[0].rows[1].capacity = 9;
  EXPECT_FALSE(equal(changed, m));
  EXPECT_FALSE(identical(changed, m));
  changed = m;
  changed.programs[0].grouped_dims[0].ratio = 3;
  EXPECT_FALSE(equal(changed, m));

  auto error = [](const std::string& attrs) {
    const std::string e = test::read_error("program p attributes {" + attrs + "} {\n}\n");
    return e.substr(0, e.find('\n'));
  };
  const std::string grouped =
      "dump.txt:1:22: error: attribute 'grouped_dims' must be a list of [outer, ratio, inner]";
  EXPECT_EQ(error("grouped_dims = [[\"H\", \"2\", \"HK\"]]"), grouped);
  EXPECT_EQ(error("grouped_dims = [[\"H\", 2]]"), grouped);
  EXPECT_EQ(error("grouped_dims = []"), grouped);
  EXPECT_EQ(error("grouped_dims = \"H\""), grouped);
  const std::string rows =
      "dump.txt:1:22: error: attribute 'rows' must be a list of [name, dimension, capacity, tiles]";
  EXPECT_EQ(error("rows = [[\"o\", \"D\", 64, 1]]"), rows);
  EXPECT_EQ(error("rows = [[\"o\", \"D\", 64]]"), rows);
  EXPECT_EQ(error("rows = [\"o\"]"), rows);

  Module bad = m;
  bad.programs[0].grouped_dims[1].ratio = 0;
  EXPECT_EQ(find_ir_error(bad), "program 'matmul' groups dimension 'K' as 0 x 'N' (grouped_dims): "
                                "two different dimensions and a positive ratio");
  bad = m;
  bad.programs[0].grouped_dims[0].inner = "M";
  EXPECT_EQ(find_ir_error(bad), "program 'matmul' groups dimension 'M' as 2 x 'M' (grouped_dims): "
                                "two different dimensions and a positive ratio");
  bad = m;
  bad.programs[0].rows[1].name = "o";
  EXPECT_EQ(find_ir_error(bad), "program 'matmul' lists row of tiles 'o' over 'B' (rows): a row "
                                "needs a name of its own and a dimension");
  bad = m;
  bad.programs[0].rows[0].capacity = 0;
  EXPECT_EQ(find_ir_error(bad),
            "program 'matmul''s row of tiles 'o' holds 0 tiles (rows): at least one");
  bad = m;
  bad.programs[0].cbs.pop_back();
  EXPECT_EQ(find_ir_error(bad), "program 'matmul' lists 2 rows of tiles (rows) but has 1 circular "
                                "buffers for rows");
}

} // namespace
} // namespace tk::ir
