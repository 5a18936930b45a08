// Logical core coordinates, ranges and range sets (mirrors
// tt_metal/api/tt-metalium/core_coord.hpp).
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <umd/device/types/xy_pair.hpp>

namespace tt::tt_metal {
using CoreCoord = tt_xy_pair;

// An inclusive rectangle of cores; iteration is row-major, x fastest (core_coord.cpp l.130-142).
class CoreRange {
public:
  CoreRange(const CoreCoord& point) : start_coord(point), end_coord(point) {}
  CoreRange(const CoreCoord& start, const CoreCoord& end);

  CoreCoord start_coord;
  CoreCoord end_coord;

  std::size_t size() const {
    return (end_coord.x - start_coord.x + 1) * (end_coord.y - start_coord.y + 1);
  }
  CoreCoord grid_size() const {
    return {end_coord.x - start_coord.x + 1, end_coord.y - start_coord.y + 1};
  }
  bool contains(const CoreCoord& c) const {
    return c.x >= start_coord.x && c.x <= end_coord.x && c.y >= start_coord.y && c.y <= end_coord.y;
  }
  bool intersects(const CoreRange& o) const;
  std::string str() const { return "[" + start_coord.str() + " - " + end_coord.str() + "]"; }
  friend bool operator==(const CoreRange& a, const CoreRange& b) {
    return a.start_coord == b.start_coord && a.end_coord == b.end_coord;
  }
  friend bool operator<(const CoreRange& a, const CoreRange& b) {
    return a.start_coord < b.start_coord ||
           (a.start_coord == b.start_coord && a.end_coord < b.end_coord);
  }

  // Row by row; *it is a reference to the iterator's current core, as in the SDK.
  class CoreIterator {
  public:
    CoreIterator(const CoreCoord& current, const CoreRange& core_range)
        : range_(&core_range), cur_(current) {}
    CoreCoord& operator*() { return cur_; }
    CoreIterator& operator++() {
      if (cur_.x < range_->end_coord.x) {
        ++cur_.x;
      } else {
        cur_.x = range_->start_coord.x;
        ++cur_.y;
      }
      return *this;
    }
    bool operator!=(const CoreIterator& o) const { return cur_ != o.cur_; }
    bool operator==(const CoreIterator& o) const { return cur_ == o.cur_; }

  private:
    const CoreRange* range_;
    CoreCoord cur_;
  };
  CoreIterator begin() const { return {start_coord, *this}; }
  CoreIterator end() const { return {{start_coord.x, end_coord.y + 1}, *this}; }
};

class CoreRangeSet {
public:
  CoreRangeSet() = default;
  CoreRangeSet(const CoreRange& range) : ranges_{range} {}
  CoreRangeSet(const std::vector<CoreRange>& ranges);
  CoreRangeSet(const std::set<CoreRange>& ranges)
      : CoreRangeSet(std::vector<CoreRange>(ranges.begin(), ranges.end())) {}

  const std::vector<CoreRange>& ranges() const { return ranges_; }
  std::size_t size() const { return ranges_.size(); }
  bool empty() const { return ranges_.empty(); }
  std::uint32_t num_cores() const;
  bool contains(const CoreCoord& c) const;
  bool contains(const CoreRange& r) const;
  bool intersects(const CoreRange& r) const;
  CoreRangeSet merge(const CoreRangeSet& other) const;
  CoreRange bounding_box() const;
  std::string str() const;
  friend bool operator==(const CoreRangeSet& a, const CoreRangeSet& b) {
    return a.ranges_ == b.ranges_;
  }

private:
  std::vector<CoreRange> ranges_;
};

// The cores of `crs`, range by range; within a range row-major unless row_wise is false (then
// column-major).
std::vector<CoreCoord> corerange_to_cores(const CoreRangeSet& crs,
                                          std::optional<std::uint32_t> max_cores = std::nullopt,
                                          bool row_wise = false);

} // namespace tt::tt_metal

// The SDK's global names, deprecated aliases of the tt::tt_metal ones (core_coord.hpp l.213-221).
using CoreCoord [[deprecated("Use tt::tt_metal::CoreCoord")]] = tt::tt_metal::CoreCoord;
using CoreRange [[deprecated("Use tt::tt_metal::CoreRange")]] = tt::tt_metal::CoreRange;
using CoreRangeSet [[deprecated("Use tt::tt_metal::CoreRangeSet")]] = tt::tt_metal::CoreRangeSet;
[[deprecated("Use tt::tt_metal::corerange_to_cores")]] inline std::vector<tt::tt_metal::CoreCoord>
corerange_to_cores(const tt::tt_metal::CoreRangeSet& crs,
                   std::optional<std::uint32_t> max_cores = std::nullopt, bool row_wise = false) {
  return tt::tt_metal::corerange_to_cores(crs, max_cores, row_wise);
}

// fmt::formatter<CoreCoord> (tt_metal/api/tt-metalium/core_coord.hpp formats a core as its str()).
template <>
struct fmt::formatter<tt_xy_pair> : fmt::formatter<std::string> {
  auto format(const tt_xy_pair& c, fmt::format_context& ctx) const {
    return fmt::formatter<std::string>::format(c.str(), ctx);
  }
};
