// Device 2.0 writer (the style of tt-metal's eltwise_binary write_tile.cpp): n_tiles pages of c_0
// to the output through experimental::Noc and experimental::CircularBuffer.
#include <cstdint>

#include "experimental/circular_buffer.h"
#include "experimental/noc.h"
#include "experimental/tensor.h"

void kernel_main() {
  uint32_t out_addr = get_arg_val<uint32_t>(0);
  uint32_t n_tiles = get_arg_val<uint32_t>(1);
  constexpr uint32_t cb_id = tt::CBIndex::c_0;
  const uint32_t tile_size_bytes = get_tile_size(cb_id);
  constexpr auto out_args = TensorAccessorArgs<0>();
  const auto out = TensorAccessor(out_args, out_addr);
  experimental::Noc noc;
  experimental::CircularBuffer cb(cb_id);
  for (uint32_t i = 0; i < n_tiles; i++) {
    cb.wait_front(1);
    noc.async_write(cb, out, tile_size_bytes, {}, {.page_id = i});
    noc.async_write_barrier();
    cb.pop_front(1);
  }
}
