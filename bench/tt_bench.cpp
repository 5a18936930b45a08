// tk_tt_bench: the driver of the TT benchmark table (bench/tt_bench.sh, docs/bench.md). Runs
// TileKit's generated TT kernels (examples/*.tk, built with tilekit_add_kernel) and the SDK's four
// matmul programming examples (baselines/) on the emulator with its timing model on, at one shape,
// and prints one JSON line per program: the projected device time and the model's counters
// (ProgramTiming), the figures derived from them (TFLOPS, arithmetic intensity, the bound that
// binds) and a check of the output against a double-precision reference (max |err|, the bf16
// bound's ratio, PCC), on every row or, for large products, on evenly spaced rows; with
// TK_EMULATOR_MATH=off the projection alone, in seconds at 4096^3 (docs/timing.md). It takes no
// decision about what to run: bench/tt_bench.py chooses the shapes and renders the table.
//
//   tk_tt_bench --program matmul,reuse_mcast --shape 1024,1024,1024
//   tk_tt_bench --program softmax --shape 2048,4096        (M,N for the non-matmul kernels)
//   tk_tt_bench --arch blackhole --program matmul --shape 4096,4096,4096
//
// One binary per architecture, since the generated namespaces are the examples' own: tk_tt_bench
// runs the n150 code on an emulated n150, tk_tt_bench_p150 (built with TK_BENCH_ARCH=blackhole
// from the examples generated with ttgen --arch=blackhole) the P150 code on an emulated P150;
// `--arch` names either, and a binary asked for the other one runs it in its place.
//
// Exit status: 0 when every program ran (a shape a baseline does not support is reported in its
// row as "error", not a failure), 1 when a run threw, 2 a usage error.
#include "baselines/matmul.hpp"

#include "attention.hpp"
#include "attention_bfp8.hpp"
#include "attention_flash.hpp"
#include "attention_q2.hpp"
#include "attention_q4.hpp"
#include "axpby.hpp"
#include "eltwise_add.hpp"
#include "layernorm.hpp"
#include "matmul.hpp"
#include "matmul_bias_relu.hpp"
#include "matmul_bt.hpp"
#include "matmul_f32.hpp"
#include "matmul_w8.hpp"
#include "mlp.hpp"
#include "rmsnorm.hpp"
#include "softmax.hpp"
#include "unary_chain.hpp"

#include <tilekit/cpu/bfp8.hpp>
#include <tilekit/runtime.hpp>
#include <tk_emulator/emulator.hpp>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <functional>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <tt-metalium/distributed.hpp>

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#ifndef TK_BENCH_ARCH
#define TK_BENCH_ARCH "wormhole_b0" // the architecture this binary's kernels were generated for
#endif

