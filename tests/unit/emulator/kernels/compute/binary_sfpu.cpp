// DST op DST on the SFPU (the shape of ttnn's SFPU binary kernels): copy a tile of c_0 into DST 0
// and of c_1 into DST 1, then SFPU_BINARY_OP(0, 1, 0) after SFPU_BINARY_INIT(); the test picks both
// by define.
#include <cstdint>

#include "api/compute/binary_max_min.h"
#include "api/compute/eltwise_binary_sfpu.h"
#include "api/compute/eltwise_unary/eltwise_unary.h"
#include "api/compute/tile_move_copy.h"

#ifndef SFPU_BINARY_ARGS
#define SFPU_BINARY_ARGS // the op's arguments after the output index (", (int)VectorMode::C")
#endif

void kernel_main() {
  const uint32_t n_tiles = get_arg_val<uint32_t>(0);
  constexpr auto cb_in0 = tt::CBIndex::c_0;
  constexpr auto cb_in1 = tt::CBIndex::c_1;
  constexpr auto cb_out0 = tt::CBIndex::c_16;

  unary_op_init_common(cb_in0, cb_out0);
  for (uint32_t i = 0; i < n_tiles; i++) {
    cb_wait_front(cb_in0, 1);
    cb_wait_front(cb_in1, 1);
    tile_regs_acquire();
    copy_tile_to_dst_init_short(cb_in0);
    copy_tile(cb_in0, 0, 0);
    copy_tile_to_dst_init_short(cb_in1);
    copy_tile(cb_in1, 0, 1);
    SFPU_BINARY_INIT();
    SFPU_BINARY_OP(0, 1, 0 SFPU_BINARY_ARGS);
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
