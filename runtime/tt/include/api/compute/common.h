// Runtime args in compute kernels (mirrors tt_metal/hw/inc/api/compute/common.h).
#pragma once
#include "api/compute/common_globals.h"

namespace ckernel {
template <typename T>
FORCE_INLINE T get_arg_val(int arg_idx) {
    static_assert(sizeof(T) == 4, "Error: get_arg_val can only be used with 4-byte types");
    const std::uint32_t v = ::tk::rt::emu::runtime_arg(arg_idx);
    T out;
    std::memcpy(&out, &v, 4);
    return out;
}
template <typename T>
FORCE_INLINE T get_common_arg_val(int arg_idx) {
    static_assert(sizeof(T) == 4, "Error: get_common_arg_val can only be used with 4-byte types");
    const std::uint32_t v = ::tk::rt::emu::common_runtime_arg(arg_idx);
    T out;
    std::memcpy(&out, &v, 4);
    return out;
}
}  // namespace ckernel

// Like the SDK's common.h, every compute header brings in the CB, DST and pack APIs.
#include "api/compute/cb_api.h"
#include "api/compute/pack.h"
#include "api/compute/reg_api.h"
