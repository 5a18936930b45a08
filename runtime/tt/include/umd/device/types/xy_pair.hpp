// tt_xy_pair, the core coordinate of UMD (umd/device/types/xy_pair.hpp, which tt-metal's
// core_coord.hpp re-exports as CoreCoord).
#pragma once
#include <cstddef>
#include <string>

struct tt_xy_pair {
  constexpr tt_xy_pair() = default;
  constexpr tt_xy_pair(std::size_t x_, std::size_t y_) : x(x_), y(y_) {}
  std::size_t x = 0;
  std::size_t y = 0;
  std::string str() const { return "(x=" + std::to_string(x) + ",y=" + std::to_string(y) + ")"; }
  friend constexpr bool operator==(const tt_xy_pair& a, const tt_xy_pair& b) {
    return a.x == b.x && a.y == b.y;
  }
  friend constexpr bool operator!=(const tt_xy_pair& a, const tt_xy_pair& b) { return !(a == b); }
  friend constexpr bool operator<(const tt_xy_pair& a, const tt_xy_pair& b) {
    return a.x < b.x || (a.x == b.x && a.y < b.y);
  }
};
