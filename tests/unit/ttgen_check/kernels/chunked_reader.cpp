// A reader that walks its tiles a chunk at a time (`i += chunk`, the style of TTNN's
// reader_unary_transpose_wh_universal_input_cols_partitioned.cpp): the loop is not a counted
// `for`, so its pushes to c_0 cannot be balanced against the compute kernel's pops (a warning).
// DROP_PUSH removes the push_back: whatever the loop's count, no page of c_0 is ever pushed while
// the compute kernel waits for them (a deadlock ttgen check reports at that wait).
#include <cstdint>

#include "experimental/circular_buffer.h"
#include "experimental/noc.h"
#include "experimental/tensor.h"

void kernel_main() {
  uint32_t in_addr = get_arg_val<uint32_t>(0);
  uint32_t n_tiles = get_arg_val<uint32_t>(1);
  constexpr uint32_t chunk = 4;
  constexpr uint32_t cb_in = tt::CBIndex::c_0;
  const uint32_t tile_size_bytes = get_tile_size(cb_in);
  constexpr auto in_args = TensorAccessorArgs<0>();
  const auto in = TensorAccessor(in_args, in_addr);
  experimental::Noc noc;
  experimental::CircularBuffer cb(cb_in);
  for (uint32_t i = 0; i < n_tiles; i += chunk) {
    const uint32_t end = i + chunk < n_tiles ? i + chunk : n_tiles;
    for (uint32_t t = i; t < end; ++t) {
      cb.reserve_back(1);
      noc.async_read(in, cb, tile_size_bytes, {.page_id = t}, {.offset_bytes = 0});
      noc.async_read_barrier();
#if !defined(DROP_PUSH)
      cb.push_back(1);
#endif
    }
  }
}
