// The statements and tensor rules of the language in the interpreter: vector tensors in and out,
// index offsets and literal indices, carried values and loop-local names, several outputs,
// literal ranges, a dimension only an output declares, and reductions across the whole parallel
// space (reduction variables, the statements after the parallel). Each case is compared with the
// same computation written per element; tolerance 1e-12 · (1 + |want|).
#include "tests/unit/interp/interp_test_util.hpp"

#include <algorithm>
#include <limits>

namespace tk::interp::test {
namespace {

TEST(InterpSemantics, VectorLoadsFillRowOrColumnZeroAndZeroTheRest) {
  const dsl::Kernel k =
      checked("kernel k(v: f32[1, N], c: f32[M, 1]) -> (y: f32[M, N], z: f32[M, N]) {\n"
              "  parallel i in tiles(M), j in tiles(N) {\n"
              "    y[i, j] = v[0, j]\n"
              "    z[i, j] = c[i, 0]\n"
              "  }\n}\n");
  const Matrix v = random(1, 64, -1, 1, 41), c = random(96, 1, -1, 1, 42);
  const auto out = run(k, {{{"v", v}, {"c", c}}, {}, {}});
  EXPECT_TRUE(near(out.at("y"), make(96, 64, [&](auto r, auto col) {
                     return r % 32 == 0 ? v.at(0, col) : 0.0;
                   })));
  EXPECT_TRUE(near(out.at("z"), make(96, 64, [&](auto r, auto col) {
                     return col % 32 == 0 ? c.at(r, 0) : 0.0;
                   })));
}

TEST(InterpSemantics, VectorOutputsTakeRowOrColumnZero) {
  // Row sums and row maxima into column vectors, column sums into a row vector: several outputs,
  // each a value carried through a loop (+= and m = max(m, ...)).
  const dsl::Kernel rows = checked("kernel k(x: f32[M, N]) -> (rs: f32[M, 1], rm: f32[M, 1]) {\n"
                                   "  parallel i in tiles(M) {\n"
                                   "    s = zeros()\n"
                                   "    m = fill(-inf)\n"
                                   "    for j in tiles(N) {\n"
                                   "      s += rowsum(x[i, j])\n"
                                   "      m = max(m, rowmax(x[i, j]))\n"
                                   "    }\n"
                                   "    rs[i, 0] = s\n"
                                   "    rm[i, 0] = m\n"
                                   "  }\n}\n");
  const Matrix x = random(96, 128, -1, 1, 43);
  const auto out = run(rows, {{{"x", x}}, {}, {}});
  ASSERT_EQ(out.size(), 2u);
  Matrix rs(96, 1), rm(96, 1, -std::numeric_limits<double>::infinity());
  for (std::int64_t r = 0; r < 96; ++r)
    for (std::int64_t c = 0; c < 128; ++c) {
      rs.at(r, 0) += x.at(r, c);
      rm.at(r, 0) = std::max(rm.at(r, 0), x.at(r, c));
    }
  EXPECT_TRUE(near(out.at("rs"), rs));
  EXPECT_TRUE(near(out.at("rm"), rm));

  const dsl::Kernel cols = checked("kernel k(x: f32[M, N]) -> (cs: f32[1, N], top: f32[1, N]) {\n"
                                   "  parallel j in tiles(N) {\n"
                                   "    acc = zeros()\n"
                                   "    for i in tiles(M) { acc += colsum(x[i, j]) }\n"
                                   "    cs[0, j] = acc\n"
                                   "    top[0, j] = x[0, j] * 2\n" // a full tile: row 0 is stored
                                   "  }\n}\n");
  const auto out2 = run(cols, {{{"x", x}}, {}, {}});
  Matrix cs(1, 128);
  for (std::int64_t r = 0; r < 96; ++r)
    for (std::int64_t c = 0; c < 128; ++c)
      cs.at(0, c) += x.at(r, c);
  EXPECT_TRUE(near(out2.at("cs"), cs));
  EXPECT_TRUE(near(out2.at("top"), make(1, 128, [&](auto, auto c) { return 2 * x.at(0, c); })));
}

TEST(InterpSemantics, OffsetsAndLiteralIndices) {
  const dsl::Kernel k =
      checked("kernel k(x: f32[M, N], w: f32[M, 96], u: f32[64, N]) -> (y: f32[M, N]) {\n"
              "  parallel i in tiles(M), j in tiles(N) {\n"
              "    acc = zeros()\n"
              "    for q in 1 .. tiles(N) { acc += x[i, q - 1] }\n" // tiles 0 .. Nt - 2
              "    for q in 0 .. 2 { acc += w[i, q + 1] * 2 }\n"    // tiles 1 and 2
              "    y[i, j] = acc + w[i, 0] + bcast_row(u[1, j]) - bcast_row(u[0, j])\n"
              "  }\n}\n");
  for (std::int64_t n : {32, 96}) { // N = 32: the range 1 .. tiles(N) is empty at run time
    SCOPED_TRACE("N = " + std::to_string(n));
    const Matrix x = random(64, n, -1, 1, 44), w = random(64, 96, -1, 1, 45),
                 u = random(64, n, -1, 1, 46);
    const Matrix want = make(64, n, [&](auto r, auto c) {
      const std::int64_t cc = c % 32;
      double s = 0;
      for (std::int64_t q = 1; q < n / 32; ++q)
        s += x.at(r, (q - 1) * 32 + cc);
      for (std::int64_t q = 0; q < 2; ++q)
        s += w.at(r, (q + 1) * 32 + cc) * 2;
      return s + w.at(r, cc) + u.at(32, c) - u.at(0, c);
    });
    EXPECT_TRUE(near(run(k, {{{"x", x}, {"w", w}, {"u", u}}, {}, {}}).at("y"), want));
  }
}

TEST(InterpSemantics, LoopLocalNamesAndUpdatesOfEnclosingNames) {
  // t is local to one iteration of `for k`; the inner loop updates that t; total is carried.
  const dsl::Kernel k = checked("kernel k(A: f32[M, K]) -> (C: f32[M, K]) {\n"
                                "  parallel i in tiles(M), j in tiles(K) {\n"
                                "    total = zeros()\n"
                                "    for k in tiles(K) {\n"
                                "      t = A[i, k] * 2\n"
                                "      for q in tiles(K) { t = t - A[i, q] }\n"
                                "      total += t\n"
                                "    }\n"
                                "    C[i, j] = total + A[i, j]\n"
                                "  }\n}\n");
  const Matrix A = random(64, 96, -1, 1, 47);
  const Matrix want = make(64, 96, [&](auto r, auto c) {
    const std::int64_t cc = c % 32, kt = 3;
    double total = 0;
    for (std::int64_t kk = 0; kk < kt; ++kk) {
      double t = A.at(r, kk * 32 + cc) * 2;
      for (std::int64_t q = 0; q < kt; ++q)
        t -= A.at(r, q * 32 + cc);
      total += t;
    }
    return total + A.at(r, c);
  });
  EXPECT_TRUE(near(run(k, {{{"A", A}}, {}, {}}).at("C"), want));
}

TEST(InterpSemantics, LiteralParallelRangesAndScalars) {
  const dsl::Kernel k = checked("kernel k(x: f32[64, N], a: f32, b: f32) -> (y: f32[64, N]) {\n"
                                "  parallel i in 0 .. 2, j in tiles(N) {\n"
                                "    y[i, j] = (x[i, j] + a) * b - fill(a)\n"
                                "  }\n}\n");
  const Matrix x = random(64, 160, -1, 1, 48);
  const double a = 0.3, b = -7.5;
  EXPECT_TRUE(near(run(k, {{{"x", x}}, {{"a", a}, {"b", b}}, {}}).at("y"),
                   make(64, 160, [&](auto r, auto c) { return (x.at(r, c) + a) * b - a; })));
}

TEST(InterpSemantics, ADimensionOnlyAnOutputDeclaresComesFromInputsDims) {
  const dsl::Kernel k =
      checked("kernel k(x: f32[M, 32]) -> (y: f32[M, P]) {\n"
              "  parallel i in tiles(M), j in tiles(P) { y[i, j] = bcast_col(x[i, 0]) }\n"
              "}\n");
  const Matrix x = random(64, 32, -1, 1, 49);
  EXPECT_TRUE(near(run(k, {{{"x", x}}, {}, {{"P", 96}}}).at("y"),
                   make(64, 96, [&](auto r, auto) { return x.at(r, 0); })));
}

TEST(InterpSemantics, ReductionVariablesCarryAcrossTheParallelSpace) {
  // Every combine (+=, max(v, e), min(e, v)), an initial value from a scalar parameter, an
  // element-wise output stored beside them, then statements that run once after the parallel.
  const dsl::Kernel k = checked(
      "kernel k(x: f32[M, N], start: f32) -> (y: f32[M, N], s: f32[32, 32], hi: f32[1, 32],\n"
      "                                       lo: f32[1, 32]) {\n"
      "  acc = zeros()\n"
      "  m = fill(-inf)\n"
      "  n = fill(start)\n"
      "  parallel i in tiles(M), j in tiles(N) {\n"
      "    acc += x[i, j]\n"
      "    m = max(m, x[i, j])\n"
      "    n = min(x[i, j] * 2.0, n)\n"
      "    y[i, j] = x[i, j] + 1.0\n"
      "  }\n"
      "  t = acc * (1.0 / (M * N))\n"
      "  s[0, 0] = t\n"
      "  hi[0, 0] = rowmax(colmax(m))\n"
      "  lo[0, 0] = neg(rowmax(colmax(neg(n))))\n"
      "}\n");
  const Matrix x = random(96, 64, -1, 1, 44);
  const auto out = run(k, {{{"x", x}}, {{"start", 0.25}}, {}});
  Matrix s(32, 32), hi(1, 32), lo(1, 32);
  double top = -std::numeric_limits<double>::infinity(), bottom = 0.25;
  for (std::int64_t r = 0; r < 96; ++r)
    for (std::int64_t c = 0; c < 64; ++c) {
      s.at(r % 32, c % 32) += x.at(r, c) / (96.0 * 64.0);
      top = std::max(top, x.at(r, c));
      bottom = std::min(bottom, 2 * x.at(r, c));
    }
  hi.at(0, 0) = top;
  lo.at(0, 0) = bottom;
  EXPECT_TRUE(near(out.at("y"), make(96, 64, [&](auto r, auto c) { return x.at(r, c) + 1.0; })));
  EXPECT_TRUE(near(out.at("s"), s));
  EXPECT_TRUE(near(out.at("hi"), hi));
  EXPECT_TRUE(near(out.at("lo"), lo));
}

} // namespace
} // namespace tk::interp::test
