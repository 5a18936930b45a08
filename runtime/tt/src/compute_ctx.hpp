// The compute kernels' shared context (internal to the emulator): the running compute kernel's
// fiber, core, ComputeConfig and DST, and the checks and rounding every DST op applies. Defined in
// compute.cpp; used by it and by compute_sfpu.cpp.
#pragma once

#include <cstdint>

#include "state.hpp"

namespace tk::rt::emu::compute_detail {

struct Compute {
  Fiber& f;
  CoreState& core;
  const ComputeConfig& cc;
  DstState& dst;
};

/// The running compute kernel's context; fails when `op` runs in a data-movement kernel.
Compute ctx(const char* op);
/// DST tiles in the kernel's mode (fp32 or 16-bit, half- or full-sync).
std::uint32_t capacity(const ComputeConfig& cc);
/// DST tile `idst`, checked: inside tile_regs_acquire ... tile_regs_commit and within capacity.
Tile& dst_tile(const Compute& c, const char* op, std::uint32_t idst);
/// Values written to a 16-bit DST keep bf16 precision (nothing without the arithmetic).
void store(const Compute& c, Tile& t);
/// Whether this launch computes values (TK_EMULATOR_MATH, set_math).
bool math_on();

} // namespace tk::rt::emu::compute_detail
