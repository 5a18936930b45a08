// The verifier of a function's parameters and body (lowering/ir/verifier_function.cpp) catches
// hand-broken IR with an exact message.
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

} // namespace
} // namespace tk::ir
