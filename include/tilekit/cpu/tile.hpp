// 32x32 fp32 tiles for generated CPU code: load/store between a MatrixView (bf16 or f32) and a
// tile, and the reductions and broadcasts of the language. Element-wise math is written inline
// by the generated code as loops over Tile::data.
#pragma once

#include <tilekit/runtime.hpp>

#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace tk::cpu {

inline constexpr int kTile = 32;
inline constexpr int kTileElems = kTile * kTile;

/// One tile in fp32, row-major, aligned for full-width vector loads.
struct alignas(64) Tile {
  float data[kTileElems];
  float& operator()(int r, int c) { return data[r * kTile + c]; }
  float operator()(int r, int c) const { return data[r * kTile + c]; }
};

/// A row of tiles (the language's `o[d in tiles(D)]`): tile d is element d. Generated code copies
/// a tile out before computing with it and back when it is updated (`o[d] = ...`).
using Row = std::vector<Tile>;
inline Row row_alloc(std::int64_t n) {
  return Row(static_cast<std::size_t>(n));
}
inline void row_get(const Row& row, std::int64_t d, Tile& dst) {
  dst = row[static_cast<std::size_t>(d)];
}
inline void row_set(Row& row, std::int64_t d, const Tile& src) {
  row[static_cast<std::size_t>(d)] = src;
}

/// Loads tile (ti, tj) of `src`. A dimension of exactly 1 is a vector: only index 0 along it is
/// valid, it fills row 0 (a row vector) or column 0 (a column vector) and the rest of the tile is
/// zero. bf16 is widened exactly.
void load_tile(MatrixView<const float> src, std::int64_t ti, std::int64_t tj, Tile& dst);
void load_tile(MatrixView<const bf16> src, std::int64_t ti, std::int64_t tj, Tile& dst);

/// Stores `src` into tile (ti, tj) of `dst`; along a dimension of 1 only row/column 0 is
/// written. bf16 outputs are rounded to nearest-even.
void store_tile(const Tile& src, MatrixView<float> dst, std::int64_t ti, std::int64_t tj);
void store_tile(const Tile& src, MatrixView<bf16> dst, std::int64_t ti, std::int64_t tj);

/// Row reductions give a column vector: column 0 holds one value per row, other columns are 0.
/// Column reductions give a row vector in row 0, other rows 0. `out` may alias `in`.
void rowsum(const Tile& in, Tile& out);
void rowmax(const Tile& in, Tile& out);
void colsum(const Tile& in, Tile& out);
void colmax(const Tile& in, Tile& out);

/// bcast_row repeats row 0 down all rows; bcast_col repeats column 0 across all columns.
/// `out` may alias `in`.
void bcast_row(const Tile& in, Tile& out);
void bcast_col(const Tile& in, Tile& out);

/// Fills every element with `value` (zeros() is fill(t, 0)).
void fill(Tile& t, float value);

/// elu(x, alpha) of one element: alpha * (e^x - 1) below 0, x from 0 on (docs/language.md).
inline float elu(float x, float alpha) {
  return x < 0.0f ? alpha * std::expm1(x) : x;
}

/// erf(x) of one element, written so that a loop over a tile vectorises (no library call, and no
/// float comparison: under the default -ftrapping-math GCC will not if-convert one, so a clamp
/// written `x > c ? c : x` keeps the loop scalar). |x| is clamped to 3.92 on its bits (beyond it
/// erf rounds to +-1 in f32: 1 - erf(3.92) = 3.0e-8, under half an ulp of 1; a NaN is left as it
/// is and stays NaN), then x * P(u) / Q(u), u = x^2 / 3.92^2, a rational of degree 5 over 5 in u
/// fitted to erf(x) / x on [0, 3.92] for least maximum relative error (iterated weighted least
/// squares; evaluated in double it is within 1.9e-8 of erf). Evaluated in f32, with or without
/// FMA contraction, it is within 4.4e-7 of erf over every finite float (checked exhaustively
/// once; CpuTile.ErfApproxIsWithinItsBound checks 4.5e-7 on a dense grid): 7 ulp of 1, where
/// gelu's bf16 result resolves 2^-9 relative.
inline float erf_approx(float x) {
  constexpr std::int32_t kClampBits = std::bit_cast<std::int32_t>(3.92f);
  constexpr std::int32_t kInfBits = 0x7f800000;
  constexpr float kInvClamp2 = static_cast<float>(1.0 / (3.92 * 3.92));
  const std::int32_t bits = std::bit_cast<std::int32_t>(x);
  const std::int32_t mag = bits & 0x7fffffff;
  const std::int32_t clamped = mag > kClampBits && mag <= kInfBits ? kClampBits : mag;
  x = std::bit_cast<float>((bits & ~0x7fffffff) | clamped);
  const float u = x * x * kInvClamp2;
  const float p = ((((1.756442081968275f * u + 15.883821256653613f) * u + 13.66319981664692f) * u +
                    12.455357783479933f) *
                       u +
                   2.9258610269414147f) *
                      u +
                  1.1283791461667438f;
  const float q = ((((32.63561331553662f * u + 64.81788117328621f) * u + 54.31445398411134f) * u +
                    26.94415209870434f) *
                       u +
                   7.715101053984227f) *
                      u +
                  1.0f;
  return x * p / q;
}

} // namespace tk::cpu
