// Row-major <-> tiled "nfaces" layout (mirrors tt_metal/api/tt-metalium/tilize_utils.hpp): tiles in
// row-major order, each tile four contiguous 16x16 faces (TL, TR, BL, BR), each face row-major.
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace tt::tt_metal::detail {
inline std::size_t nfaces_offset(std::uint32_t r, std::uint32_t c, std::uint32_t n) {
  const std::uint32_t tile = (r / 32) * (n / 32) + c / 32;
  const std::uint32_t tr = r % 32;
  const std::uint32_t tc = c % 32;
  return std::size_t{tile} * 1024 + ((tr / 16) * 2 + tc / 16) * 256 + (tr % 16) * 16 + tc % 16;
}
inline void check_tileable(std::size_t size, std::uint32_t m, std::uint32_t n) {
  if (m % 32 != 0 || n % 32 != 0 || std::size_t{m} * n != size) {
    throw std::invalid_argument("tilize/untilize: a " + std::to_string(m) + "x" +
                                std::to_string(n) +
                                " matrix must be a multiple of 32 in both dimensions and hold " +
                                std::to_string(size) + " elements");
  }
}
} // namespace tt::tt_metal::detail

template <typename T>
std::vector<T> tilize_nfaces(const std::vector<T>& input, std::uint32_t m, std::uint32_t n) {
  tt::tt_metal::detail::check_tileable(input.size(), m, n);
  std::vector<T> out(input.size());
  for (std::uint32_t r = 0; r < m; ++r) {
    for (std::uint32_t c = 0; c < n; ++c) {
      out[tt::tt_metal::detail::nfaces_offset(r, c, n)] = input[std::size_t{r} * n + c];
    }
  }
  return out;
}

template <typename T>
std::vector<T> untilize_nfaces(const std::vector<T>& input, std::uint32_t m, std::uint32_t n) {
  tt::tt_metal::detail::check_tileable(input.size(), m, n);
  std::vector<T> out(input.size());
  for (std::uint32_t r = 0; r < m; ++r) {
    for (std::uint32_t c = 0; c < n; ++c) {
      out[std::size_t{r} * n + c] = input[tt::tt_metal::detail::nfaces_offset(r, c, n)];
    }
  }
  return out;
}
