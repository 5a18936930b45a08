// TTNN-configuration baseline, in1 and output (RISCV_0; after ttnn's
// reader_bmm_tile_layout_in1_sender_writer_padding.cpp and _in1_receiver_writer_padding.cpp, one
// kernel here with a compile-time flag): for each out block of the core's output, per K-block the
// top row reads the in1 block (in0_block_w x out_block_w tiles) from DRAM and multicasts it down
// its column, the other rows receive it; then every core writes the out block, one
// out_subblock_h x out_subblock_w sub-block at a time (sub-block rows outer), to C.
// Runtime args: in1 operand (8; its first block that of out block column 0), number of K-blocks,
// out blocks down and across, in1 multicast (9), C address, C's tile of the core's first out
// block, C's width in tiles, out_block_h, out_block_w, out_subblock_h, out_subblock_w.
// Compile-time args: sender (1) or receiver (0), in1's accessor, C's accessor.
#include <cstdint>

#include "bmm_tile_layout.h"

void kernel_main() {
  constexpr bool sender = get_compile_time_arg_val(0) == 1;
  bmm::Operand in1 = bmm::operand_args(0);
  const uint32_t num_blocks = get_arg_val<uint32_t>(8);
  const uint32_t out_blocks_h = get_arg_val<uint32_t>(9);
  const uint32_t out_blocks_w = get_arg_val<uint32_t>(10);
  const bmm::Mcast mcast = bmm::mcast_args(11);
  const uint32_t c_addr = get_arg_val<uint32_t>(20);
  const uint32_t c_start = get_arg_val<uint32_t>(21);
  const uint32_t c_width = get_arg_val<uint32_t>(22);
  const uint32_t out_block_h = get_arg_val<uint32_t>(23);
  const uint32_t out_block_w = get_arg_val<uint32_t>(24);
  const uint32_t sub_h = get_arg_val<uint32_t>(25);
  const uint32_t sub_w = get_arg_val<uint32_t>(26);

  constexpr uint32_t cb_in1 = tt::CBIndex::c_1;
  constexpr uint32_t cb_out = tt::CBIndex::c_16;
  constexpr auto s1_args = TensorAccessorArgs<1>();
  const auto s1 = TensorAccessor(s1_args, in1.addr);
  constexpr auto c_args = TensorAccessorArgs<s1_args.next_compile_time_args_offset()>();
  const auto c = TensorAccessor(c_args, c_addr);
  const uint32_t out_tile_bytes = get_tile_size(cb_out);
  const uint32_t first = in1.start_tile;

  if constexpr (sender)
    bmm::sender_init(mcast);
  for (uint32_t bh = 0; bh < out_blocks_h; ++bh) {
    for (uint32_t bw = 0; bw < out_blocks_w; ++bw) {
      in1.start_tile = first + bw * out_block_w;
      for (uint32_t block = 0; block < num_blocks; ++block) {
        cb_reserve_back(cb_in1, in1.block_num_tiles);
        if constexpr (sender) {
          const uint32_t l1 = get_write_ptr(cb_in1);
          const uint32_t bytes = bmm::read_block(s1, in1, block, l1, get_tile_size(cb_in1));
          noc_async_read_barrier();
          bmm::send_block(mcast, l1, bytes);
        } else {
          bmm::receive_block(mcast);
        }
        cb_push_back(cb_in1, in1.block_num_tiles);
      }
      // The out block, sub-block by sub-block as the compute kernel pushes them.
      const uint32_t block_start = c_start + bh * out_block_h * c_width + bw * out_block_w;
      for (uint32_t sh = 0; sh < out_block_h / sub_h; ++sh) {
        for (uint32_t sw = 0; sw < out_block_w / sub_w; ++sw) {
          cb_wait_front(cb_out, sub_h * sub_w);
          uint32_t l1 = get_read_ptr(cb_out);
          uint32_t row = block_start + sh * sub_h * c_width + sw * sub_w;
          for (uint32_t h = 0; h < sub_h; ++h, row += c_width) {
            for (uint32_t w = 0; w < sub_w; ++w) {
              noc_async_write_page(row + w, c, l1);
              l1 += out_tile_bytes;
            }
          }
          noc_async_write_barrier();
          cb_pop_front(cb_out, sub_h * sub_w);
        }
      }
    }
  }
}
