// End-to-end cases of the element-wise examples: eltwise_add, axpby, unary_chain.
#include "tests/e2e/cases.hpp"

#include "axpby.hpp"
#include "eltwise_add.hpp"
#include "unary_chain.hpp"

#include <cmath>

namespace tk::e2e {
namespace {

/// f(x[i, j], y[i, j]) for every element, with the bf16 bound.
template <class F>
Reference elementwise(const Matrix<bf16>& x, const Matrix<bf16>* y, F f) {
  Reference ref{x.rows, x.cols, std::vector<double>(x.data.size()), {}};
  for (std::int64_t i = 0; i < x.rows; ++i)
    for (std::int64_t j = 0; j < x.cols; ++j)
      ref.value[static_cast<std::size_t>(i * x.cols + j)] = f(x.at(i, j), y ? y->at(i, j) : 0.0);
  set_bf16_bound(ref);
  return ref;
}

} // namespace

Outcome run_eltwise_add(Backend b, const Shape& s) {
  Rng rng(seed_for("eltwise_add", s));
  const auto x = random_bf16(s.m, s.n, -1, 1, rng);
  const auto y = random_bf16(s.m, s.n, -1, 1, rng);
  Matrix<bf16> z(s.m, s.n);
  auto cpu = [&] { gen::eltwise_add::run_cpu(x.cview(), y.cview(), z.view()); };
#if TK_E2E_TT_eltwise_add
  auto tt = [&] { gen::eltwise_add::run_tt(device(), x.cview(), y.cview(), z.view()); };
#else
  NoTt tt;
#endif
  const double seconds = launch(b, cpu, tt);
  Outcome out = verify("eltwise_add", {{{"x", to_interp(x)}, {"y", to_interp(y)}}, {}, {}}, "z", z,
                       elementwise(x, &y, [](double a, double c) { return a + c; }));
  out.seconds = seconds;
  return out;
}

Outcome run_axpby(Backend b, const Shape& s) {
  Rng rng(seed_for("axpby", s));
  const auto x = random_bf16(s.m, s.n, -1, 1, rng);
  const auto y = random_bf16(s.m, s.n, -1, 1, rng);
  const float alpha = 0.75f, beta = -1.25f;
  Matrix<bf16> z(s.m, s.n);
  auto cpu = [&] { gen::axpby::run_cpu(x.cview(), y.cview(), alpha, beta, z.view()); };
#if TK_E2E_TT_axpby
  auto tt = [&] { gen::axpby::run_tt(device(), x.cview(), y.cview(), alpha, beta, z.view()); };
#else
  NoTt tt;
#endif
  const double seconds = launch(b, cpu, tt);
  Outcome out = verify(
      "axpby", {{{"x", to_interp(x)}, {"y", to_interp(y)}}, {{"alpha", alpha}, {"beta", beta}}, {}},
      "z", z, elementwise(x, &y, [&](double a, double c) { return a * alpha + c * beta; }));
  out.seconds = seconds;
  return out;
}

Outcome run_unary_chain(Backend b, const Shape& s) {
  // exp(x) * 0.5 for x in [-3, 2] spans 0.025 .. 3.7: gelu's curved part and its linear tail.
  Rng rng(seed_for("unary_chain", s));
  const auto x = random_bf16(s.m, s.n, -3, 2, rng);
  Matrix<bf16> y(s.m, s.n);
  auto cpu = [&] { gen::unary_chain::run_cpu(x.cview(), y.view()); };
#if TK_E2E_TT_unary_chain
  auto tt = [&] { gen::unary_chain::run_tt(device(), x.cview(), y.view()); };
#else
  NoTt tt;
#endif
  const double seconds = launch(b, cpu, tt);
  auto gelu = [](double v) { return 0.5 * v * (1.0 + std::erf(v / std::sqrt(2.0))); };
  Outcome out =
      verify("unary_chain", {{{"x", to_interp(x)}}, {}, {}}, "y", y,
             elementwise(x, nullptr, [&](double a, double) { return gelu(std::exp(a) * 0.5); }));
  out.seconds = seconds;
  return out;
}

} // namespace tk::e2e
