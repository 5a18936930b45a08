// matmul_multicore_reuse_mcast reader of the first row right of column 0: the in0 block comes
// from the left of its row; it reads the in1 block from DRAM and multicasts it down its column
// (the SDK's matmul_common reader_bmm_tile_layout_in0_receiver_in1_sender.cpp).
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
  constexpr auto s0_args = TensorAccessorArgs<0>();
  constexpr auto s1_args = TensorAccessorArgs<s0_args.next_compile_time_args_offset()>();
  const auto s1 = TensorAccessor(s1_args, in1.addr);

  bmm::sender_init(in1_mcast);
  for (uint32_t block = 0; block < num_blocks; ++block) {
    cb_reserve_back(cb_in0, in0.block_num_tiles);
    bmm::receive_block(in0_mcast);
    cb_push_back(cb_in0, in0.block_num_tiles);

    cb_reserve_back(cb_in1, in1.block_num_tiles);
    const uint32_t l1_in1 = get_write_ptr(cb_in1);
    const uint32_t in1_bytes = bmm::read_block(s1, in1, block, l1_in1, get_tile_size(cb_in1));
    noc_async_read_barrier();
    bmm::send_block(in1_mcast, l1_in1, in1_bytes);
    cb_push_back(cb_in1, in1.block_num_tiles);
  }
}
