// 32x32 fp32 tiles for generated CPU code: load/store between a MatrixView (bf16 or f32) and a
// tile, and the reductions and broadcasts of the language. Element-wise math is written inline
// by the generated code as loops over Tile::data.
#pragma once

#include <tilekit/runtime.hpp>

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

} // namespace tk::cpu
