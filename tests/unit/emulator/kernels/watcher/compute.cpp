// Copies n tiles c_0 -> c_16, breaking one rule that silicon tolerates, chosen by a define:
// PACK_UNRESERVED packs and pushes c_16 without cb_reserve_back; READ_AFTER_POP waits for and pops
// all n pages of c_0 (the whole CB), then copies them (no page waited for) and pops them again;
// RELEASE_DST_UNACQUIRED calls release_dst after tile_regs_release, with no acquire_dst.
#include <cstdint>

#include "api/compute/eltwise_binary.h"
#include "api/compute/tile_move_copy.h"

void kernel_main() {
  const uint32_t n_tiles = get_arg_val<uint32_t>(0);
  constexpr auto in = tt::CBIndex::c_0;
  constexpr auto out = tt::CBIndex::c_16;
  compute_kernel_hw_startup(in, in, out);
  copy_tile_init(in);
#if defined(READ_AFTER_POP)
  cb_wait_front(in, n_tiles);
  cb_pop_front(in, n_tiles);
#endif
  for (uint32_t i = 0; i < n_tiles; i++) {
#if defined(READ_AFTER_POP)
    const uint32_t tile = i;
#else
    const uint32_t tile = 0;
    cb_wait_front(in, 1);
#endif
    tile_regs_acquire();
    copy_tile(in, tile, 0);
    tile_regs_commit();
    tile_regs_wait();
#if !defined(PACK_UNRESERVED)
    cb_reserve_back(out, 1);
#endif
    pack_tile(0, out);
    cb_push_back(out, 1);
#if !defined(READ_AFTER_POP)
    cb_pop_front(in, 1);
#endif
    tile_regs_release();
#if defined(RELEASE_DST_UNACQUIRED)
    release_dst();
#endif
  }
#if defined(READ_AFTER_POP)
  cb_pop_front(in, n_tiles);
#endif
}
