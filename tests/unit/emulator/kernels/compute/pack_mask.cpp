// The packer's reduce mask: from reduce_init<..., DIM> to reduce_uninit every pack_tile keeps only
// the reduction's column 0 (REDUCE_ROW) or row 0 (REDUCE_COL), whatever DST holds. One input tile
// is copied into DST and packed three times: under the ROW mask, under the COL mask, unmasked.
#include <cstdint>

#include "api/compute/reduce.h"
#include "api/compute/tile_move_copy.h"

void kernel_main() {
  constexpr auto cb_in = tt::CBIndex::c_0;
  constexpr auto cb_out = tt::CBIndex::c_16;
  compute_kernel_hw_startup(cb_in, cb_in, cb_out);
  cb_wait_front(cb_in, 1);
  for (uint32_t k = 0; k < 3; ++k) {
    if (k == 0)
      reduce_init<PoolType::SUM, ReduceDim::REDUCE_ROW>(cb_in, cb_in, cb_out);
    if (k == 1)
      reduce_init<PoolType::SUM, ReduceDim::REDUCE_COL>(cb_in, cb_in, cb_out);
    if (k == 2)
      reduce_uninit();
    // After reduce_init: its unpacker and math programs are the reduction's, so copy_tile needs
    // its own init; that init touches neither the packer nor its mask.
    copy_tile_to_dst_init_short(cb_in);
    tile_regs_acquire();
    copy_tile(cb_in, 0, 0);
    tile_regs_commit();
    tile_regs_wait();
    cb_reserve_back(cb_out, 1);
    pack_tile(0, cb_out);
    cb_push_back(cb_out, 1);
    tile_regs_release();
  }
  cb_pop_front(cb_in, 1);
}
