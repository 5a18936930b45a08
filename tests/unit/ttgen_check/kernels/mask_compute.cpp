// A compute kernel that works on a row of Wt tiles, ndst at a time (`wt += ndst`, not a counted
// loop), the shape of TTNN softmax's masked path: when its runtime argument `use_mask` is set it
// adds the mask tile of c_1 to each tile of c_0 into the intermediate c_24, then copies the row
// from c_24 to c_16 in a helper that waits for the whole row first; without the mask it copies
// the row from c_0. DROP_X_PUSH drops the push of c_24 on the masked path: the helper's
// cb_wait_front(c_24, Wt) then waits for pages that path reserved and never pushed.
#include <cstdint>

#include "api/compute/compute_kernel_api.h"
#include "api/compute/eltwise_binary.h"
#include "api/compute/tile_move_copy.h"

// Copies a row of Wt tiles from cb_from (waited for at once, popped at the end) to cb_to.
void copy_row(uint32_t Wt, uint32_t ndst, uint32_t cb_from, uint32_t cb_to) {
  cb_wait_front(cb_from, Wt);
  copy_tile_to_dst_init_short(cb_from);
  for (uint32_t wt = 0; wt < Wt; wt += ndst) {
    tile_regs_acquire();
    for (uint32_t i = 0; i < ndst; ++i)
      copy_tile(cb_from, wt + i, i);
    tile_regs_commit();
    cb_reserve_back(cb_to, ndst);
    tile_regs_wait();
    for (uint32_t i = 0; i < ndst; ++i)
      pack_tile(i, cb_to);
    tile_regs_release();
    cb_push_back(cb_to, ndst);
  }
  cb_pop_front(cb_from, Wt);
}

void kernel_main() {
  const uint32_t Wt = get_arg_val<uint32_t>(0);
  const uint32_t ndst = get_arg_val<uint32_t>(1);
  const uint32_t use_mask = get_arg_val<uint32_t>(2);
  constexpr uint32_t cb_in = tt::CBIndex::c_0;
  constexpr uint32_t cb_mask = tt::CBIndex::c_1;
  constexpr uint32_t cb_x = tt::CBIndex::c_24;
  constexpr uint32_t cb_out = tt::CBIndex::c_16;
  binary_op_init_common(cb_in, cb_mask, cb_out);

  if (use_mask) {
    cb_wait_front(cb_mask, 1);
    add_tiles_init(cb_in, cb_mask);
    for (uint32_t wt = 0; wt < Wt; wt += ndst) {
      cb_wait_front(cb_in, ndst);
      tile_regs_acquire();
      for (uint32_t i = 0; i < ndst; ++i)
        add_tiles(cb_in, cb_mask, i, 0, i);
      tile_regs_commit();
      cb_pop_front(cb_in, ndst);
      cb_reserve_back(cb_x, ndst);
      tile_regs_wait();
      for (uint32_t i = 0; i < ndst; ++i)
        pack_tile(i, cb_x);
      tile_regs_release();
#if !defined(DROP_X_PUSH)
      cb_push_back(cb_x, ndst);
#endif
    }
    cb_pop_front(cb_mask, 1);
    copy_row(Wt, ndst, cb_x, cb_out);
  } else {
    copy_row(Wt, ndst, cb_in, cb_out);
  }
}
