// What the SDK matmul baselines' files share (matmul.cpp, matmul_blocks.cpp, matmul_sdk.cpp):
// the shape's text and check, one bf16 tile's bytes.
#pragma once

#include "baselines/matmul.hpp"

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

#include <tt-metalium/constants.hpp>

namespace tk::baselines::detail {

inline constexpr std::uint32_t kTileBytes =
    sizeof(bfloat16) * tt::constants::TILE_HW; // one bf16 tile: 2048 B

inline std::string dims(std::uint32_t a, std::uint32_t b) {
  return std::to_string(a) + "x" + std::to_string(b);
}

inline std::string shape_str(MatmulShape s) {
  return std::to_string(s.M) + "x" + std::to_string(s.K) + "x" + std::to_string(s.N);
}

/// Throws std::invalid_argument unless M, K and N are positive multiples of the tile size.
inline void check_shape(std::string_view algo, MatmulShape s) {
  for (std::uint32_t d : {s.M, s.K, s.N}) {
    if (d == 0 || d % tt::constants::TILE_WIDTH != 0) {
      throw std::invalid_argument(std::string(algo) +
                                  ": M, K and N must be positive multiples of 32 (the tile size); "
                                  "got MxKxN = " +
                                  shape_str(s));
    }
  }
}

} // namespace tk::baselines::detail
