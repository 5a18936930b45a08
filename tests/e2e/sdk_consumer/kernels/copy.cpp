// Copies n_tiles pages from one buffer to another through c_0: reads with the Device 2.0 objects,
// writes with the dataflow API, which it does not include (the firmware build does).
#include <cstdint>

#include "experimental/circular_buffer.h"
#include "experimental/noc.h"
#include "experimental/tensor.h"

void kernel_main() {
  const uint32_t src_addr = get_arg_val<uint32_t>(0);
  const uint32_t dst_addr = get_arg_val<uint32_t>(1);
  constexpr uint32_t n_tiles = get_named_compile_time_arg_val("n_tiles");
  constexpr uint32_t cb_id = tt::CBIndex::c_0;
  const uint32_t tile_size_bytes = get_tile_size(cb_id);
  constexpr auto src_args = TensorAccessorArgs<0>();
  const auto src = TensorAccessor(src_args, src_addr);
  constexpr auto dst_args = TensorAccessorArgs<src_args.next_compile_time_args_offset()>();
  const auto dst = TensorAccessor(dst_args, dst_addr);
  experimental::Noc noc;
  experimental::CircularBuffer cb(cb_id);
  for (uint32_t i = 0; i < n_tiles; i++) {
    cb.reserve_back(1);
    noc.async_read(src, cb, tile_size_bytes, {.page_id = i}, {.offset_bytes = 0});
    noc.async_read_barrier();
    noc_async_write_page(i, dst, get_write_ptr(cb_id));
    noc_async_write_barrier();
  }
}
