// What the matmul baselines' files share (matmul.cpp, matmul_blocks.cpp, matmul_sdk.cpp,
// matmul_ttnn.cpp): the shape's text and check, one bf16 tile's bytes, a kernel's path and a
// buffer's address.
#pragma once

#include "baselines/matmul.hpp"

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>

#include <tt-metalium/constants.hpp>
#include <tt-metalium/distributed.hpp>

namespace tk::baselines::detail {

inline constexpr std::uint32_t kTileBytes =
    sizeof(bfloat16) * tt::constants::TILE_HW; // one bf16 tile: 2048 B

/// A kernel of the baselines' kernels/ folder, by its path there (compiled at run time).
inline std::string kernel(std::string_view rel) {
  return std::string(TK_BASELINES_KERNEL_DIR) + "/" + std::string(rel);
}

/// A buffer's device address, as a runtime arg.
inline std::uint32_t addr(const std::shared_ptr<tt::tt_metal::distributed::MeshBuffer>& b) {
  return static_cast<std::uint32_t>(b->address());
}

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
