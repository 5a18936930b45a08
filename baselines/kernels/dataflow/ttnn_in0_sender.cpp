// TTNN-configuration baseline, in0 sender (the left column, RISCV_1; after the structure of ttnn's
// reader_bmm_tile_layout_in0_sender_padding.cpp): for each out block of the core's output and each
// K-block, reads the in0 block (out_block_h x in0_block_w tiles) from DRAM and multicasts it along
// the core's row.
// Runtime args: in0 operand (8, bmm_tile_layout.h; its first block that of out block row 0), number
// of K-blocks, out blocks down and across, the tile-id step from one out-block row to the next, in0
// multicast (9). Compile-time args: in0's accessor.
#include <cstdint>

#include "bmm_tile_layout.h"

void kernel_main() {
  bmm::Operand in0 = bmm::operand_args(0);
  const uint32_t num_blocks = get_arg_val<uint32_t>(8);
  const uint32_t out_blocks_h = get_arg_val<uint32_t>(9);
  const uint32_t out_blocks_w = get_arg_val<uint32_t>(10);
  const uint32_t out_block_stride = get_arg_val<uint32_t>(11);
  const bmm::Mcast mcast = bmm::mcast_args(12);

  constexpr uint32_t cb_in0 = tt::CBIndex::c_0;
  constexpr auto s0_args = TensorAccessorArgs<0>();
  const auto s0 = TensorAccessor(s0_args, in0.addr);
  const uint32_t first = in0.start_tile;

  bmm::sender_init(mcast);
  for (uint32_t bh = 0; bh < out_blocks_h; ++bh) {
    in0.start_tile = first + bh * out_block_stride;
    for (uint32_t bw = 0; bw < out_blocks_w; ++bw) {
      for (uint32_t block = 0; block < num_blocks; ++block) {
        cb_reserve_back(cb_in0, in0.block_num_tiles);
        const uint32_t l1 = get_write_ptr(cb_in0);
        const uint32_t bytes = bmm::read_block(s0, in0, block, l1, get_tile_size(cb_in0));
        noc_async_read_barrier();
        bmm::send_block(mcast, l1, bytes);
        cb_push_back(cb_in0, in0.block_num_tiles);
      }
    }
  }
}
