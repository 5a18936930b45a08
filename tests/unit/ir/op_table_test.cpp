// The views derived from the op table (ops/ops.hpp) agree with it: every op has its tile
// intrinsic, every unary op its TT call, init (effect init, same SDK header) and CPU element
// function, every builtin of the language is a `call` row with the row's arity.
#include "dsl/ast.hpp"
#include "lowering/ir/intrinsics.hpp"

#include <gtest/gtest.h>

namespace tk::ir {
namespace {

TEST(OpTable, EveryOpHasItsTileIntrinsic) {
  for (ops::Op op : ops::all_ops()) {
    Intrinsic t = tile_intrinsic(op);
    EXPECT_EQ(to_string(t), "tile." + std::string(ops::to_string(op)));
    EXPECT_EQ(op_of(t), op);
    EXPECT_EQ(static_cast<int>(info(t).args.size()), ops::info(op).arity) << ops::to_string(op);
  }
  EXPECT_EQ(op_of(Intrinsic::pack_tile), std::nullopt);
}

TEST(OpTable, SfpuOpsHaveACallAnInitAndAHeader) {
  for (ops::Op op : ops::all_ops()) {
    const ops::OpInfo& in = ops::info(op);
    bool sfpu = in.kind == ops::Kind::unary || in.kind == ops::Kind::scalar ||
                in.kind == ops::Kind::compare;
    ASSERT_EQ(tt_call(op).has_value(), sfpu) << in.name;
    ASSERT_EQ(tt_init(op).has_value(), sfpu) << in.name;
    ASSERT_EQ(f32_intrinsic(op).has_value(), in.kind == ops::Kind::unary) << in.name;
    if (!sfpu)
      continue;
    const IntrinsicInfo& call = info(*tt_call(op));
    const IntrinsicInfo& init = info(*tt_init(op));
    EXPECT_EQ(call.effect, Effect::writes) << in.name;
    EXPECT_EQ(init.effect, Effect::init) << in.name;
    ASSERT_FALSE(call.args.empty()) << in.name;
    EXPECT_EQ(call.args[0], ArgKind::slot) << in.name;
    EXPECT_FALSE(call.header.empty()) << in.name;
    EXPECT_EQ(call.header, init.header) << in.name;
    if (in.kind == ops::Kind::unary) {
      EXPECT_EQ(call.header, in.tt_header) << in.name;
      EXPECT_NE(in.cpu_fn.empty(), in.cpu_body.empty()) << in.name << ": cpu_fn or cpu_body";
      EXPECT_EQ(to_string(*f32_intrinsic(op)), "f32." + std::string(in.name));
    }
  }
}

TEST(OpTable, BuiltinsAreTheCallRows) {
  int calls = 0;
  for (ops::Op op : ops::all_ops()) {
    const ops::OpInfo& in = ops::info(op);
    dsl::Builtin b = dsl::builtin_from_string(in.name);
    if (in.surface != ops::Surface::call) {
      EXPECT_EQ(b, dsl::Builtin::unknown) << in.name;
      continue;
    }
    ++calls;
    ASSERT_NE(b, dsl::Builtin::unknown) << in.name;
    EXPECT_EQ(dsl::to_op(b), op);
    EXPECT_EQ(dsl::arity(b), in.arity) << in.name;
    EXPECT_EQ(dsl::to_string(b), in.name);
  }
  EXPECT_EQ(calls, static_cast<int>(dsl::Builtin::unknown));
}

} // namespace
} // namespace tk::ir
