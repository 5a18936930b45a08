// The baselines' inputs and checks: Bfp8_b / Bfp4_b quantisation, the double reference, random
// bf16 matrices, the bf16 and block-float acceptance rules (matmul.hpp).
#include "baselines/matmul.hpp"

#include <algorithm>
#include <cmath>
#include <random>

#include <tt-metalium/bfloat4.hpp>
#include <tt-metalium/bfloat8.hpp>
#include <tt-metalium/tilize_utils.hpp>

namespace tk::baselines {

std::vector<bfloat16> quantize_bfp8(const std::vector<bfloat16>& m, std::uint32_t rows,
                                    std::uint32_t cols) {
  const std::vector<bfloat16> tiled = tilize_nfaces(m, rows, cols);
  const std::vector<std::uint32_t> packed =
      pack_as_bfp8_tiles(ttsl::Span<const bfloat16>(tiled), false, false);
  const std::vector<float> values = untilize_nfaces(
      unpack_bfp8_tiles_into_float_vec(ttsl::Span<const std::uint32_t>(packed), false, false), rows,
      cols);
  std::vector<bfloat16> out(values.size());
  std::transform(values.begin(), values.end(), out.begin(), [](float v) { return bfloat16(v); });
  return out;
}

std::vector<bfloat16> quantize_bfp4(const std::vector<bfloat16>& m, std::uint32_t rows,
                                    std::uint32_t cols) {
  const std::vector<bfloat16> tiled = tilize_nfaces(m, rows, cols);
  const std::vector<std::uint32_t> packed =
      pack_as_bfp4_tiles(ttsl::Span<const bfloat16>(tiled), false, false);
  const std::vector<float> values = untilize_nfaces(
      unpack_bfp4_tiles_into_float_vec(ttsl::Span<const std::uint32_t>(packed), false, false), rows,
      cols);
  std::vector<bfloat16> out(values.size());
  std::transform(values.begin(), values.end(), out.begin(), [](float v) { return bfloat16(v); });
  return out;
}

std::vector<double> reference_matmul(MatmulShape s, const std::vector<bfloat16>& a,
                                     const std::vector<bfloat16>& b) {
  std::vector<double> bd(b.size());
  std::transform(b.begin(), b.end(), bd.begin(),
                 [](bfloat16 v) { return static_cast<double>(static_cast<float>(v)); });
  std::vector<double> c(std::size_t{s.M} * s.N, 0.0);
  for (std::size_t i = 0; i < s.M; ++i) {
    double* row = &c[i * s.N];
    for (std::size_t k = 0; k < s.K; ++k) {
      const double aik = static_cast<float>(a[i * s.K + k]);
      const double* brow = &bd[k * s.N];
      for (std::size_t j = 0; j < s.N; ++j)
        row[j] += aik * brow[j];
    }
  }
  return c;
}

std::vector<bfloat16> random_bf16_matrix(std::size_t rows, std::size_t cols, std::uint64_t seed,
                                         float lo, float hi) {
  std::mt19937_64 rng(seed);
  std::vector<bfloat16> m(rows * cols);
  for (bfloat16& v : m) {
    const double u = static_cast<double>(rng() >> 11) * 0x1.0p-53; // [0, 1), written out
    v = bfloat16(static_cast<float>(lo + (hi - lo) * u));
  }
  return m;
}

namespace {
MatmulCheck check_block_float(const std::vector<float>& got, const std::vector<double>& ref,
                              std::uint32_t cols, int magnitude_bits, double min_pcc);
} // namespace

MatmulCheck check_bf16(const std::vector<float>& got, const std::vector<double>& ref) {
  return check_block_float(got, ref, 0, 7, kMinPcc);
}

MatmulCheck check_bfp8(const std::vector<float>& got, const std::vector<double>& ref,
                       std::uint32_t cols) {
  return check_block_float(got, ref, cols, 7, kMinPcc);
}

MatmulCheck check_bfp4(const std::vector<float>& got, const std::vector<double>& ref,
                       std::uint32_t cols) {
  return check_block_float(got, ref, cols, 3, kMinPccBfp4);
}

namespace {
MatmulCheck check_block_float(const std::vector<float>& got, const std::vector<double>& ref,
                              std::uint32_t cols, int magnitude_bits, double min_pcc) {
  // With cols, each element may also be off by one step of its block: the 16 values of a face row
  // (columns 16j .. 16j + 15 of a row) share the exponent of the largest, and `magnitude_bits`
  // bits of magnitude below it (7 in Bfp8_b, 3 in Bfp4_b) are a step of 2^(exponent - bits + 1).
  std::vector<double> step(ref.size(), 0.0);
  if (cols != 0) {
    for (std::size_t i = 0; i < ref.size(); i += 16) {
      double m = 0;
      for (std::size_t j = i; j < i + 16 && j < ref.size(); ++j)
        m = std::max(m, std::abs(ref[j]));
      const double e = m > 0 ? std::ldexp(1.0, std::ilogb(m) - magnitude_bits + 1) : 0.0;
      for (std::size_t j = i; j < i + 16 && j < ref.size(); ++j)
        step[j] = e;
    }
  }
  MatmulCheck r;
  if (got.size() != ref.size()) {
    r.mismatches = std::max(got.size(), ref.size());
    return r;
  }
  double mg = 0, mr = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    const double err = std::abs(static_cast<double>(got[i]) - ref[i]);
    const double ratio = err / (kBf16Tol * (1 + std::abs(ref[i])) + step[i]);
    if (!(ratio <= 1)) // also counts NaN
      ++r.mismatches;
    if (!(err <= r.max_abs_err))
      r.max_abs_err = err; // NaN sticks
    if (!(ratio <= r.max_bound_ratio))
      r.max_bound_ratio = ratio;
    mg += got[i];
    mr += ref[i];
  }
  const auto n = static_cast<double>(got.size());
  mg /= n;
  mr /= n;
  double sgr = 0, sgg = 0, srr = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    sgr += (got[i] - mg) * (ref[i] - mr);
    sgg += (got[i] - mg) * (got[i] - mg);
    srr += (ref[i] - mr) * (ref[i] - mr);
  }
  r.pcc = sgg > 0 && srr > 0 ? sgr / std::sqrt(sgg * srr) : (r.mismatches == 0 ? 1.0 : 0.0);
  r.ok = r.mismatches == 0 && r.pcc >= min_pcc;
  return r;
}
} // namespace

} // namespace tk::baselines
