// Tile transpose (the SDK's transpose_wh, as ttnn's transpose kernels call it): for each tile of
// c_0, DST = its 32x32 transpose, packed to c_16.
#include <cstdint>

#include "api/compute/transpose_wh.h"

void kernel_main() {
  const uint32_t n_tiles = get_arg_val<uint32_t>(0);
  constexpr tt::CBIndex cb_in = tt::CBIndex::c_0;
  constexpr tt::CBIndex cb_out = tt::CBIndex::c_16;
  transpose_wh_init(cb_in, cb_out);
  for (uint32_t i = 0; i < n_tiles; ++i) {
    cb_wait_front(cb_in, 1);
    tile_regs_acquire();
    transpose_wh_tile(cb_in, 0, 0);
    tile_regs_commit();
    cb_pop_front(cb_in, 1);
    tile_regs_wait();
    cb_reserve_back(cb_out, 1);
    pack_tile(0, cb_out);
    cb_push_back(cb_out, 1);
    tile_regs_release();
  }
}
