// Every examples/*.tk through parse, check and the interpreter, against the same computation
// written as plain loops in double over whole rows and columns (no tiles). Tolerance: 1e-12 ·
// (1 + |want|); the inputs are of order 1 and only the summation order differs.
#include "tests/unit/interp/interp_test_util.hpp"

#include <algorithm>
#include <filesystem>
#include <limits>
#include <map>
#include <set>

namespace tk::interp::test {
namespace {

struct Shape {
  std::int64_t m, n, k;
};

// A single tile; K != M != N with several tiles each.
const Shape kShapes[] = {{32, 32, 32}, {64, 96, 128}, {96, 64, 160}};

Matrix product(const Matrix& a, const Matrix& b) {
  Matrix c(a.rows, b.cols);
  for (std::int64_t i = 0; i < a.rows; ++i)
    for (std::int64_t j = 0; j < b.cols; ++j) {
      double s = 0;
      for (std::int64_t k = 0; k < a.cols; ++k)
        s += a.at(i, k) * b.at(k, j);
      c.at(i, j) = s;
    }
  return c;
}

double gelu(double x) {
  return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0)));
}

/// Runs example `stem` on `in` and compares its only output `out` with `want`.
void expect_example(const std::string& stem, const Inputs& in, const std::string& out,
                    const Matrix& want) {
  const dsl::Kernel k = example(stem);
  const auto got = run(k, in);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_TRUE(near(got.at(out), want)) << stem;
}

void matmul(const Shape& s) {
  const Matrix A = random(s.m, s.k, -1, 1, 1), B = random(s.k, s.n, -1, 1, 2);
  expect_example("matmul", {{{"A", A}, {"B", B}}, {}, {}}, "C", product(A, B));
}

// Three matrices per batch, each product checked against its own plain loops.
void batched_matmul(const Shape& s) {
  constexpr std::int64_t kBatch = 3;
  Matrix A = random(kBatch * s.m, s.k, -1, 1, 23), X = random(kBatch * s.k, s.n, -1, 1, 24);
  Matrix want = Matrix::batched(kBatch, s.m, s.n);
  for (std::int64_t b = 0; b < kBatch; ++b) {
    const Matrix Ab = make(s.m, s.k, [&](auto i, auto k) { return A.at(b * s.m + i, k); });
    const Matrix Xb = make(s.k, s.n, [&](auto k, auto j) { return X.at(b * s.k + k, j); });
    const Matrix Cb = product(Ab, Xb);
    for (std::int64_t i = 0; i < s.m; ++i)
      for (std::int64_t j = 0; j < s.n; ++j)
        want.at(b, i, j) = Cb.at(i, j);
  }
  A.rows = s.m;
  A.batch = kBatch;
  X.rows = s.k;
  X.batch = kBatch;
  expect_example("batched_matmul", {{{"A", A}, {"X", X}}, {}, {}}, "C", want);
}

void matmul_bt(const Shape& s) {
  const Matrix A = random(s.m, s.k, -1, 1, 19), B = random(s.n, s.k, -1, 1, 20);
  const Matrix Bt = make(s.k, s.n, [&](auto k, auto j) { return B.at(j, k); });
  expect_example("matmul_bt", {{{"A", A}, {"B", B}}, {}, {}}, "C", product(A, Bt));
}

// M x D x F = m x n x k.
void mlp(const Shape& s) {
  const Matrix X = random(s.m, s.n, -1, 1, 21), W1 = random(s.n, s.k, -0.5, 0.5, 22),
               b1 = random(1, s.k, -0.5, 0.5, 23), W2 = random(s.k, s.n, -0.5, 0.5, 24),
               b2 = random(1, s.n, -0.5, 0.5, 25);
  Matrix h = product(X, W1);
  for (std::int64_t i = 0; i < s.m; ++i)
    for (std::int64_t f = 0; f < s.k; ++f)
      h.at(i, f) = gelu(h.at(i, f) + b1.at(0, f));
  Matrix want = product(h, W2);
  for (std::int64_t i = 0; i < s.m; ++i)
    for (std::int64_t j = 0; j < s.n; ++j)
      want.at(i, j) += b2.at(0, j) + X.at(i, j);
  expect_example("mlp", {{{"X", X}, {"W1", W1}, {"b1", b1}, {"W2", W2}, {"b2", b2}}, {}, {}}, "Y",
                 want);
}

