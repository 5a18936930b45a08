// End-to-end cases of the matrix-product examples: matmul, matmul_bias_relu, matmul_bt,
// matmul_f32, batched_matmul, mlp.
#include "tests/e2e/cases.hpp"

#include "batched_matmul.hpp"
#include "matmul.hpp"
#include "matmul_bias_relu.hpp"
#include "matmul_bt.hpp"
#include "matmul_f32.hpp"
#include "mlp.hpp"

#include <algorithm>
#include <cmath>

namespace tk::e2e {
namespace {

/// sum_k a[i,k] * b[k,j] in double, and sum_k |a[i,k] * b[k,j]| (the scale of the rounding
/// errors of any summation order) in `magnitude`.
template <class T>
Reference product(const Matrix<T>& a, const Matrix<T>& b, std::vector<double>& magnitude) {
  Reference ref{a.rows, b.cols, std::vector<double>(static_cast<std::size_t>(a.rows * b.cols)), {}};
  magnitude.assign(ref.value.size(), 0.0);
  for (std::int64_t i = 0; i < a.rows; ++i) {
    for (std::int64_t k = 0; k < a.cols; ++k) {
      const double aik = a.at(i, k);
      for (std::int64_t j = 0; j < b.cols; ++j) {
        const double p = aik * b.at(k, j);
        ref.value[static_cast<std::size_t>(i * b.cols + j)] += p;
        magnitude[static_cast<std::size_t>(i * b.cols + j)] += std::abs(p);
      }
    }
  }
  return ref;
}

/// bf16 operands: B is scaled by 2/sqrt(K) so that outputs stay near 1 (standard deviation 2/3)
/// whatever K is, where the bf16 tolerance (1.6e-2 absolute + relative) is meaningful.
/// On TT with a 16-bit DST (fp32_acc = false) the running sum is rounded to bf16 after every
/// 16-wide face of K; a simulation of exactly that on these inputs gives a worst |err| / bound of
/// 0.79 at K = 320 and 1.26 at K = 608, so the 544x576x608 shape needs fp32 accumulation there.
double b_scale(const Shape& s) {
  return 2.0 / std::sqrt(static_cast<double>(s.k));
}

} // namespace

Outcome run_matmul(Backend b, const Shape& s) {
  Rng rng(seed_for("matmul", s));
  const auto A = random_bf16(s.m, s.k, -1, 1, rng);
  const auto B = random_bf16(s.k, s.n, -b_scale(s), b_scale(s), rng);
  Matrix<bf16> C(s.m, s.n);
  auto cpu = [&] { gen::matmul::run_cpu(A.cview(), B.cview(), C.view()); };
#if TK_E2E_TT_matmul
  auto tt = [&] { gen::matmul::run_tt(device(), A.cview(), B.cview(), C.view()); };
#else
  NoTt tt;
#endif
  const double seconds = launch(b, cpu, tt);
  std::vector<double> magnitude;
  Reference ref = product(A, B, magnitude);
  set_bf16_bound(ref);
  Outcome out = verify("matmul", {{{"A", to_interp(A)}, {"B", to_interp(B)}}, {}, {}}, "C", C, ref);
  out.seconds = seconds;
  return out;
}

// A batch of kBatch products C[b] = A[b] @ X[b], stored batch-major as kBatch * M rows.
Outcome run_batched_matmul(Backend b, const Shape& s) {
  constexpr std::int64_t kBatch = 2;
  Rng rng(seed_for("batched_matmul", s));
  const auto A = random_bf16(kBatch * s.m, s.k, -1, 1, rng);
  const auto X = random_bf16(kBatch * s.k, s.n, -b_scale(s), b_scale(s), rng);
  Matrix<bf16> C(kBatch * s.m, s.n);
  const TensorView<const bf16> a{A.data.data(), kBatch, s.m, s.k};
  const TensorView<const bf16> x{X.data.data(), kBatch, s.k, s.n};
  const TensorView<bf16> c{C.data.data(), kBatch, s.m, s.n};
  auto cpu = [&] { gen::batched_matmul::run_cpu(a, x, c); };
#if TK_E2E_TT_batched_matmul
  auto tt = [&] { gen::batched_matmul::run_tt(device(), a, x, c); };
#else
  NoTt tt;
#endif
  const double seconds = launch(b, cpu, tt);
  // The reference, one product per matrix of the batch, stacked like the output.
  Reference ref{kBatch * s.m, s.n, {}, {}};
  for (std::int64_t m = 0; m < kBatch; ++m) {
    Matrix<bf16> Am(s.m, s.k), Xm(s.k, s.n);
    std::copy_n(A.data.begin() + m * s.m * s.k, s.m * s.k, Am.data.begin());
    std::copy_n(X.data.begin() + m * s.k * s.n, s.k * s.n, Xm.data.begin());
    std::vector<double> magnitude;
    const Reference part = product(Am, Xm, magnitude);
    ref.value.insert(ref.value.end(), part.value.begin(), part.value.end());
  }
  set_bf16_bound(ref);
  interp::Matrix ia = to_interp(A), ix = to_interp(X);
  ia.rows = s.m;
  ia.batch = kBatch;
  ix.rows = s.k;
  ix.batch = kBatch;
  Outcome out = verify("batched_matmul", {{{"A", ia}, {"X", ix}}, {}, {}}, "C", C, ref);
  out.seconds = seconds;
  return out;
}

// B stored [N, K]: C = A @ B^T.
Outcome run_matmul_bt(Backend b, const Shape& s) {
  Rng rng(seed_for("matmul_bt", s));
  const auto A = random_bf16(s.m, s.k, -1, 1, rng);
  const auto B = random_bf16(s.n, s.k, -b_scale(s), b_scale(s), rng);
  Matrix<bf16> C(s.m, s.n);
  auto cpu = [&] { gen::matmul_bt::run_cpu(A.cview(), B.cview(), C.view()); };
#if TK_E2E_TT_matmul_bt
  auto tt = [&] { gen::matmul_bt::run_tt(device(), A.cview(), B.cview(), C.view()); };
#else
  NoTt tt;
#endif
  const double seconds = launch(b, cpu, tt);
  Matrix<bf16> Bt(s.k, s.n);
  for (std::int64_t k = 0; k < s.k; ++k)
    for (std::int64_t j = 0; j < s.n; ++j)
      Bt.data[static_cast<std::size_t>(k * s.n + j)] =
          B.data[static_cast<std::size_t>(j * s.k + k)];
  std::vector<double> magnitude;
  Reference ref = product(A, Bt, magnitude);
  set_bf16_bound(ref);
  Outcome out =
      verify("matmul_bt", {{{"A", to_interp(A)}, {"B", to_interp(B)}}, {}, {}}, "C", C, ref);
  out.seconds = seconds;
  return out;
}

Outcome run_matmul_bias_relu(Backend b, const Shape& s) {
  Rng rng(seed_for("matmul_bias_relu", s));
  const auto A = random_bf16(s.m, s.k, -1, 1, rng);
  const auto B = random_bf16(s.k, s.n, -b_scale(s), b_scale(s), rng);
  const auto bias = random_bf16(1, s.n, -0.5, 0.5, rng);
  Matrix<bf16> C(s.m, s.n);
  auto cpu = [&] { gen::matmul_bias_relu::run_cpu(A.cview(), B.cview(), bias.cview(), C.view()); };
#if TK_E2E_TT_matmul_bias_relu
  auto tt = [&] {
    gen::matmul_bias_relu::run_tt(device(), A.cview(), B.cview(), bias.cview(), C.view());
  };
#else
  NoTt tt;
#endif
  const double seconds = launch(b, cpu, tt);
  std::vector<double> magnitude;
  Reference ref = product(A, B, magnitude);
  for (std::int64_t i = 0; i < s.m; ++i)
    for (std::int64_t j = 0; j < s.n; ++j) {
      double& v = ref.value[static_cast<std::size_t>(i * s.n + j)];
      v = std::max(0.0, v + bias.at(0, j));
    }
  set_bf16_bound(ref);
  Outcome out = verify(
      "matmul_bias_relu",
      {{{"A", to_interp(A)}, {"B", to_interp(B)}, {"bias", to_interp(bias)}}, {}, {}}, "C", C, ref);
  out.seconds = seconds;
  return out;
}

// f32 bounds, both relative to sum_k |a b| (an element's own value can cancel to near 0):
// - CPU: 1e-5. fp32 products are exact in the fp32 FMA's intermediate, and the sum's rounding
//   errors (at most K * 2^-24 each in the worst case, 3.6e-5 at K = 608) are random in sign, so
//   they grow like sqrt(K) * 2^-24 (1.5e-6 at K = 608), well inside 1e-5.
// - TT: the matrix engine reads fp32 operands as TF32 (10 explicit mantissa bits, truncated), so
//   each operand is off by less than 2^-10 relative and each product by less than 2^-9; DST
//   accumulates in fp32 (fp32_acc = true), adding at most K * 2^-24. Bound: 2^-9 + K * 2^-24.
namespace {
double f32_rel_bound(Backend b, const Shape& s) {
  if (b == Backend::cpu)
    return 1e-5;
  return std::ldexp(1.0, -9) + static_cast<double>(s.k) * std::ldexp(1.0, -24);
}
} // namespace

Outcome run_matmul_f32(Backend b, const Shape& s) {
  Rng rng(seed_for("matmul_f32", s));
  const auto A = random_f32(s.m, s.k, -1, 1, rng);
  const auto B = random_f32(s.k, s.n, -1, 1, rng);
  Matrix<float> C(s.m, s.n);
  auto cpu = [&] { gen::matmul_f32::run_cpu(A.cview(), B.cview(), C.view()); };
#if TK_E2E_TT_matmul_f32
  auto tt = [&] { gen::matmul_f32::run_tt(device(), A.cview(), B.cview(), C.view()); };
#else
  NoTt tt;
#endif
  const double seconds = launch(b, cpu, tt);
  std::vector<double> magnitude;
  Reference ref = product(A, B, magnitude);
  const double rel = f32_rel_bound(b, s);
  ref.bound.resize(ref.value.size());
  for (std::size_t i = 0; i < ref.value.size(); ++i)
    ref.bound[i] = rel * magnitude[i];
  Outcome out =
      verify("matmul_f32", {{{"A", to_interp(A)}, {"B", to_interp(B)}}, {}, {}}, "C", C, ref);
  out.seconds = seconds;
  return out;
}

// Y = gelu(X @ W1 + b1) @ W2 + b2 + X in double precision, with the bf16 bound (and on TT the
// bound of the bf16 carries below).
Reference mlp_reference(const Matrix<bf16>& X, const Matrix<bf16>& W1, const Matrix<bf16>& b1,
                        const Matrix<bf16>& W2, const Matrix<bf16>& b2, bool tt) {
  const std::int64_t M = X.rows, D = X.cols, F = W1.cols;
  std::vector<double> magnitude;
  Reference u = product(X, W1, magnitude); // u = h + b1, then g = gelu(u)
  std::vector<double> g(u.value.size());
  for (std::int64_t i = 0; i < M; ++i)
    for (std::int64_t f = 0; f < F; ++f) {
      const auto at = static_cast<std::size_t>(i * F + f);
      u.value[at] += b1.at(0, f);
      g[at] = 0.5 * u.value[at] * (1 + std::erf(u.value[at] / std::sqrt(2.0)));
    }
  // On TT the running sum `acc` is carried from one f tile to the next through a bf16 circular
  // buffer (the hidden tiles need DST in between), and u and g pass through bf16 ones too: each
  // rounds by at most 2^-9 relative (round to nearest even). To first order an element's error
  // grows by 2^-9 (sum over the Ft carries of |partial sum| + sum over f of |W2| (|g| + 1.13 |u|))
  // (1.13 bounds gelu's slope), doubled here for the second-order terms, on top of the bf16 rule.
  Reference ref{M, D, std::vector<double>(static_cast<std::size_t>(M * D)), {}};
  std::vector<double> carried(ref.value.size(), 0.0);
  for (std::int64_t i = 0; i < M; ++i)
    for (std::int64_t f = 0; f < F; ++f) {
      const auto at = static_cast<std::size_t>(i * F + f);
      for (std::int64_t j = 0; j < D; ++j) {
        const auto e = static_cast<std::size_t>(i * D + j);
        ref.value[e] += g[at] * W2.at(f, j);
        carried[e] += std::abs(W2.at(f, j)) * (std::abs(g[at]) + 1.13 * std::abs(u.value[at]));
        if (f % 32 == 31)
          carried[e] += std::abs(ref.value[e]);
      }
    }
  for (std::int64_t i = 0; i < M; ++i)
    for (std::int64_t j = 0; j < D; ++j)
      ref.value[static_cast<std::size_t>(i * D + j)] += b2.at(0, j) + X.at(i, j);
  set_bf16_bound(ref);
  if (tt)
    for (std::size_t e = 0; e < ref.bound.size(); ++e)
      ref.bound[e] += 2 * 0x1p-9 * carried[e];
  return ref;
}

// The fused MLP at M x D x F = m x n x k: Y = gelu(X @ W1 + b1) @ W2 + b2 + X. The weights are
// scaled by 2/sqrt(fan-in), as B of the matmul cases, so that every stage stays of order 1.
Outcome run_mlp(Backend b, const Shape& s) {
  Rng rng(seed_for("mlp", s));
  const std::int64_t M = s.m, D = s.n, F = s.k;
  const double s1 = 2.0 / std::sqrt(static_cast<double>(D)),
               s2 = 2.0 / std::sqrt(static_cast<double>(F));
  const auto X = random_bf16(M, D, -1, 1, rng);
  const auto W1 = random_bf16(D, F, -s1, s1, rng);
  const auto b1 = random_bf16(1, F, -0.5, 0.5, rng);
  const auto W2 = random_bf16(F, D, -s2, s2, rng);
  const auto b2 = random_bf16(1, D, -0.5, 0.5, rng);
  Matrix<bf16> Y(M, D);
  auto cpu = [&] {
    gen::mlp::run_cpu(X.cview(), W1.cview(), b1.cview(), W2.cview(), b2.cview(), Y.view());
  };
#if TK_E2E_TT_mlp
  auto tt = [&] {
    gen::mlp::run_tt(device(), X.cview(), W1.cview(), b1.cview(), W2.cview(), b2.cview(), Y.view());
  };
#else
  NoTt tt;
#endif
  const double seconds = launch(b, cpu, tt);
  const Reference ref = mlp_reference(X, W1, b1, W2, b2, b == Backend::tt);
  Outcome out = verify("mlp",
                       {{{"X", to_interp(X)},
                         {"W1", to_interp(W1)},
                         {"b1", to_interp(b1)},
                         {"W2", to_interp(W2)},
                         {"b2", to_interp(b2)}},
                        {},
                        {}},
                       "Y", Y, ref);
  out.seconds = seconds;
  return out;
}

} // namespace tk::e2e
