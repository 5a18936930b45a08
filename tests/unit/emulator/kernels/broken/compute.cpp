// Breaks one DST/CB rule, chosen by a define; without one, copies n tiles c_0 -> c_16.
#include <cstdint>

#include "api/compute/eltwise_binary.h"
#include "api/compute/tile_move_copy.h"

void kernel_main() {
  const uint32_t n_tiles = get_arg_val<uint32_t>(0);
  constexpr auto in = tt::CBIndex::c_0;
  constexpr auto out = tt::CBIndex::c_16;
  compute_kernel_hw_startup(in, in, out);
  copy_tile_init(in);
#if defined(DEADLOCK)
  cb_wait_front(in, 2); // the reader pushes only one page
#elif defined(PACK_NO_RESERVE)
  cb_wait_front(in, 1);
  tile_regs_acquire();
  copy_tile(in, 0, 0);
  tile_regs_commit();
  tile_regs_wait();
  pack_tile(0, out);
#elif defined(DST_INDEX)
  cb_wait_front(in, 1);
  tile_regs_acquire();
  copy_tile(in, 0, DST_INDEX);
#elif defined(DST_OUTSIDE_ACQUIRE)
  cb_wait_front(in, 1);
  copy_tile(in, 0, 0);
#elif defined(READ_UNWAITED)
  tile_regs_acquire();
  copy_tile(in, 0, 0);
#elif defined(COPY_TRANSPOSED)
  copy_tile_to_dst_init_short(in, /*transpose=*/1); // not modelled: an error, not a wrong answer
#elif defined(MISSING_RELEASE)
  for (uint32_t i = 0; i < n_tiles; i++) { // the second iteration acquires a DST never released
    cb_wait_front(in, 1);
    tile_regs_acquire();
    copy_tile(in, 0, 0);
    tile_regs_commit();
    tile_regs_wait();
    cb_reserve_back(out, 1);
    pack_tile(0, out);
    cb_push_back(out, 1);
    cb_pop_front(in, 1);
  }
#elif defined(PACK_BEFORE_WAIT)
  cb_wait_front(in, 1);
  tile_regs_acquire();
  copy_tile(in, 0, 0);
  cb_reserve_back(out, 1);
  pack_tile(0, out);
#else
  for (uint32_t i = 0; i < n_tiles; i++) {
    cb_wait_front(in, 1);
    tile_regs_acquire();
    copy_tile(in, 0, 0);
    tile_regs_commit();
    tile_regs_wait();
    cb_reserve_back(out, 1);
    pack_tile(0, out);
    cb_push_back(out, 1);
    cb_pop_front(in, 1);
    tile_regs_release();
  }
#endif
}
