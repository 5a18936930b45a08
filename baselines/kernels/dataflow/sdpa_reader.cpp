// Reader of the FlashAttention baseline (RISCV_1; written for TileKit after ttnn's SDPA reader,
// ttnn/cpp/ttnn/operations/transformer/sdpa/device/kernels/dataflow/reader_interleaved.cpp, causal
// without a provided mask): for each of the core's heads and Q chunks (the same low / high order as
// the compute kernel), the Q chunk (Sq_chunk_t x DHt tiles, row-major), then for each K chunk up to
// the diagonal the K chunk with its tiles in transposed order (tile (k, d) at d * Sk_chunk_t + k,
// as the matmul with in1 transposed walks it) and the V chunk (Sk_chunk_t x DHt, row-major). Each
// chunk is read with one barrier, into CBs that hold two (K, V; Q when the core has more than one
// Q chunk).
// Compile-time args: St, DHt, Sq_chunk_t, q_num_chunks, Sk_chunk_t, balanced, then the accessors of
// Q, K and V. Runtime args: Q, K and V addresses, first head, end head, local_q_start, Q chunks per
// core.
#include <cstdint>

#include "api/dataflow/dataflow_api.h"

namespace {

// rows x cols tiles starting at tile `first` of a row-major tensor cols tiles wide, into the CB's
// back; transposed: tile (r, c) lands at c * rows + r.
template <typename Accessor>
void read_chunk(const Accessor& s, uint32_t cb, uint32_t first, uint32_t rows, uint32_t cols,
                bool transpose) {
  const uint32_t tile_bytes = get_tile_size(cb);
  cb_reserve_back(cb, rows * cols);
  const uint32_t base = get_write_ptr(cb);
  uint32_t id = first;
  for (uint32_t r = 0; r < rows; ++r) {
    for (uint32_t c = 0; c < cols; ++c) {
      const uint32_t slot = transpose ? c * rows + r : r * cols + c;
      noc_async_read_page(id++, s, base + slot * tile_bytes);
    }
  }
  noc_async_read_barrier();
  cb_push_back(cb, rows * cols);
}

} // namespace

void kernel_main() {
  constexpr uint32_t St = get_compile_time_arg_val(0);
  constexpr uint32_t DHt = get_compile_time_arg_val(1);
  constexpr uint32_t Sq_chunk_t = get_compile_time_arg_val(2);
  constexpr uint32_t q_num_chunks = get_compile_time_arg_val(3);
  constexpr uint32_t Sk_chunk_t = get_compile_time_arg_val(4);
  constexpr bool balanced = get_compile_time_arg_val(5) == 1;
  constexpr auto q_args = TensorAccessorArgs<6>();
  constexpr auto k_args = TensorAccessorArgs<q_args.next_compile_time_args_offset()>();
  constexpr auto v_args = TensorAccessorArgs<k_args.next_compile_time_args_offset()>();

  const uint32_t q_addr = get_arg_val<uint32_t>(0);
  const uint32_t k_addr = get_arg_val<uint32_t>(1);
  const uint32_t v_addr = get_arg_val<uint32_t>(2);
  const uint32_t head_start = get_arg_val<uint32_t>(3);
  const uint32_t head_end = get_arg_val<uint32_t>(4);
  const uint32_t local_q_start = get_arg_val<uint32_t>(5);
  const uint32_t q_chunks_per_core = get_arg_val<uint32_t>(6);

  const auto q = TensorAccessor(q_args, q_addr);
  const auto k = TensorAccessor(k_args, k_addr);
  const auto v = TensorAccessor(v_args, v_addr);
  constexpr uint32_t cb_q_in = tt::CBIndex::c_0;
  constexpr uint32_t cb_k_in = tt::CBIndex::c_1;
  constexpr uint32_t cb_v_in = tt::CBIndex::c_2;

  for (uint32_t head = head_start; head < head_end; ++head) {
    const uint32_t head_tile = head * St * DHt;
    for (uint32_t q_iter = 0; q_iter < q_chunks_per_core; ++q_iter) {
      uint32_t q_chunk = local_q_start + q_iter;
      if constexpr (balanced) {
        const uint32_t half = q_chunks_per_core / 2;
        q_chunk = q_iter < half ? local_q_start + q_iter
                                : q_num_chunks - 1 - (local_q_start + q_iter - half);
      }
      const uint32_t q_start_tile = q_chunk * Sq_chunk_t;
      read_chunk(q, cb_q_in, head_tile + q_start_tile * DHt, Sq_chunk_t, DHt, false);
      // K and V chunks while k_low < q_high.
      const uint32_t q_high_tile = q_start_tile + Sq_chunk_t;
      for (uint32_t k_chunk = 0; k_chunk * Sk_chunk_t < q_high_tile; ++k_chunk) {
        const uint32_t kv_tile = head_tile + k_chunk * Sk_chunk_t * DHt;
        read_chunk(k, cb_k_in, kv_tile, Sk_chunk_t, DHt, true);
        read_chunk(v, cb_v_in, kv_tile, Sk_chunk_t, DHt, false);
      }
    }
  }
}
