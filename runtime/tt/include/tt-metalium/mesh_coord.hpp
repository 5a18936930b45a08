// Mesh shapes and coordinates (mirrors tt_metal/api/tt-metalium/mesh_coord.hpp): 2-D meshes of
// devices (docs/emulator.md, "Meshes"); a range iterates its coordinates row-major, as the SDK's
// MeshCoordinateRange::Iterator does.
#pragma once
#include <cstdint>
#include <initializer_list>
#include <tt_stl/assert.hpp>
#include <vector>

namespace tt::tt_metal::distributed {
class MeshShape {
public:
  MeshShape(std::uint32_t rows, std::uint32_t cols) : dims_{rows, cols} {}
  MeshShape(std::initializer_list<std::uint32_t> dims) : dims_(dims) {}
  std::size_t dims() const { return dims_.size(); }
  std::uint32_t operator[](std::size_t i) const { return dims_[i]; }
  std::size_t mesh_size() const {
    std::size_t n = 1;
    for (auto d : dims_)
      n *= d;
    return n;
  }
  friend bool operator==(const MeshShape& a, const MeshShape& b) { return a.dims_ == b.dims_; }

private:
  std::vector<std::uint32_t> dims_;
};

class MeshCoordinate {
public:
  MeshCoordinate(std::uint32_t row, std::uint32_t col) : coords_{row, col} {}
  std::size_t dims() const { return coords_.size(); }
  std::uint32_t operator[](std::size_t i) const { return coords_[i]; }
  friend bool operator==(const MeshCoordinate& a, const MeshCoordinate& b) {
    return a.coords_ == b.coords_;
  }

private:
  std::vector<std::uint32_t> coords_;
};

class MeshCoordinateRange {
public:
  explicit MeshCoordinateRange(const MeshShape& shape)
      : start_(0, 0), end_(shape[0] == 0 ? 0 : shape[0] - 1,
                           shape.dims() > 1 && shape[1] > 0 ? shape[1] - 1 : 0) {}
  MeshCoordinateRange(const MeshCoordinate& start, const MeshCoordinate& end)
      : start_(start), end_(end) {}
  const MeshCoordinate& start_coord() const { return start_; }
  const MeshCoordinate& end_coord() const { return end_; }
  bool contains(const MeshCoordinate& c) const {
    return c[0] >= start_[0] && c[0] <= end_[0] && c[1] >= start_[1] && c[1] <= end_[1];
  }
  std::size_t size() const {
    return std::size_t{end_[0] - start_[0] + 1} * (end_[1] - start_[1] + 1);
  }

  class Iterator {
  public:
    const MeshCoordinate& operator*() const { return current_; }
    const MeshCoordinate* operator->() const { return &current_; }
    Iterator& operator++() {
      ++linear_;
      const std::uint32_t cols = range_->end_[1] - range_->start_[1] + 1;
      current_ = MeshCoordinate(range_->start_[0] + static_cast<std::uint32_t>(linear_ / cols),
                                range_->start_[1] + static_cast<std::uint32_t>(linear_ % cols));
      return *this;
    }
    Iterator operator++(int) {
      Iterator old = *this;
      ++*this;
      return old;
    }
    bool operator==(const Iterator& o) const { return range_ == o.range_ && linear_ == o.linear_; }
    bool operator!=(const Iterator& o) const { return !(*this == o); }

  private:
    friend class MeshCoordinateRange;
    Iterator(const MeshCoordinateRange* range, std::size_t linear)
        : range_(range), current_(range->start_), linear_(linear) {}
    const MeshCoordinateRange* range_;
    MeshCoordinate current_;
    std::size_t linear_;
  };
  Iterator begin() const { return Iterator(this, 0); }
  Iterator end() const { return Iterator(this, size()); }

private:
  MeshCoordinate start_;
  MeshCoordinate end_;
};
} // namespace tt::tt_metal::distributed
