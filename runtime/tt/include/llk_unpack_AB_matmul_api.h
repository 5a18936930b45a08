// The unpack half of a tile matmul (mirrors tt-metal's
// tt_metal/hw/ckernels/wormhole_b0/metal/llk_api/llk_unpack_AB_matmul_api.h): in0 (operandA) goes
// to srcB, in1 (operandB) to srcA. llk_unpack_AB_matmul selects the tiles the next
// llk_math_matmul multiplies; they are read from the CBs then, as the device's srcA/srcB hold
// them from the unpack on.
#pragma once
#include <cstdint>

#include "llk_unpack_common_api.h"
#include "tk_emulator/device_api.hpp"

inline void llk_unpack_AB_matmul_init(const std::uint32_t operandA, const std::uint32_t operandB,
                                      const std::uint32_t /*transpose*/ = 0,
                                      const std::uint32_t /*ct_dim*/ = 1,
                                      const std::uint32_t /*rt_dim*/ = 1,
                                      const std::uint32_t /*kt_dim*/ = 1) {
  ::tk::rt::emu::configure_formats(operandB, operandA, ::tk::rt::emu::kKeep,
                                   "llk_unpack_AB_matmul_init");
}
inline void llk_unpack_AB_matmul(const std::uint32_t operandA, const std::uint32_t operandB,
                                 const std::uint32_t tile_index_a, const std::uint32_t tile_index_b,
                                 const std::uint32_t /*ct_dim*/ = 1,
                                 const std::uint32_t /*rt_dim*/ = 1,
                                 const std::uint32_t kt_dim = 1) {
  ::tk::rt::emu::unpack_ab_matmul(operandA, operandB, tile_index_a, tile_index_b, kt_dim);
}
