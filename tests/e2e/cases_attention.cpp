// End-to-end cases of examples/attention.tk (causal self-attention over kHeads heads) and
// examples/attention_gqa.tk (2 query heads over 1 key/value head), against a plain double
// reference (the softmax of the masked, scaled scores row by row, times V) and the interpreter.
#include "tests/e2e/attention_reference.hpp"
#include "tests/e2e/cases.hpp"

#include "attention.hpp"
#include "attention_gqa.hpp"

#include <algorithm>
#include <cmath>

namespace tk::e2e {

// Causal attention at S x D = m x n (uses no k) for kHeads heads, stored head-major as
// kHeads * S rows. Inputs in [-1, 1]; scale = 1/sqrt(D), so that the scores stay of order 1 at
// every D and exp spans a few units below the row max.
Outcome run_attention(Backend b, const Shape& s) {
  constexpr std::int64_t kHeads = 2;
  const std::int64_t S = s.m, D = s.n;
  Rng rng(seed_for("attention", s));
  const auto Q = random_bf16(kHeads * S, D, -1, 1, rng);
  const auto K = random_bf16(kHeads * S, D, -1, 1, rng);
  const auto V = random_bf16(kHeads * S, D, -1, 1, rng);
  const float scale = 1.0f / std::sqrt(static_cast<float>(D));
  Matrix<bf16> O(kHeads * S, D);
  const TensorView<const bf16> q{Q.data.data(), kHeads, S, D}, k{K.data.data(), kHeads, S, D},
      v{V.data.data(), kHeads, S, D};
  const TensorView<bf16> o{O.data.data(), kHeads, S, D};
  auto cpu = [&] { gen::attention::run_cpu(q, k, v, scale, o); };
#if TK_E2E_TT_attention
  auto tt = [&] { gen::attention::run_tt(device(), q, k, v, scale, o); };
#else
  NoTt tt;
#endif
  const double seconds = launch(b, cpu, tt);
  const Reference ref = causal_attention(Q, K, V, kHeads, S, D, 1, static_cast<double>(scale));
  Outcome out =
      verify("attention",
             {{{"Q", batch(Q, kHeads, S)}, {"K", batch(K, kHeads, S)}, {"V", batch(V, kHeads, S)}},
              {{"scale", static_cast<double>(scale)}},
              {}},
             "O", O, ref);
  out.seconds = seconds;
  return out;
}

// Grouped-query attention at S x D = min(m, 288) x n: kHeads = 2 query heads over one key/value
// head, query head h reading key/value head h / 2 (the reference's ratio 2). S stops at 288 (9 key
// tiles, an odd count) to keep CI's time: at m = 2080 the interpreter's check alone took 40 s, and
// the long key loop is examples/attention.tk's case (run_attention) at every shape.
Outcome run_attention_gqa(Backend b, const Shape& s) {
  constexpr std::int64_t kHeads = 2, kRatio = 2, kKv = kHeads / kRatio;
  const std::int64_t S = std::min<std::int64_t>(s.m, 288), D = s.n;
  Rng rng(seed_for("attention_gqa", s));
  const auto Q = random_bf16(kHeads * S, D, -1, 1, rng);
  const auto K = random_bf16(kKv * S, D, -1, 1, rng);
  const auto V = random_bf16(kKv * S, D, -1, 1, rng);
  const float scale = 1.0f / std::sqrt(static_cast<float>(D));
  Matrix<bf16> O(kHeads * S, D);
  const TensorView<const bf16> q{Q.data.data(), kHeads, S, D}, k{K.data.data(), kKv, S, D},
      v{V.data.data(), kKv, S, D};
  const TensorView<bf16> o{O.data.data(), kHeads, S, D};
  auto cpu = [&] { gen::attention_gqa::run_cpu(q, k, v, scale, o); };
#if TK_E2E_TT_attention_gqa
  auto tt = [&] { gen::attention_gqa::run_tt(device(), q, k, v, scale, o); };
#else
  NoTt tt;
#endif
  const double seconds = launch(b, cpu, tt);
  const Reference ref = causal_attention(Q, K, V, kHeads, S, D, kRatio, static_cast<double>(scale));
  Outcome out =
      verify("attention_gqa",
             {{{"Q", batch(Q, kHeads, S)}, {"K", batch(K, kKv, S)}, {"V", batch(V, kKv, S)}},
              {{"scale", static_cast<double>(scale)}},
              {}},
             "O", O, ref);
  out.seconds = seconds;
  return out;
}

} // namespace tk::e2e
