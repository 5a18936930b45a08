// matmul_single_core compute (kernels/compute/mm.cpp of that example): one output tile at a time,
// DST accumulates the Kt products A(mt, kt)·B(kt, nt) (zero after tile_regs_acquire), then the tile
// is packed to c_16.
// Compile-time args: Mt, Kt, Nt.
#include <cstdint>

#include "api/compute/matmul.h"
#include "api/compute/tile_move_copy.h"

void kernel_main() {
  constexpr uint32_t Mt = get_compile_time_arg_val(0);
  constexpr uint32_t Kt = get_compile_time_arg_val(1);
  constexpr uint32_t Nt = get_compile_time_arg_val(2);
  constexpr tt::CBIndex cb_a = tt::CBIndex::c_0;
  constexpr tt::CBIndex cb_b = tt::CBIndex::c_1;
  constexpr tt::CBIndex cb_out = tt::CBIndex::c_16;

  mm_init(cb_a, cb_b, cb_out);
  for (uint32_t mt = 0; mt < Mt; ++mt) {
    for (uint32_t nt = 0; nt < Nt; ++nt) {
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
}
