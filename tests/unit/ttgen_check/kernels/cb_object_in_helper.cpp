// A compute kernel whose CB calls are in a helper that builds its Device 2.0 CircularBuffers from
// its parameters (`auto out = experimental::CircularBuffer(cb_out)`, the style of TTNN's softmax
// calc_numeric_stable): each is the CB the call passes (c_0, c_16), so the pack into the reserved
// page of c_16 is no false alarm and both CBs are balanced. DROP_OUT_RESERVE removes c_16's
// reserve_back.
#include <cstdint>

#include "api/compute/compute_kernel_api.h"
#include "api/compute/eltwise_unary/eltwise_unary.h"
#include "api/compute/tile_move_copy.h"
#include "experimental/circular_buffer.h"

void copy_tiles(uint32_t cb_in, uint32_t cb_out, uint32_t n_tiles) {
  auto in = experimental::CircularBuffer(cb_in);
  auto out = experimental::CircularBuffer(cb_out);
  for (uint32_t i = 0; i < n_tiles; i++) {
    in.wait_front(1);
    tile_regs_acquire();
    copy_tile(cb_in, 0, 0);
    tile_regs_commit();
    in.pop_front(1);
#if !defined(DROP_OUT_RESERVE)
    out.reserve_back(1);
#endif
    tile_regs_wait();
    pack_tile(0, cb_out);
    tile_regs_release();
    out.push_back(1);
  }
}

void kernel_main() {
  const uint32_t n_tiles = get_arg_val<uint32_t>(0);
  init_sfpu(tt::CBIndex::c_0, tt::CBIndex::c_16);
  copy_tiles(tt::CBIndex::c_0, tt::CBIndex::c_16, n_tiles);
}
