// A writer of n tiles from c_16, as the SDK's writers do it (writer_unary_interleaved_start_id:
// each page flushed before it is popped, one barrier at the end), or, with POP_BEFORE_FLUSH,
// popping each page while its write may still be sending it.
#include <cstdint>

#include "api/dataflow/dataflow_api.h"

void kernel_main() {
  const uint32_t dst_addr = get_arg_val<uint32_t>(0);
  const uint32_t n_tiles = get_arg_val<uint32_t>(1);
  constexpr uint32_t cb = tt::CBIndex::c_16;
  constexpr auto args = TensorAccessorArgs<0>();
  const auto dst = TensorAccessor(args, dst_addr, get_tile_size(cb));
  for (uint32_t i = 0; i < n_tiles; i++) {
    cb_wait_front(cb, 1);
    noc_async_write_page(i, dst, get_read_ptr(cb));
#if !defined(POP_BEFORE_FLUSH)
    noc_async_writes_flushed();
#endif
    cb_pop_front(cb, 1);
  }
  noc_async_write_barrier();
}
