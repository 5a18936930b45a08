// Writes n_tiles reserved pages of c_0 (whatever they hold) to consecutive pages of an interleaved
// DRAM buffer from page `first`, then waits for the acknowledgements (the timing tests' writer).
#include <cstdint>

#include "api/dataflow/dataflow_api.h"

void kernel_main() {
  const uint32_t out_addr = get_arg_val<uint32_t>(0);
  const uint32_t first = get_arg_val<uint32_t>(1);
  const uint32_t n_tiles = get_arg_val<uint32_t>(2);
  constexpr uint32_t cb = tt::CBIndex::c_0;
  const uint32_t tile_size_bytes = get_tile_size(cb);
  constexpr auto out_args = TensorAccessorArgs<0>();
  const auto out = TensorAccessor(out_args, out_addr, tile_size_bytes);
  cb_reserve_back(cb, n_tiles); // the pages it sends, as a producer holds them
  uint32_t l1 = get_write_ptr(cb);
  for (uint32_t i = 0; i < n_tiles; i++) {
    noc_async_write_page(first + i, out, l1);
    l1 += tile_size_bytes;
  }
  noc_async_write_barrier();
}
