// The checker's errors on kernels built in C++: exact messages, one report per mistake, several
// independent mistakes in one run. (Locations and carets are covered by the golden suite in
// tests/golden/diagnostics.)
#include "dsl/check.hpp"

#include "ast_builder.hpp"

#include <gtest/gtest.h>

namespace tk::dsl {
namespace {
using namespace build;

struct Result {
  bool ok;
  std::vector<std::string> errors;
  std::vector<std::size_t> notes; // note count per error
};

Result run(Kernel k) {
  Module m{{std::move(k)}};
  Diagnostics d;
  Result r{check(m, d), {}, {}};
  for (const Diagnostic& x : d.all()) {
    if (x.severity != Severity::error)
      continue; // the kernels here leave inputs unread: -Wunused-input, tested in diagnostics/
    r.errors.push_back(x.message);
    r.notes.push_back(x.notes.size());
  }
  return r;
}

Kernel ab_kernel(std::vector<Stmt> body, std::vector<Param> extra_in = {}) {
  std::vector<Param> in = {tensor("A", {"M", "K"}), tensor("B", {"K", "N"})};
  for (auto& p : extra_in)
    in.push_back(p);
  return kernel("k", in, {tensor("C", {"M", "N"})},
                {par({lv("i", "tiles(M)"), lv("j", "tiles(N)")}, std::move(body))});
}

TEST(CheckErrors, UnknownNameSuggestsCloseNameOnce) {
  auto r = run(ab_kernel(
      {assign("acc", call("zeros")), store("C", {"i", "j"}, add(name("ac"), name("ac")))}));
  EXPECT_FALSE(r.ok);
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_EQ(r.errors[0], "unknown name 'ac'; did you mean 'acc'?");
}

TEST(CheckErrors, IndexRangeMismatchNotesTheLoop) {
  auto r = run(ab_kernel(
      {assign("acc", call("zeros")),
       for_("k", "tiles(N)", {accum("acc", mm(at("A", {"i", "k"}), at("B", {"k", "j"})))}),
       store("C", {"i", "j"}, name("acc"))}));
  ASSERT_EQ(r.errors.size(), 2u);
  EXPECT_EQ(r.errors[0], "index 'k' ranges over tiles(N), but it indexes dimension 1 of 'A' (K); "
                         "loop over tiles(K) or index another tensor");
  EXPECT_EQ(r.notes[0], 1u);
  EXPECT_EQ(r.errors[1], "index 'k' ranges over tiles(N), but it indexes dimension 0 of 'B' (K); "
                         "loop over tiles(K) or index another tensor");
}

TEST(CheckErrors, MatmulInnerDimensionsDisagree) {
  Kernel k = kernel(
      "k", {tensor("A", {"M", "K"}), tensor("B", {"N", "K"})}, {tensor("C", {"M", "N"})},
      {par({lv("i", "tiles(M)"), lv("j", "tiles(N)")},
           {assign("acc", call("zeros")),
            for_("k", "tiles(K)", {accum("acc", mm(at("A", {"i", "k"}), at("B", {"j", "k"})))}),
            store("C", {"i", "j"}, name("acc"))})});
  auto r = run(k);
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_EQ(r.errors[0], "inner dimensions of '@' do not agree: the columns of 'A[i, k]' come "
                         "from K, the rows of 'B[j, k]' from N");
  EXPECT_EQ(r.notes[0], 2u);
}

TEST(CheckErrors, ScalarWhereTileNeeded) {
  auto r =
      run(ab_kernel({store("C", {"i", "j"}, call("relu", {name("alpha")}))}, {scalar("alpha")}));
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_EQ(r.errors[0], "'relu' applies to a tile, but 'alpha' is a scalar; for a constant tile, "
                         "write relu(fill(alpha))");
}

// elu(x, alpha): a tile, then a scalar; each the other way round is an error of its own.
TEST(CheckErrors, EluTakesATileThenAScalar) {
  const auto elu = [](std::vector<Expr> args) {
    return run(kernel("k", {tensor("X", {"M", "N"}), scalar("alpha")}, {tensor("C", {"M", "N"})},
                      {par({lv("i", "tiles(M)"), lv("j", "tiles(N)")},
                           {store("C", {"i", "j"}, call("elu", std::move(args)))})}));
  };
  EXPECT_TRUE(elu({at("X", {"i", "j"}), name("alpha")}).errors.empty());
  auto r = elu({name("alpha"), at("X", {"i", "j"})});
  ASSERT_EQ(r.errors.size(), 2u);
  EXPECT_EQ(r.errors[0], "'elu' applies to a tile, but 'alpha' is a scalar; for a constant tile, "
                         "write elu(fill(alpha), X[i, j])");
  EXPECT_EQ(r.errors[1], "'elu' takes a scalar second argument (a number or a scalar parameter), "
                         "but 'X[i, j]' is a tile, e.g. elu(x[i, j], 1.0)");
  auto one = elu({at("X", {"i", "j"})});
  ASSERT_EQ(one.errors.size(), 1u);
  EXPECT_EQ(one.errors[0], "'elu' takes 2 arguments, but 1 was given");
}

// Scalar arithmetic is a scalar: fine under a tile operation, an error where a tile is stored.
TEST(CheckErrors, ScalarArithmeticIsAScalar) {
  auto ok =
      run(ab_kernel({store("C", {"i", "j"}, mul(call("zeros"), mul(name("alpha"), name("beta"))))},
                    {scalar("alpha"), scalar("beta")}));
  EXPECT_TRUE(ok.errors.empty());
  auto r = run(ab_kernel({store("C", {"i", "j"}, mul(name("alpha"), name("beta")))},
                         {scalar("alpha"), scalar("beta")}));
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_EQ(r.errors[0], "a store needs a tile, but 'alpha * beta' is a scalar; for a constant "
                         "tile, write fill(alpha * beta)");
}

TEST(CheckErrors, StoreInsideLoopThatItDoesNotUse) {
  auto r = run(ab_kernel({assign("acc", call("zeros")),
                          for_("k", "tiles(K)",
                               {accum("acc", mm(at("A", {"i", "k"}), at("B", {"k", "j"}))),
                                store("C", {"i", "j"}, name("acc"))})}));
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_EQ(r.errors[0], "'C[i, j]' is stored inside 'for k' but does not use 'k', so each tile "
                         "is written once per iteration; move the store after the loop");
}

TEST(CheckErrors, OutputNeverStoredAndStoredTwice) {
  auto never = run(ab_kernel({assign("t", at("A", {"i", "j"}))}));
  ASSERT_EQ(never.errors.size(), 2u); // A[i, j] with j over tiles(N) is wrong too
  EXPECT_EQ(never.errors[1], "output 'C' is never stored; store each of its tiles once inside "
                             "'parallel', e.g. C[i, j] = ...");
  auto twice = run(
      ab_kernel({store("C", {"i", "j"}, call("zeros")), store("C", {"i", "j"}, call("zeros"))}));
  ASSERT_EQ(twice.errors.size(), 1u);
  EXPECT_EQ(twice.errors[0], "output 'C' is stored twice; each output is stored by exactly one "
                             "statement, which writes every tile once");
}

TEST(CheckErrors, AccumulateOnUnboundNameThenNoCascade) {
  auto r = run(ab_kernel(
      {for_("k", "tiles(K)", {accum("acc", mm(at("A", {"i", "k"}), at("B", {"k", "j"})))}),
       store("C", {"i", "j"}, name("acc"))}));
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_EQ(r.errors[0], "'+=' on unbound name 'acc'; bind it first, e.g. 'acc = zeros()' before "
                         "the loop");
}

TEST(CheckErrors, LocalOfLoopBodyIsNotVisibleAfterIt) {
  auto r = run(
      ab_kernel({for_("k", "tiles(K)", {assign("t", mm(at("A", {"i", "k"}), at("B", {"k", "j"})))}),
                 store("C", {"i", "j"}, name("t"))}));
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_EQ(r.errors[0], "'t' is not visible here; it was bound inside a loop body, which ends "
                         "its scope");
}

TEST(CheckErrors, SeveralIndependentErrorsInOneRun) {
  Kernel k =
      ab_kernel({store("C", {"i", "j"}, add(call("relux", {at("A", {"i", "j", "0"})}), name("q")))},
                {scalar("alpha")});
  k.options = {opt("cb_depth", std::int64_t{0}), opt("math_fidelity", std::string("HiFi5"))};
  auto r = run(k);
  ASSERT_EQ(r.errors.size(), 5u);
  EXPECT_EQ(r.errors[0], "cb_depth must be at least 1 (2, the default, double-buffers)");
  EXPECT_EQ(r.errors[1], "unknown math_fidelity 'HiFi5'; use LoFi, HiFi2, HiFi3 or HiFi4");
  EXPECT_EQ(r.errors[2], "'A' has 2 dimensions but is indexed with 3 indices; write A[row, "
                         "column], e.g. A[i, j]");
  EXPECT_EQ(r.errors[3], "unknown function 'relux'; did you mean 'relu'?");
  EXPECT_EQ(r.errors[4], "unknown name 'q'");
}

TEST(CheckErrors, SecondParallelAndStatementsOutside) {
  Kernel k = ab_kernel({store("C", {"i", "j"}, call("zeros"))});
  k.body.insert(k.body.begin(), assign("t", call("zeros")));
  k.body.push_back(par({lv("i", "tiles(M)")}, {}));
  auto r = run(k);
  ASSERT_EQ(r.errors.size(), 2u);
  // 't' is bound before the parallel, so it is a reduction variable, and it is never combined.
  EXPECT_EQ(r.errors[0], "reduction variable 't' is never combined inside 'parallel'; combine into "
                         "it there ('t += e', 't = max(t, e)' or 't = min(t, e)'), or bind it "
                         "after the 'parallel'");
  EXPECT_EQ(r.errors[1], "second 'parallel' block; a kernel has exactly one (write another kernel "
                         "for a second iteration space)");
}

TEST(CheckErrors, LiteralDimensionsAndVectors) {
  Kernel k =
      kernel("k", {tensor("x", {"48", "N"}), tensor("z", {"M", "N"}), tensor("bias", {"1", "N"})},
             {tensor("y", {"M", "N"})},
             {par({lv("i", "tiles(M)"), lv("j", "tiles(N)")},
                  {assign("t", at("bias", {"i", "j"})),
                   store("y", {"i", "j"}, add(at("z", {"i", "j"}), at("bias", {"0", "j"})))})});
  auto r = run(k);
  ASSERT_EQ(r.errors.size(), 3u);
  EXPECT_EQ(r.errors[0], "dimension 48 of 'x' is not a multiple of 32; tiles are 32x32, so use 32 "
                         "or 64 (or exactly 1 for a vector)");
  EXPECT_EQ(r.errors[1], "dimension 0 of 'bias' (1) has size 1 (bias is a row vector); index it "
                         "with 0: bias[0, j]");
  EXPECT_EQ(r.errors[2], "'bias[0, j]' is a row vector (its rows come from a size-1 dimension) but "
                         "the other operand of '+' is a full tile; broadcast it: bcast_row(bias[0, "
                         "j])");
}

TEST(CheckErrors, LimitOfTwentyIsRespected) {
  std::vector<Stmt> body;
  for (int n = 0; n < 25; ++n)
    body.push_back(assign("t" + std::to_string(n), name("u" + std::to_string(n))));
  body.push_back(store("C", {"i", "j"}, call("zeros")));
  Module m{{ab_kernel(std::move(body))}};
  Diagnostics d;
  EXPECT_FALSE(check(m, d));
  EXPECT_EQ(d.error_count(), 25u);
  EXPECT_EQ(d.all().size(), 20u);
}

// A tensor of the wrong rank is one mistake: the dimension names it declares stay known.
TEST(CheckErrors, WrongRankIsOneError) {
  Kernel k = kernel("k", {tensor("x", {"C", "B", "M", "N"})}, {tensor("y", {"M", "N"})},
                    {par({lv("i", "tiles(M)"), lv("j", "tiles(N)")},
                         {assign("acc", call("zeros")),
                          for_("b", "tiles(B)", {accum("acc", at("x", {"b", "i"}))}),
                          store("y", {"i", "j"}, name("acc"))})});
  auto r = run(k);
  ASSERT_EQ(r.errors.size(), 1u) << r.errors.back();
  EXPECT_EQ(r.errors[0],
            "tensor 'x' has 4 dimensions, but tensors have rank 2 (rows and columns) or 3 (a "
            "batch of matrices); fold the leading dimensions into one batch dimension, e.g. 'x: "
            "bf16[B, M, N]' with B the product of the other sizes");
}

Kernel batch_kernel(std::vector<LoopVar> loops, std::vector<Stmt> body,
                    std::vector<Param> extra_in = {}) {
  std::vector<Param> in = {tensor("x", {"B", "M", "N"}), tensor("w", {"1", "M", "N"}),
                           tensor("l", {"3", "M", "N"})};
  for (auto& p : extra_in)
    in.push_back(p);
  return kernel("k", in, {tensor("y", {"B", "M", "N"})}, {par(std::move(loops), std::move(body))});
}

std::vector<LoopVar> bij() {
  return {lv("b", "0..B"), lv("i", "tiles(M)"), lv("j", "tiles(N)")};
}

TEST(CheckErrors, BatchRangesSayWhichFormToWrite) {
  auto r = run(batch_kernel({lv("b", "tiles(B)"), lv("i", "0..M"), lv("j", "tiles(N)")},
                            {store("y", {"b", "i", "j"}, at("x", {"b", "i", "j"}))}));
  ASSERT_EQ(r.errors.size(), 2u);
  EXPECT_EQ(r.errors[0], "'B' is a batch dimension, counted in matrices, not tiles; loop over its "
                         "matrices with 0 .. B");
  EXPECT_EQ(r.notes[0], 1u);
  EXPECT_EQ(r.errors[1], "'M' is a row or column dimension, counted in tiles of 32; loop over its "
                         "tiles with tiles(M)");
}

TEST(CheckErrors, BatchIndices) {
  auto r = run(batch_kernel(
      bij(), {assign("t", add(at("x", {"i", "i", "j"}), at("w", {"b", "i", "j"}))),
              assign("u", add(at("x", {"1", "i", "j"}), at("l", {"3", "i", "j"}))),
              assign("v", add(at("x", {"b", "b", "j"}), at("x", {"b+1", "i", "j"}))),
              store("y", {"b", "i", "j"}, add(add(name("t"), name("u")), name("v")))}));
  ASSERT_EQ(r.errors.size(), 6u);
  EXPECT_EQ(r.errors[0], "index 'i' ranges over tiles(M), but it indexes batch dimension 0 of 'x' "
                         "(B), a batch dimension counted in matrices, not tiles; loop over 0 .. B");
  EXPECT_EQ(r.errors[1], "batch dimension 0 of 'w' (1) holds a single matrix, shared by every "
                         "batch; index it with 0: w[0, i, j]");
  EXPECT_EQ(r.errors[2], "index 1 may be outside 'x': batch dimension B is only known at run time "
                         "and can hold a single matrix; only 0 is always inside");
  EXPECT_EQ(r.errors[3], "index 3 is outside 'l': batch dimension 0 of 'l' (3) has 3 matrices, 0 "
                         ".. 2");
  EXPECT_EQ(r.errors[4], "index 'b' ranges over 0 .. B, but it indexes dimension 1 of 'x' (M); "
                         "loop over tiles(M) or index another tensor");
  EXPECT_EQ(r.errors[5], "index 'b + 1' can leave 'x': 'b' ranges over 0 .. B, so b + 1 reaches "
                         "B, past the last matrix of batch dimension 0 of 'x' (B)");
}

TEST(CheckErrors, BatchStoreCoversEveryMatrix) {
  auto partial = run(batch_kernel({lv("b", "1..B"), lv("i", "tiles(M)"), lv("j", "tiles(N)")},
                                  {store("y", {"b", "i", "j"}, at("x", {"b", "i", "j"}))}));
  ASSERT_EQ(partial.errors.size(), 1u);
  EXPECT_EQ(partial.errors[0], "'b' ranges over 1 .. B, so 'y[b, i, j]' misses matrices of "
                               "dimension B; loop over 0 .. B");
  auto fixed = run(batch_kernel({lv("i", "tiles(M)"), lv("j", "tiles(N)")},
                                {store("y", {"0", "i", "j"}, at("x", {"0", "i", "j"}))}));
  ASSERT_EQ(fixed.errors.size(), 1u);
  EXPECT_EQ(fixed.errors[0], "'y[0, i, j]' stores only matrix 0 of dimension 0 (B); index it with "
                             "a loop variable over 0 .. B so that every matrix is written");
  auto unused = run(batch_kernel(bij(), {store("y", {"i", "i", "j"}, at("x", {"b", "i", "j"}))}));
  ASSERT_GE(unused.errors.size(), 1u);
  EXPECT_EQ(unused.errors[0], "index 'i' ranges over tiles(M), but it indexes batch dimension 0 "
                              "of 'y' (B), a batch dimension counted in matrices, not tiles; "
                              "loop over 0 .. B");
}

TEST(CheckErrors, BatchDeclarations) {
  Kernel k = kernel("k",
                    {tensor("x", {"B", "M", "N"}), tensor("z", {"M", "B"}),
                     tensor("e", {"0", "M", "N"}), tensor("s", {"B", "1", "1"})},
                    {tensor("y", {"M", "N"})},
                    {par({lv("i", "tiles(M)"), lv("j", "tiles(N)")},
                         {store("y", {"i", "j"}, at("x", {"0", "i", "j"}))})});
  auto r = run(k);
  ASSERT_EQ(r.errors.size(), 3u);
  EXPECT_EQ(r.errors[0], "dimension 'B' is the batch dimension of 'x', but here it is a row or "
                         "column dimension (counted in tiles); a dimension name is either a "
                         "batch or a tiled dimension, so give this one its own name");
  EXPECT_EQ(r.notes[0], 1u);
  EXPECT_EQ(r.errors[1], "batch dimension 0 of 'e' holds no matrix; a batch holds at least one (1 "
                         "for a single matrix shared by every batch)");
  EXPECT_EQ(r.errors[2], "tensor 's' holds a single element per matrix, but tensors are read and "
                         "stored a tile at a time; declare one-tile vectors such as 's: bf16[B, "
                         "1, 32]' and use element (0, 0) of each");
}

TEST(CheckErrors, RankTwoTensorIndexedWithABatch) {
  auto r = run(batch_kernel(bij(), {store("y", {"b", "i", "j"}, at("v", {"b", "i", "j"}))},
                            {tensor("v", {"M", "N"})}));
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_EQ(r.errors[0], "'v' has 2 dimensions but is indexed with 3 indices; write v[row, "
                         "column], e.g. v[i, j] (a matrix without a batch dimension is shared by "
                         "every batch)");
}

TEST(CheckErrors, DeclarationShapesAndRanges) {
  Kernel k = kernel(
      "k", {tensor("x", {"M", "M", "N", "K"}), tensor("w", {"N", "N"}), tensor("v", {"M", "N"})},
      {},
      {par({lv("i", "tiles(M)"), lv("j", "tiles(N)")},
           {assign("t", add(at("v", {"i", "j"}), at("w", {"j", "j"}))),
            for_("q", "tiles(M)..tiles(N)", {})})});
  auto r = run(k);
  ASSERT_EQ(r.errors.size(), 4u);
  EXPECT_EQ(r.errors[0], "tensor 'x' has 4 dimensions, but tensors have rank 2 (rows and "
                         "columns) or 3 (a batch of matrices); fold the leading dimensions into "
                         "one batch dimension, e.g. 'x: bf16[B, N, K]' with B the product of the "
                         "other sizes");
  EXPECT_EQ(r.errors[1], "kernel 'k' has no outputs; declare at least one: -> (C: bf16[M, N])");
  EXPECT_EQ(r.errors[2], "operands of '+' do not agree: the rows of 'v[i, j]' come from M, the "
                         "rows of 'w[j, j]' from N");
  EXPECT_EQ(r.notes[2], 2u);
  EXPECT_EQ(r.errors[3], "a range starts at an integer literal, e.g. 1 .. tiles(N)");
}

} // namespace
} // namespace tk::dsl
