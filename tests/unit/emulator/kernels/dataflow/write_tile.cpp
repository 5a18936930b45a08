// Writer (SDK style): writes n_tiles tiles from c_16 to consecutive pages of the output, starting
// at start_id.
#include <cstdint>

#include "api/dataflow/dataflow_api.h"

void kernel_main() {
  const uint32_t dst_addr = get_arg_val<uint32_t>(0);
  const uint32_t n_tiles = get_arg_val<uint32_t>(1);
  const uint32_t start_id = get_arg_val<uint32_t>(2);

  constexpr uint32_t cb_out = tt::CBIndex::c_16;
  const uint32_t tile_size_bytes = get_tile_size(cb_out);
  constexpr auto out_args = TensorAccessorArgs<0>();
  const auto out = TensorAccessor(out_args, dst_addr, tile_size_bytes);

  for (uint32_t i = start_id; i < start_id + n_tiles; i++) {
    cb_wait_front(cb_out, 1);
    noc_async_write_tile(i, out, get_read_ptr(cb_out));
    noc_async_write_barrier();
    cb_pop_front(cb_out, 1);
  }
}
