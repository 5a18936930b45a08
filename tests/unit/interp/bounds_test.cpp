// The error bounds run_bounded propagates (interp/precision.hpp, docs/difftest.md): zero for exact
// arithmetic, each rule's value on a case worked out by hand, infinite past a pole, and the
// per-target precision read off the kernel (f32 operands as TF32, math fidelity).
#include "tests/unit/interp/interp_test_util.hpp"

#include <cmath>
#include <limits>
#include <string>

namespace tk::interp::test {
namespace {

constexpr double kBf16 = 0x1p-8, kF32 = 0x1p-24, kTiny = 0x1p-126;

const char* kAdd = "kernel k(x: bf16[M, N]) -> (y: bf16[M, N]) {\n"
                   "  parallel i in tiles(M), j in tiles(N) { y[i, j] = x[i, j] + x[i, j] }\n}\n";

TEST(InterpBounds, ExactArithmeticHasNoError) {
  const dsl::Kernel k = example("softmax");
  const auto out = run_bounded(k, {{{"x", random(64, 96, -4, 4, 7)}}, {}, {}}, Precision{});
  for (double b : out.bounds.at("y").data)
    EXPECT_EQ(b, 0.0);
}

TEST(InterpBounds, AddOnTtBf16RoundsTheSumThenTheStore) {
  const dsl::Kernel k = checked(kAdd);
  const auto out = run_bounded(k, {{{"x", Matrix(32, 32, 1.5)}}, {}, {}}, tt_precision(k));
  // x + x = 3, kept in bf16 (2^-8 relative, plus the flush-to-zero slack), then stored to bf16.
  const double sum = kBf16 * 3 + kTiny;
  EXPECT_EQ(out.values.at("y").at(5, 7), 3.0);
  EXPECT_EQ(out.bounds.at("y").at(5, 7), sum + kBf16 * (3 + sum));
}

TEST(InterpBounds, CpuIsFp32Throughout) {
  const dsl::Kernel k = checked(kAdd);
  const auto out = run_bounded(k, {{{"x", Matrix(32, 32, 1.5)}}, {}, {}}, cpu_precision(k));
  const double sum = kF32 * 3 + kTiny;
  EXPECT_EQ(out.bounds.at("y").at(0, 0), sum + kBf16 * (3 + sum)); // the bf16 output rounds
}

TEST(InterpBounds, AFunctionPastItsPoleHasNoBound) {
  // recip(x - 1) at x = 1 is 1/0: the value is inf and no bound holds; at x = 2 it is finite.
  const dsl::Kernel k =
      checked("kernel k(x: f32[M, N]) -> (y: f32[M, N]) {\n"
              "  parallel i in tiles(M), j in tiles(N) { y[i, j] = recip(x[i, j] - 1.0) }\n}\n");
  Matrix x(32, 32, 2.0);
  x.at(0, 0) = 1.0;
  const auto out = run_bounded(k, {{{"x", x}}, {}, {}}, cpu_precision(k));
  EXPECT_EQ(out.bounds.at("y").at(0, 0), std::numeric_limits<double>::infinity());
  EXPECT_TRUE(std::isfinite(out.bounds.at("y").at(0, 1)));
  EXPECT_LT(out.bounds.at("y").at(0, 1), 1e-6);
}

TEST(InterpBounds, AStepInsideTheArgumentsIntervalIsItsWholeHeight) {
  // On the CPU x + x is rounded to f32 (bound 2^-24 * |2x| + 2^-126 before the function): sign
  // and floor are exact on an exact argument, but where that interval holds a step the bound is
  // the step's height.
  const auto bound = [](const char* f, double v) {
    const dsl::Kernel k = checked(std::string("kernel k(x: bf16[M, N]) -> (y: f32[M, N]) {\n"
                                              "  parallel i in tiles(M), j in tiles(N) { y[i, j] "
                                              "= ") +
                                  f + "(x[i, j] + x[i, j]) }\n}\n");
    return run_bounded(k, {{{"x", Matrix(32, 32, v)}}, {}, {}}, cpu_precision(k))
        .bounds.at("y")
        .at(3, 4);
  };
  EXPECT_LT(bound("sign", 0.75), 1e-6); // 1.5: sign 1 throughout
  EXPECT_GE(bound("sign", 0.0), 1.0);   // 0 +- 2^-126: sign -1, 0 or 1, each 1 from 0
  EXPECT_LT(bound("sign", 0.0), 1.001);
  EXPECT_LT(bound("floor", 0.75), 1e-6); // 1.5: floor 1 throughout
  EXPECT_GE(bound("floor", 1.0), 1.0);   // 2 - 2^-23 < 2: floor may be 1
  EXPECT_LT(bound("floor", 1.0), 1.001);
  // sin: |sin'| <= 1, so the argument's bound (2^-24 * 2.5) passes through, plus sin's own error
  // (8 ulps of the result, 4 of the argument) and the roundings of the result and the store.
  const double s = bound("sin", 1.25);
  EXPECT_GE(s, kF32 * (2.5 + 8 * std::sin(2.5) + 4 * 2.5));
  EXPECT_LT(s, kF32 * 20);
}

TEST(InterpBounds, EluChargesItsSlopeAlphaAndTheCancellationOfExpMinusOne) {
  const dsl::Kernel k =
      checked("kernel k(x: f32[M, N], s: f32) -> (y: f32[M, N]) {\n"
              "  parallel i in tiles(M), j in tiles(N) { y[i, j] = elu(x[i, j] * 1.5, s) }\n}\n");
  Matrix x(32, 32, 2.0);
  x.at(0, 0) = -1e-3;
  const Inputs in{{{"x", x}}, {{"s", 2.0}}, {}};
  // Named: a range-for over a member of the temporary would read it after its end (until C++23).
  const auto exact = run_bounded(k, in, Precision{});
  for (double b : exact.bounds.at("y").data)
    EXPECT_EQ(b, 0.0);
  const auto out = run_bounded(k, in, cpu_precision(k));
  const double v = out.values.at("y").at(0, 0); // 2 (e^-0.0015 - 1)
  EXPECT_NEAR(v, 2 * std::expm1(-1.5e-3), 1e-15);
  // e^x - 1 in float near 0 is off by about an ulp of 1, not of the result: fn * |alpha|, plus
  // the argument's rounding (2^-24 * 0.0015) through the slope |alpha| = 2.
  const double b = out.bounds.at("y").at(0, 0);
  EXPECT_GE(b, 8 * kF32 * 2 + 2 * kF32 * 1.5e-3);
  EXPECT_LT(b, 8 * kF32 * 2 + 1e-7);
  // From 0 on elu is x: slope 1, no alpha term; 3 is exact, so only the function's own error
  // (8 ulps of 3, 4 of the argument) and the roundings remain.
  EXPECT_LT(out.bounds.at("y").at(1, 1), 20 * kF32 * 3);
}

TEST(InterpBounds, TtPrecisionFollowsDtypesAndFidelity) {
  const dsl::Kernel bf = checked(kAdd);
  EXPECT_EQ(tt_precision(bf).op, kBf16);
  EXPECT_EQ(tt_precision(bf).operand, 0.0);
  EXPECT_EQ(tt_precision(bf).product, 0.0);
  const dsl::Kernel f32 = checked("@options(math_fidelity = LoFi)\n"
                                  "kernel k(a: f32[M, K], b: f32[K, N]) -> (c: f32[M, N]) {\n"
                                  "  parallel i in tiles(M), j in tiles(N) {\n"
                                  "    acc = zeros()\n"
                                  "    for k in tiles(K) { acc += a[i, k] @ b[k, j] }\n"
                                  "    c[i, j] = acc\n  }\n}\n");
  const Precision p = tt_precision(f32);
  EXPECT_EQ(p.op, kF32);
  EXPECT_EQ(p.operand, 0x1p-10);
  EXPECT_EQ(p.product, 0x1p-4 + 0x1p-6 + 0x1p-10 + 0x1p-8);
  EXPECT_EQ(cpu_precision(f32).product, 0.0);
}

// docs/language.md, "Sums": a carried sum keeps fp32 on TT, read exactly by its own combine, so
// its bound grows by 2^-24 of the running sum per iteration, and a TF32 truncation per iteration
// (the drift of issue 27: -0.26% at 32 tiles) is far outside it.
TEST(InterpBounds, ACarriedSumOnTtIsFp32AndReadExactly) {
  const dsl::Kernel k = checked("kernel k(x: bf16[M, N]) -> (y: f32[M, 32]) {\n"
                                "  parallel i in tiles(M) {\n"
                                "    acc = zeros()\n"
                                "    for j in tiles(N) { acc += x[i, j] }\n"
                                "    y[i, 0] = acc\n  }\n}\n");
  constexpr int kTiles = 64;
  const Inputs in{{{"x", Matrix(32, 32 * kTiles, 1.5)}}, {}, {}};
  const auto tt = run_bounded(k, in, tt_precision(k));
  EXPECT_EQ(tt.values.at("y").at(3, 4), 1.5 * kTiles);
  // Sum over the iterations of 2^-24 |s_k| (s_k = 1.5 k) and the slack, then the f32 store.
  double want = 0;
  for (int n = 1; n <= kTiles; ++n)
    want += kF32 * (1.5 * n + want) + kTiny;
  want += kF32 * (1.5 * kTiles + want);
  EXPECT_DOUBLE_EQ(tt.bounds.at("y").at(3, 4), want);
  EXPECT_LT(want, 0.001 * 0.0026 * 1.5 * kTiles);
  // The CPU: the same.
  EXPECT_DOUBLE_EQ(run_bounded(k, in, cpu_precision(k)).bounds.at("y").at(0, 0), want);
}

TEST(InterpBounds, AReductionVariablesBoundIsOrderFree) {
  // s += x over 16 points (4x4 tiles): any chunking sums each element in at most 2n + 1 fp32
  // roundings of the sum of magnitudes. On TT x reaches DST whole (only the SFPU's sum reads it:
  // UnpackToDestFp32); colsum then reads s through a copy (TF32 in an f32 kernel: 2^-10), and
  // rowsum reads colsum's result, which the CPU does not.
  const dsl::Kernel k = checked("kernel k(x: f32[M, N]) -> (y: f32[1, 32], g: f32[32, 32]) {\n"
                                "  s = zeros()\n"
                                "  parallel i in tiles(M), j in tiles(N) { s += x[i, j] }\n"
                                "  y[0, 0] = rowsum(colsum(s)) * (1.0 / (M * N))\n"
                                "  g[0, 0] = s\n}\n");
  const Inputs in{{{"x", Matrix(128, 128, 2.0)}}, {}, {}};
  const auto cpu = run_bounded(k, in, cpu_precision(k));
  const auto tt = run_bounded(k, in, tt_precision(k));
  EXPECT_EQ(cpu.values.at("g").at(5, 5), 32.0);
  // The roundings alone, on both targets: no increment is truncated.
  const double rounds = 33 * (kF32 * 32 + kTiny);
  EXPECT_DOUBLE_EQ(cpu.bounds.at("g").at(5, 5), rounds + kF32 * (32 + rounds));
  EXPECT_DOUBLE_EQ(tt.bounds.at("g").at(5, 5), rounds + kF32 * (32 + rounds)); // stored exactly
  // The mean: 2 on both; on TT within two TF32 reads (s, the colsum) and the roundings, on the CPU
  // within the roundings of colsum and rowsum in any order.
  EXPECT_DOUBLE_EQ(tt.values.at("y").at(0, 0), 2.0);
  EXPECT_GT(tt.bounds.at("y").at(0, 0), 2 * 2 * 0x1p-10);
  EXPECT_LT(tt.bounds.at("y").at(0, 0), 2 * 3 * 0x1p-10);
  EXPECT_LT(cpu.bounds.at("y").at(0, 0), 2 * 0x1p-16);
}

TEST(InterpBounds, ACentringByANamedMeanReadsTheMeanWholeOnTheSfpu) {
  // mean = s / N at 64.0625 (not a bf16 number): on TT, x - bcast_col(mean) runs on the SFPU with
  // the mean broadcast whole from its dest-only Float32 CB (unary_bcast), so the centred values
  // keep what the mean and x carry, not another 2^-10 of 64 (= 0.0625, as large as the values
  // themselves), as a TF32 read of the mean through SrcB would add.
  const dsl::Kernel k = checked("kernel k(x: f32[M, N]) -> (y: f32[M, N]) {\n"
                                "  parallel i in tiles(M) {\n"
                                "    s = zeros()\n"
                                "    for j in tiles(N) { s += rowsum(x[i, j]) }\n"
                                "    mean = s * (1.0 / N)\n"
                                "    for j in tiles(N) { y[i, j] = x[i, j] - bcast_col(mean) }\n"
                                "  }\n}\n");
  Matrix x(32, 64, 64.0625);
  x.at(0, 0) = 64.0625 + 0.5;
  x.at(0, 1) = 64.0625 - 0.5;
  const auto tt = run_bounded(k, {{{"x", x}}, {}, {}}, tt_precision(k));
  EXPECT_DOUBLE_EQ(tt.values.at("y").at(0, 0), 0.5);
  const double b = tt.bounds.at("y").at(0, 0);
  // x itself is read as TF32 (an f32 tensor that feeds the FPU): 2^-10 of 64.5, and so is each
  // x in the row sums, 2^-10 of the mean.
  EXPECT_GT(b, 0x1p-10 * (64.5 + 64.0625));
  // The rest is fp32 rounding: not another 2^-10 of 64, as a TF32 read of the mean would be.
  EXPECT_LT(b, 0x1p-10 * (64.5 + 64.0625 + 2));
  // A bf16 kernel (with an f32 output): x is exact, s = 64 N exactly and the mean 64.015625, read
  // whole by the SFPU's subtraction; then the rounding.
  const dsl::Kernel kb = checked("kernel k(x: bf16[M, N]) -> (y: f32[M, N]) {\n"
                                 "  parallel i in tiles(M) {\n"
                                 "    s = zeros()\n"
                                 "    for j in tiles(N) { s += rowsum(x[i, j]) }\n"
                                 "    mean = s * (1.0 / N)\n"
                                 "    for j in tiles(N) { y[i, j] = x[i, j] - bcast_col(mean) }\n"
                                 "  }\n}\n");
  Matrix xb(32, 64, 64.0);
  xb.at(0, 0) = 64.5;
  xb.at(0, 1) = 63.5;
  xb.at(0, 2) = 64.5;
  const auto ttb = run_bounded(kb, {{{"x", xb}}, {}, {}}, tt_precision(kb));
  EXPECT_LT(ttb.bounds.at("y").at(0, 0), 0x1p-8 * 0.5 + 0x1p-10 * 0.6 + 1e-4);
}

} // namespace
} // namespace tk::interp::test
