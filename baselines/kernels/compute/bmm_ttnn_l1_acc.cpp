// Compute of the TTNN-configuration baseline (written for TileKit after the structure of ttnn's
// 2D-multicast matmul compute kernel, ttnn/cpp/ttnn/operations/matmul/device/kernels/compute/
// bmm_large_block_zm_fused_bias_activation.cpp, without bias, activation or untilize): each core's
// output block (per_core_M x per_core_N) is computed out_block_h x out_block_w at a time; each out
// block in out_subblock_h x out_subblock_w sub-blocks held in DST, one matmul_block call per k of
// the in0_block_w K-tiles of a K-block. The partial sums stay in L1 and the packer accumulates into
// them (pack_reconfig_l1_acc, ttnn's packer_l1_acc = true): K-block 0 packs, K-blocks 1 .. n-2 pack
// with accumulation onto the same pages, and the last K-block reloads them into DST once, adds its
// products and packs the result to the output CB. c_16 (output) and c_24 (partials) share one
// CircularBufferConfig of out_block_h x out_block_w tiles, as ttnn's do when their formats agree;
// with block-float operands (Bfp8_b, Bfp4_b) the partials stay Float16_b in their own CB, and the
// unpacker and packer switch formats around the reload and the last pack as ttnn's kernel does
// (reconfig_data_format_srca, pack_reconfig_data_format; on the device they cost nothing when the
// formats agree, so they are made only when they differ).
// Compile-time args: in0_block_w, in0_num_subblocks, in0_block_num_tiles, in0_subblock_num_tiles,
// in1_num_subblocks, in1_block_num_tiles, in1_block_w, num_blocks (K-blocks), out_subblock_h,
// out_subblock_w, out_subblock_num_tiles, out_block_num_tiles, num_out_blocks (h x w),
// formats_differ (1: the partials' format is not the operands' and the output's).
#include <cstdint>

#include "api/compute/matmul.h"
#include "api/compute/pack.h"
#include "api/compute/reconfig_data_format.h"
#include "api/compute/tile_move_copy.h"

