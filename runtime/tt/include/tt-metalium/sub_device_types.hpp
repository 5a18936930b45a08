// Sub-device ids (mirrors tt_metal/api/tt-metalium/sub_device_types.hpp).
#pragma once
#include <cstdint>

#include <tt_stl/strong_type.hpp>

namespace tt::tt_metal {
using SubDeviceId = ttsl::StrongType<uint8_t, struct SubDeviceIdTag>;
using SubDeviceManagerId = ttsl::StrongType<uint64_t, struct SubDeviceManagerIdTag>;
} // namespace tt::tt_metal
