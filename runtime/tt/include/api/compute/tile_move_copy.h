// CB tile -> DST copy (mirrors tt_metal/hw/inc/api/compute/tile_move_copy.h).
#pragma once
#include "api/compute/common.h"

namespace ckernel {
ALWI void copy_tile_init(uint32_t /*cbid*/, uint32_t /*call_line*/ = __builtin_LINE()) {
  ::tk::rt::emu::init_call();
  ::tk::rt::emu::op_init("copy_tile_init", "A", "datacopy");
}
// A transposing copy (transpose of faces, within faces) is not modelled: asking for it is an error.
ALWI void copy_tile_to_dst_init_short(uint32_t /*cbid*/, uint32_t transpose = 0,
                                      uint32_t transpose_within_16x16_face = false,
                                      uint32_t /*call_line*/ = __builtin_LINE()) {
  if (transpose != 0 || transpose_within_16x16_face != 0)
    ::tk::rt::emu::not_modelled(
        "copy_tile_to_dst_init_short with transpose (use transpose_wh_tile)");
  ::tk::rt::emu::init_call();
  // llk_unpack_A_init<BroadcastType::NONE, ...> and llk_math_eltwise_unary_datacopy_init<A2D>.
  ::tk::rt::emu::op_init("copy_tile_to_dst_init_short", "A", "datacopy");
}
// Also reconfigures srcA (from old_cbid's format) to new_cbid's.
ALWI void copy_tile_to_dst_init_short_with_dt(uint32_t /*old_cbid*/, uint32_t new_cbid,
                                              uint32_t transpose = 0) {
  if (transpose != 0)
    ::tk::rt::emu::not_modelled("copy_tile_to_dst_init_short_with_dt with transpose");
  ::tk::rt::emu::configure_formats(new_cbid, ::tk::rt::emu::kKeep, ::tk::rt::emu::kKeep,
                                   "copy_tile_to_dst_init_short_with_dt");
  ::tk::rt::emu::op_init("copy_tile_to_dst_init_short_with_dt", "A", "datacopy");
}
ALWI void copy_tile(uint32_t in_cb_id, uint32_t in_tile_index, uint32_t dst_tile_index) {
  ::tk::rt::emu::op_call("copy_tile", "A", "datacopy", "copy_tile_to_dst_init_short(cb)");
  ::tk::rt::emu::copy_tile(in_cb_id, in_tile_index, dst_tile_index);
}
} // namespace ckernel
