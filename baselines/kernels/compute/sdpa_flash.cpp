// Compute of the FlashAttention baseline (docs/baselines.md, "FlashAttention"), written for
// TileKit after the structure of ttnn's causal SDPA prefill compute kernel
// (ttnn/cpp/ttnn/operations/transformer/sdpa/device/kernels/compute/sdpa.cpp, the standard path of
// compute_common.hpp's sdpa_inner_loop with a generated mask): for each Q chunk of Sq_chunk_t tile
// rows, and each K chunk of Sk_chunk_t tile rows up to the diagonal,
//   QK = Q K^T (matmul_blocks, in1 transposed), QK += mask (chunks that straddle the diagonal),
//   cur_max = max(prev_max, rowmax(QK)), QK = exp((QK - cur_max) * scale) with the partial row
//   sums packed into cur_sum by L1 accumulation, OUT_cur = QK V, and after the first K chunk
//   exp_max_diff = exp((prev_max - cur_max) * scale), prev_sum *= exp_max_diff,
//   cur_sum += prev_sum, OUT_cur += OUT_prev * exp_max_diff (L1 accumulation);
// then the row sums are finished by a matmul with a column of ones, inverted, and OUT scaled by
// them into the output CB. The statistics and the running output ping-pong between A and B CBs.
// Differences from ttnn's kernel, all of them calls the emulator does not model: the max reduce is
// reduce_c's reduce_tile form (not reduce_block_max_row); the small exps and reciprocals of the
// statistics are exp_tile<true> (clamped) / recip_tile on VectorMode::C (ttnn's custom
// first-column SFPI functions, whose exp is the accurate one); the reconfig_data_format calls are
// made only with Bfp8_b Q, K, V and O (every other CB holds Float16_b), where the formats differ.
// Where ttnn packs onto a full CB in place (its add_block_inplace, recip_block_inplace, the
// L1-accumulated OUT) without reserving, this kernel pops and re-reserves the same pages first (as
// ttnn's lightweight mask path does): the same L1 pages and the same calls to the hardware, in the
// order the emulator's CB checks accept. Compile-time args: St (K tile rows), DHt, Sq_chunk_t,
// q_num_chunks, Sk_chunk_t, qk_subblock_h, qk_subblock_w, out_subblock_h, out_subblock_w, scale
// (fp32 bits), balanced (1: each core's Q chunks are a low and a high half), stats, sub_exp, dht
// and reduce granularities (ttnn's STATS_/SUB_EXP_/DHT_/REDUCE_GRANULARITY defines), bfp8 (1: Q, K,
// V and O are Bfp8_b). Runtime args: first head, end head, first Q chunk (local_q_start), Q chunks
// per core.
#include <cstdint>
#include <utility>

#include "api/compute/bcast.h"
#include "api/compute/binary_max_min.h"
#include "api/compute/compute_kernel_api.h"
#include "api/compute/eltwise_binary.h"
#include "api/compute/eltwise_unary/exp.h"
#include "api/compute/eltwise_unary/recip.h"
#include "api/compute/matmul.h"
#include "api/compute/pack.h"
#include "api/compute/reconfig_data_format.h"
#include "api/compute/reduce.h"
#include "api/compute/reg_api.h"
#include "api/compute/tile_move_copy.h"

