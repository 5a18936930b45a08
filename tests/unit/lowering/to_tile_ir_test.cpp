// to-tile-ir on ASTs built in C++: the exact printed IR, loop roles from the IR's structure,
// scalar operands, literal indices and options as attributes.
#include "ast_builder.hpp"

#include "lowering/front/to_tile_ir.hpp"
#include "lowering/ir/printer.hpp"
#include "lowering/ir/verifier.hpp"

#include <gtest/gtest.h>

#include <limits>

namespace tk::lower {
namespace {

std::string lower(const dsl::Module& ast) {
  Diagnostics diags;
  ir::Module m = to_tile_ir(ast, diags);
  EXPECT_FALSE(diags.has_errors()) << diags.str();
  EXPECT_EQ(ir::find_ir_error(m), std::nullopt) << ir::print(m);
  return ir::print(m);
}

TEST(ToTileIr, Matmul) {
  EXPECT_EQ(lower(test::matmul_ast()),
            R"(program matmul attributes {signature = ["A", "B", "C"]} {
  options grid 8x8 cb_depth 2 fp32_acc false math_fidelity "HiFi4"
  tensor A: bf16[M, K] input
  tensor B: bf16[K, N] input
  tensor C: bf16[M, N] output

  func kernel matmul(A: tensor, B: tensor, C: tensor, M: i32, K: i32, N: i32) {
    let Mt: i32 = M / 32
    let Kt: i32 = K / 32
    let Nt: i32 = N / 32
    for i in 0 .. Mt parallel {
      for j in 0 .. Nt parallel {
        let acc: tile<f32> = tile.zeros()
        for k in 0 .. Kt reduction {
          acc = tile.matmul_acc(acc, load A[i, k], load B[k, j])
        }
        store C[i, j] = acc
      }
    }
  }
}
)");
}

TEST(ToTileIr, ScalarsLiteralsOptionsAndSerialLoops) {
  using namespace test;
  dsl::Kernel k;
  k.name = id("k");
  dsl::Option grid{id("grid"), dsl::GridValue{4, 2}, {}};
  dsl::Option acc{id("fp32_acc"), true, {}};
  k.options = {grid, acc};
  k.inputs = {tensor("x", {"M", "64"}), scalar("alpha"), tensor("b", {"1", "64"})};
  k.outputs = {tensor("y", {"M", "64"}, dsl::DType::f32)};
  dsl::Expr a = name("alpha", dsl::Type::scalar);
  k.body = {parallel(
      {{"i", tiles("M")}},
      {for_("j", range(0, 2),
            {store("y", {idx("i"), idx("j")},
                   bin(dsl::BinOp::sub, a,
                       bin(dsl::BinOp::mul,
                           bin(dsl::BinOp::add, access("x", {idx("i"), idx("j", 1)}), num(0.5)),
                           call("bcast_row", {access("b", {lit(0), idx("j")})}))))}),
       for_("j", range(1, 3),
            {assign("t", bin(dsl::BinOp::mul, a, access("x", {idx("i"), idx("j", -1)}))),
             store("y", {idx("i"), idx("j")}, call("fill", {bin(dsl::BinOp::mul, a, num(2))}))})})};
  dsl::Module m;
  m.kernels.push_back(k);
  EXPECT_EQ(lower(m),
            R"(program k attributes {signature = ["x", "alpha", "b", "y"]} {
  options grid 4x2 cb_depth 2 fp32_acc true math_fidelity "HiFi4"
  tensor x: bf16[M, 64] input
  tensor b: bf16[1, 64] input
  tensor y: f32[M, 64] output

  func kernel k(x: tensor, alpha: f32, b: tensor, y: tensor, M: i32) {
    let Mt: i32 = M / 32
    for i in 0 .. Mt parallel {
      for j in 0 .. 2 serial {
        store y[i, j] = tile.rsub_scalar(tile.mul(tile.add_scalar(load x[i, j + 1], 0.5), tile.bcast_row(load b[0, j])), alpha)
      }
      for j in 1 .. +2 serial {
        let t: tile<f32> = tile.mul_scalar(load x[i, j - 1], alpha)
        store y[i, j] = tile.fill(alpha * 2.0)
      }
    }
  }
}
)");
}

