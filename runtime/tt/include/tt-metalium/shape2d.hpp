// A height x width pair (mirrors tt_metal/api/tt-metalium/shape2d.hpp), used by sharded mesh
// buffers; structured bindings give (height, width) as in the SDK.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <ostream>
#include <tuple>
#include <utility>

namespace tt::tt_metal {
class Shape2D final {
public:
  Shape2D(std::size_t height, std::size_t width) : height_(height), width_(width) {}
  Shape2D(const std::pair<std::size_t, std::size_t>& size) : Shape2D(size.first, size.second) {}
  Shape2D(const std::array<std::size_t, 2>& size) : Shape2D(size[0], size[1]) {}
  Shape2D(const std::array<std::uint32_t, 2>& size) : Shape2D(size[0], size[1]) {}

  operator std::pair<std::size_t, std::size_t>() const { return {height_, width_}; }
  operator std::array<std::size_t, 2>() const { return {height_, width_}; }
  operator std::array<std::uint32_t, 2>() const {
    return {static_cast<std::uint32_t>(height_), static_cast<std::uint32_t>(width_)};
  }
  Shape2D operator*(std::size_t scalar) const { return {height_ * scalar, width_ * scalar}; }
  bool operator==(const Shape2D& rhs) const {
    return height_ == rhs.height_ && width_ == rhs.width_;
  }

  [[nodiscard]] std::size_t height() const { return height_; }
  [[nodiscard]] std::size_t width() const { return width_; }

  template <std::size_t I>
  std::size_t get() const {
    static_assert(I < 2, "Invalid index for Shape2D");
    if constexpr (I == 0)
      return height_;
    else
      return width_;
  }

private:
  std::size_t height_ = 0;
  std::size_t width_ = 0;
};

inline std::ostream& operator<<(std::ostream& os, const Shape2D& size) {
  return os << "(" << size.height() << ", " << size.width() << ")";
}
} // namespace tt::tt_metal

namespace std {
template <>
struct tuple_size<tt::tt_metal::Shape2D> : std::integral_constant<size_t, 2> {};
template <std::size_t I>
struct tuple_element<I, tt::tt_metal::Shape2D> {
  using type = std::size_t;
};
} // namespace std
