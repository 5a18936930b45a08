// The CPU MLP block as users get it: the generated run_cpu of examples/mlp.tk (bf16 in and out;
// its hidden layer materialised once in an f32 scratch tensor, docs/lowering.md "Recompute or
// materialise") against an OpenBLAS composition on the same values in f32: cblas_sgemm for
// X @ W1, the bias and gelu over H, cblas_sgemm for H @ W2, then the bias and the residual; 1 and
// 2 threads, in one run. Prints the wall time of each and the ratio.
#include "mlp.hpp"
#include "vs_openblas.hpp"

#include <tilekit/cpu.hpp>

#include <benchmark/benchmark.h>
#include <cblas.h>

#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

namespace {

struct Shape {
  std::int64_t m, d, f;
};
const Shape kShapes[] = {{256, 512, 2048}};
const int kThreads[] = {1, 2};

// Inputs as bf16 values (the generated kernel's), scaled as the end-to-end case's
// (tests/e2e/cases_matmul.cpp): every stage of order 1.
struct Inputs {
  Shape s;
  std::vector<tk::bf16> x, w1, b1, w2, b2;
  std::vector<float> xf, w1f, b1f, w2f, b2f; // the same values in f32, for OpenBLAS
};

std::vector<tk::bf16> random_bf16(std::int64_t n, float lo, float hi, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<tk::bf16> v(static_cast<std::size_t>(n));
  for (tk::bf16& x : v)
    x = tk::bf16(dist(gen));
  return v;
}

std::vector<float> widen(const std::vector<tk::bf16>& v) {
  return {v.begin(), v.end()};
}

Inputs make_inputs(const Shape& s) {
  const auto s1 = static_cast<float>(2.0 / std::sqrt(static_cast<double>(s.d)));
  const auto s2 = static_cast<float>(2.0 / std::sqrt(static_cast<double>(s.f)));
  Inputs in{s,
            random_bf16(s.m * s.d, -1, 1, 1),
            random_bf16(s.d * s.f, -s1, s1, 2),
            random_bf16(s.f, -0.5f, 0.5f, 3),
            random_bf16(s.f * s.d, -s2, s2, 4),
            random_bf16(s.d, -0.5f, 0.5f, 5),
            {},
            {},
            {},
            {},
            {}};
  in.xf = widen(in.x);
  in.w1f = widen(in.w1);
  in.b1f = widen(in.b1);
  in.w2f = widen(in.w2);
  in.b2f = widen(in.b2);
  return in;
}

void run_tilekit(const Inputs& in, std::vector<tk::bf16>& y) {
  const Shape& s = in.s;
  tk::gen::mlp::run_cpu({in.x.data(), s.m, s.d}, {in.w1.data(), s.d, s.f}, {in.b1.data(), 1, s.f},
                        {in.w2.data(), s.f, s.d}, {in.b2.data(), 1, s.d}, {y.data(), s.m, s.d});
}

// Two sgemm calls with the element-wise steps in between, as a framework composes them.
void run_openblas(const Inputs& in, std::vector<float>& h, std::vector<float>& y) {
  const Shape& s = in.s;
  const int m = static_cast<int>(s.m), d = static_cast<int>(s.d), f = static_cast<int>(s.f);
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, f, d, 1.0f, in.xf.data(), d,
              in.w1f.data(), f, 0.0f, h.data(), f);
  for (std::int64_t i = 0; i < s.m; ++i)
    for (std::int64_t j = 0; j < s.f; ++j) {
      float& u = h[static_cast<std::size_t>(i * s.f + j)];
      u += in.b1f[static_cast<std::size_t>(j)];
      u = 0.5f * u * (1.0f + std::erf(u * 0.70710678118654752f));
    }
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, d, f, 1.0f, h.data(), f, in.w2f.data(),
              d, 0.0f, y.data(), d);
  for (std::int64_t i = 0; i < s.m; ++i)
    for (std::int64_t j = 0; j < s.d; ++j) {
      const auto e = static_cast<std::size_t>(i * s.d + j);
      y[e] += in.b2f[static_cast<std::size_t>(j)] + in.xf[e];
    }
}

double flops(const Shape& s) {
  return 4.0 * static_cast<double>(s.m * s.d * s.f);
}

void bm_tilekit(benchmark::State& state, Shape s, int threads) {
  const Inputs in = make_inputs(s);
  std::vector<tk::bf16> y(static_cast<std::size_t>(s.m * s.d));
  tk::cpu::set_num_threads(threads);
  tk::bench::timed(state, threads, flops(s), [&] {
    run_tilekit(in, y);
    benchmark::DoNotOptimize(y.data());
  });
}

void bm_openblas(benchmark::State& state, Shape s, int threads) {
  const Inputs in = make_inputs(s);
  std::vector<float> h(static_cast<std::size_t>(s.m * s.f)), y(static_cast<std::size_t>(s.m * s.d));
  openblas_set_num_threads(threads);
  tk::bench::timed(state, threads, flops(s), [&] {
    run_openblas(in, h, y);
    benchmark::DoNotOptimize(y.data());
  });
}

