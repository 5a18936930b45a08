// ttsl::Span (mirrors tt_stl/tt_stl/span.hpp of tt-metal a8c5af0f5a26): std::span, and tt::stl as
// the deprecated name of ttsl.
#pragma once
#include <span>

namespace ttsl {
template <typename T, std::size_t Extent = std::dynamic_extent>
using Span = std::span<T, Extent>;
} // namespace ttsl

namespace tt {
namespace [[deprecated("Use ttsl namespace instead")]] stl {
using namespace ::ttsl;
} // namespace stl
} // namespace tt
