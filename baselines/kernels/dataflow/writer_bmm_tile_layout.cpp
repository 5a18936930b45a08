// Writer of matmul_multicore_reuse and _mcast (the SDK's matmul_common writer_bmm_tile_layout.cpp):
// the compute kernel pushes this core's output block to c_16 one out_subblock_h x out_subblock_w
// sub-block at a time (sub-block rows outer, row-major inside); each goes to its tiles of C.
// Runtime args: C address, first tile, stride_w, stride_h, next sub-block stride along w, along h,
// out_subblock_w, out_subblock_h, tiles per sub-block, sub-blocks along w, sub-blocks along h.
// Compile-time args: C's accessor.
#include <cstdint>

#include "api/dataflow/dataflow_api.h"

void kernel_main() {
  const uint32_t c_addr = get_arg_val<uint32_t>(0);
  const uint32_t start_tile = get_arg_val<uint32_t>(1);
  const uint32_t stride_w = get_arg_val<uint32_t>(2);
  const uint32_t stride_h = get_arg_val<uint32_t>(3);
  const uint32_t next_subblock_stride_w = get_arg_val<uint32_t>(4);
  const uint32_t next_subblock_stride_h = get_arg_val<uint32_t>(5);
  const uint32_t subblock_w = get_arg_val<uint32_t>(6);
  const uint32_t subblock_h = get_arg_val<uint32_t>(7);
  const uint32_t subblock_tiles = get_arg_val<uint32_t>(8);
  const uint32_t num_subblocks_w = get_arg_val<uint32_t>(9);
  const uint32_t num_subblocks_h = get_arg_val<uint32_t>(10);

  constexpr uint32_t cb_out = tt::CBIndex::c_16;
  const uint32_t tile_bytes = get_tile_size(cb_out);
  constexpr auto c_args = TensorAccessorArgs<0>();
  const auto c = TensorAccessor(c_args, c_addr);

  uint32_t sbh_start = start_tile;
  for (uint32_t sbh = 0; sbh < num_subblocks_h; ++sbh, sbh_start += next_subblock_stride_h) {
    uint32_t sbw_start = sbh_start;
    for (uint32_t sbw = 0; sbw < num_subblocks_w; ++sbw, sbw_start += next_subblock_stride_w) {
      cb_wait_front(cb_out, subblock_tiles);
      uint32_t l1 = get_read_ptr(cb_out);
      uint32_t row = sbw_start;
      for (uint32_t h = 0; h < subblock_h; ++h, row += stride_h) {
        uint32_t id = row;
        for (uint32_t w = 0; w < subblock_w; ++w, id += stride_w) {
          noc_async_write_page(id, c, l1);
          l1 += tile_bytes;
        }
      }
      noc_async_write_barrier();
      cb_pop_front(cb_out, subblock_tiles);
    }
  }
}
