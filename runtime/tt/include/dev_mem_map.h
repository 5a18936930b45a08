// The hardware zeros region of a Tensix core's L1 (mirrors the MEM_ZEROS_* lines of tt-metal's
// tt_metal/hw/inc/internal/tt-1xx/{wormhole,blackhole}/dev_mem_map.h, which the JIT's include list
// makes reachable as "dev_mem_map.h"): MEM_ZEROS_SIZE bytes of zeros right after the mailbox,
// MEM_ZEROS_BASE = (MEM_MAILBOX_END + 31) & ~31 with MEM_MAILBOX_END = MEM_MAILBOX_BASE +
// MEM_MAILBOX_SIZE (Wormhole: 16 + 12912, Blackhole: 96 + 12912). Kernels NoC-read zeros from it
// (TTNN's dataflow_kernel_lib::zero_tile); the emulator keeps it zero and lets reads of it through.
#pragma once
#include <cstdint>

namespace tk::rt::emu {
constexpr std::uint32_t kMemZerosSize = 512;
constexpr std::uint32_t mem_zeros_base(bool blackhole) {
  return ((blackhole ? 96u : 16u) + 12912u + 31u) & ~31u;
}
} // namespace tk::rt::emu

#define MEM_ZEROS_SIZE 512
#if defined(ARCH_BLACKHOLE)
#define MEM_ZEROS_BASE (::tk::rt::emu::mem_zeros_base(true))
#else
#define MEM_ZEROS_BASE (::tk::rt::emu::mem_zeros_base(false))
#endif