// Causal attention over two heads at S x D = m x n: row r of head h is the softmax of the scaled
// scores of the keys 0 .. r, times V.
void attention(const Shape& s) {
  constexpr std::int64_t kHeads = 2;
  const std::int64_t S = s.m, D = s.n;
  Matrix Q = random(kHeads * S, D, -1, 1, 26), K = random(kHeads * S, D, -1, 1, 27),
         V = random(kHeads * S, D, -1, 1, 28);
  const double scale = 0.125;
  const Matrix want = causal_attention(Q, K, V, kHeads, S, D, scale);
  for (Matrix* t : {&Q, &K, &V}) {
    t->rows = S;
    t->batch = kHeads;
  }
  expect_example("attention", {{{"Q", Q}, {"K", K}, {"V", V}}, {{"scale", scale}}, {}}, "O", want);
}

// Grouped-query attention: four query heads over two key/value heads, query head h reading
// key/value head h / 2; the reference is causal attention with each K/V head repeated for its
// two query heads.
void attention_gqa(const Shape& s) {
  constexpr std::int64_t kHeads = 4, kKv = 2;
  const std::int64_t S = s.m, D = s.n;
  Matrix Q = random(kHeads * S, D, -1, 1, 29), K = random(kKv * S, D, -1, 1, 30),
         V = random(kKv * S, D, -1, 1, 31);
  const double scale = 0.125;
  auto repeat = [&](const Matrix& t) {
    return make(kHeads * S, D, [&](auto r, auto c) { return t.at(r / S / 2 * S + r % S, c); });
  };
  const Matrix want = causal_attention(Q, repeat(K), repeat(V), kHeads, S, D, scale);
  Q.rows = S;
  Q.batch = kHeads;
  for (Matrix* t : {&K, &V}) {
    t->rows = S;
    t->batch = kKv;
  }
  expect_example("attention_gqa", {{{"Q", Q}, {"K", K}, {"V", V}}, {{"scale", scale}}, {}}, "O",
                 want);
}

void matmul_f32(const Shape& s) {
  const Matrix A = random(s.m, s.k, -1, 1, 3), B = random(s.k, s.n, -1, 1, 4);
  expect_example("matmul_f32", {{{"A", A}, {"B", B}}, {}, {}}, "C", product(A, B));
}

void matmul_bias_relu(const Shape& s) {
  const Matrix A = random(s.m, s.k, -1, 1, 5), B = random(s.k, s.n, -1, 1, 6),
               bias = random(1, s.n, -2, 2, 7);
  Matrix want = product(A, B);
  for (std::int64_t i = 0; i < s.m; ++i)
    for (std::int64_t j = 0; j < s.n; ++j)
      want.at(i, j) = std::max(0.0, want.at(i, j) + bias.at(0, j));
  expect_example("matmul_bias_relu", {{{"A", A}, {"B", B}, {"bias", bias}}, {}, {}}, "C", want);
}

void eltwise_add(const Shape& s) {
  const Matrix x = random(s.m, s.n, -1, 1, 8), y = random(s.m, s.n, -1, 1, 9);
  expect_example("eltwise_add", {{{"x", x}, {"y", y}}, {}, {}}, "z",
                 make(s.m, s.n, [&](auto i, auto j) { return x.at(i, j) + y.at(i, j); }));
}

void axpby(const Shape& s) {
  const Matrix x = random(s.m, s.n, -1, 1, 10), y = random(s.m, s.n, -1, 1, 11);
  const double alpha = 0.75, beta = -1.25;
  expect_example(
      "axpby", {{{"x", x}, {"y", y}}, {{"alpha", alpha}, {"beta", beta}}, {}}, "z",
      make(s.m, s.n, [&](auto i, auto j) { return alpha * x.at(i, j) + beta * y.at(i, j); }));
}

void unary_chain(const Shape& s) {
  const Matrix x = random(s.m, s.n, -3, 2, 12);
  expect_example("unary_chain", {{{"x", x}}, {}, {}}, "y",
                 make(s.m, s.n, [&](auto i, auto j) { return gelu(std::exp(x.at(i, j)) * 0.5); }));
}

void softmax(const Shape& s) {
  const Matrix x = random(s.m, s.n, -4, 4, 13);
  Matrix want(s.m, s.n);
  for (std::int64_t i = 0; i < s.m; ++i) {
    double mx = -std::numeric_limits<double>::infinity(), sum = 0;
    for (std::int64_t j = 0; j < s.n; ++j)
      mx = std::max(mx, x.at(i, j));
    for (std::int64_t j = 0; j < s.n; ++j)
      sum += std::exp(x.at(i, j) - mx);
    for (std::int64_t j = 0; j < s.n; ++j)
      want.at(i, j) = std::exp(x.at(i, j) - mx) / sum;
  }
  expect_example("softmax", {{{"x", x}}, {}, {}}, "y", want);
}

