// Arguments that do not fit a kernel throw tk::Error with exact messages, in the words of the
// generated code's shape checks where the two overlap; a kernel the checker would reject (or never
// saw) throws tk::InternalError.
#include "tests/unit/interp/interp_test_util.hpp"

#include <tilekit/runtime.hpp>

namespace tk::interp::test {
namespace {

/// The message of the tk::Error that run(k, in) throws, or a note that it threw none.
std::string error_of(const dsl::Kernel& k, const Inputs& in) {
  try {
    run(k, in);
  } catch (const tk::Error& e) {
    return e.what();
  }
  return "(no tk::Error thrown)";
}

std::string internal_error_of(const dsl::Kernel& k, const Inputs& in) {
  try {
    run(k, in);
  } catch (const tk::InternalError& e) {
    return e.what();
  }
  return "(no tk::InternalError thrown)";
}

TEST(InterpErrors, SameMessagesAsTheGeneratedShapeChecks) {
  const dsl::Kernel mm = example("matmul");
  EXPECT_EQ(error_of(mm, {{{"A", Matrix(64, 70)}, {"B", Matrix(70, 32)}}, {}, {}}),
            "matmul: A.cols = 70 is not a multiple of 32");
  EXPECT_EQ(error_of(mm, {{{"A", Matrix(64, 64)}, {"B", Matrix(96, 32)}}, {}, {}}),
            "matmul: dimension K mismatch: A.cols = 64 but B.rows = 96");
  Matrix negative;
  negative.rows = -32;
  negative.cols = 32;
  EXPECT_EQ(error_of(mm, {{{"A", negative}, {"B", Matrix(32, 32)}}, {}, {}}),
            "matmul: A.rows = -32 is negative");
  // Each tensor is checked on its own before dimensions are compared across tensors.
  EXPECT_EQ(error_of(mm, {{{"A", Matrix(64, 64)}, {"B", Matrix(96, 48)}}, {}, {}}),
            "matmul: B.cols = 48 is not a multiple of 32");
  const dsl::Kernel mbr = example("matmul_bias_relu");
  EXPECT_EQ(
      error_of(mbr,
               {{{"A", Matrix(64, 64)}, {"B", Matrix(64, 64)}, {"bias", Matrix(32, 64)}}, {}, {}}),
      "matmul_bias_relu: bias.rows = 32 but must be exactly 1 (a row vector)");
  const dsl::Kernel rms = example("rmsnorm");
  EXPECT_EQ(error_of(rms, {{{"x", Matrix(32, 32)}, {"g", Matrix(1, 64)}},
                           {{"inv_n", 1.0 / 32}, {"eps", 1e-5}},
                           {}}),
            "rmsnorm: dimension N mismatch: x.cols = 32 but g.cols = 64");
  const dsl::Kernel uc = example("unary_chain");
  EXPECT_EQ(error_of(uc, {{{"x", Matrix(48, 32)}}, {}, {}}),
            "unary_chain: x.rows = 48 is not a multiple of 32");
}

// A batch is checked like the generated TensorView checks: its count, then rows and columns;
// a matrix (rank 2) is a batch of exactly one.
TEST(InterpErrors, BatchCounts) {
  const dsl::Kernel bmm =
      checked("kernel bmm(A: bf16[B, M, K], X: bf16[B, K, N]) -> (C: bf16[B, M, N]) {\n"
              "  parallel b in 0 .. B, i in tiles(M), j in tiles(N) {\n"
              "    acc = zeros()\n"
              "    for k in tiles(K) { acc += A[b, i, k] @ X[b, k, j] }\n"
              "    C[b, i, j] = acc\n"
              "  }\n"
              "}\n");
  EXPECT_EQ(
      error_of(bmm,
               {{{"A", Matrix::batched(2, 32, 32)}, {"X", Matrix::batched(3, 32, 32)}}, {}, {}}),
      "bmm: dimension B mismatch: A.batch = 2 but X.batch = 3");
  EXPECT_EQ(
      error_of(bmm,
               {{{"A", Matrix::batched(0, 32, 32)}, {"X", Matrix::batched(1, 32, 32)}}, {}, {}}),
      "bmm: A.batch = 0 but dimension B holds at least one matrix");
  const dsl::Kernel k =
      checked("kernel k(x: f32[B, M, N], w: f32[1, M, N], v: f32[M, N]) -> (y: f32[B, M, N]) {\n"
              "  parallel b in 0 .. B, i in tiles(M), j in tiles(N) {\n"
              "    y[b, i, j] = x[b, i, j] + w[0, i, j] + v[i, j]\n"
              "  }\n"
              "}\n");
  EXPECT_EQ(error_of(k, {{{"x", Matrix::batched(2, 32, 32)},
                          {"w", Matrix::batched(3, 32, 32)},
                          {"v", Matrix(32, 32)}},
                         {},
                         {}}),
            "k: w.batch = 3 but must be exactly 1 (one matrix shared by every batch)");
  EXPECT_EQ(error_of(k, {{{"x", Matrix::batched(2, 32, 32)},
                          {"w", Matrix::batched(1, 32, 32)},
                          {"v", Matrix::batched(2, 32, 32)}},
                         {},
                         {}}),
            "k: v.batch = 2 but v is a matrix (rank 2), not a batch");
  // And it runs: y[b] = x[b] + w[0] + v for both matrices of the batch.
  Matrix x = Matrix::batched(2, 32, 32), w = Matrix::batched(1, 32, 32), v(32, 32);
  for (std::int64_t r = 0; r < 32; ++r)
    for (std::int64_t c = 0; c < 32; ++c) {
      x.at(0, r, c) = r;
      x.at(1, r, c) = 100 + c;
      w.at(0, r, c) = 0.5;
      v.at(r, c) = -1;
    }
  const auto y = run(k, {{{"x", x}, {"w", w}, {"v", v}}, {}, {}}).at("y");
  ASSERT_EQ(y.batch, 2);
  EXPECT_EQ(y.at(0, 3, 7), 3 + 0.5 - 1);
  EXPECT_EQ(y.at(1, 3, 7), 107 + 0.5 - 1);
}

TEST(InterpErrors, LiteralDimensionsAndColumnVectors) {
  const dsl::Kernel k = checked("kernel k(w: f32[M, 64], c: f32[M, 1]) -> (y: f32[M, 64]) {\n"
                                "  parallel i in tiles(M), j in 0 .. 2 {\n"
                                "    y[i, j] = w[i, j] * bcast_col(c[i, 0])\n  }\n}\n");
  EXPECT_EQ(error_of(k, {{{"w", Matrix(32, 32)}, {"c", Matrix(32, 1)}}, {}, {}}),
            "k: w.cols = 32 but must be exactly 64");
  EXPECT_EQ(error_of(k, {{{"w", Matrix(32, 64)}, {"c", Matrix(32, 2)}}, {}, {}}),
            "k: c.cols = 2 but must be exactly 1 (a column vector)");
  EXPECT_EQ(error_of(k, {{{"w", Matrix(32, 64)}, {"c", Matrix(64, 1)}}, {}, {}}),
            "k: dimension M mismatch: w.rows = 32 but c.rows = 64");
}

TEST(InterpErrors, WhatOnlyTheInterpreterChecks) {
  const dsl::Kernel ax = example("axpby");
  const Matrix x(32, 32);
  const std::map<std::string, double> ab = {{"alpha", 1}, {"beta", 2}};
  // A named dimension holds at least one tile (docs/language.md), in the generated checks' words.
  EXPECT_EQ(error_of(ax, {{{"x", Matrix(0, 32)}, {"y", Matrix(0, 32)}}, ab, {}}),
            "axpby: x.rows = 0 but dimension M holds at least one tile (a positive multiple of "
            "32)");
  Matrix short_data(32, 32);
  short_data.data.resize(5);
  EXPECT_EQ(error_of(ax, {{{"x", short_data}, {"y", x}}, ab, {}}),
            "axpby: x.data holds 5 values but x is 32x32");
  EXPECT_EQ(error_of(ax, {{{"x", x}}, ab, {}}), "axpby: no value for input tensor 'y'");
  EXPECT_EQ(error_of(ax, {{{"x", x}, {"y", x}}, {{"alpha", 1}}, {}}),
            "axpby: no value for scalar 'beta'");
  EXPECT_EQ(error_of(ax, {{{"x", x}, {"y", x}, {"beta", x}}, {{"alpha", 1}}, {}}),
            "axpby: no value for scalar 'beta' (it is given as a tensor; scalars are numbers)");
  EXPECT_EQ(error_of(ax, {{{"x", x}}, {{"alpha", 1}, {"beta", 2}, {"y", 3}}, {}}),
            "axpby: no value for input tensor 'y' (it is given as a scalar)");
  EXPECT_EQ(error_of(ax, {{{"x", x}, {"y", x}, {"z", x}}, ab, {}}),
            "axpby: 'z' is not an input tensor of axpby");
  EXPECT_EQ(error_of(ax, {{{"x", x}, {"y", x}}, {{"alpha", 1}, {"beta", 2}, {"gamma", 3}}, {}}),
            "axpby: 'gamma' is not a scalar parameter of axpby");
  EXPECT_EQ(error_of(ax, {{{"x", x}, {"y", x}}, ab, {{"M", 32}}}),
            "axpby: Inputs::dims gives M, which input 'x' already binds; it is only for a "
            "dimension that no input declares");
  EXPECT_EQ(error_of(ax, {{{"x", x}, {"y", x}}, ab, {{"Q", 32}}}),
            "axpby: Inputs::dims gives Q, which is not a dimension of axpby");
}

TEST(InterpErrors, ADimensionOnlyAnOutputDeclaresNeedsInputsDims) {
  const dsl::Kernel k =
      checked("kernel k(x: f32[M, 32]) -> (y: f32[M, P]) {\n"
              "  parallel i in tiles(M), j in tiles(P) { y[i, j] = bcast_col(x[i, 0]) }\n"
              "}\n");
  EXPECT_EQ(error_of(k, {{{"x", Matrix(32, 32)}}, {}, {}}),
            "k: dimension P of output 'y' is declared by no input; give its size in Inputs::dims");
  EXPECT_EQ(error_of(k, {{{"x", Matrix(32, 32)}}, {}, {{"P", 40}}}),
            "k: dims.P = 40 is not a multiple of 32");
}

TEST(InterpErrors, AnUncheckedKernelIsAnInternalError) {
  SourceFile src("t.tk", "kernel k(x: f32[M, N]) -> (y: f32[M, N]) {\n"
                         "  parallel i in tiles(M), j in tiles(N) { y[i, j] = exp(x[i, j]) }\n}\n");
  Diagnostics diags(&src);
  auto m = parser::parse(src, diags);
  ASSERT_TRUE(m.has_value()) << diags.str();
  EXPECT_EQ(internal_error_of(m->kernels[0], {{{"x", Matrix(32, 32)}}, {}, {}}),
            "interp: an expression of type unknown; run() takes a kernel that passed "
            "dsl::check()");
}

TEST(InterpErrors, EveryOutputTileStoredOnceIsAsserted) {
  dsl::Kernel k = checked("kernel k(x: f32[M, N]) -> (y: f32[M, N]) {\n"
                          "  parallel i in tiles(M), j in tiles(N) { y[i, j] = x[i, j] }\n}\n");
  auto& body = std::get<dsl::Parallel>(k.body[0].node).body;
  const Inputs in{{{"x", Matrix(64, 32)}}, {}, {}};
  body.push_back(body[0]); // the checker would report "output 'y' is stored twice"
  EXPECT_EQ(internal_error_of(k, in), "interp: 'y[i, j]' stores tile (0, 0) of 'y' twice; run() "
                                      "takes a kernel that passed dsl::check()");
  body.clear(); // "output 'y' is never stored"
  EXPECT_EQ(internal_error_of(k, in), "interp: tile (0, 0) of output 'y' is never stored; run() "
                                      "takes a kernel that passed dsl::check()");
}

} // namespace
} // namespace tk::interp::test
