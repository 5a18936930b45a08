// Helpers of the interpreter tests: a checked kernel from .tk text or from examples/, seeded
// random matrices, and the comparison with a plain double-precision computation.
#pragma once

#include "dsl/check.hpp"
#include "interp/interp.hpp"
#include "parser/parse.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <functional>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace tk::interp::test {

/// The first kernel of `text`, parsed and checked; fails the test (and returns an empty kernel)
/// if either reports an error.
inline dsl::Kernel checked(const std::string& text, const std::string& file = "t.tk") {
  SourceFile src(file, text);
  Diagnostics diags(&src);
  auto m = parser::parse(src, diags);
  if (m)
    dsl::check(*m, diags);
  EXPECT_FALSE(diags.has_errors()) << text << "\n" << diags.str();
  if (!m || diags.has_errors() || m->kernels.empty())
    return {};
  return m->kernels.front();
}

/// examples/<stem>.tk, checked.
inline dsl::Kernel example(const std::string& stem) {
  const std::string path = std::string(TK_SOURCE_DIR) + "/examples/" + stem + ".tk";
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << "cannot read " << path;
  std::stringstream text;
  text << in.rdbuf();
  return checked(text.str(), path);
}

/// Uniform in [lo, hi], the same on every machine for a seed.
inline Matrix random(std::int64_t rows, std::int64_t cols, double lo, double hi,
                     std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  Matrix m(rows, cols);
  for (double& v : m.data)
    v = lo + (hi - lo) * static_cast<double>(rng() >> 11) * 0x1.0p-53;
  return m;
}

/// Causal attention in double over `heads` heads of S x D (Q, K, V stacked head-major, S * heads
/// rows): row r of head h is the softmax of the scaled scores of keys 0 .. r, times V.
inline Matrix causal_attention(const Matrix& Q, const Matrix& K, const Matrix& V,
                               std::int64_t heads, std::int64_t S, std::int64_t D, double scale) {
  Matrix want = Matrix::batched(heads, S, D);
  for (std::int64_t h = 0; h < heads; ++h)
    for (std::int64_t r = 0; r < S; ++r) {
      std::vector<double> x(static_cast<std::size_t>(r + 1));
      double m = -std::numeric_limits<double>::infinity(), l = 0;
      for (std::int64_t c = 0; c <= r; ++c) {
        double dot = 0;
        for (std::int64_t e = 0; e < D; ++e)
          dot += Q.at(h * S + r, e) * K.at(h * S + c, e);
        x[static_cast<std::size_t>(c)] = dot * scale;
        m = std::max(m, dot * scale);
      }
      for (double v : x)
        l += std::exp(v - m);
      for (std::int64_t c = 0; c <= r; ++c)
        for (std::int64_t d = 0; d < D; ++d)
          want.at(h, r, d) += std::exp(x[static_cast<std::size_t>(c)] - m) / l * V.at(h * S + c, d);
    }
  return want;
}

/// A rows x cols matrix with element (r, c) = f(r, c).
inline Matrix make(std::int64_t rows, std::int64_t cols,
                   const std::function<double(std::int64_t, std::int64_t)>& f) {
  Matrix m(rows, cols);
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t c = 0; c < cols; ++c)
      m.at(r, c) = f(r, c);
  return m;
}

/// Every element of `got` within tol * (1 + |want|) of `want` (inputs are of order 1, so the
/// absolute part covers sums that cancel to near 0, where the summation order shows); both NaN, or
/// equal infinities, also match. Reports the first few mismatches.
inline ::testing::AssertionResult near(const Matrix& got, const Matrix& want, double tol = 1e-12) {
  if (got.rows != want.rows || got.cols != want.cols || got.batch != want.batch)
    return ::testing::AssertionFailure()
           << "shape " << got.batch << "x" << got.rows << "x" << got.cols << ", want " << want.batch
           << "x" << want.rows << "x" << want.cols;
  int bad = 0;
  std::ostringstream os;
  for (std::int64_t r = 0; r < want.batch * want.rows; ++r) // a batch: its stacked rows
    for (std::int64_t c = 0; c < want.cols; ++c) {
      const double g = got.at(r, c), w = want.at(r, c);
      const bool same = (std::isnan(g) && std::isnan(w)) || g == w;
      if (!same && !(std::abs(g - w) <= tol * (1 + std::abs(w))) && bad++ < 5)
        os << "  (" << r << ", " << c << "): got " << g << ", want " << w << "\n";
    }
  if (bad == 0)
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << bad << " elements differ:\n" << os.str();
}

} // namespace tk::interp::test
