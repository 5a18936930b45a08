// NUM_CIRCULAR_BUFFERS (mirrors tt_metal/api/tt-metalium/circular_buffer_constants.h): on the
// host the SDK sizes per-CB tables for its largest architecture, 64 CBs; a kernel built for
// Wormhole (-DARCH_WORMHOLE) sees 32. The device's count is ArchSpec::num_circular_buffers.
#pragma once
#include <cstdint>

#if defined(ARCH_WORMHOLE)
constexpr static std::uint32_t NUM_CIRCULAR_BUFFERS = 32;
#else
constexpr static std::uint32_t NUM_CIRCULAR_BUFFERS = 64;
#endif
constexpr static std::uint32_t UINT32_WORDS_PER_LOCAL_CIRCULAR_BUFFER_CONFIG = 4;
constexpr static std::uint32_t UINT32_WORDS_PER_REMOTE_CIRCULAR_BUFFER_CONFIG = 2;
// A compute kernel's CB interface holds addresses and sizes in 16-byte words
// (fifo_page_size << CIRCULAR_BUFFER_COMPUTE_ADDR_SHIFT is the page size in bytes).
constexpr static std::uint32_t CIRCULAR_BUFFER_COMPUTE_WORD_SIZE = 16;
constexpr static std::uint32_t CIRCULAR_BUFFER_COMPUTE_ADDR_SHIFT = 4;
