// Writer of the FlashAttention baseline (RISCV_0; written for TileKit after ttnn's SDPA writer,
// ttnn/cpp/ttnn/operations/transformer/sdpa/device/kernels/dataflow/writer_interleaved.cpp, causal
// with its generated mask): first the reduce scaler tile (1.0 in the first row of each face, as
// ttnn's prepare_reduce_scaler writes it) and the column of ones (1.0 in column 0, as
// generate_bcast_col_scalar); then for each of the core's heads and Q chunks the causal mask of
// every K chunk that straddles the diagonal (tile by tile: 0 below the diagonal, -inf above it,
// the diagonal tile 0 on and below its own diagonal and -inf above, as ttnn's generate_mask), and
// the output chunk (Sq_chunk_t x DHt tiles) to DRAM once the compute kernel has pushed it.
// Compile-time args: St, DHt, Sq_chunk_t, q_num_chunks, Sk_chunk_t, balanced, then O's accessor.
// Runtime args: O address, first head, end head, local_q_start, Q chunks per core.
#include <cstdint>

#include "api/dataflow/dataflow_api.h"

namespace {

constexpr uint16_t kNegInf = 0xFF80; // -inf in bfloat16
constexpr uint16_t kOne = 0x3F80;    // 1.0 in bfloat16

// Element (r, c) of a tile at 16-bit index: faces of 16x16, row-major within each.
inline uint32_t at(uint32_t r, uint32_t c) {
  return ((r >> 4) * 2 + (c >> 4)) * 256 + (r & 15) * 16 + (c & 15);
}

void fill_tile(uint32_t addr, uint16_t below, uint16_t diagonal_and_below, bool diagonal) {
  volatile tt_l1_ptr uint16_t* h = reinterpret_cast<volatile tt_l1_ptr uint16_t*>(addr);
  for (uint32_t r = 0; r < 32; ++r)
    for (uint32_t c = 0; c < 32; ++c)
      h[at(r, c)] = diagonal ? (c <= r ? diagonal_and_below : kNegInf) : below;
}

} // namespace

void kernel_main() {
  constexpr uint32_t St = get_compile_time_arg_val(0);
  constexpr uint32_t DHt = get_compile_time_arg_val(1);
  constexpr uint32_t Sq_chunk_t = get_compile_time_arg_val(2);
  constexpr uint32_t q_num_chunks = get_compile_time_arg_val(3);
  constexpr uint32_t Sk_chunk_t = get_compile_time_arg_val(4);
  constexpr bool balanced = get_compile_time_arg_val(5) == 1;
  constexpr auto o_args = TensorAccessorArgs<6>();

  const uint32_t o_addr = get_arg_val<uint32_t>(0);
  const uint32_t head_start = get_arg_val<uint32_t>(1);
  const uint32_t head_end = get_arg_val<uint32_t>(2);
  const uint32_t local_q_start = get_arg_val<uint32_t>(3);
  const uint32_t q_chunks_per_core = get_arg_val<uint32_t>(4);

  constexpr uint32_t cb_mask_in = tt::CBIndex::c_3;
  constexpr uint32_t cb_identity_scale_in = tt::CBIndex::c_5;
  constexpr uint32_t cb_col_identity = tt::CBIndex::c_7;
  constexpr uint32_t cb_out = tt::CBIndex::c_16;
  const auto o = TensorAccessor(o_args, o_addr);
  const uint32_t tile_bytes = get_tile_size(cb_out);
  const uint32_t mask_tile_bytes = get_tile_size(cb_mask_in);

  cb_reserve_back(cb_identity_scale_in, 1);
  {
    volatile tt_l1_ptr uint16_t* h =
        reinterpret_cast<volatile tt_l1_ptr uint16_t*>(get_write_ptr(cb_identity_scale_in));
    for (uint32_t i = 0; i < 1024; ++i)
      h[i] = (i & 255) < 16 ? kOne : 0; // the first row of each face
  }
  cb_push_back(cb_identity_scale_in, 1);
  cb_reserve_back(cb_col_identity, 1);
  {
    volatile tt_l1_ptr uint16_t* h =
        reinterpret_cast<volatile tt_l1_ptr uint16_t*>(get_write_ptr(cb_col_identity));
    for (uint32_t r = 0; r < 32; ++r)
      for (uint32_t c = 0; c < 32; ++c)
        h[at(r, c)] = c == 0 ? kOne : 0;
  }
  cb_push_back(cb_col_identity, 1);

  for (uint32_t head = head_start; head < head_end; ++head) {
    for (uint32_t q_iter = 0; q_iter < q_chunks_per_core; ++q_iter) {
      uint32_t q_chunk = local_q_start + q_iter;
      if constexpr (balanced) {
        const uint32_t half = q_chunks_per_core / 2;
        q_chunk = q_iter < half ? local_q_start + q_iter
                                : q_num_chunks - 1 - (local_q_start + q_iter - half);
      }
      const uint32_t q_start_tile = q_chunk * Sq_chunk_t;
      const uint32_t q_high_tile = q_start_tile + Sq_chunk_t;
      for (uint32_t k_chunk = 0; k_chunk * Sk_chunk_t < q_high_tile; ++k_chunk) {
        if (q_start_tile >= (k_chunk + 1) * Sk_chunk_t)
          continue; // wholly below the diagonal: no mask
        cb_reserve_back(cb_mask_in, Sq_chunk_t * Sk_chunk_t);
        uint32_t l1 = get_write_ptr(cb_mask_in);
        for (uint32_t r = 0; r < Sq_chunk_t; ++r) {
          for (uint32_t c = 0; c < Sk_chunk_t; ++c) {
            const uint32_t qt = q_start_tile + r, kt = k_chunk * Sk_chunk_t + c;
            fill_tile(l1, kt < qt ? 0 : kNegInf, 0, kt == qt);
            l1 += mask_tile_bytes;
          }
        }
        cb_push_back(cb_mask_in, Sq_chunk_t * Sk_chunk_t);
      }
      // The output chunk: rows q_start_tile .. of the head, DHt tiles each.
      cb_wait_front(cb_out, Sq_chunk_t * DHt);
      uint32_t l1 = get_read_ptr(cb_out);
      uint32_t id = (head * St + q_start_tile) * DHt;
      for (uint32_t t = 0; t < Sq_chunk_t * DHt; ++t, l1 += tile_bytes)
        noc_async_write_page(id++, o, l1);
      noc_async_write_barrier();
      cb_pop_front(cb_out, Sq_chunk_t * DHt);
    }
  }
}
