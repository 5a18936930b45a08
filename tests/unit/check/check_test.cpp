// The checker on valid kernels built in C++: it accepts them, types every expression and
// resolves every call.
#include "dsl/check.hpp"

#include "ast_builder.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace tk::dsl {
namespace {
using namespace build;

Kernel matmul() {
  return kernel(
      "matmul", {tensor("A", {"M", "K"}), tensor("B", {"K", "N"})}, {tensor("C", {"M", "N"})},
      {par({lv("i", "tiles(M)"), lv("j", "tiles(N)")},
           {assign("acc", call("zeros")),
            for_("k", "tiles(K)", {accum("acc", mm(at("A", {"i", "k"}), at("B", {"k", "j"})))}),
            store("C", {"i", "j"}, name("acc"))})});
}

std::string run(Module& m, bool* ok = nullptr) {
  Diagnostics d;
  bool r = check(m, d);
  if (ok)
    *ok = r;
  std::string s;
  for (const Diagnostic& x : d.all())
    s += x.message + "\n";
  return s;
}

// A batched matmul: a batch of A against one weight shared by every batch (W[0, k, j]), a rank-2
// bias (the natural broadcast) and a literal batch of 4 indexed by a literal range.
TEST(Check, BatchedKernelsAreAccepted) {
  Module m{
      {kernel("bmm",
              {tensor("A", {"B", "M", "K"}), tensor("W", {"1", "K", "N"}), tensor("V", {"K", "N"}),
               tensor("L", {"4", "M", "N"})},
              {tensor("C", {"B", "M", "N"}), tensor("D", {"4", "M", "N"}), tensor("S", {"M", "N"})},
              {
                  par({lv("b", "0..B"), lv("i", "tiles(M)"), lv("j", "tiles(N)")},
                      {assign("acc", call("zeros")),
                       for_("k", "tiles(K)",
                            {accum("acc", mm(at("A", {"b", "i", "k"}), at("W", {"0", "k", "j"}))),
                             accum("acc", mm(at("A", {"b", "i", "k"}), at("V", {"k", "j"})))}),
                       store("C", {"b", "i", "j"}, name("acc"))}),
              })}};
  // Only one parallel: the literal batch and the sum over batches live in a second kernel.
  m.kernels.push_back(kernel("lit", {tensor("L", {"4", "M", "N"})},
                             {tensor("D", {"4", "M", "N"}), tensor("S", {"M", "N"})},
                             {par({lv("i", "tiles(M)"), lv("j", "tiles(N)")},
                                  {assign("s", call("zeros")),
                                   for_("b", "0..4",
                                        {accum("s", at("L", {"b", "i", "j"})),
                                         store("D", {"b", "i", "j"}, at("L", {"b", "i", "j"}))}),
                                   store("S", {"i", "j"}, name("s"))})}));
  m.kernels[0].outputs.resize(1);
  m.kernels[0].inputs.resize(3);
  bool ok = false;
  EXPECT_EQ(run(m, &ok), "");
  EXPECT_TRUE(ok);
}

TEST(Check, MatmulTypesEveryExpression) {
  Module m{{matmul()}};
  bool ok = false;
  EXPECT_EQ(run(m, &ok), "");
  EXPECT_TRUE(ok);
  auto& p = std::get<Parallel>(m.kernels[0].body[0].node);
  const auto& init = std::get<Assign>(p.body[0].node);
  EXPECT_EQ(init.value.type, Type::tile);
  EXPECT_EQ(std::get<Call>(init.value.node).fn, Builtin::zeros);
  const auto& loop = std::get<For>(p.body[1].node);
  const auto& acc = std::get<Accumulate>(loop.body[0].node);
  EXPECT_EQ(acc.value.type, Type::tile);
  const auto& mmul = std::get<Binary>(acc.value.node);
  EXPECT_EQ(mmul.lhs->type, Type::tile);
  EXPECT_EQ(mmul.rhs->type, Type::tile);
  EXPECT_EQ(std::get<Store>(p.body[2].node).value.type, Type::tile);
}

TEST(Check, AxpbyScalarsAreScalars) {
  Module m{{kernel(
      "axpby", {tensor("x", {"M", "N"}), tensor("y", {"M", "N"}), scalar("alpha"), scalar("beta")},
      {tensor("z", {"M", "N"})},
      {par({lv("i", "tiles(M)"), lv("j", "tiles(N)")},
           {store("z", {"i", "j"},
                  add(mul(at("x", {"i", "j"}), name("alpha")),
                      mul(at("y", {"i", "j"}), name("beta"))))})})}};
  EXPECT_EQ(run(m), "");
  auto& p = std::get<Parallel>(m.kernels[0].body[0].node);
  const Expr& v = std::get<Store>(p.body[0].node).value;
  EXPECT_EQ(v.type, Type::tile);
  const auto& sum = std::get<Binary>(v.node);
  EXPECT_EQ(std::get<Binary>(sum.lhs->node).rhs->type, Type::scalar);
  EXPECT_EQ(std::get<Binary>(sum.lhs->node).lhs->type, Type::tile);
}

TEST(Check, SoftmaxLoopCarriedRebindingAndBroadcasts) {
  auto xe = [] { return at("x", {"i", "j"}); };
  Module m{{kernel(
      "softmax", {tensor("x", {"M", "N"})}, {tensor("y", {"M", "N"})},
      {par({lv("i", "tiles(M)")},
           {assign("m", call("fill", {num(-INFINITY)})),
            for_("j", "tiles(N)", {assign("m", call("max", {name("m"), call("rowmax", {xe()})}))}),
            assign("s", call("zeros")),
            for_("j", "tiles(N)",
                 {accum("s", call("rowsum",
                                  {call("exp", {sub(xe(), call("bcast_col", {name("m")}))})}))}),
            assign("r", call("recip", {name("s")})),
            for_("j", "tiles(N)",
                 {store("y", {"i", "j"},
                        mul(call("exp", {sub(xe(), call("bcast_col", {name("m")}))}),
                            call("bcast_col", {name("r")})))})})})}};
  EXPECT_EQ(run(m), "");
  auto& p = std::get<Parallel>(m.kernels[0].body[0].node);
  const auto& f = std::get<For>(p.body[1].node);
  const auto& maxcall = std::get<Call>(std::get<Assign>(f.body[0].node).value.node);
  EXPECT_EQ(maxcall.fn, Builtin::max);
  EXPECT_EQ(std::get<Call>(maxcall.args[1].node).fn, Builtin::rowmax);
  EXPECT_EQ(maxcall.args[0].type, Type::tile);
}

TEST(Check, RowVectorBiasWithBroadcastAndLiteralDims) {
  Module m{{kernel(
      "bias_add", {tensor("x", {"64", "N"}), tensor("bias", {"1", "N"})},
      {tensor("y", {"64", "N"})},
      {par({lv("i", "0..2"), lv("j", "tiles(N)")},
           {store("y", {"i", "j"},
                  add(at("x", {"i", "j"}), call("bcast_row", {at("bias", {"0", "j"})})))})})}};
  EXPECT_EQ(run(m), "");
}

TEST(Check, NegativeOffsetInsideShiftedLoopIsFine) {
  Module m{{kernel("shift", {tensor("x", {"M", "N"})}, {tensor("y", {"M", "N"})},
                   {par({lv("i", "tiles(M)"), lv("j", "tiles(N)")},
                        {assign("t", at("x", {"i", "j"})),
                         for_("k", "1..tiles(N)", {accum("t", at("x", {"i", "k-1"}))}),
                         store("y", {"i", "j"}, name("t"))})})}};
  EXPECT_EQ(run(m), "");
}

TEST(Check, OptionsWithinRangeAreAcceptedAndRead) {
  Kernel k = matmul();
  k.options = {opt("grid", GridValue{4, 2}), opt("cb_depth", std::int64_t{3}),
               opt("fp32_acc", true), opt("math_fidelity", std::string("HiFi2")),
               opt("exp_approx_mode", true)};
  Module m{{k}};
  EXPECT_EQ(run(m), "");
  KernelOptions o = options_of(m.kernels[0]);
  EXPECT_EQ(o.grid_x, 4);
  EXPECT_EQ(o.grid_y, 2);
  EXPECT_EQ(o.cb_depth, 3);
  EXPECT_TRUE(o.fp32_acc);
  EXPECT_EQ(o.math_fidelity, "HiFi2");
  EXPECT_TRUE(o.exp_approx_mode);
  KernelOptions d = options_of(matmul());
  EXPECT_EQ(d.grid_x, 8);
  EXPECT_EQ(d.grid_y, 8);
  EXPECT_EQ(d.cb_depth, 2);
  EXPECT_FALSE(d.fp32_acc);
  EXPECT_EQ(d.math_fidelity, "HiFi4");
  EXPECT_FALSE(d.exp_approx_mode);
}

} // namespace
} // namespace tk::dsl
