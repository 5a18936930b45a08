// tk_tt_bench's programs (tt_bench_programs.hpp): the table, and the runners of each family with
// their inputs and double references.
#include "bench/tt_bench_programs.hpp"

#include "baselines/flash_ttnn.hpp"
#include "baselines/matmul.hpp"

#include "attention.hpp"
#include "attention_bfp8.hpp"
#include "attention_flash.hpp"
#include "attention_hifi2.hpp"
#include "attention_hifi2_q1.hpp"
#include "attention_hifi2_q2.hpp"
#include "attention_hifi2_q4.hpp"
#include "attention_hifi2_q8.hpp"
#include "attention_q1.hpp"
#include "attention_q2.hpp"
#include "attention_q4.hpp"
#include "attention_q8.hpp"
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

#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace tk::bench {

namespace {

// The generated examples' options are their @options or ttgen's defaults (HiFi4 everywhere; fp32
// DST where the kernel accumulates or reduces); the baselines use the SDK examples' (HiFi4, bf16
// DST).
const Program kProgramTable[] = {
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
    // bench/attention_q1.tk, attention_q2.tk and attention_q4.tk: examples/attention.tk with a Q
    // chunk fixed at one, two and four tile rows per work item (`attention` takes the host's
    // rule's).
    {"attention_q1", true, Family::attention, "bf16", "fp32", "2HSSD"},
    {"attention_q2", true, Family::attention, "bf16", "fp32", "2HSSD"},
    {"attention_q4", true, Family::attention, "bf16", "fp32", "2HSSD"},
    // bench/attention_q8.tk: the chunk of eight rows, the most the row state's CBs hold.
    {"attention_q8", true, Family::attention, "bf16", "fp32", "2HSSD"},
    // bench/attention_hifi2.tk: the rule's q at HiFi2, the fidelity of TTNN's published
    // FlashAttention figures (docs/bench.md, "Like for like").
    {"attention_hifi2", true, Family::attention, "bf16", "fp32", "2HSSD", "HiFi2"},
    // bench/attention_hifi2_q1.tk ... q8.tk: attention_hifi2 with the Q chunk fixed at 1, 2, 4, 8.
    {"attention_hifi2_q1", true, Family::attention, "bf16", "fp32", "2HSSD", "HiFi2"},
    {"attention_hifi2_q2", true, Family::attention, "bf16", "fp32", "2HSSD", "HiFi2"},
    {"attention_hifi2_q4", true, Family::attention, "bf16", "fp32", "2HSSD", "HiFi2"},
    {"attention_hifi2_q8", true, Family::attention, "bf16", "fp32", "2HSSD", "HiFi2"},
    // baselines/flash_ttnn.cpp: ttnn's causal SDPA prefill program (docs/baselines.md,
    // "FlashAttention"), HiFi2 and a bf16 DST as the published figures; --chunks q,k.
    {"flash_ttnn", false, Family::attention, "bf16", "bf16", "2HSSD", "HiFi2"},
    // The same with Q, K, V and O in Bfp8_b (the report's bfp8 row).
    {"flash_ttnn_bfp8", false, Family::attention, "bfp8_b", "bf16", "2HSSD", "HiFi2"},
};
} // namespace

const std::span<const Program> kPrograms{kProgramTable};

const Program* find_program(const std::string& name) {
  for (const Program& p : kPrograms)
    if (name == p.name)
      return &p;
  return nullptr;
}

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

namespace {

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

} // namespace

