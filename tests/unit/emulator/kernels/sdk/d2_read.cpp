// Device 2.0 reader (the style of tt-metal's eltwise_binary read_tiles.cpp): n_tiles pages of the
// input into c_0 through experimental::Noc and experimental::CircularBuffer. DROP_RESERVE removes
// the reserve_back (ttgen check reports the push of pages never reserved).
#include <cstdint>

#include "experimental/circular_buffer.h"
#include "experimental/noc.h"
#include "experimental/tensor.h"

void kernel_main() {
  uint32_t in_addr = get_arg_val<uint32_t>(0);
  uint32_t n_tiles = get_arg_val<uint32_t>(1);
  constexpr uint32_t cb_in = tt::CBIndex::c_0;
  const uint32_t tile_size_bytes = get_tile_size(cb_in);
  constexpr auto in_args = TensorAccessorArgs<0>();
  const auto in = TensorAccessor(in_args, in_addr);
  experimental::Noc noc;
  experimental::CircularBuffer cb(cb_in);
  for (uint32_t i = 0; i < n_tiles; i++) {
#if !defined(DROP_RESERVE)
    cb.reserve_back(1);
#endif
    noc.async_read(in, cb, tile_size_bytes, {.page_id = i}, {.offset_bytes = 0});
    noc.async_read_barrier();
    cb.push_back(1);
  }
}
