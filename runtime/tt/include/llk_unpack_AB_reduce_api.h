// The unpacker's reduce init (mirrors tt-metal's
// tt_metal/hw/ckernels/wormhole_b0/metal/llk_api/llk_unpack_AB_reduce_api.h): it programs the
// unpacker's reduce loop, not the formats, so on the emulator it only costs its time.
#pragma once
#include <cstdint>

#include "llk_defs.h"
#include "llk_unpack_common_api.h"
#include "tk_emulator/device_api.hpp"

template <ckernel::PoolType pool_type, ckernel::ReduceDim reduce_dim,
          bool enforce_fp32_accumulation = false>
inline void llk_unpack_AB_reduce_init(const std::uint32_t /*operandA*/,
                                      const std::uint32_t /*operandB*/) {
  ::tk::rt::emu::init_call();
}
