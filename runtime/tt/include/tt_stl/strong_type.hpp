// ttsl::StrongType (mirrors tt_stl/tt_stl/strong_type.hpp of tt-metal a8c5af0f5a26): a value of T
// that does not convert to or from other StrongTypes of T (each Tag is its own type); `*id` reads
// it; ordered, hashable and printable as T.
#pragma once
#include <compare>
#include <cstddef>
#include <functional>
#include <ostream>
#include <utility>

namespace ttsl {
template <typename T, typename Tag>
class StrongType {
public:
  constexpr StrongType() noexcept : value_{} {}
  constexpr explicit StrongType(T v) noexcept : value_(std::move(v)) {}
  constexpr StrongType(const StrongType&) = default;
  constexpr StrongType(StrongType&&) noexcept = default;
  constexpr StrongType& operator=(const StrongType&) = default;
  constexpr StrongType& operator=(StrongType&&) noexcept = default;

  constexpr const T& operator*() const { return value_; }
  constexpr auto operator<=>(const StrongType&) const noexcept = default;

private:
  T value_;
};
} // namespace ttsl

template <typename T, typename Tag>
std::ostream& operator<<(std::ostream& os, const ttsl::StrongType<T, Tag>& h) {
  return os << *h;
}

template <typename T, typename Tag>
struct std::hash<ttsl::StrongType<T, Tag>> {
  std::size_t operator()(const ttsl::StrongType<T, Tag>& h) const noexcept {
    return std::hash<T>{}(*h);
  }
};

namespace tt {
namespace [[deprecated("Use ttsl namespace instead")]] stl {
using namespace ::ttsl;
} // namespace stl
} // namespace tt
