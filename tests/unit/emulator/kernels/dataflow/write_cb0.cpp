// Writes the tile at the front of c_0 to page `page` of the output.
#include <cstdint>

#include "api/dataflow/dataflow_api.h"

void kernel_main() {
  const uint32_t dst_addr = get_arg_val<uint32_t>(0);
  const uint32_t page = get_arg_val<uint32_t>(1);
  constexpr uint32_t cb = tt::CBIndex::c_0;
  constexpr auto args = TensorAccessorArgs<0>();
  const auto dst = TensorAccessor(args, dst_addr, get_tile_size(cb));
  cb_wait_front(cb, 1);
  noc_async_write_page(page, dst, get_read_ptr(cb));
  noc_async_write_barrier();
  cb_pop_front(cb, 1);
}