// Runs a matmul-family program: C = A * B (+ bias, relu) with A uniform in [-1, 1] and B in
// [-2/sqrt(K), 2/sqrt(K)], as tk-baseline-matmul and TileKit's end-to-end cases, so C has a
// standard deviation of 2/3 whatever K is.
RunResult run_matmul_family(Device& device, const Program& p, MatmulShape s, const Options& o) {
  const std::int64_t M = s.M, K = s.K, N = s.N;
  const auto b_scale = static_cast<float>(2.0 / std::sqrt(static_cast<double>(K)));
  const std::vector<bfloat16> a = tk::baselines::random_bf16_matrix(s.M, s.K, o.seed);
  const std::vector<bfloat16> b =
      tk::baselines::random_bf16_matrix(s.K, s.N, o.seed + 1, -b_scale, b_scale);
  const std::string name = p.name;
  // Float copies for the reference, and as the inputs of the f32 and bfp8-weight programs; without
  // the check (and without the arithmetic, o.check is false) only those inputs are made.
  const bool f32_in = name == "matmul_f32", w8_in = name == "matmul_w8";
  std::vector<float> af = o.check || f32_in ? to_float(a) : std::vector<float>{},
                     bf = o.check || f32_in || w8_in ? to_float(b) : std::vector<float>{};
  RunResult r;
  r.out_rows = M;
  r.ref_cost_per_row = static_cast<double>(K) * static_cast<double>(N);
  std::vector<float> c; // the output, row-major
  std::vector<double> bias;
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
    if (o.check)
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
    if (o.check)
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
    if (o.check) {
      c = to_float(C);
      bf = tk::cpu::round_to_bfp8(cview(bf, K, N));
    }
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
  else if (name == "attention_q1")
    tk::gen::attention_q1::run_tt(device, qv, kv, vv, scale, ov);
  else if (name == "attention_q2")
    tk::gen::attention_q2::run_tt(device, qv, kv, vv, scale, ov);
  else if (name == "attention_q4")
    tk::gen::attention_q4::run_tt(device, qv, kv, vv, scale, ov);
  else if (name == "attention_q8")
    tk::gen::attention_q8::run_tt(device, qv, kv, vv, scale, ov);
  else if (name == "attention_hifi2")
    tk::gen::attention_hifi2::run_tt(device, qv, kv, vv, scale, ov);
  else if (name == "attention_hifi2_q1")
    tk::gen::attention_hifi2_q1::run_tt(device, qv, kv, vv, scale, ov);
  else if (name == "attention_hifi2_q2")
    tk::gen::attention_hifi2_q2::run_tt(device, qv, kv, vv, scale, ov);
  else if (name == "attention_hifi2_q4")
    tk::gen::attention_hifi2_q4::run_tt(device, qv, kv, vv, scale, ov);
  else if (name == "attention_hifi2_q8")
    tk::gen::attention_hifi2_q8::run_tt(device, qv, kv, vv, scale, ov);
  else if (name == "flash_ttnn" || name == "flash_ttnn_bfp8") {
    const tk::baselines::FlashShape fs{static_cast<std::uint32_t>(H), static_cast<std::uint32_t>(S),
                                       static_cast<std::uint32_t>(D)};
    tk::baselines::FlashOptions fo{.q_chunk = o.q_chunk,
                                   .k_chunk = o.k_chunk,
                                   .data_format = name == "flash_ttnn_bfp8"
                                                      ? tt::DataFormat::Bfp8_b
                                                      : tt::DataFormat::Float16_b};
    if (!o.chunks_given) {
      try {
        tk::baselines::flash_plan(device, fs, fo);
      } catch (const std::invalid_argument&) { // the CBs of 256,256 do not fit (D = 256)
        fo.k_chunk = 128;
      }
    }
    r.plan = tk::baselines::describe_flash_plan(tk::baselines::flash_plan(device, fs, fo));
    // Without the check no inputs are written and nothing is read back (a timing run).
    const std::vector<float> got =
        o.check ? tk::baselines::run_flash_ttnn(device, fs, qkv[0], qkv[1], qkv[2], scale, fo)
                : tk::baselines::run_flash_ttnn(device, fs, {}, {}, {}, scale, fo);
    for (std::size_t i = 0; i < got.size(); ++i)
      out[i] = tk::bf16(got[i]);
  } else if (name == "attention_bfp8") {
    // Q, K, V as floats: the generated host rounds them to Bfp8_b, and the reference below uses
    // the values those pages hold.
    const tk::TensorView<const float> q8{qf.data(), H, S, D}, k8{kf.data(), H, S, D},
        v8{vf.data(), H, S, D};
    tk::gen::attention_bfp8::run_tt(device, q8, k8, v8, scale, ov);
  } else
    throw std::logic_error("not an attention program: " + name);
  r.wall_seconds = seconds_since(start);
  if (name == "attention_bfp8" || name == "flash_ttnn_bfp8") {
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

} // namespace tk::bench