void kernel_main() {
  constexpr uint32_t in0_block_w = get_compile_time_arg_val(0);
  constexpr uint32_t in0_num_subblocks = get_compile_time_arg_val(1);
  constexpr uint32_t in0_block_num_tiles = get_compile_time_arg_val(2);
  constexpr uint32_t in0_subblock_num_tiles = get_compile_time_arg_val(3);
  constexpr uint32_t in1_num_subblocks = get_compile_time_arg_val(4);
  constexpr uint32_t in1_block_num_tiles = get_compile_time_arg_val(5);
  constexpr uint32_t in1_block_w = get_compile_time_arg_val(6);
  constexpr uint32_t num_blocks = get_compile_time_arg_val(7);
  constexpr uint32_t out_subblock_h = get_compile_time_arg_val(8);
  constexpr uint32_t out_subblock_w = get_compile_time_arg_val(9);
  constexpr uint32_t out_subblock_num_tiles = get_compile_time_arg_val(10);
  constexpr uint32_t out_block_num_tiles = get_compile_time_arg_val(11);
  constexpr uint32_t num_out_blocks = get_compile_time_arg_val(12);
  constexpr bool formats_differ = get_compile_time_arg_val(13) == 1;

  constexpr tt::CBIndex cb_in0 = tt::CBIndex::c_0;
  constexpr tt::CBIndex cb_in1 = tt::CBIndex::c_1;
  constexpr tt::CBIndex cb_out = tt::CBIndex::c_16;
  constexpr tt::CBIndex cb_partials = tt::CBIndex::c_24;

  mm_block_init(cb_in0, cb_in1, cb_partials, 0, out_subblock_w, out_subblock_h, in0_block_w);
  for (uint32_t out_block = 0; out_block < num_out_blocks; ++out_block) {
    bool reload = false;
    for (uint32_t block = 0; block < num_blocks; ++block) {
      const bool last = block == num_blocks - 1;
      cb_wait_front(cb_in0, in0_block_num_tiles);
      cb_wait_front(cb_in1, in1_block_num_tiles);
      // The partials overwrite c_16's pages (when they share them): the writer must have drained
      // the previous out block.
      if (!formats_differ && block == 0 && !last)
        cb_reserve_back(cb_out, out_block_num_tiles);
      if constexpr (formats_differ) {
        if (last) // the packer writes the output's format from here to the out block's end
          pack_reconfig_data_format(cb_partials, cb_out);
      }
      uint32_t in0_subblock_offset = 0;
      for (uint32_t in0_subblock = 0; in0_subblock < in0_num_subblocks; ++in0_subblock) {
        uint32_t in1_subblock_offset = 0;
        for (uint32_t in1_subblock = 0; in1_subblock < in1_num_subblocks; ++in1_subblock) {
          tile_regs_acquire();
          if (reload) {
            if constexpr (formats_differ)
              reconfig_data_format_srca(cb_in1, cb_partials);
            copy_tile_to_dst_init_short(cb_partials);
            cb_wait_front(cb_partials, out_subblock_num_tiles);
            for (uint32_t i = 0; i < out_subblock_num_tiles; ++i)
              copy_tile(cb_partials, i, i);
            cb_pop_front(cb_partials, out_subblock_num_tiles);
            if constexpr (formats_differ)
              reconfig_data_format_srca(cb_partials, cb_in1);
            mm_block_init_short(cb_in0, cb_in1, 0, out_subblock_w, out_subblock_h, in0_block_w);
          }
          // DST[h * out_subblock_w + w] += in0(h, k) * in1(k, w) for each k of the K-block.
          uint32_t in0_index = in0_subblock_offset, in1_index = in1_subblock_offset;
          for (uint32_t k = 0; k < in0_block_w; ++k) {
            matmul_block(cb_in0, cb_in1, in0_index, in1_index, 0, 0, out_subblock_w, out_subblock_h,
                         in0_block_w);
            ++in0_index;
            in1_index += in1_block_w;
          }
          tile_regs_commit();
          if (last) {
            cb_reserve_back(cb_out, out_subblock_num_tiles);
            tile_regs_wait();
            pack_reconfig_l1_acc(0);
            for (uint32_t i = 0; i < out_subblock_num_tiles; ++i)
              pack_tile(i, cb_out);
            tile_regs_release();
            cb_push_back(cb_out, out_subblock_num_tiles);
          } else {
            cb_reserve_back(cb_partials, out_subblock_num_tiles);
            tile_regs_wait();
            pack_reconfig_l1_acc(block == 0 ? 0 : 1); // K-block 0 writes, later ones accumulate
            for (uint32_t i = 0; i < out_subblock_num_tiles; ++i)
              pack_tile(i, cb_partials);
            tile_regs_release();
            cb_push_back(cb_partials, out_subblock_num_tiles);
          }
          in1_subblock_offset += out_subblock_w;
        }
        in0_subblock_offset += in0_subblock_num_tiles;
      }
      // Until the last two K-blocks the partials are freed again at once, so the next K-block
      // packs onto the same pages; after K-block n-2 they stay, and the last K-block reloads them.
      if (num_blocks >= 2 && block < num_blocks - 2) {
        cb_wait_front(cb_partials, out_block_num_tiles);
        cb_pop_front(cb_partials, out_block_num_tiles);
      }
      if (num_blocks >= 2 && block == num_blocks - 2)
        reload = true;
      cb_pop_front(cb_in0, in0_block_num_tiles);
      cb_pop_front(cb_in1, in1_block_num_tiles);
    }
    pack_reconfig_l1_acc(0);
    if constexpr (formats_differ)
      pack_reconfig_data_format(cb_out, cb_partials);
  }
}
