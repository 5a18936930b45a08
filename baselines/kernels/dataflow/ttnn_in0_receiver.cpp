// TTNN-configuration baseline, in0 receiver (RISCV_1; after ttnn's
// reader_bmm_tile_layout_in0_receiver.cpp): takes each in0 block its row's sender multicasts.
// Runtime args: in0 block tiles, number of K-blocks, out blocks down and across, in0 multicast (9).
#include <cstdint>

#include "bmm_tile_layout.h"

void kernel_main() {
  const uint32_t block_tiles = get_arg_val<uint32_t>(0);
  const uint32_t num_blocks = get_arg_val<uint32_t>(1);
  const uint32_t out_blocks = get_arg_val<uint32_t>(2) * get_arg_val<uint32_t>(3);
  const bmm::Mcast mcast = bmm::mcast_args(4);

  constexpr uint32_t cb_in0 = tt::CBIndex::c_0;
  for (uint32_t n = 0; n < out_blocks * num_blocks; ++n) {
    cb_reserve_back(cb_in0, block_tiles);
    bmm::receive_block(mcast);
    cb_push_back(cb_in0, block_tiles);
  }
}
