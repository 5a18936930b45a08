// The unpacker's data-format reconfiguration of srcA (mirrors tt-metal's
// tt_metal/hw/ckernels/wormhole_b0/metal/llk_api/llk_unpack_common_api.h; p_dim_stride_target from
// tt-llk's tt_llk_wormhole_b0/llk_lib/llk_unpack_common.h). srcA takes the new CB's format; the
// old-CB form skips the reconfiguration on the device when the formats already agree, which is the
// same state.
#pragma once
#include <cstdint>

#include "tk_emulator/device_api.hpp"

enum class p_dim_stride_target {
  IGNORE,        // Do not modify dim/stride
  FACE_ROW_MAJOR // Set dim/stride for unpacking face in row major format
};

template <bool is_fp32_dest_acc_en, bool to_from_int8 = false,
          p_dim_stride_target dim_stride_target = p_dim_stride_target::IGNORE>
inline void llk_unpack_reconfig_data_format_srca(const std::uint32_t srca_new_operand) {
  ::tk::rt::emu::configure_formats(srca_new_operand, ::tk::rt::emu::kKeep, ::tk::rt::emu::kKeep,
                                   "llk_unpack_reconfig_data_format_srca");
}
template <bool is_fp32_dest_acc_en, bool to_from_int8 = false,
          p_dim_stride_target dim_stride_target = p_dim_stride_target::IGNORE>
inline void llk_unpack_reconfig_data_format_srca(const std::uint32_t /*srca_old_operand*/,
                                                 const std::uint32_t srca_new_operand) {
  ::tk::rt::emu::configure_formats(srca_new_operand, ::tk::rt::emu::kKeep, ::tk::rt::emu::kKeep,
                                   "llk_unpack_reconfig_data_format_srca");
}
