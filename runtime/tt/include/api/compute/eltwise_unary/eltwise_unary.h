// SFPU set-up (mirrors tt_metal/hw/inc/api/compute/eltwise_unary/eltwise_unary.h).
#pragma once
#include "api/compute/common.h"

namespace ckernel {
ALWI void unary_op_init_common(uint32_t /*icb*/, uint32_t /*ocb*/,
                               uint32_t /*call_line*/ = __builtin_LINE()) {}
ALWI void init_sfpu(uint32_t /*icb*/, uint32_t /*ocb*/, uint32_t /*call_line*/ = __builtin_LINE()) {
}
} // namespace ckernel
