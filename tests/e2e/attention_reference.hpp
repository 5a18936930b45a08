// The double reference of causal (grouped-query) attention the attention e2e tests share, and the
// interpreter's view of a [heads * S, D] matrix as a batch of heads.
#pragma once

#include "tests/e2e/harness.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

namespace tk::e2e {

// Q: `heads` heads, K and V: heads / ratio heads, each S x D; O[h] = causal softmax(Q[h] K[h /
// ratio]^T * scale) V[h / ratio], in double, with the bf16 bound.
inline Reference causal_attention(const Matrix<bf16>& Q, const Matrix<bf16>& K,
                                  const Matrix<bf16>& V, std::int64_t heads, std::int64_t S,
                                  std::int64_t D, std::int64_t ratio, double scale) {
  Reference ref{heads * S, D, std::vector<double>(static_cast<std::size_t>(heads * S * D)), {}};
  std::vector<double> x(static_cast<std::size_t>(S));
  for (std::int64_t h = 0; h < heads; ++h) {
    const std::int64_t g = h / ratio; // the key/value head
    for (std::int64_t r = 0; r < S; ++r) {
      const std::int64_t row = h * S + r;
      double m = -INFINITY;
      for (std::int64_t c = 0; c <= r; ++c) {
        double dot = 0;
        for (std::int64_t e = 0; e < D; ++e)
          dot += Q.at(row, e) * K.at(g * S + c, e);
        x[static_cast<std::size_t>(c)] = dot * scale;
        m = std::max(m, x[static_cast<std::size_t>(c)]);
      }
      double l = 0;
      for (std::int64_t c = 0; c <= r; ++c)
        l += std::exp(x[static_cast<std::size_t>(c)] - m);
      for (std::int64_t c = 0; c <= r; ++c) {
        const double p = std::exp(x[static_cast<std::size_t>(c)] - m) / l;
        for (std::int64_t d = 0; d < D; ++d)
          ref.value[static_cast<std::size_t>(row * D + d)] += p * V.at(g * S + c, d);
      }
    }
  }
  set_bf16_bound(ref);
  return ref;
}

/// A [heads * S, D] matrix as the interpreter's batch of `heads` matrices of S rows.
inline interp::Matrix batch(const Matrix<bf16>& m, std::int64_t heads, std::int64_t S) {
  interp::Matrix r = to_interp(m);
  r.rows = S;
  r.batch = heads;
  return r;
}

} // namespace tk::e2e