std::string shape_name(const Shape& s, int threads) {
  return std::to_string(s.m) + "x" + std::to_string(s.d) + "x" + std::to_string(s.f) +
         "/threads:" + std::to_string(threads);
}

// Row r of Y in double from the same (bf16) values: gelu(X W1 + b1) W2 + b2 + X, gelu with erf.
std::vector<double> reference_row(const Inputs& in, std::int64_t r) {
  const Shape& s = in.s;
  std::vector<double> h(static_cast<std::size_t>(s.f)), y(static_cast<std::size_t>(s.d));
  for (std::int64_t f = 0; f < s.f; ++f) {
    double u = in.b1f[static_cast<std::size_t>(f)];
    for (std::int64_t d = 0; d < s.d; ++d)
      u += static_cast<double>(in.xf[static_cast<std::size_t>(r * s.d + d)]) *
           in.w1f[static_cast<std::size_t>(d * s.f + f)];
    h[static_cast<std::size_t>(f)] = 0.5 * u * (1.0 + std::erf(u / std::sqrt(2.0)));
  }
  for (std::int64_t j = 0; j < s.d; ++j) {
    double v = static_cast<double>(in.b2f[static_cast<std::size_t>(j)]) +
               in.xf[static_cast<std::size_t>(r * s.d + j)];
    for (std::int64_t f = 0; f < s.f; ++f)
      v += h[static_cast<std::size_t>(f)] * in.w2f[static_cast<std::size_t>(f * s.d + j)];
    y[static_cast<std::size_t>(j)] = v;
  }
  return y;
}

// Before timing anything: both against a double reference on every 8th row (and the last), the
// worst |error| and the mean signed error, and the two against each other within bf16's rounding
// of the output (2^-8 relative, doubled) plus the f32 sums' order.
bool check() {
  bool ok = true;
  for (const Shape& s : kShapes) {
    const Inputs in = make_inputs(s);
    std::vector<tk::bf16> ours(static_cast<std::size_t>(s.m * s.d));
    std::vector<float> h(static_cast<std::size_t>(s.m * s.f)), ref(ours.size());
    tk::cpu::set_num_threads(2);
    run_tilekit(in, ours);
    openblas_set_num_threads(1);
    run_openblas(in, h, ref);
    double worst = 0;
    for (std::size_t i = 0; i < ours.size(); ++i)
      worst = std::max(worst, std::fabs(static_cast<double>(static_cast<float>(ours[i])) - ref[i]) /
                                  (1e-3 + std::fabs(static_cast<double>(ref[i]))));
    std::printf("check %-14s max relative |tilekit - openblas| = %.3g\n",
                shape_name(s, 0).substr(0, shape_name(s, 0).find('/')).c_str(), worst);
    ok = ok && worst < 0x1p-7;
    double worst_tk = 0, worst_blas = 0, sum_tk = 0, sum_blas = 0;
    std::int64_t n = 0;
    for (std::int64_t r = 0; r < s.m; r += (r + 8 < s.m || r == s.m - 1) ? 8 : s.m - 1 - r) {
      const std::vector<double> want = reference_row(in, r);
      for (std::int64_t j = 0; j < s.d; ++j) {
        const auto e = static_cast<std::size_t>(r * s.d + j);
        const double dt =
            static_cast<double>(static_cast<float>(ours[e])) - want[static_cast<std::size_t>(j)];
        const double db = static_cast<double>(ref[e]) - want[static_cast<std::size_t>(j)];
        worst_tk = std::max(worst_tk, std::fabs(dt));
        worst_blas = std::max(worst_blas, std::fabs(db));
        sum_tk += dt;
        sum_blas += db;
        ++n;
        // The bf16 output's rounding (2^-8 relative), doubled, plus 1e-3 for the f32 sums.
        ok = ok && std::fabs(dt) <= 0x1p-7 * std::fabs(want[static_cast<std::size_t>(j)]) + 1e-3;
      }
      if (r == s.m - 1)
        break;
    }
    std::printf("check (%lld values against double): tilekit worst |err| %.3g, mean signed err "
                "%.3g; openblas worst |err| %.3g, mean signed err %.3g\n",
                static_cast<long long>(n), worst_tk, sum_tk / static_cast<double>(n), worst_blas,
                sum_blas / static_cast<double>(n));
  }
  return ok;
}

} // namespace

int main(int argc, char** argv) {
  tk::bench::Table table{"shape (MxDxF)/threads", {}, "openblas_mlp", {"tilekit_mlp"}};
  for (const Shape& s : kShapes)
    for (int t : kThreads) {
      const std::string n = shape_name(s, t);
      table.cases.push_back(n);
      tk::bench::add("tilekit_mlp", n,
                     [s, t](benchmark::State& state) { bm_tilekit(state, s, t); });
      tk::bench::add("openblas_mlp", n,
                     [s, t](benchmark::State& state) { bm_openblas(state, s, t); });
    }
  tk::bench::Reporter reporter;
  return tk::bench::run(argc, argv, table, check, reporter);
}
