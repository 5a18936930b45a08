// Runtime args in compute kernels (mirrors tt_metal/hw/inc/api/compute/common.h).
#pragma once
#include "api/compute/common_globals.h"
#include "tk_emulator/logical_core.h"

namespace ckernel {
template <typename T>
FORCE_INLINE T get_arg_val(int arg_idx) {
  return ::tk::rt::emu::arg_as<T>(::tk::rt::emu::runtime_arg(arg_idx));
}
template <typename T>
FORCE_INLINE T get_common_arg_val(int arg_idx) {
  return ::tk::rt::emu::arg_as<T>(::tk::rt::emu::common_runtime_arg(arg_idx));
}
} // namespace ckernel

// Like the SDK's common.h, every compute header brings in the CB, DST and pack APIs, the
// data-format reconfiguration and the hardware start-up.
#include "api/compute/cb_api.h"
#include "api/compute/compute_kernel_hw_startup.h"
#include "api/compute/pack.h"
#include "api/compute/reconfig_data_format.h"
#include "api/compute/reg_api.h"
#include "api/compute/sentinel/compute_kernel_sentinel.h"
