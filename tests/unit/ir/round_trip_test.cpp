// print(read(print(m))) == print(m), on a module that uses every intrinsic, every enum constant,
// every attribute kind, every function kind and every loop role; the module is also valid IR.
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
  p.attrs["grid"] = {Grid{8, 8}};
  p.attrs["cb_depth"] = {std::int64_t{2}};
  p.attrs["fp32_acc"] = {true};
  p.attrs["math_fidelity"] = {std::string("HiFi4")};
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
           {"cb_tmp", 25, DataFormat::Float16_b, 2048, 4, CBRole::intermediate, ""}};

  // One kernel function calling every intrinsic once.
  std::vector<Stmt> body = {
      decl("n", Type::u32(), call(Intrinsic::get_arg_val, {int_imm(0)})),
      decl("t", Type::tile(DType::bf16), load("X", DType::bf16, {int_imm(0), int_imm(1)}))};
  int k = 0;
  for (Intrinsic in : all_intrinsics()) {
    std::vector<Expr> args;
    for (ArgKind a : info(in).args)
      args.push_back(arg_of_kind(a));
    Expr c = call(in, args);
    if (info(in).effect == Effect::writes || info(in).effect == Effect::init)
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
  Function reader{
      "all_reader",
      FuncKind::reader,
      {{"start", Type::u32()}, {"n", Type::u32()}},
      {{"runtime_args", {std::vector<AttrValue>{{std::string("start")}, {std::string("n")}}}}},
      block({per_core}),
      {}};
  Function writer{
      "all_writer",
      FuncKind::writer,
      {{"count", Type::i32()}},
      {},
      block({for_loop(
          "w", int_imm(0), var("count", Type::i32()), ForRole::serial,
          block({if_then_else(binary(BinaryOp::eq, var("w", Type::i32()), int_imm(0)),
                              block({evaluate(call(Intrinsic::noc_async_write_barrier, {}))}))}))}),
      {}};
  Function cpu{
      "all_cpu",
      FuncKind::cpu,
      {{"flag", Type::boolean()}},
      {},
      block({for_loop(
          "p", int_imm(0), int_imm(8), ForRole::per_thread,
          block({decl("q", Type::f32(), binary(BinaryOp::mul, float_imm(2.0), float_imm(0.1)))}))}),
      {}};
  Function host{"all_host", FuncKind::host, {}, {}, block({}), {}};
  Function compute{"all_compute", FuncKind::compute, {}, {}, block({}), {}};
  p.functions = {kernel, reader, compute, writer, cpu, host};

  Module m;
  m.attrs["target"] = {std::string("tt")};
  m.programs.push_back(p);
  Program second;
  second.name = "second";
  second.tensors = {{"Z", DType::f32, {{"", 32}, {"", 32}}, TensorRole::input, {}, {}}};
  second.functions = {{"second", FuncKind::kernel, {}, {}, block({}), {}}};
  m.programs.push_back(second);
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

TEST(RoundTrip, MatmulReadsBackWithTheSameTypes) {
  Module m = test::matmul_module();
  Module back = test::read_text(print(m));
  EXPECT_EQ(print(back), print(m));
  EXPECT_TRUE(equal(back, m));
  EXPECT_EQ(find_ir_error(back), std::nullopt);
  EXPECT_EQ(back.programs[0].tensors, m.programs[0].tensors);
  EXPECT_EQ(back.programs[0].attrs, m.programs[0].attrs);
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
