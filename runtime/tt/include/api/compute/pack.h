// Packing DST tiles into a CB (mirrors tt_metal/hw/inc/api/compute/pack.h): sequential into the
// reserved pages unless out_of_order_output.
#pragma once
#include "api/compute/common_globals.h"

namespace ckernel {
template <bool out_of_order_output = false>
ALWI void pack_tile(uint32_t ifrom_dst, uint32_t icb, std::uint32_t output_tile_index = 0) {
  ::tk::rt::emu::pack_tile(ifrom_dst, icb, output_tile_index, out_of_order_output);
}
ALWI void pack_tile_block(uint32_t ifrom_dst, uint32_t icb, uint32_t ntiles) {
  for (uint32_t i = 0; i < ntiles; ++i)
    ::tk::rt::emu::pack_tile(ifrom_dst + i, icb, 0, false);
}
// 1: the pack_tile calls that follow add DST to the tile in L1 (the packer's L1 accumulation);
// 0: they overwrite it.
ALWI void pack_reconfig_l1_acc(const uint32_t l1_acc_en) {
  ::tk::rt::emu::pack_l1_acc(l1_acc_en);
}
// The packer's ReLU (pack.h's pack_relu_config on Wormhole: llk_pack_relu_config(config), the low
// 4 bits a ReluType): ZERO_RELU writes max(value, 0) until NO_RELU.
ALWI void pack_relu_config(const uint32_t config) {
  ::tk::rt::emu::pack_relu(config);
}
// The packer takes the new CB's data format.
template <bool is_tile_dim_reconfig_en = false>
ALWI void pack_reconfig_data_format(const uint32_t new_cb_id) {
  ::tk::rt::emu::configure_formats(::tk::rt::emu::kKeep, ::tk::rt::emu::kKeep, new_cb_id,
                                   "pack_reconfig_data_format");
}
template <bool is_tile_dim_reconfig_en = false>
ALWI void pack_reconfig_data_format(const uint32_t /*old_cb_id*/, const uint32_t new_cb_id) {
  ::tk::rt::emu::configure_formats(::tk::rt::emu::kKeep, ::tk::rt::emu::kKeep, new_cb_id,
                                   "pack_reconfig_data_format");
}
} // namespace ckernel
