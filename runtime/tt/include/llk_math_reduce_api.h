// The math thread's reduce init (mirrors tt-metal's
// tt_metal/hw/ckernels/wormhole_b0/metal/llk_api/llk_math_reduce_api.h). The emulator's reduce_tile
// takes the pool type and dimension as arguments, so this init only costs its time.
#pragma once
#include "llk_defs.h"
#include "llk_math_common_api.h"
#include "tk_emulator/device_api.hpp"

template <ckernel::PoolType type, ckernel::ReduceDim dim, bool is_fp32_dest_acc_en,
          ckernel::MathFidelity math_fidelity, bool enforce_fp32_accumulation = false>
inline void llk_math_reduce_init() {
  ::tk::rt::emu::init_call();
}
