// NUM_CIRCULAR_BUFFERS (mirrors tt_metal/api/tt-metalium/circular_buffer_constants.h): on the
// host the SDK sizes per-CB tables for its largest architecture, 64 CBs; a Wormhole device has 32.
#pragma once
#include <cstdint>

constexpr static std::uint32_t NUM_CIRCULAR_BUFFERS = 64;
