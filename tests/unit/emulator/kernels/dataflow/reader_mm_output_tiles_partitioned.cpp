// Matmul reader (SDK style,
// matmul_multi_core/kernels/dataflow/reader_mm_output_tiles_partitioned.cpp): for each output tile
// of this core, streams A(row, k) and B(k, col) for k < Kt.
#include <cstdint>

#include "api/dataflow/dataflow_api.h"

void kernel_main() {
  const uint32_t src0_addr = get_arg_val<uint32_t>(0);
  const uint32_t src1_addr = get_arg_val<uint32_t>(1);
  const uint32_t Mt = get_arg_val<uint32_t>(2);
  const uint32_t Kt = get_arg_val<uint32_t>(3);
  const uint32_t Nt = get_arg_val<uint32_t>(4);
  const uint32_t output_tile_start_id = get_arg_val<uint32_t>(5);
  const uint32_t num_output_tiles = get_arg_val<uint32_t>(6);
  (void)Mt;

  constexpr uint32_t cb_id_in0 = tt::CBIndex::c_0;
  constexpr uint32_t cb_id_in1 = tt::CBIndex::c_1;
  const uint32_t in0_tile_bytes = get_tile_size(cb_id_in0);
  const uint32_t in1_tile_bytes = get_tile_size(cb_id_in1);

  constexpr auto s0_args = TensorAccessorArgs<0>();
  const auto s0 = TensorAccessor(s0_args, src0_addr, in0_tile_bytes);
  constexpr auto s1_args = TensorAccessorArgs<s0_args.next_compile_time_args_offset()>();
  const auto s1 = TensorAccessor(s1_args, src1_addr, in1_tile_bytes);

  for (uint32_t output_tile = 0; output_tile < num_output_tiles; output_tile++) {
    const uint32_t current_tile_id = output_tile_start_id + output_tile;
    const uint32_t out_row = current_tile_id / Nt;
    const uint32_t out_col = current_tile_id % Nt;
    for (uint32_t k = 0; k < Kt; k++) {
      cb_reserve_back(cb_id_in0, 1);
      noc_async_read_tile(out_row * Kt + k, s0, get_write_ptr(cb_id_in0));
      noc_async_read_barrier();
      cb_push_back(cb_id_in0, 1);

      cb_reserve_back(cb_id_in1, 1);
      noc_async_read_tile(k * Nt + out_col, s1, get_write_ptr(cb_id_in1));
      noc_async_read_barrier();
      cb_push_back(cb_id_in1, 1);
    }
  }
}