namespace {

using tk::baselines::MatmulAlgo;
using tk::baselines::MatmulShape;
using Device = tt::tt_metal::distributed::MeshDevice;

// ---- What can be run ---------------------------------------------------------------------------

enum class Family { matmul, elementwise, rows, attention };

struct Program {
  const char* name;
  bool generated; // a TileKit example; else one of the SDK baselines
  Family family;
  const char* dtype;       // of the inputs and outputs
  const char* accumulator; // DST: what ComputeConfig::fp32_dest_acc_en gives
  const char* flops;       // the nominal count, as written in docs/bench.md
  const char* fidelity = "HiFi4";
};

// The generated examples' options are their @options or ttgen's defaults (HiFi4 everywhere; fp32
// DST where the kernel accumulates or reduces); the baselines use the SDK examples' (HiFi4, bf16
// DST).
const Program kPrograms[] = {
    {"matmul", true, Family::matmul, "bf16", "fp32", "2MKN"},
    {"single_core", false, Family::matmul, "bf16", "bf16", "2MKN"},
    {"multi_core", false, Family::matmul, "bf16", "bf16", "2MKN"},
    {"reuse", false, Family::matmul, "bf16", "bf16", "2MKN"},
    {"reuse_mcast", false, Family::matmul, "bf16", "bf16", "2MKN"},
    {"matmul_bias_relu", true, Family::matmul, "bf16", "fp32", "2MKN+2MN"},
    {"matmul_bt", true, Family::matmul, "bf16", "fp32", "2MKN"},
    {"matmul_f32", true, Family::matmul, "f32", "fp32", "2MKN"},
    {"matmul_w8", true, Family::matmul, "bf16 x bfp8_b", "fp32", "2MKN", "HiFi2"},
    // The MLP block Y = gelu(X @ W1 + b1) @ W2 + b2 + X at M x D x F as --shape M,K,N (K = D, the
    // model width; N = F, the hidden width): two products of 2MDF each. Its run_tt launches two
    // programs (the hidden layer materialised; docs/lowering.md): the row adds them up.
    {"mlp", true, Family::matmul, "bf16", "fp32", "4MKN"},
    {"eltwise_add", true, Family::elementwise, "bf16", "bf16", "MN"},
    {"axpby", true, Family::elementwise, "bf16", "bf16", "3MN"},
    {"unary_chain", true, Family::elementwise, "bf16", "bf16", "3MN"},
    {"softmax", true, Family::rows, "bf16", "fp32", "7MN"},
    {"rmsnorm", true, Family::rows, "bf16", "fp32", "4MN"},
    {"layernorm", true, Family::rows, "bf16", "fp32", "8MN"},
    // Causal attention over H heads of S x D (shape H,S,D): examples/attention.tk recomputes every
    // score tile 2 + D/32 times; attention_flash (tests/unit/interp/attention_flash.tk) computes
    // each once, its output row o[d] carried across the key loop. FLOPs as tt-metal's
    // FlashAttention report counts causal attention
    // (tech_reports/FlashAttention/FlashAttention.md): 2 * heads * S^2 * D.
    {"attention", true, Family::attention, "bf16", "fp32", "2HSSD"},
    {"attention_flash", true, Family::attention, "bf16", "fp32", "2HSSD"},
    // bench/attention_bfp8.tk: Q, K, V stored as Bfp8_b, O bf16.
    {"attention_bfp8", true, Family::attention, "bfp8_b", "fp32", "2HSSD"},
    // bench/attention_q2.tk and attention_q4.tk: examples/attention.tk with a Q chunk of two and
    // four tile rows per work item.
    {"attention_q2", true, Family::attention, "bf16", "fp32", "2HSSD"},
    {"attention_q4", true, Family::attention, "bf16", "fp32", "2HSSD"},
};

const Program* find_program(const std::string& name) {
  for (const Program& p : kPrograms)
    if (name == p.name)
      return &p;
  return nullptr;
}

// The nominal floating-point operations: two per multiply-add, one per other element-wise op,
// reduction step or transcendental (docs/bench.md).
double nominal_flops(const Program& p, double M, double K, double N) {
  const std::string f = p.flops;
  if (f == "2MKN")
    return 2 * M * K * N;
  if (f == "4MKN")
    return 4 * M * K * N;
  if (f == "2MKN+2MN")
    return 2 * M * K * N + 2 * M * N;
  if (f == "MN")
    return M * N;
  if (f == "3MN")
    return 3 * M * N;
  if (f == "7MN")
    return 7 * M * N;
  if (f == "4MN")
    return 4 * M * N;
  if (f == "8MN")
    return 8 * M * N;
  if (f == "2HSSD") // M = H, K = S, N = D
    return 2 * M * K * K * N;
  throw std::logic_error("no flop count for " + std::string(p.name));
}

// ---- Inputs and the reference -------------------------------------------------------------------

std::vector<tk::bf16> to_tk(const std::vector<bfloat16>& v) {
  std::vector<tk::bf16> r(v.size());
  for (std::size_t i = 0; i < v.size(); ++i)
    r[i] = tk::bf16::from_bits(v[i].to_uint16());
  return r;
}

std::vector<float> to_float(const std::vector<bfloat16>& v) {
  std::vector<float> r(v.size());
  for (std::size_t i = 0; i < v.size(); ++i)
    r[i] = static_cast<float>(v[i]);
  return r;
}

std::vector<float> to_float(const std::vector<tk::bf16>& v) {
  std::vector<float> r(v.size());
  for (std::size_t i = 0; i < v.size(); ++i)
    r[i] = static_cast<float>(v[i]);
  return r;
}

template <class T>
tk::MatrixView<const T> cview(const std::vector<T>& v, std::int64_t rows, std::int64_t cols) {
  return {v.data(), rows, cols};
}
template <class T>
tk::MatrixView<T> view(std::vector<T>& v, std::int64_t rows, std::int64_t cols) {
  return {v.data(), rows, cols};
}

// The rows compared with the reference: all of them when the reference costs at most `budget`
// operations, else evenly spaced ones (0, s, 2s, ...) within it.
std::vector<std::int64_t> rows_to_check(std::int64_t rows, double cost_per_row, double budget) {
  std::int64_t n = rows;
  if (cost_per_row * static_cast<double>(rows) > budget)
    n = std::max<std::int64_t>(1, static_cast<std::int64_t>(budget / cost_per_row));
  const std::int64_t stride = (rows + n - 1) / n;
  std::vector<std::int64_t> r;
  for (std::int64_t i = 0; i < rows; i += stride)
    r.push_back(i);
  return r;
}

// |got - ref| against the bf16 rule's bound 1.6e-2 * (1 + |ref|), the Pearson coefficient, and
// the mean signed error (got - ref): a bias that max|err| and PCC do not show.
struct Check {
  std::int64_t rows = 0, rows_checked = 0;
  double max_abs_err = 0, max_bound_ratio = 0, pcc = 0, mean_err = 0;
  std::uint64_t nonfinite = 0;
};

class Checker {
public:
  void add(double got, double ref) {
    if (!std::isfinite(got)) {
      ++nonfinite_;
      return;
    }
    const double err = std::abs(got - ref);
    max_err_ = std::max(max_err_, err);
    max_ratio_ = std::max(max_ratio_, err / (tk::baselines::kBf16Tol * (1 + std::abs(ref))));
    got_.push_back(got);
    ref_.push_back(ref);
  }
  Check finish(std::int64_t rows, std::int64_t rows_checked) const {
    Check c;
    c.rows = rows;
    c.rows_checked = rows_checked;
    c.max_abs_err = max_err_;
    c.max_bound_ratio = max_ratio_;
    c.nonfinite = nonfinite_;
    const auto n = static_cast<double>(got_.size());
    double mg = 0, mr = 0;
    for (std::size_t i = 0; i < got_.size(); ++i) {
      mg += got_[i];
      mr += ref_[i];
    }
    mg /= n;
    mr /= n;
    c.mean_err = mg - mr;
    double sgr = 0, sgg = 0, srr = 0;
    for (std::size_t i = 0; i < got_.size(); ++i) {
      sgr += (got_[i] - mg) * (ref_[i] - mr);
      sgg += (got_[i] - mg) * (got_[i] - mg);
      srr += (ref_[i] - mr) * (ref_[i] - mr);
    }
    // Constant outputs (both sides) correlate perfectly.
    c.pcc = (sgg == 0 && srr == 0) ? 1.0 : sgr / std::sqrt(sgg * srr);
    return c;
  }

private:
  std::vector<double> got_, ref_;
  double max_err_ = 0, max_ratio_ = 0;
  std::uint64_t nonfinite_ = 0;
};

// Row r of A (M x K) times B (K x N) in double, plus bias and relu when given.
std::vector<double> matmul_row(const std::vector<float>& a, const std::vector<float>& b,
                               std::int64_t r, std::int64_t K, std::int64_t N) {
  std::vector<double> row(static_cast<std::size_t>(N), 0.0);
  for (std::int64_t k = 0; k < K; ++k) {
    const double ark = a[static_cast<std::size_t>(r * K + k)];
    const float* bk = &b[static_cast<std::size_t>(k * N)];
    for (std::int64_t j = 0; j < N; ++j)
      row[static_cast<std::size_t>(j)] += ark * static_cast<double>(bk[j]);
  }
  return row;
}

// ---- One program at one shape ------------------------------------------------------------------

struct Options {
  std::uint64_t seed = 1;
  double check_budget = 0x1p30; // reference operations per program; beyond, rows are sampled
  bool check = true;
  bool math = true; // TK_EMULATOR_MATH: off projects without computing (and checks nothing)
};

// What the output of one run looks like to the checker: given the checked row indices, feeds the
// checker (got, ref) pairs.
using CheckFn = std::function<void(const std::vector<std::int64_t>& rows, Checker& checker)>;

struct RunResult {
  double wall_seconds = 0;
  std::string plan;            // the baselines' describe_plan
  std::int64_t out_rows = 0;   // M
  double ref_cost_per_row = 0; // operations of the reference per output row
  CheckFn check;
};

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Runs a matmul-family program: C = A * B (+ bias, relu) with A uniform in [-1, 1] and B in
// [-2/sqrt(K), 2/sqrt(K)], as tk-baseline-matmul and TileKit's end-to-end cases, so C has a
// standard deviation of 2/3 whatever K is.
RunResult run_matmul_family(Device& device, const Program& p, MatmulShape s, const Options& o) {
  const std::int64_t M = s.M, K = s.K, N = s.N;
  const auto b_scale = static_cast<float>(2.0 / std::sqrt(static_cast<double>(K)));
  const std::vector<bfloat16> a = tk::baselines::random_bf16_matrix(s.M, s.K, o.seed);
  const std::vector<bfloat16> b =
      tk::baselines::random_bf16_matrix(s.K, s.N, o.seed + 1, -b_scale, b_scale);
  std::vector<float> af = to_float(a), bf = to_float(b);
  RunResult r;
  r.out_rows = M;
  r.ref_cost_per_row = static_cast<double>(K) * static_cast<double>(N);
  std::vector<float> c; // the output, row-major
  std::vector<double> bias;
  const std::string name = p.name;
  if (!p.generated) {
    const auto algo = *tk::baselines::parse_matmul_algo(name);
    r.plan = tk::baselines::describe_plan(device, algo, s);
    const auto start = std::chrono::steady_clock::now();
    c = tk::baselines::run_matmul(device, algo, s, a, b);
    r.wall_seconds = seconds_since(start);
  } else if (name == "matmul" || name == "matmul_bias_relu") {
    const std::vector<tk::bf16> A = to_tk(a), B = to_tk(b);
    std::vector<tk::bf16> C(static_cast<std::size_t>(M * N));
    const auto start = std::chrono::steady_clock::now();
    if (name == "matmul") {
      tk::gen::matmul::run_tt(device, cview(A, M, K), cview(B, K, N), view(C, M, N));
    } else {
      const std::vector<bfloat16> bias16 =
          tk::baselines::random_bf16_matrix(1, s.N, o.seed + 2, -0.5f, 0.5f);
      const std::vector<tk::bf16> Bias = to_tk(bias16);
      for (const bfloat16& v : bias16)
        bias.push_back(static_cast<float>(v));
      tk::gen::matmul_bias_relu::run_tt(device, cview(A, M, K), cview(B, K, N), cview(Bias, 1, N),
                                        view(C, M, N));
    }
    r.wall_seconds = seconds_since(start);
    c = to_float(C);
  } else if (name == "matmul_bt") {
    // The same product with B stored transposed, [N, K], as attention's K.
    std::vector<tk::bf16> Bt(static_cast<std::size_t>(N * K)), C(static_cast<std::size_t>(M * N));
    for (std::int64_t k = 0; k < K; ++k)
      for (std::int64_t j = 0; j < N; ++j)
        Bt[static_cast<std::size_t>(j * K + k)] = tk::bf16(b[static_cast<std::size_t>(k * N + j)]);
    const std::vector<tk::bf16> A = to_tk(a);
    const auto start = std::chrono::steady_clock::now();
    tk::gen::matmul_bt::run_tt(device, cview(A, M, K), cview(Bt, N, K), view(C, M, N));
    r.wall_seconds = seconds_since(start);
    c = to_float(C);
  } else if (name == "matmul_f32") {
    // The same values (bf16 widened to f32), so every matmul row sees the same product.
    c.resize(static_cast<std::size_t>(M * N));
    const auto start = std::chrono::steady_clock::now();
    tk::gen::matmul_f32::run_tt(device, cview(af, M, K), cview(bf, K, N), view(c, M, N));
    r.wall_seconds = seconds_since(start);
  } else if (name == "matmul_w8") {
    // The same B, stored as Bfp8_b on the device; the reference multiplies the values it holds.
    std::vector<tk::bf16> A = to_tk(a), C(static_cast<std::size_t>(M * N));
    const auto start = std::chrono::steady_clock::now();
    tk::gen::matmul_w8::run_tt(device, cview(A, M, K), cview(bf, K, N), view(C, M, N));
    r.wall_seconds = seconds_since(start);
    c = to_float(C);
    bf = tk::cpu::round_to_bfp8(cview(bf, K, N));
  } else {
    throw std::logic_error("not a matmul program: " + name);
  }
  r.check = [af = std::move(af), bf = std::move(bf), c = std::move(c), bias = std::move(bias), K,
             N](const std::vector<std::int64_t>& rows, Checker& checker) {
    for (const std::int64_t i : rows) {
      std::vector<double> ref = matmul_row(af, bf, i, K, N);
      for (std::int64_t j = 0; j < N; ++j) {
        double v = ref[static_cast<std::size_t>(j)];
        if (!bias.empty())
          v = std::max(0.0, v + bias[static_cast<std::size_t>(j)]);
        checker.add(c[static_cast<std::size_t>(i * N + j)], v);
      }
    }
  };
  return r;
}

// examples/mlp.tk at M x D x F: X uniform in [-1, 1], W1 and W2 scaled by 2/sqrt(fan-in) and the
// biases in [-0.5, 0.5], as TileKit's end-to-end case (tests/e2e/cases_matmul.cpp), so every stage
// stays of order 1. The reference is each checked row in double, gelu by erf.
RunResult run_mlp(Device& device, std::int64_t M, std::int64_t D, std::int64_t F,
                  const Options& o) {
  using tk::baselines::random_bf16_matrix;
  const auto s1 = static_cast<float>(2.0 / std::sqrt(static_cast<double>(D)));
  const auto s2 = static_cast<float>(2.0 / std::sqrt(static_cast<double>(F)));
  const auto M_ = static_cast<std::size_t>(M), D_ = static_cast<std::size_t>(D),
             F_ = static_cast<std::size_t>(F);
  const std::vector<tk::bf16> X = to_tk(random_bf16_matrix(M_, D_, o.seed)),
                              W1 = to_tk(random_bf16_matrix(D_, F_, o.seed + 1, -s1, s1)),
                              b1 = to_tk(random_bf16_matrix(1, F_, o.seed + 2, -0.5f, 0.5f)),
                              W2 = to_tk(random_bf16_matrix(F_, D_, o.seed + 3, -s2, s2)),
                              b2 = to_tk(random_bf16_matrix(1, D_, o.seed + 4, -0.5f, 0.5f));
  std::vector<tk::bf16> Y(M_ * D_);
  RunResult r;
  r.out_rows = M;
  r.ref_cost_per_row = 2 * static_cast<double>(D) * static_cast<double>(F);
  const auto start = std::chrono::steady_clock::now();
  tk::gen::mlp::run_tt(device, cview(X, M, D), cview(W1, D, F), cview(b1, 1, F), cview(W2, F, D),
                       cview(b2, 1, D), view(Y, M, D));
  r.wall_seconds = seconds_since(start);
  r.check = [x = to_float(X), w1 = to_float(W1), b1 = to_float(b1), w2 = to_float(W2),
             b2 = to_float(b2), y = to_float(Y), D,
             F](const std::vector<std::int64_t>& rows, Checker& checker) {
    for (const std::int64_t i : rows) {
      std::vector<double> h = matmul_row(x, w1, i, D, F);
      std::vector<float> g(static_cast<std::size_t>(F));
      for (std::int64_t f = 0; f < F; ++f) {
        const double u = h[static_cast<std::size_t>(f)] + b1[static_cast<std::size_t>(f)];
        g[static_cast<std::size_t>(f)] =
            static_cast<float>(0.5 * u * (1 + std::erf(u / std::sqrt(2.0))));
      }
      const std::vector<double> out = matmul_row(g, w2, 0, F, D);
      for (std::int64_t j = 0; j < D; ++j) {
        const auto e = static_cast<std::size_t>(i * D + j);
        checker.add(y[e],
                    out[static_cast<std::size_t>(j)] + b2[static_cast<std::size_t>(j)] + x[e]);
      }
    }
  };
  return r;
}

// Runs an element-wise or row-wise example on M x N inputs.
RunResult run_other(Device& device, const Program& p, std::int64_t M, std::int64_t N,
                    const Options& o) {
  const std::string name = p.name;
  // softmax: row maxima that differ and exp spanning e^-8 .. 1; layernorm: rows whose mean is
  // away from 0, so the centring matters (as TileKit's end-to-end cases).
  const float lo = name == "softmax" ? -4.0f : -1.0f;
  const float hi = name == "layernorm" ? 3.0f : -lo;
  const std::vector<bfloat16> x16 = tk::baselines::random_bf16_matrix(
      static_cast<std::size_t>(M), static_cast<std::size_t>(N), o.seed, lo, hi);
  const std::vector<tk::bf16> x = to_tk(x16);
  std::vector<tk::bf16> out(static_cast<std::size_t>(M * N));
  std::vector<float> xf = to_float(x16), yf, gf, bf;
  constexpr float kAlpha = 0.75f, kBeta = -1.5f, kEps = 1e-5f;
  RunResult r;
  r.out_rows = M;
  r.ref_cost_per_row = static_cast<double>(N);
  const auto start = std::chrono::steady_clock::now();
  if (name == "eltwise_add" || name == "axpby") {
    const std::vector<bfloat16> y16 = tk::baselines::random_bf16_matrix(
        static_cast<std::size_t>(M), static_cast<std::size_t>(N), o.seed + 1);
    yf = to_float(y16);
    const std::vector<tk::bf16> y = to_tk(y16);
    if (name == "eltwise_add")
      tk::gen::eltwise_add::run_tt(device, cview(x, M, N), cview(y, M, N), view(out, M, N));
    else
      tk::gen::axpby::run_tt(device, cview(x, M, N), cview(y, M, N), kAlpha, kBeta,
                             view(out, M, N));
  } else if (name == "unary_chain") {
    tk::gen::unary_chain::run_tt(device, cview(x, M, N), view(out, M, N));
  } else if (name == "softmax") {
    tk::gen::softmax::run_tt(device, cview(x, M, N), view(out, M, N));
  } else if (name == "rmsnorm") {
    const std::vector<bfloat16> g16 =
        tk::baselines::random_bf16_matrix(1, static_cast<std::size_t>(N), o.seed + 1, 0.5f, 1.5f);
    gf = to_float(g16);
    const std::vector<tk::bf16> g = to_tk(g16);
    tk::gen::rmsnorm::run_tt(device, cview(x, M, N), cview(g, 1, N), 1.0f / static_cast<float>(N),
                             kEps, view(out, M, N));
  } else if (name == "layernorm") {
    const std::vector<bfloat16> g16 =
        tk::baselines::random_bf16_matrix(1, static_cast<std::size_t>(N), o.seed + 1, 0.5f, 1.5f);
    const std::vector<bfloat16> b16 =
        tk::baselines::random_bf16_matrix(1, static_cast<std::size_t>(N), o.seed + 2, -0.5f, 0.5f);
    gf = to_float(g16);
    bf = to_float(b16);
    const std::vector<tk::bf16> g = to_tk(g16), b = to_tk(b16);
    tk::gen::layernorm::run_tt(device, cview(x, M, N), cview(g, 1, N), cview(b, 1, N), kEps,
                               view(out, M, N));
  } else {
    throw std::logic_error("not an element-wise or row-wise program: " + name);
  }
  r.wall_seconds = seconds_since(start);
  r.check = [name, xf = std::move(xf), yf = std::move(yf), gf = std::move(gf), bf = std::move(bf),
             got = to_float(out), N](const std::vector<std::int64_t>& rows, Checker& checker) {
    for (const std::int64_t i : rows) {
      const float* xr = &xf[static_cast<std::size_t>(i * N)];
      const float* gr = &got[static_cast<std::size_t>(i * N)];
      std::vector<double> ref(static_cast<std::size_t>(N));
      if (name == "eltwise_add" || name == "axpby") {
        const float* yr = &yf[static_cast<std::size_t>(i * N)];
        for (std::int64_t j = 0; j < N; ++j)
          ref[j] = name == "eltwise_add" ? double(xr[j]) + yr[j]
                                         : double(kAlpha) * xr[j] + double(kBeta) * yr[j];
      } else if (name == "unary_chain") {
        for (std::int64_t j = 0; j < N; ++j) {
          const double v = std::exp(double(xr[j])) * 0.5;
          ref[j] = 0.5 * v * (1 + std::erf(v / std::sqrt(2.0)));
        }
      } else if (name == "softmax") {
        double mx = -INFINITY, sum = 0;
        for (std::int64_t j = 0; j < N; ++j)
          mx = std::max(mx, double(xr[j]));
        for (std::int64_t j = 0; j < N; ++j)
          sum += std::exp(xr[j] - mx);
        for (std::int64_t j = 0; j < N; ++j)
          ref[j] = std::exp(xr[j] - mx) / sum;
      } else if (name == "layernorm") {
        double sum = 0, var = 0;
        for (std::int64_t j = 0; j < N; ++j)
          sum += xr[j];
        const double mean = sum / static_cast<double>(N);
        for (std::int64_t j = 0; j < N; ++j)
          var += (xr[j] - mean) * (xr[j] - mean);
        const double inv = 1 / std::sqrt(var / static_cast<double>(N) + double(kEps));
        for (std::int64_t j = 0; j < N; ++j)
          ref[j] = (xr[j] - mean) * inv * gf[static_cast<std::size_t>(j)] +
                   bf[static_cast<std::size_t>(j)];
      } else { // rmsnorm
        double ss = 0;
        for (std::int64_t j = 0; j < N; ++j)
          ss += double(xr[j]) * xr[j];
        const double inv = 1 / std::sqrt(ss / static_cast<double>(N) + double(kEps));
        for (std::int64_t j = 0; j < N; ++j)
          ref[j] = xr[j] * inv * gf[static_cast<std::size_t>(j)];
      }
      for (std::int64_t j = 0; j < N; ++j)
        checker.add(gr[j], ref[static_cast<std::size_t>(j)]);
    }
  };
  return r;
}

// Runs causal attention on H heads of S x D: Q, K, V uniform in [-1, 1], scale 1/sqrt(D); the
// reference is the double softmax(Q K^T * scale, masked) V of each checked row (h, q).
RunResult run_attention(Device& device, const Program& p, std::int64_t H, std::int64_t S,
                        std::int64_t D, const Options& o) {
  const std::string name = p.name;
  std::vector<std::vector<bfloat16>> qkv;
  for (std::uint64_t k = 0; k < 3; ++k)
    qkv.push_back(tk::baselines::random_bf16_matrix(static_cast<std::size_t>(H * S),
                                                    static_cast<std::size_t>(D), o.seed + k));
  const std::vector<tk::bf16> q = to_tk(qkv[0]), k = to_tk(qkv[1]), v = to_tk(qkv[2]);
  std::vector<float> qf = to_float(qkv[0]), kf = to_float(qkv[1]), vf = to_float(qkv[2]);
  std::vector<tk::bf16> out(static_cast<std::size_t>(H * S * D));
  const float scale = 1.0f / std::sqrt(static_cast<float>(D));
  const tk::TensorView<const tk::bf16> qv{q.data(), H, S, D}, kv{k.data(), H, S, D},
      vv{v.data(), H, S, D};
  const tk::TensorView<tk::bf16> ov{out.data(), H, S, D};
  RunResult r;
  r.out_rows = H * S;
  r.ref_cost_per_row = 2.0 * static_cast<double>(S * D);
  const auto start = std::chrono::steady_clock::now();
  if (name == "attention")
    tk::gen::attention::run_tt(device, qv, kv, vv, scale, ov);
  else if (name == "attention_flash")
    tk::gen::attention_flash::run_tt(device, qv, kv, vv, scale, ov);
  else if (name == "attention_q2")
    tk::gen::attention_q2::run_tt(device, qv, kv, vv, scale, ov);
  else if (name == "attention_q4")
    tk::gen::attention_q4::run_tt(device, qv, kv, vv, scale, ov);
  else if (name == "attention_bfp8") {
    // Q, K, V as floats: the generated host rounds them to Bfp8_b, and the reference below uses
    // the values those pages hold.
    const tk::TensorView<const float> q8{qf.data(), H, S, D}, k8{kf.data(), H, S, D},
        v8{vf.data(), H, S, D};
    tk::gen::attention_bfp8::run_tt(device, q8, k8, v8, scale, ov);
  } else
    throw std::logic_error("not an attention program: " + name);
  r.wall_seconds = seconds_since(start);
  if (name == "attention_bfp8") {
    std::vector<float> qr = tk::cpu::round_to_bfp8(tk::TensorView<const float>{qf.data(), H, S, D}),
                       kr = tk::cpu::round_to_bfp8(tk::TensorView<const float>{kf.data(), H, S, D}),
                       vr = tk::cpu::round_to_bfp8(tk::TensorView<const float>{vf.data(), H, S, D});
    qf = std::move(qr), kf = std::move(kr), vf = std::move(vr);
  }
  r.check = [qf = std::move(qf), kf = std::move(kf), vf = std::move(vf), got = to_float(out), S, D,
             scale](const std::vector<std::int64_t>& rows, Checker& checker) {
    for (const std::int64_t row : rows) {
      const std::int64_t h = row / S, i = row % S;
      const float* qr = &qf[static_cast<std::size_t>(row * D)];
      std::vector<double> w(static_cast<std::size_t>(i + 1));
      double mx = -INFINITY, sum = 0;
      for (std::int64_t j = 0; j <= i; ++j) {
        const float* kr = &kf[static_cast<std::size_t>((h * S + j) * D)];
        double dot = 0;
        for (std::int64_t e = 0; e < D; ++e)
          dot += double(qr[e]) * kr[e];
        w[static_cast<std::size_t>(j)] = dot * scale;
        mx = std::max(mx, w[static_cast<std::size_t>(j)]);
      }
      for (double& x : w)
        sum += (x = std::exp(x - mx));
      for (std::int64_t e = 0; e < D; ++e) {
        double ref = 0;
        for (std::int64_t j = 0; j <= i; ++j)
          ref += w[static_cast<std::size_t>(j)] * vf[static_cast<std::size_t>((h * S + j) * D + e)];
        checker.add(got[static_cast<std::size_t>(row * D + e)], ref / sum);
      }
    }
  };
  return r;
}

// The programs one run launched since the `before`-th, as one: a run_tt that launches several (a
// whole-tensor reduction's two, mlp's two matmuls) runs them one after the other on one queue, so
// their device times, bytes, products and bounds add up (the host's dispatch in between is not
// device time: ProgramTiming::host_dispatch_us).
tk::rt::emu::ProgramTiming launched_since(std::size_t before, const std::string& name) {
  const std::vector<tk::rt::emu::ProgramTiming>& all = tk::rt::emu::timings();
  if (all.size() <= before)
    throw std::runtime_error(name + ": the run left no timing (timing mode off?)");
  tk::rt::emu::ProgramTiming t = all[before];
  for (std::size_t k = before + 1; k < all.size(); ++k) {
    const tk::rt::emu::ProgramTiming& u = all[k];
    t.device_cycles += u.device_cycles;
    t.host_dispatch_us += u.host_dispatch_us;
    t.dram_bytes_read += u.dram_bytes_read;
    t.dram_bytes_written += u.dram_bytes_written;
    t.matmul_tiles += u.matmul_tiles;
    t.ideal_matmul_cycles += u.ideal_matmul_cycles;
    t.compute_cycles += u.compute_cycles;
    t.compute_bound_cycles += u.compute_bound_cycles;
    t.dram_bound_cycles += u.dram_bound_cycles;
    t.kernels.insert(t.kernels.end(), u.kernels.begin(), u.kernels.end());
  }
  const double seconds = t.device_cycles / (t.clock_ghz * 1e9);
  t.device_us = seconds * 1e6;
  t.utilization = t.device_cycles > 0 ? t.ideal_matmul_cycles / t.device_cycles : 0;
  t.matmul_tflops =
      seconds > 0 ? static_cast<double>(t.matmul_tiles) * 2 * 32 * 32 * 32 / seconds / 1e12 : 0;
  t.dram_gbps = seconds > 0
                    ? static_cast<double>(t.dram_bytes_read + t.dram_bytes_written) / seconds / 1e9
                    : 0;
  return t;
}

nlohmann::json run_one(Device& device, const Program& p, const std::vector<std::uint32_t>& dims,
                       const Options& o) {
  const bool mm = p.family == Family::matmul || p.family == Family::attention;
  const double M = dims[0], K = mm ? dims[1] : 0, N = mm ? dims[2] : dims[1];
  std::string shape = std::to_string(dims[0]);
  for (std::size_t i = 1; i < dims.size(); ++i)
    shape += "x" + std::to_string(dims[i]);
  nlohmann::json row = {{"program", p.name},
                        {"kind", p.generated ? "generated" : "baseline"},
                        {"family", p.family == Family::matmul      ? "matmul"
                                   : p.family == Family::attention ? "attention"
                                   : p.family == Family::rows      ? "rows"
                                                                   : "elementwise"},
                        {"shape", shape},
                        {"M", dims[0]},
                        {"K", mm ? dims[1] : 0},
                        {"N", mm ? dims[2] : dims[1]},
                        {"dtype", p.dtype},
                        {"dst", p.accumulator},
                        {"fidelity", p.fidelity},
                        {"flops_formula", p.flops}};
  RunResult r;
  const std::size_t before = tk::rt::emu::timings().size();
  try {
    r = std::string(p.name) == "mlp"    ? run_mlp(device, dims[0], dims[1], dims[2], o)
        : p.family == Family::attention ? run_attention(device, p, dims[0], dims[1], dims[2], o)
        : mm ? run_matmul_family(device, p, {dims[0], dims[1], dims[2]}, o)
             : run_other(device, p, dims[0], dims[1], o);
  } catch (const std::invalid_argument& e) { // a shape the baseline does not support
    row["error"] = e.what();
    row["unsupported"] = true;
    return row;
  }
  const tk::rt::emu::ProgramTiming t = launched_since(before, p.name);
  std::set<std::pair<std::uint32_t, std::uint32_t>> cores;
  for (const auto& k : t.kernels)
    cores.insert({k.core_x, k.core_y});
  const double flops = nominal_flops(p, M, K, N);
  const double seconds = t.device_cycles / (t.clock_ghz * 1e9);
  const double bytes = static_cast<double>(t.dram_bytes_read + t.dram_bytes_written);
  // A run_tt that launched several programs: each one's own figures too.
  if (tk::rt::emu::timings().size() > before + 1)
    for (std::size_t k = before; k < tk::rt::emu::timings().size(); ++k) {
      const tk::rt::emu::ProgramTiming& u = tk::rt::emu::timings()[k];
      std::map<std::string, double> stalls; // by processor and reason, the busiest core's
      for (const auto& kt : u.kernels)
        for (const auto& [why, cycles] : kt.stalls)
          stalls[kt.risc + ": " + why] = std::max(stalls[kt.risc + ": " + why], cycles);
      row["launches"].push_back({{"device_us", u.device_us},
                                 {"stalls", stalls},
                                 {"utilization", u.utilization},
                                 {"matmul_tiles", u.matmul_tiles},
                                 {"compute_bound_cycles", u.compute_bound_cycles},
                                 {"dram_bound_cycles", u.dram_bound_cycles}});
    }
  // Where the time goes: the kernels of the core that finishes last, each with its busy and
  // stalled cycles, what it waited for and the DRAM bytes it read (KernelTiming).
  if (!t.kernels.empty()) {
    auto last =
        std::max_element(t.kernels.begin(), t.kernels.end(),
                         [](const auto& a, const auto& b) { return a.end_cycle < b.end_cycle; });
    nlohmann::json where;
    where["core"] = {last->core_x, last->core_y};
    for (const auto& kt : t.kernels)
      if (kt.core_x == last->core_x && kt.core_y == last->core_y)
        where[kt.risc] = {{"busy_cycles", kt.busy_cycles},
                          {"stalled_cycles", kt.stalled_cycles},
                          {"stalls", kt.stalls},
                          {"dram_bytes_read", kt.dram_bytes_read},
                          {"dram_bytes_written", kt.dram_bytes_written}};
    row["last_core"] = where;
  }
  row["plan"] = r.plan;
  row["math"] = o.math ? "on" : "off";
  row["wall_s"] = r.wall_seconds;
  row["device_cycles"] = t.device_cycles;
  row["device_us"] = t.device_us;
  row["arch"] = t.arch; // the modelled chip: "wormhole_b0 (n150, 8x8)"
  row["clock_ghz"] = t.clock_ghz;
  row["cores"] = cores.size();
  row["dram_bytes_read"] = t.dram_bytes_read;
  row["dram_bytes_written"] = t.dram_bytes_written;
  row["dram_gbps"] = t.dram_gbps;
  row["dram_roofline_gbps"] = t.dram_roofline_gbps;
  row["matmul_tiles"] = t.matmul_tiles;
  row["matmul_tflops"] = t.matmul_tflops;
  row["ideal_matmul_cycles"] = t.ideal_matmul_cycles;
  row["utilization"] = t.utilization;
  row["compute_bound_cycles"] = t.compute_bound_cycles;
  row["dram_bound_cycles"] = t.dram_bound_cycles;
  row["flops"] = flops;
  row["tflops"] = seconds > 0 ? flops / seconds / 1e12 : 0.0;
  row["intensity"] = bytes > 0 ? flops / bytes : 0.0; // FLOP per DRAM byte
  const bool compute_binds = t.compute_bound_cycles >= t.dram_bound_cycles;
  row["bound"] = compute_binds ? "compute" : "DRAM";
  row["bound_cycles"] = std::max(t.compute_bound_cycles, t.dram_bound_cycles);
  // The matrix engine's peak, from the model's own figures: matmul_tiles products of 2 * 32^3
  // flops take ideal_matmul_cycles on every core of the device.
  if (t.matmul_tiles > 0 && t.ideal_matmul_cycles > 0)
    row["peak_tflops"] = static_cast<double>(t.matmul_tiles) * 2 * 32 * 32 * 32 /
                         t.ideal_matmul_cycles * t.clock_ghz / 1e3;
  if (o.check) {
    const auto start = std::chrono::steady_clock::now();
    // The element-wise and row-wise references cost M*N operations: always every row.
    const std::vector<std::int64_t> rows =
        rows_to_check(r.out_rows, r.ref_cost_per_row, mm ? o.check_budget : INFINITY);
    Checker checker;
    r.check(rows, checker);
    const Check c = checker.finish(r.out_rows, static_cast<std::int64_t>(rows.size()));
    row["check"] = {{"rows", c.rows},
                    {"rows_checked", c.rows_checked},
                    {"max_abs_err", c.max_abs_err},
                    {"max_bound_ratio", c.max_bound_ratio},
                    {"pcc", c.pcc},
                    {"mean_err", c.mean_err},
                    {"nonfinite", c.nonfinite},
                    {"seconds", seconds_since(start)}};
  }
  return row;
}

// `heads`: the first dimension is a count of heads (attention's H), any positive number.
bool parse_dims(const std::string& text, std::vector<std::uint32_t>& dims, bool heads) {
  std::stringstream in(text);
  std::string part;
  dims.clear();
  while (std::getline(in, part, ',')) {
    try {
      std::size_t used = 0;
      const unsigned long v = std::stoul(part, &used);
      const bool any = heads && dims.empty();
      if (used != part.size() || v == 0 || (!any && v % 32 != 0) || v > (1ul << 20))
        return false;
      dims.push_back(static_cast<std::uint32_t>(v));
    } catch (const std::exception&) {
      return false;
    }
  }
  return true;
}

} // namespace

