// A compute kernel that takes its tiles a chunk at a time (`i += chunk`, as TTNN's reduce helpers
// walk rows in DEST-sized chunks): c_16 = c_0, n_tiles tiles. Its loop is not a counted `for`, so
// neither c_0's pops nor c_16's pushes are balanced against the other kernels (warnings).
#include <cstdint>

#include "api/compute/compute_kernel_api.h"
#include "api/compute/eltwise_unary/eltwise_unary.h"
#include "api/compute/tile_move_copy.h"

void kernel_main() {
  const uint32_t n_tiles = get_arg_val<uint32_t>(0);
  constexpr uint32_t chunk = 4;
  constexpr uint32_t cb_in = tt::CBIndex::c_0;
  constexpr uint32_t cb_out = tt::CBIndex::c_16;
  init_sfpu(cb_in, cb_out);
  for (uint32_t i = 0; i < n_tiles; i += chunk) {
    const uint32_t end = i + chunk < n_tiles ? i + chunk : n_tiles;
    for (uint32_t t = i; t < end; ++t) {
      cb_wait_front(cb_in, 1);
      tile_regs_acquire();
      copy_tile(cb_in, 0, 0);
      tile_regs_commit();
      cb_pop_front(cb_in, 1);
      cb_reserve_back(cb_out, 1);
      tile_regs_wait();
      pack_tile(0, cb_out);
      tile_regs_release();
      cb_push_back(cb_out, 1);
    }
  }
}
