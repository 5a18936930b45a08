// Tile load/store and the reductions/broadcasts of <tilekit/cpu/tile.hpp>. Loops are written so
// that the compiler vectorises them (contiguous rows of 32, no branches inside).
#include <tilekit/cpu/tile.hpp>

#include <algorithm>
#include <cassert>
#include <cstring>
#include <limits>

namespace tk::cpu {
namespace {

inline float widen(float x) {
  return x;
}
inline float widen(bf16 x) {
  return static_cast<float>(x);
}

// The part of a tile that a view covers: 32 along a tiled dimension, 1 along a vector one.
struct Extent {
  std::int64_t row0, col0;
  int rows, cols;
};

template <class T>
Extent extent_of(const MatrixView<T>& v, std::int64_t ti, std::int64_t tj) {
  Extent e{ti * kTile, tj * kTile, v.rows == 1 ? 1 : kTile, v.cols == 1 ? 1 : kTile};
  assert(ti >= 0 && tj >= 0 && e.row0 + e.rows <= v.rows && e.col0 + e.cols <= v.cols);
  return e;
}

template <class T>
void load_impl(MatrixView<const T> src, std::int64_t ti, std::int64_t tj, Tile& dst) {
  const Extent e = extent_of(src, ti, tj);
  if (e.rows != kTile || e.cols != kTile)
    std::memset(dst.data, 0, sizeof dst.data);
  for (int r = 0; r < e.rows; ++r) {
    const T* in = src.data + (e.row0 + r) * src.cols + e.col0;
    float* out = dst.data + r * kTile;
    for (int c = 0; c < e.cols; ++c)
      out[c] = widen(in[c]);
  }
}

template <class T>
void store_impl(const Tile& src, MatrixView<T> dst, std::int64_t ti, std::int64_t tj) {
  const Extent e = extent_of(dst, ti, tj);
  for (int r = 0; r < e.rows; ++r) {
    const float* in = src.data + r * kTile;
    T* out = dst.data + (e.row0 + r) * dst.cols + e.col0;
    for (int c = 0; c < e.cols; ++c)
      out[c] = T(in[c]);
  }
}

template <class Op>
void reduce_rows(const Tile& in, Tile& out, float init, Op op) {
  float acc[kTile];
  for (int r = 0; r < kTile; ++r) {
    float a = init;
    for (int c = 0; c < kTile; ++c)
      a = op(a, in(r, c));
    acc[r] = a;
  }
  fill(out, 0.0f);
  for (int r = 0; r < kTile; ++r)
    out(r, 0) = acc[r];
}

template <class Op>
void reduce_cols(const Tile& in, Tile& out, float init, Op op) {
  float acc[kTile];
  std::fill(acc, acc + kTile, init);
  for (int r = 0; r < kTile; ++r)
    for (int c = 0; c < kTile; ++c)
      acc[c] = op(acc[c], in(r, c));
  fill(out, 0.0f);
  std::copy(acc, acc + kTile, out.data);
}

inline float add(float a, float b) {
  return a + b;
}
// std::max would drop a NaN in its second argument; a reduction should propagate it.
inline float max_nan(float a, float b) {
  return (a != a || a > b) ? a : b;
}

constexpr float kNegInf = -std::numeric_limits<float>::infinity();

} // namespace

void load_tile(MatrixView<const float> src, std::int64_t ti, std::int64_t tj, Tile& dst) {
  load_impl(src, ti, tj, dst);
}
void load_tile(MatrixView<const bf16> src, std::int64_t ti, std::int64_t tj, Tile& dst) {
  load_impl(src, ti, tj, dst);
}
void store_tile(const Tile& src, MatrixView<float> dst, std::int64_t ti, std::int64_t tj) {
  store_impl(src, dst, ti, tj);
}
void store_tile(const Tile& src, MatrixView<bf16> dst, std::int64_t ti, std::int64_t tj) {
  store_impl(src, dst, ti, tj);
}

void rowsum(const Tile& in, Tile& out) {
  reduce_rows(in, out, 0.0f, add);
}
// The maximum of each row by halving (32 -> 16 -> ... -> 1 lanes), which the compiler turns into
// vector max/blend steps, rather than a chain of 32 dependent scalar steps per row (attention's
// online softmax takes a rowmax per score tile: 10% of its time on one thread, 2026-11-28). The
// same value as the chain: max is order-free, and max_nan propagates a NaN either way.
void rowmax(const Tile& in, Tile& out) {
  float acc[kTile];
  for (int r = 0; r < kTile; ++r) {
    const float* row = in.data + r * kTile;
    float v[kTile / 2];
    for (int k = 0; k < kTile / 2; ++k)
      v[k] = max_nan(row[k], row[k + kTile / 2]);
    for (int w = kTile / 4; w >= 1; w /= 2)
      for (int k = 0; k < w; ++k)
        v[k] = max_nan(v[k], v[k + w]);
    acc[r] = v[0];
  }
  fill(out, 0.0f);
  for (int r = 0; r < kTile; ++r)
    out(r, 0) = acc[r];
}
void colsum(const Tile& in, Tile& out) {
  reduce_cols(in, out, 0.0f, add);
}
void colmax(const Tile& in, Tile& out) {
  reduce_cols(in, out, kNegInf, max_nan);
}

void bcast_row(const Tile& in, Tile& out) {
  float row[kTile];
  std::copy(in.data, in.data + kTile, row);
  for (int r = 0; r < kTile; ++r)
    std::copy(row, row + kTile, out.data + r * kTile);
}

void bcast_col(const Tile& in, Tile& out) {
  float col[kTile];
  for (int r = 0; r < kTile; ++r)
    col[r] = in(r, 0);
  for (int r = 0; r < kTile; ++r)
    std::fill(out.data + r * kTile, out.data + (r + 1) * kTile, col[r]);
}

void fill(Tile& t, float value) {
  std::fill(t.data, t.data + kTileElems, value);
}

} // namespace tk::cpu