namespace {

constexpr uint32_t St = get_compile_time_arg_val(0);
constexpr uint32_t DHt = get_compile_time_arg_val(1);
constexpr uint32_t Sq_chunk_t = get_compile_time_arg_val(2);
constexpr uint32_t q_num_chunks = get_compile_time_arg_val(3);
constexpr uint32_t Sk_chunk_t = get_compile_time_arg_val(4);
constexpr uint32_t qk_subblock_h = get_compile_time_arg_val(5);
constexpr uint32_t qk_subblock_w = get_compile_time_arg_val(6);
constexpr uint32_t out_subblock_h = get_compile_time_arg_val(7);
constexpr uint32_t out_subblock_w = get_compile_time_arg_val(8);
constexpr uint32_t scale_fp32 = get_compile_time_arg_val(9);
constexpr bool balanced = get_compile_time_arg_val(10) == 1;
constexpr uint32_t stats_granularity = get_compile_time_arg_val(11);
constexpr uint32_t sub_exp_granularity = get_compile_time_arg_val(12);
constexpr uint32_t dht_granularity = get_compile_time_arg_val(13);
// Q, K, V and O in Bfp8_b (the intermediates stay Float16_b): the unpacker and packer switch
// formats where ttnn's kernel reconfigures them.
constexpr bool bfp8 = get_compile_time_arg_val(14) == 1;

constexpr uint32_t cb_q_in = tt::CBIndex::c_0;
constexpr uint32_t cb_k_in = tt::CBIndex::c_1;
constexpr uint32_t cb_v_in = tt::CBIndex::c_2;
constexpr uint32_t cb_mask_in = tt::CBIndex::c_3;
constexpr uint32_t cb_identity_scale_in = tt::CBIndex::c_5;
constexpr uint32_t cb_col_identity = tt::CBIndex::c_7;
constexpr uint32_t cb_qk_im = tt::CBIndex::c_24;
constexpr uint32_t cb_out_im_A = tt::CBIndex::c_25;
constexpr uint32_t cb_out_im_B = tt::CBIndex::c_26;
constexpr uint32_t cb_max_A = tt::CBIndex::c_27;
constexpr uint32_t cb_max_B = tt::CBIndex::c_28;
constexpr uint32_t cb_sum_A = tt::CBIndex::c_29;
constexpr uint32_t cb_sum_B = tt::CBIndex::c_30;
constexpr uint32_t cb_exp_max_diff = tt::CBIndex::c_31;
constexpr uint32_t cb_out = tt::CBIndex::c_16;

// out = in0 (M x K tiles) x in1 (K x N), or in1 transposed: each subblock_h x subblock_w subblock
// in DST, packed to its place in out (row-major M x N); in0 stays, in1 is popped.
void matmul_blocks(uint32_t in0_cb, uint32_t in1_cb, uint32_t out_cb, uint32_t M, uint32_t N,
                   uint32_t K, uint32_t subblock_h, uint32_t subblock_w, bool transpose) {
  mm_block_init_short(in0_cb, in1_cb, transpose, subblock_w, subblock_h, K);
  const uint32_t in0_num_subblocks = M / subblock_h, in1_num_subblocks = N / subblock_w;
  cb_wait_front(in1_cb, K * N);
  cb_reserve_back(out_cb, M * N);
  uint32_t in0_index_offset = 0;
  uint32_t in0_wait_tiles = subblock_h * K;
  for (uint32_t in0_subblock = 0; in0_subblock < in0_num_subblocks; ++in0_subblock) {
    cb_wait_front(in0_cb, in0_wait_tiles);
    uint32_t in1_index_offset = 0;
    for (uint32_t in1_subblock = 0; in1_subblock < in1_num_subblocks; ++in1_subblock) {
      tile_regs_acquire();
      uint32_t in0_index = in0_index_offset, in1_index = in1_index_offset;
      for (uint32_t inner = 0; inner < K; ++inner) {
        matmul_block(in0_cb, in1_cb, in0_index, in1_index, 0, transpose, subblock_w, subblock_h, K);
        ++in0_index;
        in1_index += N;
      }
      tile_regs_commit();
      tile_regs_wait();
      uint32_t dst = 0;
      for (uint32_t r = 0; r < subblock_h; ++r)
        for (uint32_t c = 0; c < subblock_w; ++c)
          pack_tile<true>(dst++, out_cb, r * N + in1_subblock * subblock_w + c);
      tile_regs_release();
      in1_index_offset += subblock_w;
    }
    in0_index_offset += subblock_h * K;
    in0_wait_tiles += subblock_h * K;
    cb_push_back(out_cb, subblock_h * N); // the subblock row, so the next stage can start
  }
  cb_pop_front(in1_cb, K * N);
}

// in0 += in1, tile by tile (in1 popped); each in0 tile is popped and packed back behind the rest.
void add_block_inplace(uint32_t in0_cb, uint32_t in1_cb, uint32_t num_tiles) {
  add_tiles_init(in0_cb, in1_cb);
  cb_wait_front(in0_cb, num_tiles);
  cb_wait_front(in1_cb, num_tiles);
  for (uint32_t i = 0; i < num_tiles; ++i) {
    tile_regs_acquire();
    add_tiles(in0_cb, in1_cb, 0, i, 0);
    tile_regs_commit();
    cb_pop_front(in0_cb, 1);
    cb_reserve_back(in0_cb, 1);
    tile_regs_wait();
    pack_tile(0, in0_cb);
    tile_regs_release();
    cb_push_back(in0_cb, 1);
  }
  cb_pop_front(in1_cb, num_tiles);
}

// out (rows tiles, a column each) = max over the row's cols tiles of QK, and of prev when given.
void reduce_max_c(uint32_t out_cb, uint32_t prev_cb, uint32_t cols, bool do_eltwise_max) {
  cb_wait_front(cb_identity_scale_in, 1);
  cb_wait_front(cb_qk_im, Sq_chunk_t * cols);
  cb_reserve_back(out_cb, Sq_chunk_t);
  binary_max_tile_init();
  for (uint32_t i = 0; i < Sq_chunk_t; ++i) {
    tile_regs_acquire();
    reduce_init<PoolType::MAX, ReduceDim::REDUCE_ROW>(cb_qk_im, cb_identity_scale_in, out_cb);
    for (uint32_t j = 0; j < cols; ++j)
      reduce_tile<PoolType::MAX, ReduceDim::REDUCE_ROW>(cb_qk_im, cb_identity_scale_in,
                                                        i * cols + j, 0, 0);
    reduce_uninit();
    if (do_eltwise_max) {
      copy_tile_to_dst_init_short(prev_cb);
      copy_tile(prev_cb, i, 1);
      binary_max_tile(0, 1, 0, static_cast<int>(VectorMode::C));
    }
    tile_regs_commit();
    tile_regs_wait();
    pack_tile(0, out_cb);
    tile_regs_release();
  }
  cb_push_back(out_cb, Sq_chunk_t);
}

// QK = exp((QK - max) * scale) in place, row by row, sub_exp_granularity tiles at a time; the
// tiles of each row are also packed onto one tile of sum_cb with L1 accumulation (the partial
// row sums, finished by matmul_reduce after the last K chunk). The unclamped exp leaves negative
// values below about -88 (the mask's -inf among them): the packer's ReLU zeroes them, as ttnn's.
void sub_exp_block_bcast_cols_inplace(uint32_t max_cb, uint32_t sum_cb, uint32_t cols) {
  sub_bcast_cols_init_short(cb_qk_im, max_cb);
  exp_tile_init<true, scale_fp32, InputClamping::None>();
  PACK((llk_pack_relu_config(ReluType::ZERO_RELU)));
  cb_wait_front(cb_qk_im, Sq_chunk_t * cols);
  cb_wait_front(max_cb, Sq_chunk_t);
  cb_reserve_back(sum_cb, Sq_chunk_t);
  const uint32_t dst_tiles = sub_exp_granularity;
  const uint32_t granularity = cols / dst_tiles;
  for (uint32_t i = 0; i < Sq_chunk_t; ++i) {
    for (uint32_t u = 0; u < granularity; ++u) {
      tile_regs_acquire();
      for (uint32_t j = 0; j < dst_tiles; ++j) {
        sub_tiles_bcast_cols(cb_qk_im, max_cb, j, i, j);
        exp_tile<true, false, InputClamping::None, 32>(j, static_cast<int>(VectorMode::None));
      }
      tile_regs_commit();
      cb_pop_front(cb_qk_im, dst_tiles);
      cb_reserve_back(cb_qk_im, dst_tiles);
      tile_regs_wait();
      for (uint32_t j = 0; j < dst_tiles; ++j)
        pack_tile(j, cb_qk_im);
      cb_push_back(cb_qk_im, dst_tiles);
      if (u > 0)
        pack_reconfig_l1_acc(1);
      for (uint32_t j = 0; j < dst_tiles; ++j) {
        pack_tile<true>(j, sum_cb, i);
        if (u == 0 && j == 0)
          pack_reconfig_l1_acc(1);
      }
      tile_regs_release();
      pack_reconfig_l1_acc(0);
    }
  }
  cb_push_back(sum_cb, Sq_chunk_t);
  PACK((llk_pack_relu_config(ReluType::NO_RELU)));
}

// out = exp((in0 - in1) * scale) on the statistics' column (in0 and in1 stay); ttnn's
// exp_tile_first_column is the accurate exp on columns 0:8, this the clamped approximate one on
// the column's faces (the approximate exp takes its scale from the init). Its error cancels: the
// running output and the running sum are both scaled by it.
void sub_exp_block(uint32_t in0_cb, uint32_t in1_cb, uint32_t out_cb, uint32_t num_tiles) {
  sub_tiles_init(in0_cb, in1_cb);
  exp_tile_init<true, scale_fp32>();
  cb_wait_front(in0_cb, num_tiles);
  cb_wait_front(in1_cb, num_tiles);
  cb_reserve_back(out_cb, num_tiles);
  for (uint32_t i = 0; i < num_tiles; ++i) {
    tile_regs_acquire();
    sub_tiles(in0_cb, in1_cb, i, i, 0);
    exp_tile<true>(0, static_cast<int>(VectorMode::C));
    tile_regs_commit();
    tile_regs_wait();
    pack_tile(0, out_cb);
    cb_push_back(out_cb, 1);
    tile_regs_release();
  }
}

// in0 *= column 0 of in1, tile by tile (in1 stays).
void mul_tiles_bcast_cols_inplace(uint32_t in0_cb, uint32_t in1_cb, uint32_t num_tiles) {
  mul_bcast_cols_init_short(in0_cb, in1_cb);
  cb_wait_front(in0_cb, num_tiles);
  cb_wait_front(in1_cb, num_tiles);
  for (uint32_t i = 0; i < num_tiles; ++i) {
    tile_regs_acquire();
    mul_tiles_bcast_cols(in0_cb, in1_cb, 0, i, 0);
    tile_regs_commit();
    cb_pop_front(in0_cb, 1);
    cb_reserve_back(in0_cb, 1);
    tile_regs_wait();
    pack_tile(0, in0_cb);
    tile_regs_release();
    cb_push_back(in0_cb, 1);
  }
}

// out (+)= in0 (rows x cols) * column 0 of in1's row tile; in0 and in1 popped. With accumulate,
// out holds rows x cols tiles already and the products are added onto them by the packer.
template <bool accumulate>
void mul_block_bcast_cols(uint32_t in0_cb, uint32_t in1_cb, uint32_t out_cb, uint32_t rows,
                          uint32_t cols) {
  const uint32_t num_tiles = rows * cols;
  mul_bcast_cols_init_short(in0_cb, in1_cb);
  cb_wait_front(in0_cb, num_tiles);
  cb_wait_front(in1_cb, rows);
  if constexpr (accumulate) {
    // out's pages are the whole CB: popped and re-reserved, they are the same pages, unchanged.
    cb_wait_front(out_cb, num_tiles);
    cb_pop_front(out_cb, num_tiles);
  }
  cb_reserve_back(out_cb, num_tiles);
  pack_reconfig_l1_acc(accumulate ? 1 : 0);
  const uint32_t dst_tiles = dht_granularity;
  const uint32_t granularity = cols / dst_tiles;
  uint32_t in0_index = 0;
  for (uint32_t i = 0; i < rows; ++i) {
    for (uint32_t u = 0; u < granularity; ++u) {
      tile_regs_acquire();
      for (uint32_t j = 0; j < dst_tiles; ++j)
        mul_tiles_bcast_cols(in0_cb, in1_cb, in0_index++, i, j);
      tile_regs_commit();
      tile_regs_wait();
      for (uint32_t j = 0; j < dst_tiles; ++j)
        pack_tile(j, out_cb);
      tile_regs_release();
    }
  }
  pack_reconfig_l1_acc(0);
  cb_pop_front(in1_cb, rows);
  cb_pop_front(in0_cb, num_tiles);
  cb_push_back(out_cb, num_tiles);
}

// The partial row sums (rows tiles) times the column of ones: each row's sum in column 0.
void matmul_reduce(uint32_t sum_cb) {
  constexpr uint32_t subblock_h = stats_granularity;
  mm_block_init_short(sum_cb, cb_col_identity, 0, 1, subblock_h, 1);
  cb_wait_front(cb_col_identity, 1);
  cb_wait_front(sum_cb, Sq_chunk_t);
  for (uint32_t s = 0; s < Sq_chunk_t / subblock_h; ++s) {
    tile_regs_acquire();
    matmul_block(sum_cb, cb_col_identity, 0, 0, 0, 0, 1, subblock_h, 1);
    tile_regs_commit();
    cb_pop_front(sum_cb, subblock_h);
    cb_reserve_back(sum_cb, subblock_h);
    tile_regs_wait();
    for (uint32_t i = 0; i < subblock_h; ++i)
      pack_tile(i, sum_cb);
    tile_regs_release();
    cb_push_back(sum_cb, subblock_h);
  }
}

// in = 1 / in on the statistics' column.
void recip_block_inplace(uint32_t in_cb, uint32_t num_tiles) {
  copy_tile_to_dst_init_short(in_cb);
  recip_tile_init();
  cb_wait_front(in_cb, num_tiles);
  for (uint32_t i = 0; i < num_tiles; ++i) {
    tile_regs_acquire();
    copy_tile(in_cb, 0, 0);
    recip_tile(0, static_cast<int>(VectorMode::C));
    tile_regs_commit();
    cb_pop_front(in_cb, 1);
    cb_reserve_back(in_cb, 1);
    tile_regs_wait();
    pack_tile(0, in_cb);
    tile_regs_release();
    cb_push_back(in_cb, 1);
  }
}

} // namespace

