// Grouped-query causal attention (tests/e2e/gqa.tk) end to end: query head h reads key/value head
// h / R. Each kernel on the CPU and on the emulated TT device, against a double reference (the
// bf16 bound, PCC and bias of harness.hpp) and the interpreter; and the host's check that H is R
// times HK, on both targets and in the interpreter.
#include "tests/e2e/attention_reference.hpp"
#include "tests/e2e/harness.hpp"

#include "gqa.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace tk::e2e {
namespace {

constexpr std::int64_t kHeads = 4; // query heads

using Sizes = std::tuple<Backend, std::int64_t, std::int64_t>; // backend, ratio R, S (D = 64)

class Gqa : public ::testing::TestWithParam<Sizes> {};
class GroupedMatmul : public ::testing::TestWithParam<Backend> {};

TEST_P(Gqa, MatchesTheReference) {
  const auto [b, ratio, S] = GetParam();
  constexpr std::int64_t D = 64;
  const std::int64_t kv = kHeads / ratio;
  Rng rng(0x6a0 + static_cast<std::uint64_t>(ratio * S));
  const auto Q = random_bf16(kHeads * S, D, -1, 1, rng);
  const auto K = random_bf16(kv * S, D, -1, 1, rng);
  const auto V = random_bf16(kv * S, D, -1, 1, rng);
  const float scale = 1.0f / std::sqrt(static_cast<float>(D));
  Matrix<bf16> O(kHeads * S, D);
  const TensorView<const bf16> q{Q.data.data(), kHeads, S, D}, k{K.data.data(), kv, S, D},
      v{V.data.data(), kv, S, D};
  const TensorView<bf16> o{O.data.data(), kHeads, S, D};
  if (ratio == 2)
    launch(
        b, [&] { gen::gqa2::run_cpu(q, k, v, scale, o); },
        [&] { gen::gqa2::run_tt(device(), q, k, v, scale, o); });
  else
    launch(
        b, [&] { gen::gqa4::run_cpu(q, k, v, scale, o); },
        [&] { gen::gqa4::run_tt(device(), q, k, v, scale, o); });
  const Reference ref = causal_attention(Q, K, V, kHeads, S, D, ratio, static_cast<double>(scale));
  const Outcome out =
      verify_kernel(TK_E2E_GQA_FILE, ratio == 2 ? "gqa2" : "gqa4",
                    {{{"Q", batch(Q, kHeads, S)}, {"K", batch(K, kv, S)}, {"V", batch(V, kv, S)}},
                     {{"scale", static_cast<double>(scale)}},
                     {}},
                    "O", O, ref);
  EXPECT_TRUE(out.ok) << out.detail;
  EXPECT_LE(std::abs(out.bias), out.bias_bound);
  std::printf("gqa %s R = %lld, S = %lld: max |err| %.3g, PCC %.6f, bias %.3g (bound %.3g)\n",
              b == Backend::cpu ? "cpu" : "tt", static_cast<long long>(ratio),
              static_cast<long long>(S), out.max_abs_err, out.pcc, out.bias, out.bias_bound);
}

INSTANTIATE_TEST_SUITE_P(Shapes, Gqa,
                         ::testing::Combine(::testing::Values(Backend::cpu, Backend::tt),
                                            ::testing::Values(2, 4), ::testing::Values(32, 96)));

// C[b] = A[b] @ W[b / 2] for 4 batches over 2 weights, M x K x N = 64 x 96 x 64.
TEST_P(GroupedMatmul, MatchesTheReference) {
  const Backend b = GetParam();
  constexpr std::int64_t kB = 4, kG = 2, M = 64, K = 96, N = 64;
  Rng rng(0x6b0);
  const auto A = random_bf16(kB * M, K, -1, 1, rng);
  const auto W = random_bf16(kG * K, N, -1, 1, rng);
  Matrix<bf16> C(kB * M, N);
  const TensorView<const bf16> a{A.data.data(), kB, M, K}, w{W.data.data(), kG, K, N};
  const TensorView<bf16> c{C.data.data(), kB, M, N};
  launch(b, [&] { gen::gbmm::run_cpu(a, w, c); }, [&] { gen::gbmm::run_tt(device(), a, w, c); });
  Reference ref{kB * M, N, std::vector<double>(static_cast<std::size_t>(kB * M * N)), {}};
  for (std::int64_t bb = 0; bb < kB; ++bb)
    for (std::int64_t r = 0; r < M; ++r)
      for (std::int64_t col = 0; col < N; ++col)
        for (std::int64_t k = 0; k < K; ++k)
          ref.value[static_cast<std::size_t>((bb * M + r) * N + col)] +=
              A.at(bb * M + r, k) * W.at(bb / 2 * K + k, col);
  set_bf16_bound(ref);
  interp::Matrix ai = to_interp(A), wi = to_interp(W);
  ai.rows = M, ai.batch = kB, wi.rows = K, wi.batch = kG;
  const Outcome out =
      verify_kernel(TK_E2E_GQA_FILE, "gbmm", {{{"A", ai}, {"W", wi}}, {}, {}}, "C", C, ref);
  EXPECT_TRUE(out.ok) << out.detail;
  std::printf("gbmm %s: max |err| %.3g, PCC %.6f, bias %.3g (bound %.3g)\n",
              b == Backend::cpu ? "cpu" : "tt", out.max_abs_err, out.pcc, out.bias, out.bias_bound);
}

INSTANTIATE_TEST_SUITE_P(Targets, GroupedMatmul, ::testing::Values(Backend::cpu, Backend::tt));

template <class F>
std::string error_of(F f) {
  try {
    f();
  } catch (const tk::Error& e) {
    return e.what();
  }
  return "(no tk::Error thrown)";
}

// Four query heads over three key/value heads: 4 is not 2 * 3.
TEST(GqaHost, RejectsHeadsThatDoNotDivide) {
  constexpr std::int64_t S = 32, D = 32;
  const Matrix<bf16> Q(kHeads * S, D), K(3 * S, D), V(3 * S, D);
  Matrix<bf16> O(kHeads * S, D);
  const TensorView<const bf16> q{Q.data.data(), kHeads, S, D}, k{K.data.data(), 3, S, D},
      v{V.data.data(), 3, S, D};
  const TensorView<bf16> o{O.data.data(), kHeads, S, D};
  const std::string want = "gqa2: dimension H must be 2 times dimension HK (a grouped index "
                           "divides by 2): Q.batch = 4 but K.batch = 3";
  EXPECT_EQ(error_of([&] { gen::gqa2::run_cpu(q, k, v, 1.0f, o); }), want);
  EXPECT_EQ(error_of([&] { gen::gqa2::run_tt(device(), q, k, v, 1.0f, o); }), want);
  EXPECT_EQ(error_of([&] {
              verify_kernel(
                  TK_E2E_GQA_FILE, "gqa2",
                  {{{"Q", batch(Q, kHeads, S)}, {"K", batch(K, 3, S)}, {"V", batch(V, 3, S)}},
                   {{"scale", 1.0}},
                   {}},
                  "O", O, Reference{});
            }),
            want);
}

} // namespace
} // namespace tk::e2e
