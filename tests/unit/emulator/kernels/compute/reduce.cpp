// Reduce (SDK style, ttnn reduce_w / reduce_h): REDUCE_OP / REDUCE_DIM come from defines; each
// output tile reduces `per_out` input tiles into the same DST slot.
#include <cstdint>

#include "api/compute/reduce.h"

void kernel_main() {
  const uint32_t n_out = get_arg_val<uint32_t>(0);
  const uint32_t per_out = get_arg_val<uint32_t>(1);
  constexpr auto cb_in = tt::CBIndex::c_0;
  constexpr auto cb_scaler = tt::CBIndex::c_2;
  constexpr auto cb_out = tt::CBIndex::c_16;

  compute_kernel_hw_startup(cb_in, cb_scaler, cb_out);
  reduce_init<REDUCE_OP, REDUCE_DIM>(cb_in, cb_scaler, cb_out);
  cb_wait_front(cb_scaler, 1);
  for (uint32_t o = 0; o < n_out; o++) {
    tile_regs_acquire();
    for (uint32_t i = 0; i < per_out; i++) {
      cb_wait_front(cb_in, 1);
      reduce_tile<REDUCE_OP, REDUCE_DIM>(cb_in, cb_scaler, 0, 0, 0);
      cb_pop_front(cb_in, 1);
    }
    tile_regs_commit();
    tile_regs_wait();
    cb_reserve_back(cb_out, 1);
    pack_tile(0, cb_out);
    cb_push_back(cb_out, 1);
    tile_regs_release();
  }
  reduce_uninit();
}
