// matmul_multi_core compute (kernels/compute/mm.cpp of that example): for each of this core's
// output tiles, DST accumulates Kt tile products from c_0 and c_1, then the tile is packed to c_16.
// Runtime args: number of output tiles, Kt.
#include <cstdint>

#include "api/compute/matmul.h"
#include "api/compute/tile_move_copy.h"

void kernel_main() {
  const uint32_t count = get_arg_val<uint32_t>(0);
  const uint32_t Kt = get_arg_val<uint32_t>(1);
  constexpr tt::CBIndex cb_a = tt::CBIndex::c_0;
  constexpr tt::CBIndex cb_b = tt::CBIndex::c_1;
  constexpr tt::CBIndex cb_out = tt::CBIndex::c_16;

  mm_init(cb_a, cb_b, cb_out);
  for (uint32_t i = 0; i < count; ++i) {
    tile_regs_acquire();
    for (uint32_t kt = 0; kt < Kt; ++kt) {
      cb_wait_front(cb_a, 1);
      cb_wait_front(cb_b, 1);
      matmul_tiles(cb_a, cb_b, 0, 0, 0);
      cb_pop_front(cb_a, 1);
      cb_pop_front(cb_b, 1);
    }
    tile_regs_commit();
    tile_regs_wait();
    cb_reserve_back(cb_out, 1);
    pack_tile(0, cb_out);
    cb_push_back(cb_out, 1);
    tile_regs_release();
  }
}
