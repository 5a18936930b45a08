// Values shared by host and kernels (mirrors
// tt_metal/hostdevcommon/api/hostdevcommon/common_values.hpp): the semaphore flags of the SDK's
// multicast handshakes, and the device-open defaults.
#pragma once
#include <cstddef>
#include <cstdint>

constexpr static std::uint32_t INVALID = 0;
constexpr static std::uint32_t VALID = 1;
constexpr static std::size_t DEFAULT_L1_SMALL_SIZE = 0;
constexpr static std::size_t DEFAULT_TRACE_REGION_SIZE = 0;
constexpr static std::size_t DEFAULT_WORKER_L1_SIZE = 0;
