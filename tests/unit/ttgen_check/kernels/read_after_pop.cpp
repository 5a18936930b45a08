// A writer that sends each page of c_16 out through a pointer from get_read_ptr. With
// READ_AFTER_POP it pops the page before the write reads it (the producer may already be
// overwriting it); with POP_ONE_OF_TWO it waits for two pages and pops one, so the pointer still
// points at a held page (not a bug).
#include <cstdint>

#include "api/dataflow/dataflow_api.h"

void kernel_main() {
  const uint32_t dst_addr = get_arg_val<uint32_t>(0);
  const uint32_t n_tiles = get_arg_val<uint32_t>(1);
  constexpr uint32_t cb_out = tt::CBIndex::c_16;
  const uint32_t tile_size_bytes = get_tile_size(cb_out);
  constexpr auto out_args = TensorAccessorArgs<0>();
  const auto out = TensorAccessor(out_args, dst_addr, tile_size_bytes);

  for (uint32_t i = 0; i < n_tiles; i++) {
#if defined(POP_ONE_OF_TWO)
    cb_wait_front(cb_out, 2);
    uint32_t l1_read_addr = get_read_ptr(cb_out);
    cb_pop_front(cb_out, 1);
    noc_async_write_tile(i, out, l1_read_addr + tile_size_bytes);
    noc_async_write_barrier();
    cb_pop_front(cb_out, 1);
#else
    cb_wait_front(cb_out, 1);
    uint32_t l1_read_addr = get_read_ptr(cb_out);
#if defined(READ_AFTER_POP)
    cb_pop_front(cb_out, 1);
#endif
    noc_async_write_tile(i, out, l1_read_addr);
    noc_async_write_barrier();
#if !defined(READ_AFTER_POP)
    cb_pop_front(cb_out, 1);
#endif
#endif
  }
}
