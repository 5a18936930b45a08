// One-time hardware setup of a compute kernel (mirrors
// tt_metal/hw/inc/api/compute/compute_kernel_hw_startup.h).
#pragma once
#include "api/compute/common.h"

namespace ckernel {
ALWI void compute_kernel_hw_startup(uint32_t /*icb0*/, uint32_t /*icb1*/, uint32_t /*ocb*/) {}
ALWI void compute_kernel_hw_startup(uint32_t /*icb0*/, uint32_t /*ocb*/) {}
} // namespace ckernel
