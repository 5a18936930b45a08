// CoreRange / CoreRangeSet and split_work_to_cores, with the SDK's orderings (core_coord.cpp,
// work_split.cpp).
#include <algorithm>
#include <stdexcept>

#include <tt-metalium/work_split.hpp>

namespace tt::tt_metal {

CoreRange::CoreRange(const CoreCoord& start, const CoreCoord& end)
    : start_coord(start), end_coord(end) {
  if (end.x < start.x || end.y < start.y) {
    throw std::invalid_argument("invalid core range " + start.str() + " - " + end.str());
  }
}
bool CoreRange::intersects(const CoreRange& o) const {
  return start_coord.x <= o.end_coord.x && o.start_coord.x <= end_coord.x &&
         start_coord.y <= o.end_coord.y && o.start_coord.y <= end_coord.y;
}

CoreRangeSet::CoreRangeSet(const std::vector<CoreRange>& ranges) : ranges_(ranges) {
  for (std::size_t i = 0; i < ranges_.size(); ++i) {
    for (std::size_t j = i + 1; j < ranges_.size(); ++j) {
      if (ranges_[i].intersects(ranges_[j])) {
        throw std::invalid_argument("CoreRangeSet: ranges " + ranges_[i].str() + " and " +
                                    ranges_[j].str() + " overlap");
      }
    }
  }
}
std::uint32_t CoreRangeSet::num_cores() const {
  std::uint32_t n = 0;
  for (const auto& r : ranges_)
    n += static_cast<std::uint32_t>(r.size());
  return n;
}
bool CoreRangeSet::contains(const CoreCoord& c) const {
  return std::any_of(ranges_.begin(), ranges_.end(),
                     [&](const CoreRange& r) { return r.contains(c); });
}
bool CoreRangeSet::contains(const CoreRange& range) const {
  for (const CoreCoord c : range) {
    if (!contains(c))
      return false;
  }
  return true;
}
bool CoreRangeSet::intersects(const CoreRange& r) const {
  return std::any_of(ranges_.begin(), ranges_.end(),
                     [&](const CoreRange& x) { return x.intersects(r); });
}
CoreRangeSet CoreRangeSet::merge(const CoreRangeSet& other) const {
  std::vector<CoreRange> all = ranges_;
  for (const auto& r : other.ranges()) {
    if (!intersects(r))
      all.push_back(r);
    else {
      for (const CoreCoord c : r) {
        if (!contains(c))
          all.emplace_back(c);
      }
    }
  }
  return CoreRangeSet(all);
}
CoreRange CoreRangeSet::bounding_box() const {
  if (ranges_.empty())
    throw std::invalid_argument("bounding_box of an empty CoreRangeSet");
  CoreCoord lo = ranges_[0].start_coord, hi = ranges_[0].end_coord;
  for (const auto& r : ranges_) {
    lo = {std::min(lo.x, r.start_coord.x), std::min(lo.y, r.start_coord.y)};
    hi = {std::max(hi.x, r.end_coord.x), std::max(hi.y, r.end_coord.y)};
  }
  return {lo, hi};
}
std::string CoreRangeSet::str() const {
  std::string s = "{";
  for (std::size_t i = 0; i < ranges_.size(); ++i)
    s += (i ? ", " : "") + ranges_[i].str();
  return s + "}";
}

std::vector<CoreCoord> corerange_to_cores(const CoreRangeSet& crs,
                                          std::optional<std::uint32_t> max_cores, bool row_wise) {
  std::vector<CoreCoord> out;
  for (const auto& r : crs.ranges()) {
    if (row_wise) {
      for (auto y = r.start_coord.y; y <= r.end_coord.y; ++y)
        for (auto x = r.start_coord.x; x <= r.end_coord.x; ++x)
          out.emplace_back(x, y);
    } else {
      for (auto x = r.start_coord.x; x <= r.end_coord.x; ++x)
        for (auto y = r.start_coord.y; y <= r.end_coord.y; ++y)
          out.emplace_back(x, y);
    }
  }
  if (max_cores && out.size() > *max_cores)
    out.resize(*max_cores);
  return out;
}

// Full columns (or rows when row_wise) first, then the partial one (work_split.cpp l.77-143).
CoreRangeSet num_cores_to_corerangeset(const CoreCoord start_core, std::uint32_t target,
                                       const CoreCoord grid, bool row_wise) {
  const std::uint32_t gx = static_cast<std::uint32_t>(grid.x),
                      gy = static_cast<std::uint32_t>(grid.y);
  const std::uint32_t sx = static_cast<std::uint32_t>(start_core.x),
                      sy = static_cast<std::uint32_t>(start_core.y);
  const std::uint32_t lead = row_wise ? sx : sy; // index along the fast dimension
  const std::uint32_t fast = row_wise ? gx : gy; // length of the fast dimension
  const std::uint32_t slow_start = row_wise ? sy : sx;
  const std::uint32_t slow_len = row_wise ? gy : gx;
  if (target == 0 || target > (slow_len - slow_start) * fast - lead) {
    throw std::invalid_argument("num_cores_to_corerangeset: " + std::to_string(target) +
                                " cores do not fit the grid");
  }
  auto make = [&](std::uint32_t f0, std::uint32_t s0, std::uint32_t f1, std::uint32_t s1) {
    return row_wise ? CoreRange({f0, s0}, {f1, s1}) : CoreRange({s0, f0}, {s1, f1});
  };
  std::vector<CoreRange> ranges;
  std::uint32_t left = target, s = slow_start, f = lead;
  if (f != 0) { // finish the partial first line
    const std::uint32_t n = std::min(left, fast - f);
    ranges.push_back(make(f, s, f + n - 1, s));
    left -= n;
    ++s;
  }
  if (left >= fast) {
    const std::uint32_t lines = left / fast;
    ranges.push_back(make(0, s, fast - 1, s + lines - 1));
    left -= lines * fast;
    s += lines;
  }
  if (left > 0)
    ranges.push_back(make(0, s, left - 1, s));
  return CoreRangeSet(ranges);
}
CoreRangeSet num_cores_to_corerangeset(std::uint32_t target, const CoreCoord grid, bool row_wise) {
  return num_cores_to_corerangeset({0, 0}, target, grid, row_wise);
}

std::tuple<std::uint32_t, CoreRangeSet, CoreRangeSet, CoreRangeSet, std::uint32_t, std::uint32_t>
split_work_to_cores(const CoreCoord grid, const std::uint32_t units, const bool row_wise) {
  if (units == 0)
    return {0, CoreRangeSet(), CoreRangeSet(), CoreRangeSet(), 0, 0};
  const std::uint32_t max_cores = static_cast<std::uint32_t>(grid.x * grid.y);
  const std::uint32_t num_cores = std::min(units, max_cores);
  const CoreRangeSet all = num_cores_to_corerangeset(num_cores, grid, row_wise);
  const std::uint32_t per_core = units / num_cores;
  const std::uint32_t g1_cores = units % num_cores;
  if (g1_cores == 0)
    return {num_cores, all, all, CoreRangeSet(), per_core, 0};
  // Group 1 (one extra unit each) is the first g1_cores cores in the same order; group 2 the rest.
  const CoreRangeSet g1 = num_cores_to_corerangeset(g1_cores, grid, row_wise);
  const CoreCoord last = row_wise ? CoreCoord{g1_cores % grid.x, g1_cores / grid.x}
                                  : CoreCoord{g1_cores / grid.y, g1_cores % grid.y};
  const CoreRangeSet g2 = num_cores_to_corerangeset(last, num_cores - g1_cores, grid, row_wise);
  return {num_cores, all, g1, g2, per_core + 1, per_core};
}

std::tuple<std::uint32_t, CoreRangeSet, CoreRangeSet, CoreRangeSet, std::uint32_t, std::uint32_t>
split_work_to_cores(const CoreRangeSet& core_grid, const std::uint32_t units, const bool row_wise) {
  const CoreRange box = core_grid.bounding_box();
  if (core_grid.ranges().size() != 1 || box.start_coord != CoreCoord{0, 0}) {
    throw std::invalid_argument(
        "split_work_to_cores: the emulator supports a single range starting at (0,0)");
  }
  return split_work_to_cores(box.grid_size(), units, row_wise);
}
} // namespace tt::tt_metal
