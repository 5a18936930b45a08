// End-to-end cases of the row-wise examples: softmax, rmsnorm and layernorm (one row of tiles per
// item).
#include "tests/e2e/cases.hpp"

#include "layernorm.hpp"
#include "rmsnorm.hpp"
#include "softmax.hpp"

#include <algorithm>
#include <cmath>

namespace tk::e2e {

Outcome run_softmax(Backend b, const Shape& s) {
  // [-4, 4]: row maxima differ from row to row and exp spans e^-8 .. 1 after the shift.
  Rng rng(seed_for("softmax", s));
  const auto x = random_bf16(s.m, s.n, -4, 4, rng);
  Matrix<bf16> y(s.m, s.n);
  auto cpu = [&] { gen::softmax::run_cpu(x.cview(), y.view()); };
#if TK_E2E_TT_softmax
  auto tt = [&] { gen::softmax::run_tt(device(), x.cview(), y.view()); };
#else
  NoTt tt;
#endif
  const double seconds = launch(b, cpu, tt);
  Reference ref{s.m, s.n, std::vector<double>(x.data.size()), {}};
  for (std::int64_t i = 0; i < s.m; ++i) {
    double m = -INFINITY, sum = 0;
    for (std::int64_t j = 0; j < s.n; ++j)
      m = std::max(m, x.at(i, j));
    for (std::int64_t j = 0; j < s.n; ++j)
      sum += std::exp(x.at(i, j) - m);
    for (std::int64_t j = 0; j < s.n; ++j)
      ref.value[static_cast<std::size_t>(i * s.n + j)] = std::exp(x.at(i, j) - m) / sum;
  }
  set_bf16_bound(ref);
  Outcome out = verify("softmax", {{{"x", to_interp(x)}}, {}, {}}, "y", y, ref);
  out.seconds = seconds;
  return out;
}

Outcome run_rmsnorm(Backend b, const Shape& s) {
  Rng rng(seed_for("rmsnorm", s));
  const auto x = random_bf16(s.m, s.n, -2, 2, rng);
  const auto g = random_bf16(1, s.n, 0.5, 1.5, rng);
  const float inv_n = 1.0f / static_cast<float>(s.n), eps = 1e-5f;
  Matrix<bf16> y(s.m, s.n);
  auto cpu = [&] { gen::rmsnorm::run_cpu(x.cview(), g.cview(), inv_n, eps, y.view()); };
#if TK_E2E_TT_rmsnorm
  auto tt = [&] { gen::rmsnorm::run_tt(device(), x.cview(), g.cview(), inv_n, eps, y.view()); };
#else
  NoTt tt;
#endif
  const double seconds = launch(b, cpu, tt);
  Reference ref{s.m, s.n, std::vector<double>(x.data.size()), {}};
  for (std::int64_t i = 0; i < s.m; ++i) {
    double ss = 0;
    for (std::int64_t j = 0; j < s.n; ++j)
      ss += x.at(i, j) * x.at(i, j);
    // inv_n as passed, a float (1/N is inexact for N = 160 or 576): the kernel's own input.
    const double r = 1.0 / std::sqrt(ss * static_cast<double>(inv_n) + static_cast<double>(eps));
    for (std::int64_t j = 0; j < s.n; ++j)
      ref.value[static_cast<std::size_t>(i * s.n + j)] = x.at(i, j) * r * g.at(0, j);
  }
  set_bf16_bound(ref);
  Outcome out = verify(
      "rmsnorm", {{{"x", to_interp(x)}, {"g", to_interp(g)}}, {{"inv_n", inv_n}, {"eps", eps}}, {}},
      "y", y, ref);
  out.seconds = seconds;
  return out;
}

Outcome run_layernorm(Backend b, const Shape& s) {
  // Rows with a mean away from 0 (x in [-1, 3]): the centring matters.
  return run_layernorm_on(b, s, -1, 3);
}

Outcome run_layernorm_on(Backend b, const Shape& s, double lo, double hi) {
  Rng rng(seed_for("layernorm", s));
  const auto x = random_bf16(s.m, s.n, lo, hi, rng);
  const auto gamma = random_bf16(1, s.n, 0.5, 1.5, rng);
  const auto beta = random_bf16(1, s.n, -0.5, 0.5, rng);
  const float eps = 1e-5f;
  Matrix<bf16> y(s.m, s.n);
  auto cpu = [&] {
    gen::layernorm::run_cpu(x.cview(), gamma.cview(), beta.cview(), eps, y.view());
  };
#if TK_E2E_TT_layernorm
  auto tt = [&] {
    gen::layernorm::run_tt(device(), x.cview(), gamma.cview(), beta.cview(), eps, y.view());
  };
#else
  NoTt tt;
#endif
  const double seconds = launch(b, cpu, tt);
  Reference ref{s.m, s.n, std::vector<double>(x.data.size()), {}};
  const auto n = static_cast<double>(s.n);
  for (std::int64_t i = 0; i < s.m; ++i) {
    double sum = 0, var = 0;
    for (std::int64_t j = 0; j < s.n; ++j)
      sum += x.at(i, j);
    const double mean = sum / n;
    for (std::int64_t j = 0; j < s.n; ++j)
      var += (x.at(i, j) - mean) * (x.at(i, j) - mean);
    const double r = 1.0 / std::sqrt(var / n + static_cast<double>(eps));
    for (std::int64_t j = 0; j < s.n; ++j)
      ref.value[static_cast<std::size_t>(i * s.n + j)] =
          (x.at(i, j) - mean) * r * gamma.at(0, j) + beta.at(0, j);
  }
  set_bf16_bound(ref);
  Outcome out =
      verify("layernorm",
             {{{"x", to_interp(x)}, {"gamma", to_interp(gamma)}, {"beta", to_interp(beta)}},
              {{"eps", eps}},
              {}},
             "y", y, ref);
  out.seconds = seconds;
  return out;
}

} // namespace tk::e2e
