// matmul_multicore_reuse reader (the SDK's matmul_common reader_bmm_tile_layout.cpp): per K-block,
// reads this core's in0 block (per_core_M x in0_block_w tiles) into c_0 and its in1 block
// (in0_block_w x per_core_N) into c_1, then pushes both.
// Runtime args: in0 operand (8, bmm_tile_layout.h), in1 operand (8), number of K-blocks.
// Compile-time args: in0's then in1's accessor.
#include <cstdint>

#include "bmm_tile_layout.h"

void kernel_main() {
  const bmm::Operand in0 = bmm::operand_args(0);
  const bmm::Operand in1 = bmm::operand_args(8);
  const uint32_t num_blocks = get_arg_val<uint32_t>(16);

  constexpr uint32_t cb_in0 = tt::CBIndex::c_0;
  constexpr uint32_t cb_in1 = tt::CBIndex::c_1;
  constexpr auto s0_args = TensorAccessorArgs<0>();
  const auto s0 = TensorAccessor(s0_args, in0.addr);
  constexpr auto s1_args = TensorAccessorArgs<s0_args.next_compile_time_args_offset()>();
  const auto s1 = TensorAccessor(s1_args, in1.addr);

  for (uint32_t block = 0; block < num_blocks; ++block) {
    cb_reserve_back(cb_in0, in0.block_num_tiles);
    cb_reserve_back(cb_in1, in1.block_num_tiles);
    bmm::read_block(s0, in0, block, get_write_ptr(cb_in0), get_tile_size(cb_in0));
    bmm::read_block(s1, in1, block, get_write_ptr(cb_in1), get_tile_size(cb_in1));
    noc_async_read_barrier();
    cb_push_back(cb_in0, in0.block_num_tiles);
    cb_push_back(cb_in1, in1.block_num_tiles);
  }
}
