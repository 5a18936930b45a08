// Block reader: n tiles of an interleaved buffer from tile `first` into c_0, all requests issued
// before one barrier (the DRAM queues see them back to back).
#include <cstdint>

#include "api/dataflow/dataflow_api.h"

void kernel_main() {
  const uint32_t in0_addr = get_arg_val<uint32_t>(0);
  const uint32_t first = get_arg_val<uint32_t>(1);
  const uint32_t n_tiles = get_arg_val<uint32_t>(2);
  constexpr uint32_t cb_in0 = tt::CBIndex::c_0;
  const uint32_t tile_size_bytes = get_tile_size(cb_in0);
  constexpr auto in0_args = TensorAccessorArgs<0>();
  const auto in0 = TensorAccessor(in0_args, in0_addr, tile_size_bytes);
  cb_reserve_back(cb_in0, n_tiles);
  uint32_t l1 = get_write_ptr(cb_in0);
  for (uint32_t i = 0; i < n_tiles; i++) {
    noc_async_read_page(first + i, in0, l1);
    l1 += tile_size_bytes;
  }
  noc_async_read_barrier();
  cb_push_back(cb_in0, n_tiles);
}
