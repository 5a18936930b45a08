// Unpacker data-format reconfiguration (mirrors
// tt_metal/hw/inc/api/compute/reconfig_data_format.h): srcA and srcB take the data formats of the
// new CBs; the old-CB forms skip the reconfiguration on the device when the formats already agree,
// which is the same state. The template arguments (int8 conversions, tile-shape reconfiguration)
// are accepted as the SDK's and not modelled.
#pragma once
#include "api/compute/common.h"

namespace ckernel {
template <bool to_from_int8 = false, bool is_tile_dim_reconfig_en = false>
ALWI void reconfig_data_format(const uint32_t srca_new_operand, const uint32_t srcb_new_operand) {
  ::tk::rt::emu::configure_formats(srca_new_operand, srcb_new_operand, ::tk::rt::emu::kKeep,
                                   "reconfig_data_format");
}
template <bool to_from_int8 = false, bool is_tile_dim_reconfig_en = false>
ALWI void reconfig_data_format(const uint32_t /*srca_old_operand*/, const uint32_t srca_new_operand,
                               const uint32_t /*srcb_old_operand*/,
                               const uint32_t srcb_new_operand) {
  ::tk::rt::emu::configure_formats(srca_new_operand, srcb_new_operand, ::tk::rt::emu::kKeep,
                                   "reconfig_data_format");
}
template <bool to_from_int8 = false, bool is_tile_dim_reconfig_en = false>
ALWI void reconfig_data_format_srca(const uint32_t srca_new_operand) {
  ::tk::rt::emu::configure_formats(srca_new_operand, ::tk::rt::emu::kKeep, ::tk::rt::emu::kKeep,
                                   "reconfig_data_format_srca");
}
template <bool to_from_int8 = false, bool is_tile_dim_reconfig_en = false>
ALWI void reconfig_data_format_srca(const uint32_t /*srca_old_operand*/,
                                    const uint32_t srca_new_operand) {
  ::tk::rt::emu::configure_formats(srca_new_operand, ::tk::rt::emu::kKeep, ::tk::rt::emu::kKeep,
                                   "reconfig_data_format_srca");
}
template <bool to_from_int8 = false, bool is_tile_dim_reconfig_en = false>
ALWI void reconfig_data_format_srcb(const uint32_t srcb_new_operand) {
  ::tk::rt::emu::configure_formats(::tk::rt::emu::kKeep, srcb_new_operand, ::tk::rt::emu::kKeep,
                                   "reconfig_data_format_srcb");
}
template <bool to_from_int8 = false, bool is_tile_dim_reconfig_en = false>
ALWI void reconfig_data_format_srcb(const uint32_t /*srcb_old_operand*/,
                                    const uint32_t srcb_new_operand) {
  ::tk::rt::emu::configure_formats(::tk::rt::emu::kKeep, srcb_new_operand, ::tk::rt::emu::kKeep,
                                   "reconfig_data_format_srcb");
}
} // namespace ckernel
