// The CPU causal attention as users get it: the generated run_cpu of examples/attention.tk (bf16 in
// and out, FlashAttention-2's online softmax, the key loop stopping at the diagonal tile) against
// an OpenBLAS composition on the same values in f32, head by head: cblas_sgemm for Q K^T * scale
// (S x S, all of it), the causal mask and a row softmax over it, cblas_sgemm for P V; 1 and 2
// threads, in one run. Prints the wall time of each and the ratio. FLOPs are counted as tt-metal's
// FlashAttention report counts causal attention: 2 * H * S^2 * D (both products over the causal
// half), for both (the composition computes the masked half as well).
#include "attention.hpp"
#include "vs_openblas.hpp"

#include <tilekit/cpu.hpp>

#include <benchmark/benchmark.h>
#include <cblas.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace {

struct Shape {
  std::int64_t h, s, d;
};
// S = 2048, D = 128 (issue 30); four heads: two per thread at two threads.
const Shape kShapes[] = {{4, 2048, 128}};
const int kThreads[] = {1, 2};

struct Inputs {
  Shape s;
  float scale;
  std::vector<tk::bf16> q, k, v;
  std::vector<float> qf, kf, vf; // the same values in f32, for OpenBLAS
};

std::vector<tk::bf16> random_bf16(std::int64_t n, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<tk::bf16> v(static_cast<std::size_t>(n));
  for (tk::bf16& x : v)
    x = tk::bf16(dist(gen));
  return v;
}

// Inputs uniform in [-1, 1] and scale 1/sqrt(D), as the end-to-end case's
// (tests/e2e/cases_attention.cpp): scores of order 1.
Inputs make_inputs(const Shape& s) {
  const std::int64_t n = s.h * s.s * s.d;
  Inputs in{s,
            1.0f / std::sqrt(static_cast<float>(s.d)),
            random_bf16(n, 1),
            random_bf16(n, 2),
            random_bf16(n, 3),
            {},
            {},
            {}};
  auto widen = [](const std::vector<tk::bf16>& v) {
    std::vector<float> f(v.size());
    for (std::size_t i = 0; i < v.size(); ++i)
      f[i] = static_cast<float>(v[i]);
    return f;
  };
  in.qf = widen(in.q);
  in.kf = widen(in.k);
  in.vf = widen(in.v);
  return in;
}

void run_tilekit(const Inputs& in, std::vector<tk::bf16>& o) {
  const Shape& s = in.s;
  tk::gen::attention::run_cpu({in.q.data(), s.h, s.s, s.d}, {in.k.data(), s.h, s.s, s.d},
                              {in.v.data(), s.h, s.s, s.d}, in.scale, {o.data(), s.h, s.s, s.d});
}

// Rows [r0, r1) of P: the causal mask (columns after the row are 0) and the softmax of the rest.
void masked_softmax(float* p, std::int64_t S, std::int64_t r0, std::int64_t r1) {
  for (std::int64_t r = r0; r < r1; ++r) {
    float* row = p + r * S;
    float m = -std::numeric_limits<float>::infinity();
    for (std::int64_t c = 0; c <= r; ++c)
      m = std::max(m, row[c]);
    float l = 0;
    for (std::int64_t c = 0; c <= r; ++c) {
      row[c] = std::exp(row[c] - m);
      l += row[c];
    }
    const float inv = 1.0f / l;
    for (std::int64_t c = 0; c <= r; ++c)
      row[c] *= inv;
    std::fill(row + r + 1, row + S, 0.0f);
  }
}

// Per head: sgemm Q K^T * scale, the masked softmax (its rows split over the threads, as a
// framework's softmax runs on all of them), sgemm P V.
void run_openblas(const Inputs& in, int threads, std::vector<float>& p, std::vector<float>& o) {
  const Shape& s = in.s;
  const int S = static_cast<int>(s.s), D = static_cast<int>(s.d);
  for (std::int64_t h = 0; h < s.h; ++h) {
    const float* q = in.qf.data() + h * s.s * s.d;
    const float* k = in.kf.data() + h * s.s * s.d;
    const float* v = in.vf.data() + h * s.s * s.d;
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, S, S, D, in.scale, q, D, k, D, 0.0f,
                p.data(), S);
    if (threads == 1) {
      masked_softmax(p.data(), s.s, 0, s.s);
    } else {
      // Rows split so that each thread gets half of the causal triangle's elements.
      const auto mid = static_cast<std::int64_t>(static_cast<double>(s.s) / std::sqrt(2.0));
      std::thread t([&] { masked_softmax(p.data(), s.s, mid, s.s); });
      masked_softmax(p.data(), s.s, 0, mid);
      t.join();
    }
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, S, D, S, 1.0f, p.data(), S, v, D, 0.0f,
                o.data() + h * s.s * s.d, D);
  }
}

double flops(const Shape& s) {
  return 2.0 * static_cast<double>(s.h * s.s * s.s * s.d);
}

void bm_tilekit(benchmark::State& state, Shape s, int threads) {
  const Inputs in = make_inputs(s);
  std::vector<tk::bf16> o(static_cast<std::size_t>(s.h * s.s * s.d));
  tk::cpu::set_num_threads(threads);
  tk::bench::timed(state, threads, flops(s), [&] {
    run_tilekit(in, o);
    benchmark::DoNotOptimize(o.data());
  });
}

