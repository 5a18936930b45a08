// The math thread's data-format reconfiguration (mirrors tt-metal's
// tt_metal/hw/ckernels/wormhole_b0/metal/llk_api/llk_math_common_api.h, which the JIT puts on a
// compute kernel's include path). On the device the math thread and the unpacker each hold srcA's
// format; the emulator holds it once, so these and llk_unpack_reconfig_data_format_srca* set the
// same state (as reconfig_data_format_srca does).
#pragma once
#include <cstdint>

#include "tk_emulator/device_api.hpp"

template <bool is_fp32_dest_acc_en, bool to_from_int8 = false>
inline void llk_math_reconfig_data_format_srca(const std::uint32_t srca_new_operand) {
  ::tk::rt::emu::configure_formats(srca_new_operand, ::tk::rt::emu::kKeep, ::tk::rt::emu::kKeep,
                                   "llk_math_reconfig_data_format_srca");
}
template <bool is_fp32_dest_acc_en, bool to_from_int8 = false>
inline void llk_math_reconfig_data_format_srca(const std::uint32_t /*srca_old_operand*/,
                                               const std::uint32_t srca_new_operand) {
  ::tk::rt::emu::configure_formats(srca_new_operand, ::tk::rt::emu::kKeep, ::tk::rt::emu::kKeep,
                                   "llk_math_reconfig_data_format_srca");
}