int main(int argc, char** argv) {
  CLI::App app{"Runs TileKit's generated TT kernels and the SDK matmul baselines on the emulator "
               "with the timing model on and prints one JSON line per program (bench/tt_bench.sh "
               "renders them; docs/bench.md)."};
  std::vector<std::string> names;
  std::string shape_text;
  Options options;
  bool no_check = false, list = false;
  app.add_option("--program", names, "programs to run, comma-separated (--list names them)")
      ->delimiter(',');
  app.add_option("--shape", shape_text,
                 "M,K,N for the matmul programs, H,S,D for attention, M,N for the others; "
                 "multiples of 32 (but H)");
  app.add_option("--seed", options.seed, "seed of the random inputs")->capture_default_str();
  app.add_option("--check-budget", options.check_budget,
                 "multiply-adds the reference may spend per matmul program; beyond it evenly "
                 "spaced rows are checked")
      ->capture_default_str();
  app.add_flag("--no-check", no_check, "skip the reference check");
  app.add_flag("--list", list, "print the programs, one per line, and exit");
  std::string arch = TK_BENCH_ARCH;
  app.add_option("--arch", arch,
                 "the architecture to generate for and emulate: wormhole_b0 (n150, tk_tt_bench) "
                 "or blackhole (P150, tk_tt_bench_p150)")
      ->check(CLI::IsMember({"wormhole_b0", "blackhole"}))
      ->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  if (arch != TK_BENCH_ARCH) { // the other architecture's binary, built beside this one
    const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe");
    const std::string other =
        (self.parent_path() / (arch == "blackhole" ? "tk_tt_bench_p150" : "tk_tt_bench")).string();
    execv(other.c_str(), argv);
    std::fprintf(stderr,
                 "tk_tt_bench: --arch %s runs %s, which cannot be started: %s (without "
                 "TILEKIT_BUILD_BENCH it is built on request: cmake --build <build dir> --target "
                 "%s)\n",
                 arch.c_str(), other.c_str(), std::strerror(errno),
                 std::filesystem::path(other).filename().c_str());
    return 2;
  }
  // The emulated device is the one the kernels were generated for (the emulator reads this when
  // the device is created; docs/emulator.md).
  setenv("TK_EMULATOR_ARCH", TK_BENCH_ARCH, 1);
  options.check = !no_check;
  auto shape_of = [](const Program& p) {
    return p.family == Family::matmul ? "M,K,N" : p.family == Family::attention ? "H,S,D" : "M,N";
  };
  if (list) {
    for (const Program& p : kPrograms)
      std::printf("%s %s %s\n", p.name, p.generated ? "generated" : "baseline", shape_of(p));
    return 0;
  }
  std::vector<std::uint32_t> dims;
  const bool heads = !names.empty() && std::all_of(names.begin(), names.end(), [](const auto& n) {
    const Program* p = find_program(n);
    return p && p->family == Family::attention;
  });
  if (names.empty() || !parse_dims(shape_text, dims, heads)) {
    std::fprintf(stderr, "tk_tt_bench: wants --program NAME[,NAME...] and --shape M,K,N, H,S,D or "
                         "M,N (positive multiples of 32, but H)\n");
    return 2;
  }
  std::vector<const Program*> programs;
  for (const std::string& n : names) {
    const Program* p = find_program(n);
    if (!p) {
      std::fprintf(stderr, "tk_tt_bench: unknown program '%s' (--list names them)\n", n.c_str());
      return 2;
    }
    if (dims.size() != (p->family == Family::matmul || p->family == Family::attention ? 3u : 2u)) {
      std::fprintf(stderr, "tk_tt_bench: %s wants --shape %s\n", p->name, shape_of(*p));
      return 2;
    }
    programs.push_back(p);
  }

  tk::rt::emu::set_timing(true);
  // Without the arithmetic (docs/timing.md) the outputs are undefined: there is nothing to check.
  try {
    options.math = tk::rt::emu::math_enabled();
  } catch (const tk::rt::emu::EmulatorError& e) {
    std::fprintf(stderr, "tk_tt_bench: %s\n", e.what());
    return 2;
  }
  options.check = options.check && options.math;
  auto device = Device::create_unit_mesh(0);
  int status = 0;
  for (const Program* p : programs) {
    try {
      std::cout << run_one(*device, *p, dims, options).dump() << std::endl;
    } catch (const std::exception& e) {
      std::fprintf(stderr, "tk_tt_bench: %s: %s\n", p->name, e.what());
      std::cout << nlohmann::json{{"program", p->name}, {"error", e.what()}}.dump() << std::endl;
      status = 1;
    }
  }
  return status;
}
