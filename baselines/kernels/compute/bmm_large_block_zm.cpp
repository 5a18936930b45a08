// Compute of matmul_multicore_reuse and _mcast (the SDK's matmul_common bmm_large_block_zm.cpp).
// The core's output block (per_core_M x per_core_N tiles) is computed in out_subblock_h x
// out_subblock_w sub-blocks, each in DST. Per K-block (in0_block_w tiles of K), for each sub-block:
// reload its partial sums from the intermediate CB c_24 (after the first K-block), accumulate the
// in0_block_w tile products, then pack to c_24 again, or to the output c_16 after the last K-block.
// c_16 and c_24 share their L1 (one CircularBufferConfig).
// Compile-time args: in0_block_w, in0_num_subblocks, in0_block_num_tiles, in0_subblock_num_tiles,
// in1_num_subblocks, in1_block_num_tiles, in1_per_core_w, num_blocks, out_subblock_h,
// out_subblock_w, out_subblock_num_tiles.
#include <cstdint>

#include "api/compute/matmul.h"
#include "api/compute/tile_move_copy.h"

void kernel_main() {
  constexpr uint32_t in0_block_w = get_compile_time_arg_val(0);
  constexpr uint32_t in0_num_subblocks = get_compile_time_arg_val(1);
  constexpr uint32_t in0_block_num_tiles = get_compile_time_arg_val(2);
  constexpr uint32_t in0_subblock_num_tiles = get_compile_time_arg_val(3);
  constexpr uint32_t in1_num_subblocks = get_compile_time_arg_val(4);
  constexpr uint32_t in1_block_num_tiles = get_compile_time_arg_val(5);
  constexpr uint32_t in1_per_core_w = get_compile_time_arg_val(6);
  constexpr uint32_t num_blocks = get_compile_time_arg_val(7);
  constexpr uint32_t out_subblock_h = get_compile_time_arg_val(8);
  constexpr uint32_t out_subblock_w = get_compile_time_arg_val(9);
  constexpr uint32_t out_subblock_num_tiles = get_compile_time_arg_val(10);

  constexpr tt::CBIndex cb_in0 = tt::CBIndex::c_0;
  constexpr tt::CBIndex cb_in1 = tt::CBIndex::c_1;
  constexpr tt::CBIndex cb_out = tt::CBIndex::c_16;
  constexpr tt::CBIndex cb_partials = tt::CBIndex::c_24;

  mm_init(cb_in0, cb_in1, cb_out);
  bool reload = false; // partial sums wait in c_24
  uint32_t out_tiles_to_wait = out_subblock_num_tiles;
  for (uint32_t block = 0; block < num_blocks; ++block) {
    const bool last = block == num_blocks - 1;
    cb_wait_front(cb_in0, in0_block_num_tiles);
    cb_wait_front(cb_in1, in1_block_num_tiles);
    uint32_t in0_subblock_offset = 0;
    for (uint32_t in0_subblock = 0; in0_subblock < in0_num_subblocks; ++in0_subblock) {
      uint32_t in1_subblock_offset = 0;
      for (uint32_t in1_subblock = 0; in1_subblock < in1_num_subblocks; ++in1_subblock) {
        tile_regs_acquire();
        if (reload) {
          copy_tile_to_dst_init_short(cb_partials);
          cb_wait_front(cb_partials, out_subblock_num_tiles);
          for (uint32_t i = 0; i < out_subblock_num_tiles; ++i)
            copy_tile(cb_partials, i, i);
          cb_pop_front(cb_partials, out_subblock_num_tiles);
          mm_init_short(cb_in0, cb_in1);
        }
        // DST[h * out_subblock_w + w] += sum over k of in0(h, k) * in1(k, w), within the blocks
        // (in0 row-major with in0_block_w columns, in1 row-major with in1_per_core_w columns).
        uint32_t dst = 0;
        for (uint32_t h = 0; h < out_subblock_h; ++h) {
          for (uint32_t w = 0; w < out_subblock_w; ++w, ++dst) {
            for (uint32_t k = 0; k < in0_block_w; ++k) {
              matmul_tiles(cb_in0, cb_in1, in0_subblock_offset + h * in0_block_w + k,
                           in1_subblock_offset + k * in1_per_core_w + w, dst);
            }
          }
        }
        tile_regs_commit();
        tile_regs_wait();
        if (last) {
          cb_reserve_back(cb_out, out_subblock_num_tiles);
          for (uint32_t i = 0; i < out_subblock_num_tiles; ++i)
            pack_tile(i, cb_out);
          cb_push_back(cb_out, out_subblock_num_tiles);
        } else {
          // c_24 shares c_16's memory: on the first K-block, make sure the writer has drained
          // c_16 as far as this sub-block reaches before partials overwrite it.
          if (block == 0) {
            cb_reserve_back(cb_out, out_tiles_to_wait);
            out_tiles_to_wait += out_subblock_num_tiles;
          }
          cb_reserve_back(cb_partials, out_subblock_num_tiles);
          for (uint32_t i = 0; i < out_subblock_num_tiles; ++i)
            pack_tile(i, cb_partials);
          cb_push_back(cb_partials, out_subblock_num_tiles);
        }
        tile_regs_release();
        in1_subblock_offset += out_subblock_w;
      }
      in0_subblock_offset += in0_subblock_num_tiles;
    }
    if (num_blocks > 1)
      reload = true;
    cb_pop_front(cb_in0, in0_block_num_tiles);
    cb_pop_front(cb_in1, in1_block_num_tiles);
  }
}
