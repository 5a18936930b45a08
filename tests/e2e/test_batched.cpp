// Batched kernels (tests/e2e/batched.tk) end to end: each run on the CPU and on the emulated TT
// device against a plain double reference and the interpreter (verify_kernel()), with B > 1, a
// batch of one and a rank-2 weight broadcast over the batch, a literal batch of row vectors, a
// sequential loop over the batch, and shapes whose work items do not divide the 8x8 grid.
#include "tests/e2e/harness.hpp"

#include "batched.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

// Without TT code (TK_E2E_BATCHED_TT=0) the TT side of every launch is NoTt.
#if TK_E2E_BATCHED_TT
#define TK_TT(...) [&] { __VA_ARGS__; }
#else
#define TK_TT(...)                                                                                 \
  NoTt {}
#endif

namespace tk::e2e {
namespace {

/// A batch stored as one matrix of batch * rows rows (the layout TensorView describes).
template <class T>
TensorView<const T> batch_view(const Matrix<T>& m, std::int64_t batch) {
  return {m.data.data(), batch, m.rows / batch, m.cols};
}
template <class T>
TensorView<T> batch_view(Matrix<T>& m, std::int64_t batch) {
  return {m.data.data(), batch, m.rows / batch, m.cols};
}
/// The interpreter's form of a stacked batch.
template <class T>
interp::Matrix batch_interp(const Matrix<T>& m, std::int64_t batch) {
  interp::Matrix r = to_interp(m);
  r.rows = m.rows / batch;
  r.batch = batch;
  return r;
}

struct BatchShape {
  std::int64_t b, m, n, k;
};

std::string name(const BatchShape& s) {
  return std::to_string(s.b) + "x" + std::to_string(s.m) + "x" + std::to_string(s.n) + "x" +
         std::to_string(s.k);
}

// B > 1 on small tiles; one tile per matrix; 5 x 3 x 5 = 75 output tiles, which do not divide
// the 64 cores of the 8x8 grid (some cores take two items, across a batch boundary); K = 288,
// longer than the CPU gemm's 256-deep K chunk.
const BatchShape kShapes[] = {{3, 64, 96, 64}, {2, 32, 32, 32}, {5, 96, 160, 96}, {2, 64, 96, 288}};

class Batched : public ::testing::TestWithParam<Backend> {};

/// The double product of matrix `b` of A (rows x k) and `x` (k x n, matrix `xb` of a batch).
void add_product(const Matrix<bf16>& a, std::int64_t b, const Matrix<bf16>& x, std::int64_t xb,
                 const BatchShape& s, Reference& ref) {
  for (std::int64_t i = 0; i < s.m; ++i)
    for (std::int64_t j = 0; j < s.n; ++j) {
      double sum = 0;
      for (std::int64_t k = 0; k < s.k; ++k)
        sum += a.at(b * s.m + i, k) * x.at(xb * s.k + k, j);
      ref.value[static_cast<std::size_t>((b * s.m + i) * s.n + j)] += sum;
    }
}

TEST_P(Batched, MatmulPerBatch) {
  for (const BatchShape& s : kShapes) {
    Rng rng(0xba7c0 + static_cast<std::uint64_t>(s.b * 1000 + s.m));
    const auto a = random_bf16(s.b * s.m, s.k, -1, 1, rng);
    const auto x = random_bf16(s.b * s.k, s.n, -1, 1, rng);
    Matrix<bf16> c(s.b * s.m, s.n);
    launch(
        GetParam(),
        [&] { gen::bmm::run_cpu(batch_view(a, s.b), batch_view(x, s.b), batch_view(c, s.b)); },
        TK_TT(gen::bmm::run_tt(device(), batch_view(a, s.b), batch_view(x, s.b),
                               batch_view(c, s.b))));
    Reference ref{s.b * s.m, s.n, std::vector<double>(c.data.size()), {}};
    for (std::int64_t b = 0; b < s.b; ++b)
      add_product(a, b, x, b, s, ref);
    set_bf16_bound(ref);
    Outcome out = verify_kernel(
        TK_E2E_BATCHED_FILE, "bmm",
        {{{"A", batch_interp(a, s.b)}, {"X", batch_interp(x, s.b)}}, {}, {}}, "C", c, ref);
    EXPECT_TRUE(out.ok) << name(s) << "\n" << out.detail;
  }
}

// One rank-2 weight matrix for every matrix of the batch (bmm_w), and a batch of A @ B^T with B
// stored [B, N, K] (bmm_t): on TT both take the blocked matmul, matrix by matrix.
TEST_P(Batched, BlockedMatmulWithSharedOrTransposedOperands) {
  for (const BatchShape& s : kShapes) {
    Rng rng(0xba7c4 + static_cast<std::uint64_t>(s.b * 1000 + s.m));
    const auto a = random_bf16(s.b * s.m, s.k, -1, 1, rng);
    const auto w = random_bf16(s.k, s.n, -1, 1, rng);
    const auto kx = random_bf16(s.b * s.n, s.k, -1, 1, rng); // [B, N, K]
    Matrix<bf16> c(s.b * s.m, s.n), st(s.b * s.m, s.n);
    launch(
        GetParam(),
        [&] {
          gen::bmm_w::run_cpu(batch_view(a, s.b), w.cview(), batch_view(c, s.b));
          gen::bmm_t::run_cpu(batch_view(a, s.b), batch_view(kx, s.b), batch_view(st, s.b));
        },
        TK_TT({
          gen::bmm_w::run_tt(device(), batch_view(a, s.b), w.cview(), batch_view(c, s.b));
          gen::bmm_t::run_tt(device(), batch_view(a, s.b), batch_view(kx, s.b),
                             batch_view(st, s.b));
        }));
    Reference ref{s.b * s.m, s.n, std::vector<double>(c.data.size()), {}};
    Reference ref_t = ref;
    for (std::int64_t b = 0; b < s.b; ++b) {
      add_product(a, b, w, 0, s, ref);
      for (std::int64_t i = 0; i < s.m; ++i)
        for (std::int64_t j = 0; j < s.n; ++j) {
          double sum = 0;
          for (std::int64_t k = 0; k < s.k; ++k)
            sum += a.at(b * s.m + i, k) * kx.at(b * s.n + j, k);
          ref_t.value[static_cast<std::size_t>((b * s.m + i) * s.n + j)] = sum;
        }
    }
    set_bf16_bound(ref);
    set_bf16_bound(ref_t);
    Outcome out =
        verify_kernel(TK_E2E_BATCHED_FILE, "bmm_w",
                      {{{"A", batch_interp(a, s.b)}, {"W", to_interp(w)}}, {}, {}}, "C", c, ref);
    EXPECT_TRUE(out.ok) << "bmm_w " << name(s) << "\n" << out.detail;
    out = verify_kernel(TK_E2E_BATCHED_FILE, "bmm_t",
                        {{{"Q", batch_interp(a, s.b)}, {"Kx", batch_interp(kx, s.b)}}, {}, {}}, "S",
                        st, ref_t);
    EXPECT_TRUE(out.ok) << "bmm_t " << name(s) << "\n" << out.detail;
  }
}

TEST_P(Batched, BlockedMatmulWithAnEpilogue) {
  for (const BatchShape& s : kShapes) {
    Rng rng(0xba7c5 + static_cast<std::uint64_t>(s.b * 1000 + s.m));
    const auto a = random_bf16(s.b * s.m, s.k, -1, 1, rng);
    const auto w = random_bf16(s.k, s.n, -1, 1, rng);
    const auto bias = random_bf16(1, s.n, -1, 1, rng);
    const auto r = random_bf16(s.b * s.m, s.n, -1, 1, rng);
    Matrix<bf16> c(s.b * s.m, s.n);
    launch(
        GetParam(),
        [&] {
          gen::bmm_epilogue::run_cpu(batch_view(a, s.b), w.cview(), bias.cview(),
                                     batch_view(r, s.b), batch_view(c, s.b));
        },
        TK_TT(gen::bmm_epilogue::run_tt(device(), batch_view(a, s.b), w.cview(), bias.cview(),
                                        batch_view(r, s.b), batch_view(c, s.b))));
    Reference ref{s.b * s.m, s.n, std::vector<double>(c.data.size()), {}};
    for (std::int64_t b = 0; b < s.b; ++b)
      add_product(a, b, w, 0, s, ref);
    for (std::int64_t row = 0; row < s.b * s.m; ++row)
      for (std::int64_t j = 0; j < s.n; ++j) {
        double& v = ref.value[static_cast<std::size_t>(row * s.n + j)];
        v = std::max(v + bias.at(0, j), 0.0) + r.at(row, j);
      }
    set_bf16_bound(ref);
    const Outcome out = verify_kernel(TK_E2E_BATCHED_FILE, "bmm_epilogue",
                                      {{{"A", batch_interp(a, s.b)},
                                        {"W", to_interp(w)},
                                        {"bias", to_interp(bias)},
                                        {"R", batch_interp(r, s.b)}},
                                       {},
                                       {}},
                                      "C", c, ref);
    EXPECT_TRUE(out.ok) << name(s) << "\n" << out.detail;
  }
}

TEST_P(Batched, MatmulWithWeightsSharedByTheBatch) {
  for (const BatchShape& s : kShapes) {
    Rng rng(0xba7c1 + static_cast<std::uint64_t>(s.b * 1000 + s.m));
    const auto a = random_bf16(s.b * s.m, s.k, -1, 1, rng);
    // Weights scaled by 1/sqrt(K) keep the outputs near 1, where the bf16 bound is meaningful.
    const double scale = 1.0 / std::sqrt(static_cast<double>(s.k));
    const auto w = random_bf16(s.k, s.n, -scale, scale, rng); // a batch of one
    const auto v = random_bf16(s.k, s.n, -scale, scale, rng); // a matrix
    const auto bias = random_bf16(1, s.n, -1, 1, rng);
    Matrix<bf16> c(s.b * s.m, s.n);
    launch(
        GetParam(),
        [&] {
          gen::bmm_shared::run_cpu(batch_view(a, s.b), batch_view(w, 1), v.cview(), bias.cview(),
                                   batch_view(c, s.b));
        },
        TK_TT(gen::bmm_shared::run_tt(device(), batch_view(a, s.b), batch_view(w, 1), v.cview(),
                                      bias.cview(), batch_view(c, s.b))));
    Reference ref{s.b * s.m, s.n, std::vector<double>(c.data.size()), {}};
    for (std::int64_t b = 0; b < s.b; ++b) {
      add_product(a, b, w, 0, s, ref);
      add_product(a, b, v, 0, s, ref);
      for (std::int64_t i = 0; i < s.m; ++i)
        for (std::int64_t j = 0; j < s.n; ++j)
          ref.value[static_cast<std::size_t>((b * s.m + i) * s.n + j)] += bias.at(0, j);
    }
    set_bf16_bound(ref);
    Outcome out = verify_kernel(TK_E2E_BATCHED_FILE, "bmm_shared",
                                {{{"A", batch_interp(a, s.b)},
                                  {"W", batch_interp(w, 1)},
                                  {"V", to_interp(v)},
                                  {"bias", to_interp(bias)}},
                                 {},
                                 {}},
                                "C", c, ref);
    EXPECT_TRUE(out.ok) << name(s) << "\n" << out.detail;
  }
}

// f32 through the FPU (a broadcast multiply): TF32 operands, each within 2^-10 relative, so the
// product is within 2^-9 relative; the CPU is exact up to one f32 rounding.
TEST_P(Batched, LiteralBatchOfRowVectors) {
  for (const BatchShape& s : kShapes) {
    Rng rng(0xba7c2 + static_cast<std::uint64_t>(s.m));
    const auto x = random_f32(3 * s.m, s.n, -4, 4, rng);
    const auto sv = random_f32(3, s.n, -4, 4, rng); // three row vectors, one per matrix
    Matrix<float> y(3 * s.m, s.n);
    launch(
        GetParam(),
        [&] { gen::bscale::run_cpu(batch_view(x, 3), batch_view(sv, 3), batch_view(y, 3)); },
        TK_TT(
            gen::bscale::run_tt(device(), batch_view(x, 3), batch_view(sv, 3), batch_view(y, 3))));
    Reference ref{3 * s.m, s.n, std::vector<double>(y.data.size()),
                  std::vector<double>(y.data.size())};
    for (std::int64_t b = 0; b < 3; ++b)
      for (std::int64_t i = 0; i < s.m; ++i)
        for (std::int64_t j = 0; j < s.n; ++j) {
          const auto e = static_cast<std::size_t>((b * s.m + i) * s.n + j);
          ref.value[e] = x.at(b * s.m + i, j) * sv.at(b, j);
          ref.bound[e] = std::ldexp(std::abs(ref.value[e]), -9);
        }
    Outcome out = verify_kernel(TK_E2E_BATCHED_FILE, "bscale",
                                {{{"x", batch_interp(x, 3)}, {"s", batch_interp(sv, 3)}}, {}, {}},
                                "y", y, ref);
    EXPECT_TRUE(out.ok) << name(s) << "\n" << out.detail;
  }
}

TEST_P(Batched, MeanOverTheBatchInASequentialLoop) {
  for (const BatchShape& s : kShapes) {
    Rng rng(0xba7c3 + static_cast<std::uint64_t>(s.b * 1000 + s.m));
    const auto x = random_bf16(s.b * s.m, s.n, -4, 4, rng);
    Matrix<bf16> y(s.m, s.n);
    launch(
        GetParam(), [&] { gen::bmean::run_cpu(batch_view(x, s.b), y.view()); },
        TK_TT(gen::bmean::run_tt(device(), batch_view(x, s.b), y.view())));
    Reference ref{s.m, s.n, std::vector<double>(y.data.size()), {}};
    for (std::int64_t b = 0; b < s.b; ++b)
      for (std::int64_t i = 0; i < s.m; ++i)
        for (std::int64_t j = 0; j < s.n; ++j)
          ref.value[static_cast<std::size_t>(i * s.n + j)] +=
              x.at(b * s.m + i, j) / static_cast<double>(s.b);
    set_bf16_bound(ref);
    Outcome out = verify_kernel(TK_E2E_BATCHED_FILE, "bmean",
                                {{{"x", batch_interp(x, s.b)}}, {}, {}}, "y", y, ref);
    EXPECT_TRUE(out.ok) << name(s) << "\n" << out.detail;
  }
}

// The generated host code checks a batch like the other dimensions.
TEST_P(Batched, ShapeErrorsNameTheBatch) {
  const auto a = Matrix<bf16>(2 * 32, 32);
  const auto x = Matrix<bf16>(3 * 32, 32);
  Matrix<bf16> c(2 * 32, 32);
  auto run = [&](TensorView<const bf16> av, TensorView<const bf16> xv) {
    launch(
        GetParam(), [&] { gen::bmm::run_cpu(av, xv, batch_view(c, 2)); },
        TK_TT(gen::bmm::run_tt(device(), av, xv, batch_view(c, 2))));
  };
  try {
    run(batch_view(a, 2), batch_view(x, 3));
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "bmm: dimension B mismatch: A.batch = 2 but X.batch = 3");
  }
  try {
    run({a.data.data(), 0, 32, 32}, batch_view(x, 3));
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "bmm: A.batch = 0 but dimension B holds at least one matrix");
  }
  const auto w = Matrix<bf16>(2 * 32, 32);
  Matrix<bf16> c2(2 * 32, 32);
  try {
    launch(
        GetParam(),
        [&] {
          gen::bmm_shared::run_cpu(batch_view(a, 2), batch_view(w, 2), a.cview(),
                                   {w.data.data(), 1, 32}, batch_view(c2, 2));
        },
        TK_TT(gen::bmm_shared::run_tt(device(), batch_view(a, 2), batch_view(w, 2), a.cview(),
                                      {w.data.data(), 1, 32}, batch_view(c2, 2))));
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "bmm_shared: W.batch = 2 but must be exactly 1 (one matrix shared by "
                           "every batch)");
  }
}

INSTANTIATE_TEST_SUITE_P(Targets, Batched, ::testing::Values(TK_E2E_BATCHED_BACKENDS),
                         [](const auto& p) { return std::string(to_string(p.param)); });

} // namespace
} // namespace tk::e2e
