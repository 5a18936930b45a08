// One-time hardware setup of a compute kernel (mirrors
// tt_metal/hw/inc/api/compute/compute_kernel_hw_startup.h).
#pragma once
#include "api/compute/common.h"

namespace ckernel {
// Configures the unpacker (srcA from icb0, srcB from icb1) and the packer (ocb) for those CBs'
// data formats.
ALWI void compute_kernel_hw_startup(uint32_t icb0, uint32_t icb1, uint32_t ocb) {
  ::tk::rt::emu::configure_formats(icb0, icb1, ocb, "compute_kernel_hw_startup");
}
ALWI void compute_kernel_hw_startup(uint32_t icb0, uint32_t ocb) {
  ::tk::rt::emu::configure_formats(icb0, icb0, ocb, "compute_kernel_hw_startup");
}
} // namespace ckernel
