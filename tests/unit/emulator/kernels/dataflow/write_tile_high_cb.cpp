// Writer through a CB past Wormhole's 32 (SDK style): n_tiles tiles from c_40 to consecutive pages
// of the output (read_tile_high_cb.cpp fills it).
#include <cstdint>

#include "api/dataflow/dataflow_api.h"

void kernel_main() {
  const uint32_t dst_addr = get_arg_val<uint32_t>(0);
  const uint32_t n_tiles = get_arg_val<uint32_t>(1);
  constexpr uint32_t cb = tt::CBIndex::c_40;
  const uint32_t tile_size_bytes = get_tile_size(cb);
  constexpr auto dst_args = TensorAccessorArgs<0>();
  const auto dst = TensorAccessor(dst_args, dst_addr, tile_size_bytes);
  for (uint32_t i = 0; i < n_tiles; i++) {
    cb_wait_front(cb, 1);
    noc_async_write_tile(i, dst, get_read_ptr(cb));
    noc_async_write_barrier();
    cb_pop_front(cb, 1);
  }
}
