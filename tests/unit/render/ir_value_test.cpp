// The generic IR -> template value converter the templates of every target read (compared in
// its JSON form, as --emit=template-data prints it).
#include "codegen/ir_value.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace tk::codegen {
namespace {

using namespace ir;

nlohmann::json to_json(const Expr& e) {
  return to_value(e).to_json();
}
nlohmann::json to_json(const Stmt& s) {
  return to_value(s).to_json();
}

TEST(IrValue, ParenthesesFollowPrecedenceAndLeftAssociativity) {
  Expr a = var("a", Type::i32()), b = var("b", Type::i32()), c = var("c", Type::i32());
  // (a + b) * c: the sum needs parentheses; a - (b - c): the right operand of equal precedence too;
  // a * b + c: none.
  nlohmann::json j = to_json((a + b) * c);
  EXPECT_TRUE(j["a"]["parens"]);
  EXPECT_FALSE(j["b"]["parens"]);
  EXPECT_FALSE(j["parens"]);
  j = to_json(a - (b - c));
  EXPECT_FALSE(j["a"]["parens"]);
  EXPECT_TRUE(j["b"]["parens"]);
  j = to_json((a - b) - c);
  EXPECT_FALSE(j["a"]["parens"]);
  j = to_json(a * b + c);
  EXPECT_FALSE(j["a"]["parens"]);
  // min/max are calls: their operands never need parentheses.
  j = to_json(binary(BinaryOp::max, a + b, c));
  EXPECT_TRUE(j["call"]);
  EXPECT_FALSE(j["a"]["parens"]);
}

TEST(IrValue, ExactShapeOfAStatement) {
  Stmt s = for_loop("er", int_imm(0), int_imm(32), ForRole::serial,
                    evaluate(call(Intrinsic::cpu_tile_set,
                                  {var("t", Type::tile(DType::f32)), var("er", Type::i32()),
                                   int_imm(0), float_imm(-INFINITY)})));
  EXPECT_EQ(
      to_json(s).dump(),
      R"({"body":{"kind":"block","stmts":[{"call":{"args":[{"kind":"var","name":"t","parens":false,"type":"tile<f32>"},{"kind":"var","name":"er","parens":false,"type":"i32"},{"kind":"int","parens":false,"type":"i32","value":0},{"form":"-inf","kind":"float","parens":false,"text":"-inf","type":"f32"}],"fn":"cpu.tile_set","kind":"call","parens":false,"type":"void"},"kind":"evaluate"}]},"end":{"kind":"int","parens":false,"type":"i32","value":32},"extent":{"kind":"int","parens":false,"type":"i32","value":32},"kind":"for","min":{"kind":"int","parens":false,"type":"i32","value":0},"role":"serial","var":"er"})");
}

TEST(IrValue, FloatFormsAndLoopEnd) {
  EXPECT_EQ(to_json(float_imm(0.5))["form"], "finite");
  EXPECT_EQ(to_json(float_imm(1e-5))["text"], "1e-05");
  EXPECT_EQ(to_json(float_imm(INFINITY))["form"], "inf");
  EXPECT_EQ(to_json(float_imm(NAN))["form"], "nan");
  // A loop from 2 ends at 2 + n.
  Stmt s = for_loop("k", int_imm(2), var("n", Type::i32()), ForRole::serial, block({}));
  nlohmann::json j = to_json(s);
  EXPECT_EQ(j["end"]["kind"], "binary");
  EXPECT_EQ(j["end"]["op"], "+");
}

} // namespace
} // namespace tk::codegen
