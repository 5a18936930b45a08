// The canonical text of the tile IR: exact spelling of a whole module, expressions and floats.
#include "ir_test_util.hpp"

#include <limits>

namespace tk::ir {
namespace {

TEST(Printer, MatmulModule) {
  EXPECT_EQ(print(test::matmul_module()),
            R"(program matmul {
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

TEST(Printer, PrecedenceParenthesisesOnlyWhereNeeded) {
  Expr a = var("a", Type::i32()), b = var("b", Type::i32()), c = var("c", Type::i32());
  EXPECT_EQ(print((a + b) * c), "(a + b) * c");
  EXPECT_EQ(print(a + b * c), "a + b * c");
  EXPECT_EQ(print(a - (b - c)), "a - (b - c)");
  EXPECT_EQ(print((a - b) - c), "a - b - c");
  EXPECT_EQ(print(binary(BinaryOp::min, a + b, c) % int_imm(4)), "min(a + b, c) % 4");
  EXPECT_EQ(print(binary(BinaryOp::logical_and, binary(BinaryOp::lt, a, b),
                         binary(BinaryOp::ne, c, int_imm(-1)))),
            "a < b && c != -1");
  EXPECT_EQ(print(int_imm(2048, Type::u32())), "2048u");
}

TEST(Printer, FloatsAlwaysReadAsFloats) {
  EXPECT_EQ(format_float(1.0), "1.0");
  EXPECT_EQ(format_float(0.5), "0.5");
  EXPECT_EQ(format_float(1e-5), "1e-05");
  EXPECT_EQ(format_float(-std::numeric_limits<double>::infinity()), "-inf");
  EXPECT_EQ(format_float(0.1), "0.1");
}

TEST(Printer, AttributesSortedAndTyped) {
  Attrs a;
  a["z"] = {std::int64_t{-3}};
  a["b"] = {true};
  a["m"] = {std::string("Hi\"Fi4")};
  a["g"] = {Grid{4, 2}};
  a["l"] = {
      std::vector<AttrValue>{{std::int64_t{1}}, {std::string("x")}, {std::vector<AttrValue>{}}}};
  EXPECT_EQ(print(a), R"({b = true, g = 4x2, l = [1, "x", []], m = "Hi\"Fi4", z = -3})");
}

TEST(Printer, NonZeroLoopStartUsesExplicitExtent) {
  Stmt s =
      for_loop("t", var("start", Type::u32()), var("count", Type::u32()), ForRole::per_core,
               block({evaluate(call(Intrinsic::cb_reserve_back, {cb_ref("cb_in0"), int_imm(1)}))}));
  EXPECT_EQ(print(s), "for t in start .. +count per_core {\n  cb_reserve_back(cb_in0, 1)\n}\n");
}

} // namespace
} // namespace tk::ir