void rmsnorm(const Shape& s) {
  const Matrix x = random(s.m, s.n, -2, 2, 14), g = random(1, s.n, 0.5, 1.5, 15);
  const double eps = 1e-5;
  Matrix want(s.m, s.n);
  for (std::int64_t i = 0; i < s.m; ++i) {
    double ss = 0;
    for (std::int64_t j = 0; j < s.n; ++j)
      ss += x.at(i, j) * x.at(i, j);
    const double r = 1 / std::sqrt(ss / static_cast<double>(s.n) + eps);
    for (std::int64_t j = 0; j < s.n; ++j)
      want.at(i, j) = x.at(i, j) * r * g.at(0, j);
  }
  expect_example(
      "rmsnorm",
      {{{"x", x}, {"g", g}}, {{"inv_n", 1.0 / static_cast<double>(s.n)}, {"eps", eps}}, {}}, "y",
      want);
}

void layernorm(const Shape& s) {
  const Matrix x = random(s.m, s.n, -1, 3, 16), gamma = random(1, s.n, 0.5, 1.5, 17),
               beta = random(1, s.n, -0.5, 0.5, 18);
  const double eps = 1e-5, n = static_cast<double>(s.n);
  Matrix want(s.m, s.n);
  for (std::int64_t i = 0; i < s.m; ++i) {
    double sum = 0, var = 0;
    for (std::int64_t j = 0; j < s.n; ++j)
      sum += x.at(i, j);
    const double mean = sum / n;
    for (std::int64_t j = 0; j < s.n; ++j)
      var += (x.at(i, j) - mean) * (x.at(i, j) - mean);
    const double r = 1 / std::sqrt(var / n + eps);
    for (std::int64_t j = 0; j < s.n; ++j)
      want.at(i, j) = (x.at(i, j) - mean) * r * gamma.at(0, j) + beta.at(0, j);
  }
  expect_example("layernorm", {{{"x", x}, {"gamma", gamma}, {"beta", beta}}, {{"eps", eps}}, {}},
                 "y", want);
}

void tensor_max(const Shape& s) {
  const Matrix x = random(s.m, s.n, -4, 4, 19);
  Matrix want(1, 32); // rowmax(colmax(m)) into a row vector: the maximum at (0, 0), 0 elsewhere
  want.at(0, 0) = -std::numeric_limits<double>::infinity();
  for (std::int64_t i = 0; i < s.m; ++i)
    for (std::int64_t j = 0; j < s.n; ++j)
      want.at(0, 0) = std::max(want.at(0, 0), x.at(i, j));
  expect_example("tensor_max", {{{"x", x}}, {}, {}}, "y", want);
}

const std::map<std::string, void (*)(const Shape&)>& cases() {
  static const std::map<std::string, void (*)(const Shape&)> all = {
      {"attention", attention},
      {"attention_gqa", attention_gqa},
      {"axpby", axpby},
      {"eltwise_add", eltwise_add},
      {"matmul", matmul},
      {"matmul_bias_relu", matmul_bias_relu},
      {"matmul_f32", matmul_f32},
      {"rmsnorm", rmsnorm},
      {"layernorm", layernorm},
      {"matmul_bt", matmul_bt},
      {"mlp", mlp},
      {"softmax", softmax},
      {"unary_chain", unary_chain},
      {"batched_matmul", batched_matmul},
      {"tensor_max", tensor_max},
  };
  return all;
}

TEST(InterpExamples, EveryExampleMatchesPlainLoops) {
  for (const auto& [stem, f] : cases())
    for (const Shape& s : kShapes) {
      SCOPED_TRACE(stem + " " + std::to_string(s.m) + "x" + std::to_string(s.n) + "x" +
                   std::to_string(s.k));
      f(s);
    }
}

// A new examples/*.tk without a case here would go untested.
TEST(InterpExamples, EveryExampleFileHasACase) {
  std::set<std::string> files, tested;
  for (const auto& e :
       std::filesystem::directory_iterator(std::string(TK_SOURCE_DIR) + "/examples"))
    if (e.path().extension() == ".tk")
      files.insert(e.path().stem().string());
  for (const auto& [stem, f] : cases())
    tested.insert(stem);
  EXPECT_EQ(files, tested);
}

} // namespace
} // namespace tk::interp::test
