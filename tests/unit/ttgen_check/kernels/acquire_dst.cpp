// A compute kernel on the older DST API: acquire_dst() is tile_regs_acquire + tile_regs_wait,
// release_dst() tile_regs_commit + tile_regs_release (tt_metal/hw/inc/api/compute/reg_api.h), so
// math and pack both go between them. A define breaks the protocol one way.
#include <cstdint>

#include "api/compute/eltwise_binary.h"
#include "api/compute/tile_move_copy.h"

void kernel_main() {
  const uint32_t n_tiles = get_arg_val<uint32_t>(0);
  constexpr auto in = tt::CBIndex::c_0;
  constexpr auto out = tt::CBIndex::c_16;
  compute_kernel_hw_startup(in, in, out);
  copy_tile_init(in);
  for (uint32_t i = 0; i < n_tiles; i++) {
    cb_wait_front(in, 1);
    acquire_dst();
    copy_tile(in, 0, 0);
    cb_reserve_back(out, 1);
    pack_tile(0, out);
    cb_push_back(out, 1);
    cb_pop_front(in, 1);
#if !defined(MISSING_RELEASE_DST)
    release_dst();
#endif
  }
#if defined(RELEASE_TWICE)
  release_dst();
#endif
}
