// The Mutator keeps untouched nodes (pointer-equal), so unchanged stages are detectable; the
// Visitor reaches every node.
#include "ir_test_util.hpp"

#include "lowering/ir/visitor.hpp"

namespace tk::ir {
namespace {

class CountCalls : public Visitor {
public:
  int calls = 0, loads = 0;

protected:
  void visit_node(const Call& c) override {
    ++calls;
    Visitor::visit_node(c);
  }
  void visit_node(const Load&) override { ++loads; }
};

// Rewrites tile.matmul_acc(acc, a, b) into tile.add(acc, tile.matmul(a, b)).
class SplitMatmulAcc : public Mutator {
protected:
  Expr mutate_node(const Call& c, const Expr& self) override {
    if (c.fn != Intrinsic::tile_matmul_acc)
      return Mutator::mutate_node(c, self);
    return call(Intrinsic::tile_add,
                {c.args[0], call(Intrinsic::tile_matmul, {c.args[1], c.args[2]})});
  }
};

TEST(Visitor, VisitsEveryNode) {
  CountCalls v;
  v.visit(test::matmul_module().programs[0].functions[0].body);
  EXPECT_EQ(v.calls, 2); // tile.zeros, tile.matmul_acc
  EXPECT_EQ(v.loads, 2);
}

TEST(Mutator, IdentityKeepsEveryPointer) {
  Module m = test::matmul_module();
  Mutator identity;
  Module out = identity.mutate(m);
  EXPECT_TRUE(identical(m, out));
  EXPECT_EQ(out.programs[0].functions[0].body, m.programs[0].functions[0].body);
}

TEST(Mutator, RebuildsOnlyTheChangedPath) {
  Module m = test::matmul_module();
  Module out = SplitMatmulAcc().mutate(m);
  EXPECT_FALSE(identical(m, out));
  const auto* before = as<Block>(m.programs[0].functions[0].body);
  const auto* after = as<Block>(out.programs[0].functions[0].body);
  ASSERT_EQ(before->stmts.size(), after->stmts.size());
  EXPECT_EQ(before->stmts[0], after->stmts[0]); // `let Mt` untouched: same node
  EXPECT_NE(before->stmts[3], after->stmts[3]); // the loop nest holding the call was rebuilt
  EXPECT_NE(print(out).find("acc = tile.add(acc, tile.matmul(load A[i, k], load B[k, j]))"),
            std::string::npos);
}

} // namespace
} // namespace tk::ir
