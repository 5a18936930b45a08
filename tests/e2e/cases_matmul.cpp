// End-to-end cases of the matrix-product examples: matmul, matmul_bias_relu, matmul_bt,
// matmul_f32, batched_matmul.
#include "tests/e2e/cases.hpp"

#include "batched_matmul.hpp"
#include "matmul.hpp"
#include "matmul_bias_relu.hpp"
#include "matmul_bt.hpp"
#include "matmul_f32.hpp"

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

} // namespace tk::e2e
