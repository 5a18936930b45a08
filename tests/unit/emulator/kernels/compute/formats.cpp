// Copies one tile of c_0 (Float32) and one of c_1 (Float16_b) into c_16 (Float32) and c_17
// (Float16_b) through DST: the data-format configuration of the unpacker and the packer, as the
// SDK requires it. -DFORGET_UNPACK leaves srcA configured for c_0 when c_1 is copied;
// -DFORGET_PACK leaves the packer configured for c_16 when c_17 is packed.
#include <cstdint>

#include "api/compute/compute_kernel_api.h"
#include "api/compute/tile_move_copy.h"

namespace {
void copy_one(uint32_t in, uint32_t out) {
  copy_tile_to_dst_init_short(in);
  cb_wait_front(in, 1);
  tile_regs_acquire();
  copy_tile(in, 0, 0);
  tile_regs_commit();
  tile_regs_wait();
  cb_reserve_back(out, 1);
  pack_tile(0, out);
  cb_push_back(out, 1);
  tile_regs_release();
  cb_pop_front(in, 1);
}
} // namespace

void kernel_main() {
  constexpr uint32_t cb_f32 = tt::CBIndex::c_0, cb_bf16 = tt::CBIndex::c_1;
  constexpr uint32_t out_f32 = tt::CBIndex::c_16, out_bf16 = tt::CBIndex::c_17;
  compute_kernel_hw_startup(cb_f32, cb_f32, out_f32);
  copy_one(cb_f32, out_f32);
#ifndef FORGET_UNPACK
  reconfig_data_format_srca(cb_f32, cb_bf16);
#endif
#ifndef FORGET_PACK
  pack_reconfig_data_format(out_f32, out_bf16);
#endif
  copy_one(cb_bf16, out_bf16);
}
