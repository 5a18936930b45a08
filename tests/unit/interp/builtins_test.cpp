// Each builtin and operator of the language on its own, through a one-statement kernel, against
// its definition written per element (docs/language.md, "Expressions"). Tolerance: 1e-12 relative
// (the same double operation on both sides; sums differ only in order).
#include "tests/unit/interp/interp_test_util.hpp"

#include <algorithm>
#include <limits>
#include <set>

namespace tk::interp::test {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

/// y[i, j] = EXPR over x: f32[M, N], y: f32[M, N] (and w: f32[M, N], a scalar s).
Matrix eltwise(const std::string& expr, const Matrix& x, const Matrix& w = {}, double s = 0) {
  const dsl::Kernel k = checked("kernel k(x: f32[M, N], w: f32[M, N], s: f32) -> (y: f32[M, N]) {\n"
                                "  parallel i in tiles(M), j in tiles(N) { y[i, j] = " +
                                expr + " }\n}\n");
  const Matrix ww = w.rows ? w : Matrix(x.rows, x.cols);
  return run(k, {{{"x", x}, {"w", ww}}, {{"s", s}}, {}}).at("y");
}

Matrix map(const Matrix& x, const std::function<double(double)>& f) {
  return make(x.rows, x.cols, [&](auto r, auto c) { return f(x.at(r, c)); });
}

struct Unary {
  const char* name;
  double (*f)(double);
  double lo, hi; // the inputs: inside the function's domain
};

const Unary kUnary[] = {
    {"exp", [](double x) { return std::exp(x); }, -3, 3},
    {"log", [](double x) { return std::log(x); }, 0.1, 3},
    {"sqrt", [](double x) { return std::sqrt(x); }, 0, 3},
    {"rsqrt", [](double x) { return 1 / std::sqrt(x); }, 0.1, 3},
    {"recip", [](double x) { return 1 / x; }, 0.1, 3},
    {"relu", [](double x) { return x > 0 ? x : 0.0; }, -3, 3},
    {"gelu", [](double x) { return x * 0.5 * (1 + std::erf(x * M_SQRT1_2)); }, -3, 3},
    {"sigmoid", [](double x) { return 1 / (1 + std::exp(-x)); }, -3, 3},
    {"tanh", [](double x) { return std::tanh(x); }, -3, 3},
    {"abs", [](double x) { return std::abs(x); }, -3, 3},
    {"neg", [](double x) { return -x; }, -3, 3},
    {"square", [](double x) { return x * x; }, -3, 3},
    {"silu", [](double x) { return x / (1 + std::exp(-x)); }, -3, 3},
    {"erf", [](double x) { return std::erf(x); }, -3, 3},
    {"hardsigmoid", [](double x) { return std::clamp(x / 6 + 0.5, 0.0, 1.0); }, -5, 5},
    {"exp2", [](double x) { return std::exp2(x); }, -3, 3},
    {"log1p", [](double x) { return std::log1p(x); }, -0.9, 3},
    {"sin", [](double x) { return std::sin(x); }, -7, 7},
    {"cos", [](double x) { return std::cos(x); }, -7, 7},
    {"sign", [](double x) { return x > 0   ? 1.0
                                   : x < 0 ? -1.0
                                           : 0.0; }, -3, 3},
    {"floor", [](double x) { return std::floor(x); }, -5, 5},
    {"softplus", [](double x) { return std::log(1 + std::exp(x)); }, -6, 6},
};

TEST(InterpBuiltins, UnaryElementWise) {
  for (const Unary& u : kUnary) {
    SCOPED_TRACE(u.name);
    const Matrix x = random(64, 96, u.lo, u.hi, 21);
    EXPECT_TRUE(near(eltwise(std::string(u.name) + "(x[i, j])", x), map(x, u.f)));
  }
}

TEST(InterpBuiltins, MaxMin) {
  const Matrix x = random(64, 32, -1, 1, 22), w = random(64, 32, -1, 1, 23);
  EXPECT_TRUE(near(eltwise("max(x[i, j], w[i, j])", x, w),
                   make(64, 32, [&](auto r, auto c) { return std::max(x.at(r, c), w.at(r, c)); })));
  EXPECT_TRUE(near(eltwise("min(x[i, j], w[i, j])", x, w),
                   make(64, 32, [&](auto r, auto c) { return std::min(x.at(r, c), w.at(r, c)); })));
}

TEST(InterpBuiltins, ConstantsAndInfinities) {
  const Matrix x = random(32, 64, -1, 1, 24);
  EXPECT_TRUE(near(eltwise("zeros()", x), Matrix(32, 64, 0.0)));
  EXPECT_TRUE(near(eltwise("fill(2.5)", x), Matrix(32, 64, 2.5)));
  EXPECT_TRUE(near(eltwise("fill(s)", x, {}, -0.75), Matrix(32, 64, -0.75)));
  EXPECT_TRUE(near(eltwise("fill(inf)", x), Matrix(32, 64, kInf)));
  EXPECT_TRUE(near(eltwise("fill(-inf)", x), Matrix(32, 64, -kInf)));
  EXPECT_TRUE(near(eltwise("max(x[i, j], fill(-inf))", x), x));
  EXPECT_TRUE(near(eltwise("min(x[i, j], fill(inf))", x), x));
  EXPECT_TRUE(near(eltwise("x[i, j] + inf", x), Matrix(32, 64, kInf)));
  EXPECT_TRUE(near(eltwise("x[i, j] * 0 + -inf", x), Matrix(32, 64, -kInf)));
  EXPECT_TRUE(
      near(eltwise("fill(s) * x[i, j]", x, {}, kInf), map(x, [](double v) { return v * kInf; })));
}

TEST(InterpBuiltins, NaNPropagates) {
  Matrix x = random(32, 32, -1, 1, 25);
  x.at(3, 5) = std::numeric_limits<double>::quiet_NaN();
  for (const char* e : {"relu(x[i, j])", "max(x[i, j], fill(1))", "min(fill(-1), x[i, j])",
                        "bcast_col(rowmax(x[i, j]))", "bcast_row(colmax(x[i, j]))"}) {
    const Matrix y = eltwise(e, x);
    EXPECT_TRUE(std::isnan(y.at(3, 5))) << e;
  }
  EXPECT_TRUE(std::isnan(eltwise("bcast_col(rowmax(x[i, j]))", x).at(3, 0)));
  EXPECT_FALSE(std::isnan(eltwise("bcast_col(rowmax(x[i, j]))", x).at(4, 0)));
  EXPECT_TRUE(std::isnan(eltwise("bcast_row(colmax(x[i, j]))", x).at(0, 5)));
  EXPECT_FALSE(std::isnan(eltwise("bcast_row(colmax(x[i, j]))", x).at(0, 6)));
}

// elu(x, alpha): alpha (e^x - 1) below 0, x from 0 on; alpha a literal, a scalar parameter or
// scalar arithmetic.
TEST(InterpBuiltins, EluWithAScalarAlpha) {
  const Matrix x = random(64, 96, -4, 3, 29);
  const auto elu = [](double a) { return [a](double v) { return v < 0 ? a * std::expm1(v) : v; }; };
  EXPECT_TRUE(near(eltwise("elu(x[i, j], 0.5)", x), map(x, elu(0.5))));
  EXPECT_TRUE(near(eltwise("elu(x[i, j], s)", x, {}, 1.75), map(x, elu(1.75))));
  EXPECT_TRUE(near(eltwise("elu(x[i, j] * 2, s * 2)", x, {}, 0.25),
                   map(x, [&](double v) { return elu(0.5)(2 * v); })));
  Matrix edge(32, 32, 0.0);
  edge.at(0, 1) = -kInf;
  edge.at(0, 2) = kInf;
  const Matrix y = eltwise("elu(x[i, j], 1.5)", edge);
  EXPECT_EQ(y.at(0, 0), 0.0);
  EXPECT_EQ(y.at(0, 1), -1.5);
  EXPECT_EQ(y.at(0, 2), kInf);
}

// sign follows the SFPU (docs/language.md): 0 for +-0, and a NaN gives -1 or 1 by its sign bit.
TEST(InterpBuiltins, SignOfZeroAndNaN) {
  Matrix x = random(32, 32, -1, 1, 28);
  x.at(0, 0) = 0.0;
  x.at(0, 1) = -0.0;
  x.at(0, 2) = std::numeric_limits<double>::quiet_NaN();
  x.at(0, 3) = -std::numeric_limits<double>::quiet_NaN();
  const Matrix y = eltwise("sign(x[i, j])", x);
  EXPECT_EQ(y.at(0, 0), 0.0);
  EXPECT_EQ(y.at(0, 1), 0.0);
  EXPECT_EQ(y.at(0, 2), 1.0);
  EXPECT_EQ(y.at(0, 3), -1.0);
  EXPECT_TRUE(std::isnan(eltwise("floor(x[i, j])", x).at(0, 2)));
  EXPECT_TRUE(std::isnan(eltwise("log1p(x[i, j] - 2.5)", x).at(1, 1))); // below -1
}

TEST(InterpBuiltins, BinaryWithTilesAndScalars) {
  const Matrix x = random(64, 64, -1, 1, 26), w = random(64, 64, -1, 1, 27);
  auto both = [&](double (*f)(double, double)) {
    return make(64, 64, [&](auto r, auto c) { return f(x.at(r, c), w.at(r, c)); });
  };
  EXPECT_TRUE(
      near(eltwise("x[i, j] + w[i, j]", x, w), both([](double a, double b) { return a + b; })));
  EXPECT_TRUE(
      near(eltwise("x[i, j] - w[i, j]", x, w), both([](double a, double b) { return a - b; })));
  EXPECT_TRUE(
      near(eltwise("x[i, j] * w[i, j]", x, w), both([](double a, double b) { return a * b; })));
  EXPECT_TRUE(near(eltwise("x[i, j] * s", x, {}, 3.0), map(x, [](double v) { return v * 3; })));
  EXPECT_TRUE(near(eltwise("s - x[i, j]", x, {}, 3.0), map(x, [](double v) { return 3 - v; })));
  EXPECT_TRUE(near(eltwise("x[i, j] - 0.5", x), map(x, [](double v) { return v - 0.5; })));
  EXPECT_TRUE(near(eltwise("2 + x[i, j]", x), map(x, [](double v) { return 2 + v; })));
  EXPECT_TRUE(near(eltwise("-2 * x[i, j]", x), map(x, [](double v) { return -2 * v; })));
  EXPECT_TRUE(near(eltwise("x[i, j] * 1e-5", x), map(x, [](double v) { return v * 1e-5; })));
  // @ and * bind tighter than + and -; both sides are left-associative.
  EXPECT_TRUE(near(eltwise("x[i, j] + w[i, j] * 2", x, w),
                   both([](double a, double b) { return a + b * 2; })));
  EXPECT_TRUE(near(eltwise("(x[i, j] + w[i, j]) * 2", x, w),
                   both([](double a, double b) { return (a + b) * 2; })));
  EXPECT_TRUE(near(eltwise("x[i, j] - w[i, j] - x[i, j]", x, w),
                   both([](double a, double b) { return a - b - a; })));
}

TEST(InterpBuiltins, MatmulOfOneTilePair) {
  // Tile (i, 0) of A times tile (0, j) of B: A's first 32 columns by B's first 32 rows.
  const dsl::Kernel k = checked("kernel k(A: f32[M, 64], B: f32[64, N]) -> (C: f32[M, N]) {\n"
                                "  parallel i in tiles(M), j in tiles(N) {\n"
                                "    C[i, j] = A[i, 0] @ B[0, j] - A[i, 1] @ B[1, j]\n  }\n}\n");
  const Matrix A = random(96, 64, -1, 1, 28), B = random(64, 64, -1, 1, 29);
  Matrix want(96, 64);
  for (std::int64_t r = 0; r < 96; ++r)
    for (std::int64_t c = 0; c < 64; ++c)
      for (std::int64_t q = 0; q < 64; ++q)
        want.at(r, c) += (q < 32 ? 1 : -1) * A.at(r, q) * B.at(q, c);
  EXPECT_TRUE(near(run(k, {{{"A", A}, {"B", B}}, {}, {}}).at("C"), want));
}

TEST(InterpBuiltins, ReductionsFillOneRowOrColumnAndZeroTheRest) {
  const Matrix x = random(64, 96, -1, 1, 30);
  // Tile (ti, tj) of x covers rows 32 ti .. 32 ti + 31 and columns 32 tj .. 32 tj + 31.
  auto tile_reduce = [&](bool rows, bool sum) {
    return make(64, 96, [&](auto r, auto c) {
      const std::int64_t r0 = r / 32 * 32, c0 = c / 32 * 32;
      if ((rows && c != c0) || (!rows && r != r0))
        return 0.0;
      double acc = sum ? 0.0 : -kInf;
      for (int q = 0; q < 32; ++q) {
        const double v = rows ? x.at(r, c0 + q) : x.at(r0 + q, c);
        acc = sum ? acc + v : std::max(acc, v);
      }
      return acc;
    });
  };
  EXPECT_TRUE(near(eltwise("rowsum(x[i, j])", x), tile_reduce(true, true)));
  EXPECT_TRUE(near(eltwise("rowmax(x[i, j])", x), tile_reduce(true, false)));
  EXPECT_TRUE(near(eltwise("colsum(x[i, j])", x), tile_reduce(false, true)));
  EXPECT_TRUE(near(eltwise("colmax(x[i, j])", x), tile_reduce(false, false)));
}

TEST(InterpBuiltins, Broadcasts) {
  const Matrix x = random(64, 96, -1, 1, 31);
  EXPECT_TRUE(near(eltwise("bcast_row(x[i, j])", x),
                   make(64, 96, [&](auto r, auto c) { return x.at(r / 32 * 32, c); })));
  EXPECT_TRUE(near(eltwise("bcast_col(x[i, j])", x),
                   make(64, 96, [&](auto r, auto c) { return x.at(r, c / 32 * 32); })));
  // A reduction's zeros show through a broadcast along the other axis.
  EXPECT_TRUE(near(eltwise("bcast_row(rowsum(x[i, j]))", x), make(64, 96, [&](auto r, auto c) {
                     if (c % 32 != 0)
                       return 0.0;
                     double s = 0;
                     for (int q = 0; q < 32; ++q)
                       s += x.at(r / 32 * 32, c + q);
                     return s;
                   })));
}

// transpose(t): element (r, c) of a tile is t's (c, r), inside the same tile position here.
TEST(InterpBuiltins, TransposeWithinATile) {
  const Matrix x = random(64, 96, -1, 1, 32);
  EXPECT_TRUE(near(eltwise("transpose(x[i, j])", x), make(64, 96, [&](auto r, auto c) {
                     return x.at(r / 32 * 32 + c % 32, c / 32 * 32 + r % 32);
                   })));
}

// Comparisons make masks (1.0 where they hold), of two tiles or a tile and a scalar; where()
// picks per element, with tile or scalar branches.
TEST(InterpBuiltins, MasksAndWhere) {
  const Matrix x = random(64, 96, -1, 1, 33), w = random(64, 96, -1, 1, 34);
  auto mask = [&](auto f) {
    return make(64, 96, [&](auto r, auto c) { return f(x.at(r, c), w.at(r, c)) ? 1.0 : 0.0; });
  };
  EXPECT_TRUE(
      near(eltwise("x[i, j] < w[i, j]", x, w), mask([](double a, double b) { return a < b; })));
  EXPECT_TRUE(
      near(eltwise("x[i, j] <= w[i, j]", x, w), mask([](double a, double b) { return a <= b; })));
  EXPECT_TRUE(
      near(eltwise("x[i, j] > w[i, j]", x, w), mask([](double a, double b) { return a > b; })));
  EXPECT_TRUE(
      near(eltwise("x[i, j] >= w[i, j]", x, w), mask([](double a, double b) { return a >= b; })));
  EXPECT_TRUE(near(eltwise("x[i, j] == x[i, j]", x, w), mask([](double, double) { return true; })));
  EXPECT_TRUE(
      near(eltwise("x[i, j] != w[i, j]", x, w), mask([](double a, double b) { return a != b; })));
  EXPECT_TRUE(
      near(eltwise("x[i, j] > s", x, w, 0.25), mask([](double a, double) { return a > 0.25; })));
  EXPECT_TRUE(near(
      eltwise("where(x[i, j] < w[i, j], x[i, j], s)", x, w, -3),
      make(64, 96, [&](auto r, auto c) { return x.at(r, c) < w.at(r, c) ? x.at(r, c) : -3.0; })));
}

// tril and triu by position: element (r, c) of the output compares the global row with the
// global column, shifted by the index offsets (in tiles of 32); exactly 0 or 1.
TEST(InterpBuiltins, PositionMasks) {
  const Matrix x(96, 128);
  auto tri = [&](bool lower, std::int64_t di, std::int64_t dj) {
    return make(96, 128, [&](auto r, auto c) {
      const std::int64_t row = r + 32 * di, col = c + 32 * dj;
      return (lower ? row >= col : row <= col) ? 1.0 : 0.0;
    });
  };
  EXPECT_TRUE(near(eltwise("tril(i, j)", x), tri(true, 0, 0)));
  EXPECT_TRUE(near(eltwise("triu(i, j)", x), tri(false, 0, 0)));
  EXPECT_TRUE(near(eltwise("tril(i, j + 1)", x), tri(true, 0, 1)));
  EXPECT_TRUE(near(eltwise("triu(i - 1, j)", x), tri(false, -1, 0)));
  // A literal index: the mask of tile row 2 on every tile (i, j).
  const Matrix lit = make(96, 128, [&](auto r, auto c) { return 64 + r % 32 >= c ? 1.0 : 0.0; });
  EXPECT_TRUE(near(eltwise("tril(2, j)", x), lit));
  const Matrix w = random(96, 128, -1, 1, 35);
  EXPECT_TRUE(near(eltwise("where(tril(i, j), w[i, j], -inf)", x, w),
                   make(96, 128, [&](auto r, auto c) { return r >= c ? w.at(r, c) : -kInf; })));
}

// A builtin added to the op table (ops/ops.hpp) needs a test here: kUnary, or a test above listed
// below.
TEST(InterpBuiltins, EveryBuiltinHasATest) {
  std::set<std::string> all, tested = {"max",       "min",    "zeros",  "fill",      "rowsum",
                                       "rowmax",    "colsum", "colmax", "bcast_row", "bcast_col",
                                       "transpose", "where",  "elu",    "tril",      "triu"};
  for (const Unary& u : kUnary)
    tested.insert(u.name);
  for (int b = 0; b < static_cast<int>(dsl::Builtin::unknown); ++b)
    all.emplace(dsl::to_string(static_cast<dsl::Builtin>(b)));
  EXPECT_EQ(tested, all);
}

} // namespace
} // namespace tk::interp::test
