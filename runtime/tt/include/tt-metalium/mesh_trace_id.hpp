// A mesh trace's id (mirrors tt_metal/api/tt-metalium/mesh_trace_id.hpp).
#pragma once
#include <cstdint>

#include <tt_stl/strong_type.hpp>

namespace tt::tt_metal::distributed {
using MeshTraceId = ttsl::StrongType<uint32_t, struct MeshTraceIdTag>;
} // namespace tt::tt_metal::distributed
