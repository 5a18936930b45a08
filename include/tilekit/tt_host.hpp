// Host-side layout helpers of the generated TT-Metalium programs (run_tt): a row-major
// tk::MatrixView to and from the device's tiled pages. Header-only, and built only on the SDK's
// own tilize_nfaces/untilize_nfaces, so generated host code compiles against the real SDK too.
#pragma once

#include <tilekit/runtime.hpp>

#include <tt-metalium/tilize_utils.hpp>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace tk::tt_host {

/// A dimension rounded up to whole tiles: a vector's 1 becomes one tile row (or column) of zeros.
inline std::uint32_t tiled(std::int64_t n) {
  return static_cast<std::uint32_t>((n + 31) / 32 * 32);
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

} // namespace tk::tt_host
