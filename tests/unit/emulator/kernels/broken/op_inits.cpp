// A call that runs under another operation's init (tk_emulator/op_inits.hpp): one case per define;
// without one, compatible inits (unary_bcast_init<NONE> configures what copy_tile needs).
#include <cstdint>

#include "api/compute/bcast.h"
#include "api/compute/eltwise_binary.h"
#include "api/compute/matmul.h"
#include "api/compute/reduce.h"
#include "api/compute/tile_move_copy.h"

void kernel_main() {
  constexpr auto cb_in = tt::CBIndex::c_0;
  constexpr auto cb_out = tt::CBIndex::c_16;
  compute_kernel_hw_startup(cb_in, cb_in, cb_out);
  cb_wait_front(cb_in, 1);
  tile_regs_acquire();
#if defined(MUL_AFTER_ADD_INIT)
  add_tiles_init(cb_in, cb_in);
  mul_tiles(cb_in, cb_in, 0, 0, 0);
#elif defined(COPY_AFTER_REDUCE_INIT)
  reduce_init<PoolType::SUM, ReduceDim::REDUCE_ROW>(cb_in, cb_in, cb_out);
  copy_tile(cb_in, 0, 0);
#elif defined(REDUCE_OTHER_POOL)
  reduce_init<PoolType::SUM, ReduceDim::REDUCE_ROW>(cb_in, cb_in, cb_out);
  reduce_tile<PoolType::MAX, ReduceDim::REDUCE_ROW>(cb_in, cb_in, 0, 0, 0);
#elif defined(NO_INIT)
  copy_tile(cb_in, 0, 0);
#elif defined(BCAST_AFTER_COPY_INIT)
  copy_tile_to_dst_init_short(cb_in);
  unary_bcast<BroadcastType::COL>(cb_in, 0, 0);
#elif defined(ADD_AFTER_BINARY_COMMON_ONLY)
  binary_op_init_common(cb_in, cb_in, cb_out);
  add_tiles(cb_in, cb_in, 0, 0, 0);
#elif defined(SUB_BCAST_AFTER_ADD_BCAST_INIT)
  add_bcast_cols_init_short(cb_in, cb_in);
  sub_tiles_bcast<BroadcastType::COL>(cb_in, cb_in, 0, 0, 0);
#elif defined(COPY_AFTER_MATMUL_INIT)
  mm_init_short(cb_in, cb_in);
  copy_tile(cb_in, 0, 0);
#else
  unary_bcast_init<BroadcastType::NONE>(cb_in, cb_out);
  copy_tile(cb_in, 0, 0);
#endif
  tile_regs_commit();
  tile_regs_wait();
  cb_reserve_back(cb_out, 1);
  pack_tile(0, cb_out);
  cb_push_back(cb_out, 1);
  tile_regs_release();
  cb_pop_front(cb_in, 1);
}
