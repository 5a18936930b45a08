// Core-to-core writer: n pages of c_0 (reserved, never pushed) to L1 address `dst` (an L1
// buffer's) of the core at NoC coordinates (x, y), all requests issued before one barrier.
#include <cstdint>

#include "api/dataflow/dataflow_api.h"

void kernel_main() {
  const uint32_t x = get_arg_val<uint32_t>(0);
  const uint32_t y = get_arg_val<uint32_t>(1);
  const uint32_t n_pages = get_arg_val<uint32_t>(2);
  const uint32_t dst = get_arg_val<uint32_t>(3);
  constexpr uint32_t cb = tt::CBIndex::c_0;
  const uint32_t page_bytes = get_tile_size(cb);
  cb_reserve_back(cb, n_pages);
  const uint32_t l1 = get_write_ptr(cb);
  for (uint32_t i = 0; i < n_pages; i++)
    noc_async_write(l1, get_noc_addr(x, y, dst + i * page_bytes), page_bytes);
  noc_async_write_barrier();
}
