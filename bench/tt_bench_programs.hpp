// tk_tt_bench's programs (bench/tt_bench.cpp is the harness that runs them): the table of what can
// be run, each program's nominal FLOPs, and for each family a runner that makes its inputs, runs
// it once on the emulator and returns how to check its output against a double reference.
#pragma once

#include "baselines/matmul.hpp"

#include <tt-metalium/distributed.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

namespace tk::bench {

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

/// Every program, in the order --list prints them (tt_bench_programs.cpp).
extern const std::span<const Program> kPrograms;

/// The program named `name`, or nullptr.
const Program* find_program(const std::string& name);

// The nominal floating-point operations: two per multiply-add, one per other element-wise op,
// reduction step or transcendental (docs/bench.md).
double nominal_flops(const Program& p, double M, double K, double N);

// ---- Checking an output ------------------------------------------------------------------------

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

// ---- One program at one shape ------------------------------------------------------------------

struct Options {
  std::uint64_t seed = 1;
  double check_budget = 0x1p30; // reference operations per program; beyond, rows are sampled
  bool check = true;
  bool math = true; // TK_EMULATOR_MATH: off projects without computing (and checks nothing)
  // flash_ttnn's chunks, in elements (--chunks q,k). Without --chunks: 256,256, or 256,128 where
  // 256,256's CBs do not fit L1 (D = 256; the fastest pair there).
  std::uint32_t q_chunk = 256, k_chunk = 256;
  bool chunks_given = false;
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

inline double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Runs a matmul-family program: C = A * B (+ bias, relu) with A uniform in [-1, 1] and B in
// [-2/sqrt(K), 2/sqrt(K)], as tk-baseline-matmul and TileKit's end-to-end cases, so C has a
// standard deviation of 2/3 whatever K is.
RunResult run_matmul_family(Device& device, const Program& p, MatmulShape s, const Options& o);

// examples/mlp.tk at M x D x F: X uniform in [-1, 1], W1 and W2 scaled by 2/sqrt(fan-in) and the
// biases in [-0.5, 0.5], as TileKit's end-to-end case (tests/e2e/cases_matmul.cpp), so every stage
// stays of order 1. The reference is each checked row in double, gelu by erf.
RunResult run_mlp(Device& device, std::int64_t M, std::int64_t D, std::int64_t F, const Options& o);

// Runs an element-wise or row-wise example on M x N inputs.
RunResult run_other(Device& device, const Program& p, std::int64_t M, std::int64_t N,
                    const Options& o);

// Runs causal attention on H heads of S x D: Q, K, V uniform in [-1, 1], scale 1/sqrt(D); the
// reference is the double softmax(Q K^T * scale, masked) V of each checked row (h, q).
RunResult run_attention(Device& device, const Program& p, std::int64_t H, std::int64_t S,
                        std::int64_t D, const Options& o);

} // namespace tk::bench
