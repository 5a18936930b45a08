// A compute kernel in TTNN's style: its CB calls through experimental::CircularBuffer (in a compute
// kernel the compute CB calls), the exponential and reciprocal through api/compute/softmax.h, and
// ASSERT (api/debug/assert.h, empty without the watcher): c_16 = 1 / exp(c_0), n_tiles tiles.
#include <cstdint>

#include "api/compute/compute_kernel_api.h"
#include "api/compute/eltwise_unary/eltwise_unary.h"
#include "api/compute/softmax.h"
#include "api/compute/tile_move_copy.h"
#include "api/debug/assert.h"
#include "experimental/circular_buffer.h"

void kernel_main() {
  const uint32_t n_tiles = get_arg_val<uint32_t>(0);
  ASSERT(n_tiles > 0);
  experimental::CircularBuffer in(tt::CBIndex::c_0);
  experimental::CircularBuffer out(tt::CBIndex::c_16);
  init_sfpu(tt::CBIndex::c_0, tt::CBIndex::c_16);
  for (uint32_t i = 0; i < n_tiles; i++) {
    in.wait_front(1);
    tile_regs_acquire();
    copy_tile(tt::CBIndex::c_0, 0, 0);
    exp_tile_init();
    exp_tile(0);
    recip_tile_init();
    recip_tile(0);
    tile_regs_commit();
    in.pop_front(1);
    out.reserve_back(1);
    tile_regs_wait();
    pack_tile(0, tt::CBIndex::c_16);
    tile_regs_release();
    out.push_back(1);
  }
}