TEST(ToTileIr, RebindingAnOuterValueMakesEveryLoopInBetweenAReduction) {
  using namespace test;
  dsl::Kernel k;
  k.name = id("softmax_max");
  k.inputs = {tensor("x", {"M", "N"})};
  k.outputs = {tensor("y", {"M", "N"})};
  k.body = {parallel(
      {{"i", tiles("M")}},
      {assign("m", call("fill", {num(-std::numeric_limits<double>::infinity())})),
       for_("a", range(0, 2),
            {for_("j", tiles("N"),
                  {assign("m",
                          call("max", {name("m"),
                                       call("rowmax", {access("x", {idx("i"), idx("j")})})}))})}),
       for_("j", tiles("N"),
            {store("y", {idx("i"), idx("j")}, call("exp", {call("bcast_col", {name("m")})}))})})};
  dsl::Module m;
  m.kernels.push_back(k);
  std::string text = lower(m);
  EXPECT_NE(text.find("      let m: tile<f32> = tile.fill(-inf)\n"
                      "      for a in 0 .. 2 reduction {\n"
                      "        for j in 0 .. Nt reduction {\n"
                      "          m = tile.max(m, tile.rowmax(load x[i, j]))\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("      for j in 0 .. Nt serial {\n"
                      "        store y[i, j] = tile.exp(tile.bcast_col(m))\n"),
            std::string::npos)
      << text;
}

TEST(ToTileIr, AccumulatingScalarsIntoTilesAndScalarLocals) {
  using namespace test;
  dsl::Kernel k;
  k.name = id("k");
  k.inputs = {tensor("x", {"M", "N"}), scalar("alpha")};
  k.outputs = {tensor("y", {"M", "N"})};
  dsl::Expr a = name("alpha", dsl::Type::scalar);
  k.body = {parallel({{"i", tiles("M")}, {"j", tiles("N")}},
                     {assign("t", access("x", {idx("i"), idx("j")})), accumulate("t", a),
                      assign("s", bin(dsl::BinOp::mul, a, num(3))), accumulate("s", num(1)),
                      store("y", {idx("i"), idx("j")},
                            bin(dsl::BinOp::mul, name("t"), name("s", dsl::Type::scalar)))})};
  dsl::Module m;
  m.kernels.push_back(k);
  std::string text = lower(m);
  EXPECT_NE(text.find("        let t: tile<f32> = load x[i, j]\n"
                      "        t = tile.add_scalar(t, alpha)\n"
                      "        let s: f32 = alpha * 3.0\n"
                      "        s = s + 1.0\n"
                      "        store y[i, j] = tile.mul_scalar(t, s)\n"),
            std::string::npos)
      << text;
}

TEST(ToTileIr, TileCountNamesNeverCaptureUserNames) {
  using namespace test;
  dsl::Kernel k;
  k.name = id("k");
  k.inputs = {tensor("x", {"M", "N"})};
  k.outputs = {tensor("y", {"M", "N"})};
  k.body = {parallel({{"Mt", tiles("M")}, {"j", tiles("N")}},
                     {store("y", {idx("Mt"), idx("j")}, access("x", {idx("Mt"), idx("j")}))})};
  dsl::Module m;
  m.kernels.push_back(k);
  std::string text = lower(m);
  EXPECT_NE(text.find("let Mt_: i32 = M / 32\n"), std::string::npos) << text;
  EXPECT_NE(text.find("for Mt in 0 .. Mt_ parallel {"), std::string::npos) << text;
}

TEST(ToTileIr, KeepsSourceLocationsOnStatementsAndCalls) {
  dsl::Module ast = test::matmul_ast();
  auto& par = std::get<dsl::Parallel>(ast.kernels[0].body[0].node);
  par.body[0].loc.range = {100, 115};
  std::get<dsl::Assign>(par.body[0].node).value.loc.range = {106, 113};
  Diagnostics diags;
  ir::Module m = to_tile_ir(ast, diags);
  const auto* body = ir::as<ir::Block>(m.programs[0].functions[0].body);
  const auto* iloop = ir::as<ir::For>(body->stmts.back());
  const auto* jloop = ir::as<ir::For>(ir::as<ir::Block>(iloop->body)->stmts[0]);
  const auto* d = ir::as<ir::Decl>(ir::as<ir::Block>(jloop->body)->stmts[0]);
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->loc.range, (SourceRange{100, 115}));
  EXPECT_EQ(ir::as<ir::Call>(d->value)->loc.range, (SourceRange{106, 113}));
  // The matmul_acc's loads keep the ranges of `A[i, k]` and `B[k, j]`.
  auto& kloop = std::get<dsl::For>(par.body[1].node);
  auto& acc = std::get<dsl::Accumulate>(kloop.body[0].node);
  auto& mm = std::get<dsl::Binary>(acc.value.node);
  mm.lhs->loc.range = {130, 137};
  mm.rhs->loc.range = {140, 147};
  ir::Module m2 = to_tile_ir(ast, diags);
  const auto* b2 = ir::as<ir::Block>(m2.programs[0].functions[0].body);
  const auto* j2 =
      ir::as<ir::For>(ir::as<ir::Block>(ir::as<ir::For>(b2->stmts.back())->body)->stmts[0]);
  const auto* k2 = ir::as<ir::For>(ir::as<ir::Block>(j2->body)->stmts[1]);
  const auto* upd = ir::as<ir::Assign>(ir::as<ir::Block>(k2->body)->stmts[0]);
  ASSERT_NE(upd, nullptr);
  const auto* c = ir::as<ir::Call>(upd->value);
  EXPECT_EQ(ir::as<ir::Load>(c->args[1])->loc.range, (SourceRange{130, 137}));
  EXPECT_EQ(ir::as<ir::Load>(c->args[2])->loc.range, (SourceRange{140, 147}));
}

} // namespace
} // namespace tk::lower