void kernel_main() {
  const uint32_t head_start = get_arg_val<uint32_t>(0);
  const uint32_t head_end = get_arg_val<uint32_t>(1);
  const uint32_t local_q_start = get_arg_val<uint32_t>(2);
  const uint32_t q_chunks_per_core = get_arg_val<uint32_t>(3);
  constexpr uint32_t q_chunk_tiles = Sq_chunk_t * DHt;
  constexpr uint32_t qk_chunk_tiles = Sq_chunk_t * Sk_chunk_t;

  mm_init(cb_q_in, cb_k_in, cb_out);
  for (uint32_t head = head_start; head < head_end; ++head) {
    for (uint32_t q_iter = 0; q_iter < q_chunks_per_core; ++q_iter) {
      uint32_t q_chunk = local_q_start + q_iter;
      if constexpr (balanced) { // a low half of the chunks, then the mirrored high half
        const uint32_t half = q_chunks_per_core / 2;
        q_chunk = q_iter < half ? local_q_start + q_iter
                                : q_num_chunks - 1 - (local_q_start + q_iter - half);
      }
      const uint32_t q_start_tile = q_chunk * Sq_chunk_t;
      const uint32_t q_high_tile = q_start_tile + Sq_chunk_t;
      const uint32_t k_chunk_end = (q_high_tile + Sk_chunk_t - 1) / Sk_chunk_t;

      uint32_t prev_sum = cb_sum_A, cur_sum = cb_sum_B;
      uint32_t prev_max = cb_max_A, cur_max = cb_max_B;
      uint32_t prev_out = cb_out_im_A, cur_out = cb_out_im_B;
      for (uint32_t k_chunk = 0; k_chunk < k_chunk_end; ++k_chunk) {
        // QK = Q K^T (K's chunk arrives with its tiles in transposed order).
        if constexpr (bfp8) {
          reconfig_data_format(cb_k_in, cb_q_in);
          pack_reconfig_data_format(cb_qk_im);
        }
        matmul_blocks(cb_q_in, cb_k_in, cb_qk_im, Sq_chunk_t, Sk_chunk_t, DHt, qk_subblock_h,
                      qk_subblock_w, true);
        // The mask only where the K chunk reaches past the Q chunk's first row.
        if (q_start_tile < (k_chunk + 1) * Sk_chunk_t) {
          if constexpr (bfp8)
            reconfig_data_format(cb_qk_im, cb_mask_in);
          add_block_inplace(cb_qk_im, cb_mask_in, qk_chunk_tiles);
        }
        if constexpr (bfp8)
          reconfig_data_format(cb_qk_im, cb_identity_scale_in);
        reduce_max_c(cur_max, prev_max, Sk_chunk_t, k_chunk > 0);
        sub_exp_block_bcast_cols_inplace(cur_max, cur_sum, Sk_chunk_t);
        // OUT_cur = QK V (srcA takes V, srcB the scores: the matmul's operands are swapped).
        if constexpr (bfp8)
          reconfig_data_format(cb_v_in, cb_qk_im);
        matmul_blocks(cb_qk_im, cb_v_in, cur_out, Sq_chunk_t, DHt, Sk_chunk_t, out_subblock_h,
                      out_subblock_w, false);
        cb_pop_front(cb_qk_im, qk_chunk_tiles);
        if constexpr (bfp8)
          reconfig_data_format(prev_max, cur_max);
        if (k_chunk > 0) {
          sub_exp_block(prev_max, cur_max, cb_exp_max_diff, Sq_chunk_t);
          cb_pop_front(prev_max, Sq_chunk_t);
          mul_tiles_bcast_cols_inplace(prev_sum, cb_exp_max_diff, Sq_chunk_t);
          add_block_inplace(cur_sum, prev_sum, Sq_chunk_t);
          mul_block_bcast_cols<true>(prev_out, cb_exp_max_diff, cur_out, Sq_chunk_t, DHt);
        }
        std::swap(prev_sum, cur_sum);
        std::swap(prev_out, cur_out);
        std::swap(prev_max, cur_max);
      }
      matmul_reduce(prev_sum);
      recip_block_inplace(prev_sum, Sq_chunk_t);
      if constexpr (bfp8)
        pack_reconfig_data_format(cb_out);
      mul_block_bcast_cols<false>(prev_out, prev_sum, cb_out, Sq_chunk_t, DHt);
      cb_pop_front(prev_max, Sq_chunk_t);
      cb_pop_front(cb_q_in, q_chunk_tiles);
    }
  }
}