void bm_openblas(benchmark::State& state, Shape s, int threads) {
  const Inputs in = make_inputs(s);
  std::vector<float> p(static_cast<std::size_t>(s.s * s.s)),
      o(static_cast<std::size_t>(s.h * s.s * s.d));
  openblas_set_num_threads(threads);
  tk::bench::timed(state, threads, flops(s), [&] {
    run_openblas(in, threads, p, o);
    benchmark::DoNotOptimize(o.data());
  });
}

std::string shape_name(const Shape& s) {
  return std::to_string(s.h) + "x" + std::to_string(s.s) + "x" + std::to_string(s.d);
}

// Row r of head h in double from the same (bf16) values: the causal softmax of its scores times V.
void reference_row(const Inputs& in, std::int64_t h, std::int64_t r, std::vector<double>& out) {
  const Shape& s = in.s;
  const auto at = [&](const std::vector<float>& t, std::int64_t row, std::int64_t e) {
    return static_cast<double>(t[static_cast<std::size_t>((h * s.s + row) * s.d + e)]);
  };
  std::vector<double> x(static_cast<std::size_t>(r + 1));
  double m = -INFINITY;
  for (std::int64_t c = 0; c <= r; ++c) {
    double dot = 0;
    for (std::int64_t e = 0; e < s.d; ++e)
      dot += at(in.qf, r, e) * at(in.kf, c, e);
    x[static_cast<std::size_t>(c)] = dot * static_cast<double>(in.scale);
    m = std::max(m, x[static_cast<std::size_t>(c)]);
  }
  double l = 0;
  for (double& v : x) {
    v = std::exp(v - m);
    l += v;
  }
  out.assign(static_cast<std::size_t>(s.d), 0.0);
  for (std::int64_t c = 0; c <= r; ++c)
    for (std::int64_t e = 0; e < s.d; ++e)
      out[static_cast<std::size_t>(e)] += x[static_cast<std::size_t>(c)] / l * at(in.vf, c, e);
}

// Before timing anything: both against a double reference on every 8th row of every head (the
// first and last rows included), the worst |error| and the mean signed error. TileKit's output is
// bf16: its bound is the output's rounding, 2^-8 relative, plus the f32 sums' order.
bool check() {
  bool ok = true;
  for (const Shape& s : kShapes) {
    const Inputs in = make_inputs(s);
    std::vector<tk::bf16> ours(static_cast<std::size_t>(s.h * s.s * s.d));
    std::vector<float> p(static_cast<std::size_t>(s.s * s.s)), blas(ours.size());
    tk::cpu::set_num_threads(2);
    run_tilekit(in, ours);
    openblas_set_num_threads(2);
    run_openblas(in, 2, p, blas);
    double worst_tk = 0, worst_blas = 0, sum_tk = 0, sum_blas = 0, worst_ratio = 0;
    std::int64_t n = 0;
    std::vector<double> ref;
    std::vector<std::int64_t> rows;
    for (std::int64_t r = 0; r < s.s; r += 8)
      rows.push_back(r);
    rows.push_back(s.s - 1);
    for (std::int64_t h = 0; h < s.h; ++h)
      for (std::int64_t r : rows) {
        reference_row(in, h, r, ref);
        for (std::int64_t e = 0; e < s.d; ++e) {
          const auto i = static_cast<std::size_t>((h * s.s + r) * s.d + e);
          const double want = ref[static_cast<std::size_t>(e)];
          const double dt = static_cast<double>(static_cast<float>(ours[i])) - want;
          const double db = static_cast<double>(blas[i]) - want;
          worst_tk = std::max(worst_tk, std::fabs(dt));
          worst_blas = std::max(worst_blas, std::fabs(db));
          worst_ratio = std::max(worst_ratio, std::fabs(dt) / (0x1p-7 * std::fabs(want) + 1e-3));
          sum_tk += dt;
          sum_blas += db;
          ++n;
        }
      }
    std::printf("check %s (%lld values against double): tilekit worst |err| %.3g, mean signed "
                "err %.3g; openblas worst |err| %.3g, mean signed err %.3g\n",
                shape_name(s).c_str(), static_cast<long long>(n), worst_tk,
                sum_tk / static_cast<double>(n), worst_blas, sum_blas / static_cast<double>(n));
    // Each value within 2^-7 relative (twice the bf16 output's rounding) plus 1e-3 absolute.
    ok = ok && worst_ratio <= 1.0;
  }
  return ok;
}

std::string case_name(const Shape& s, int threads) {
  return shape_name(s) + "/threads:" + std::to_string(threads);
}

} // namespace

int main(int argc, char** argv) {
  tk::bench::Table table{"shape (HxSxD)/threads", {}, "openblas_attention", {"tilekit_attention"}};
  for (const Shape& s : kShapes)
    for (int t : kThreads) {
      const std::string n = case_name(s, t);
      table.cases.push_back(n);
      tk::bench::add("tilekit_attention", n,
                     [s, t](benchmark::State& state) { bm_tilekit(state, s, t); });
      tk::bench::add("openblas_attention", n,
                     [s, t](benchmark::State& state) { bm_openblas(state, s, t); });
    }
  tk::bench::Reporter reporter;
  return tk::bench::run(argc, argv, table, check, reporter);
}
