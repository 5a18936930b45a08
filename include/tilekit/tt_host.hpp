// Host-side layout helpers of the generated TT-Metalium programs (run_tt): a row-major
// tk::MatrixView (or a batch of them, tk::TensorView) to and from the device's tiled pages.
// Header-only, and built only on the SDK's own tilize_nfaces/untilize_nfaces and
// pack_as_bfp8_tiles, so generated host code compiles against the real SDK too.
#pragma once

#include <tilekit/matmul_blocks.hpp>
#include <tilekit/q_chunk.hpp>
#include <tilekit/runtime.hpp>

#include <tt-metalium/bfloat8.hpp>
#include <tt-metalium/tilize_utils.hpp>

#include <bit>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace tk::tt_host {

/// A dimension rounded up to whole tiles: a vector's 1 becomes one tile row (or column) of zeros.
inline std::uint32_t tiled(std::int64_t n) {
  return static_cast<std::uint32_t>((n + 31) / 32 * 32);
}

/// The blocked matmul's rule (tilekit/matmul_blocks.hpp) as the generated host program calls it:
/// one field of the choice for a shape of Mt x Kt x Nt tiles (0 the rows, 1 the columns, 2 the
/// depth), the compile-time inputs set once, field by field, and passed to each call.
inline std::uint32_t matmul_block(std::int64_t field, std::int64_t Mt, std::int64_t Kt,
                                  std::int64_t Nt, const MatmulBlockLimits& limits) {
  const MatmulBlocks b = choose_matmul_blocks(Mt, Kt, Nt, limits);
  return static_cast<std::uint32_t>(field == 0 ? b.rows : field == 1 ? b.cols : b.depth);
}

/// The Q chunk rule (tilekit/q_chunk.hpp) as the generated host program calls it: the query tile
/// rows per work item at H heads of St tile rows and Dt tiles of D, the limits set once, field by
/// field (tt.q_chunk's compile-time inputs).
inline std::uint32_t q_chunk(std::int64_t H, std::int64_t St, std::int64_t Dt,
                             const QChunkLimits& limits) {
  return static_cast<std::uint32_t>(choose_q_chunk(H, St, Dt, limits));
}

/// A scale folded into the approximate exp's init (exp_tile_init<true, scale>, ttgen's fold-scale
/// under @options(exp_approx_mode)) as the compute kernel's compile-time arg: its fp32 bits. The
/// fold computes the softmax's max over the unscaled scores, which is the max of the scaled ones
/// only for a scale > 0 (docs/lowering.md, "Scale folding"): any other scale is an error.
inline std::uint32_t exp_scale_bits(float scale) {
  if (!(scale > 0.0f))
    throw std::invalid_argument(
        "exp_approx_mode folds the score's scale into exp, which needs a scale > 0, but it is " +
        std::to_string(scale));
  return std::bit_cast<std::uint32_t>(scale);
}

/// A tensor in the device's layout: converted to the element type D of its pages, zero-padded to
/// whole tiles and tilized (four 16x16 faces per tile, tiles row-major).
template <class D, class T>
std::vector<D> to_tiles(tk::MatrixView<const T> v) {
  const std::uint32_t rows = tiled(v.rows), cols = tiled(v.cols);
  std::vector<D> host(std::size_t{rows} * cols, D(0.0f));
  for (std::int64_t r = 0; r < v.rows; ++r)
    for (std::int64_t c = 0; c < v.cols; ++c)
      host[static_cast<std::size_t>(r) * cols + static_cast<std::size_t>(c)] =
          D(static_cast<float>(v(r, c)));
  return tilize_nfaces(host, rows, cols);
}

/// The inverse: untilizes the pages read back into the view, keeping its rows and columns.
template <class T, class D>
void from_tiles(const std::vector<D>& tiles, tk::MatrixView<T> v) {
  const std::uint32_t rows = tiled(v.rows), cols = tiled(v.cols);
  const std::vector<D> host = untilize_nfaces(tiles, rows, cols);
  for (std::int64_t r = 0; r < v.rows; ++r)
    for (std::int64_t c = 0; c < v.cols; ++c)
      v(r, c) = T(static_cast<float>(
          host[static_cast<std::size_t>(r) * cols + static_cast<std::size_t>(c)]));
}

/// A batch in the device's layout: each matrix tilized as above, one after the other (page
/// (b * Rt + r) * Ct + c is tile (r, c) of matrix b).
template <class D, class T>
std::vector<D> to_tiles(tk::TensorView<const T> v) {
  std::vector<D> out;
  for (std::int64_t b = 0; b < v.batch; ++b) {
    const std::vector<D> m = to_tiles<D>(v.matrix(b));
    out.insert(out.end(), m.begin(), m.end());
  }
  return out;
}

/// The inverse for a batch.
template <class T, class D>
void from_tiles(const std::vector<D>& tiles, tk::TensorView<T> v) {
  const std::size_t per = std::size_t{tiled(v.rows)} * tiled(v.cols);
  for (std::int64_t b = 0; b < v.batch; ++b) {
    const auto first =
        tiles.begin() + static_cast<std::ptrdiff_t>(per * static_cast<std::size_t>(b));
    from_tiles(std::vector<D>(first, first + static_cast<std::ptrdiff_t>(per)), v.matrix(b));
  }
}

/// A bfp8 tensor's Bfp8_b pages: tilized in float as above, then packed by the SDK (each face row
/// of 16 values shares one exponent; 1088 bytes a tile).
template <class V>
std::vector<std::uint32_t> to_bfp8_tiles(V v) {
  const std::vector<float> tiles = to_tiles<float>(v);
  return pack_as_bfp8_tiles(ttsl::Span<const float>(tiles.data(), tiles.size()),
                            /*row_major_input=*/false, /*is_exp_a=*/false);
}

/// The inverse for a bfp8 output: its Bfp8_b pages unpacked by the SDK, then untilized.
template <class V>
void from_bfp8_tiles(const std::vector<std::uint32_t>& pages, V v) {
  const std::vector<float> tiles =
      unpack_bfp8_tiles_into_float_vec(ttsl::Span<const std::uint32_t>(pages.data(), pages.size()),
                                       /*row_major_output=*/false, /*is_exp_a=*/false);
  from_tiles(tiles, v);
}

} // namespace tk::tt_host
