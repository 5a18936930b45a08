// matmul_multicore_reuse_mcast reader of every other core: both blocks arrive by multicast, in0
// from the left of its row, in1 from the top of its column (the SDK's matmul_common
// reader_bmm_tile_layout_in0_receiver_in1_receiver.cpp).
// Runtime args: in0 operand (8, bmm_tile_layout.h), in1 operand (8), number of K-blocks, in0
// multicast (9), in1 multicast (9). Compile-time args: in0's then in1's accessor.
#include <cstdint>

#include "bmm_tile_layout.h"

void kernel_main() {
  const bmm::Operand in0 = bmm::operand_args(0);
  const bmm::Operand in1 = bmm::operand_args(8);
  const uint32_t num_blocks = get_arg_val<uint32_t>(16);
  const bmm::Mcast in0_mcast = bmm::mcast_args(17);
  const bmm::Mcast in1_mcast = bmm::mcast_args(26);

  constexpr uint32_t cb_in0 = tt::CBIndex::c_0;
  constexpr uint32_t cb_in1 = tt::CBIndex::c_1;

  for (uint32_t block = 0; block < num_blocks; ++block) {
    cb_reserve_back(cb_in0, in0.block_num_tiles);
    bmm::receive_block(in0_mcast);
    cb_push_back(cb_in0, in0.block_num_tiles);

    cb_reserve_back(cb_in1, in1.block_num_tiles);
    bmm::receive_block(in1_mcast);
    cb_push_back(cb_in1, in1.block_num_tiles);
  }
}
