// Reader through a CB past Wormhole's 32 (SDK style): n_tiles consecutive pages of the input into
// c_40, which only an architecture with 64 CBs per core (Blackhole) has.
#include <cstdint>

#include "api/dataflow/dataflow_api.h"

void kernel_main() {
  const uint32_t src_addr = get_arg_val<uint32_t>(0);
  const uint32_t n_tiles = get_arg_val<uint32_t>(1);
  constexpr uint32_t cb = tt::CBIndex::c_40;
  const uint32_t tile_size_bytes = get_tile_size(cb);
  constexpr auto src_args = TensorAccessorArgs<0>();
  const auto src = TensorAccessor(src_args, src_addr, tile_size_bytes);
  for (uint32_t i = 0; i < n_tiles; i++) {
    cb_reserve_back(cb, 1);
    noc_async_read_page(i, src, get_write_ptr(cb));
    noc_async_read_barrier();
    cb_push_back(cb, 1);
  }
}
