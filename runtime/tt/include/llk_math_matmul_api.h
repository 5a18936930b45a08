// The math half of a tile matmul (mirrors tt-metal's
// tt_metal/hw/ckernels/wormhole_b0/metal/llk_api/llk_math_matmul_api.h): llk_math_matmul adds the
// product of the tiles the last llk_unpack_AB_matmul unpacked (in0 into srcB, in1 into srcA) into
// DST, an rt_dim x ct_dim block from dst_index. matmul_tiles is llk_unpack_AB_matmul then this.
#pragma once
#include <cstdint>

#include "llk_defs.h"
#include "llk_math_common_api.h"
#include "tk_emulator/device_api.hpp"

template <ckernel::MathFidelity math_fidelity, int THROTTLE_LEVEL = 0>
inline void llk_math_matmul_init(const std::uint32_t /*operandA*/, const std::uint32_t /*operandB*/,
                                 const std::uint32_t transpose = 0,
                                 const std::uint32_t /*ct_dim*/ = 1,
                                 const std::uint32_t /*rt_dim*/ = 1) {
  ::tk::rt::emu::matmul_init(transpose != 0);
}
template <ckernel::MathFidelity math_fidelity, int THROTTLE_LEVEL = 0,
          std::uint32_t num_faces = 4 /*not used*/>
inline void llk_math_matmul(const std::uint32_t dst_index, const std::uint32_t ct_dim = 1,
                            const std::uint32_t rt_dim = 1) {
  static_assert(num_faces == 4, "num_faces other than 4 is not supported in llk_math_matmul");
  ::tk::rt::emu::math_matmul(dst_index, ct_dim, rt_dim);
}
