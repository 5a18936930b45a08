// The NoC TT's data-movement kernels read DRAM on and the one they write DRAM on: one fact per
// architecture, as tt-metal states it (a8c5af0f5a26 tt_metal/api/tt-metalium/kernel_types.hpp,
// `detail::preferred_noc_for_dram_read` / `_write`: NOC_0 and NOC_1 on Wormhole and by default on
// every architecture; tt_metal/impl/kernels/kernel_types.cpp: ReaderDataMovementConfig = RISCV_1
// on the read NoC, WriterDataMovementConfig = RISCV_0 on the write NoC). Kept out of ArchSpec
// (arch/spec.hpp) only because every TileKit library includes that header; docs/arch.md lists it
// with the other facts.
#pragma once

#include "arch/spec.hpp"

#include <string_view>

namespace tk::arch {

/// The NoC (0 or 1) a kernel reading DRAM runs on, the one a kernel writing DRAM runs on.
struct DramNocs {
  int read;
  int write;
  std::string_view source;
};

/// TT's preferred NoCs for DRAM traffic on `a`: the same on Wormhole and Blackhole (tt-metal's
/// switch has one case, WORMHOLE_B0, falling through to the default).
constexpr DramNocs dram_nocs(const ArchSpec& /*a*/) {
  return {0, 1,
          "tt-metal kernel_types.hpp: preferred_noc_for_dram_read = NOC_0, "
          "preferred_noc_for_dram_write = NOC_1 (WORMHOLE_B0 and default)"};
}

} // namespace tk::arch
