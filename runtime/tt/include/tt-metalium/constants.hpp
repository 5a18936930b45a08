// Tile geometry constants (mirrors tt_metal/api/tt-metalium/constants.hpp).
#pragma once
#include <cstdint>

namespace tt::constants {
constexpr std::uint32_t TILE_HEIGHT = 32;
constexpr std::uint32_t TILE_WIDTH = 32;
constexpr std::uint32_t TILE_HW = TILE_WIDTH * TILE_HEIGHT;
constexpr std::uint32_t FACE_HEIGHT = 16;
constexpr std::uint32_t FACE_WIDTH = 16;
constexpr std::uint32_t FACE_HW = FACE_WIDTH * FACE_HEIGHT;
constexpr std::uint32_t BFLOAT8_B_TILE_HW = TILE_HW + 64;
} // namespace tt::constants
