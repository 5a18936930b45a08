// Reads n tiles into c_0 for the compute kernel; with READ_UNRESERVED it reads each into
// get_write_ptr(c_0) and pushes it without cb_reserve_back (the CB holds every tile, so on the chip
// no page is overwritten before it is consumed).
#include <cstdint>

#include "api/dataflow/dataflow_api.h"

void kernel_main() {
  const uint32_t src_addr = get_arg_val<uint32_t>(0);
  const uint32_t n_tiles = get_arg_val<uint32_t>(1);
  constexpr uint32_t cb = tt::CBIndex::c_0;
  constexpr auto args = TensorAccessorArgs<0>();
  const auto src = TensorAccessor(args, src_addr, get_tile_size(cb));
  for (uint32_t i = 0; i < n_tiles; i++) {
#if !defined(READ_UNRESERVED)
    cb_reserve_back(cb, 1);
#endif
    noc_async_read_tile(i, src, get_write_ptr(cb));
    noc_async_read_barrier();
    cb_push_back(cb, 1);
  }
}
