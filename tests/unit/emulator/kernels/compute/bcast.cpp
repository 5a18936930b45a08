// out = A op broadcast(B), with the op chosen by -DBCAST_FN=<add_tiles_bcast_rows|...> and
// -DBCAST_INIT.
#include <cstdint>

#include "api/compute/bcast.h"

void kernel_main() {
  const uint32_t n_tiles = get_arg_val<uint32_t>(0);
  constexpr auto cb_in0 = tt::CBIndex::c_0;
  constexpr auto cb_in1 = tt::CBIndex::c_1;
  constexpr auto cb_out0 = tt::CBIndex::c_16;
  compute_kernel_hw_startup(cb_in0, cb_in1, cb_out0);
  BCAST_INIT(cb_in0, cb_in1);
  for (uint32_t i = 0; i < n_tiles; i++) {
    cb_wait_front(cb_in0, 1);
    cb_wait_front(cb_in1, 1);
    tile_regs_acquire();
    BCAST_FN(cb_in0, cb_in1, 0, 0, 0);
    tile_regs_commit();
    tile_regs_wait();
    cb_reserve_back(cb_out0, 1);
    pack_tile(0, cb_out0);
    cb_push_back(cb_out0, 1);
    cb_pop_front(cb_in0, 1);
    cb_pop_front(cb_in1, 1);
    tile_regs_release();
  }
}
