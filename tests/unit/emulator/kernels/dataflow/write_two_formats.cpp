// Writes one tile of c_16 and one of c_17 to two buffers, each page its CB's tile size.
#include <cstdint>

#include "api/dataflow/dataflow_api.h"

void kernel_main() {
  const uint32_t a_addr = get_arg_val<uint32_t>(0);
  const uint32_t b_addr = get_arg_val<uint32_t>(1);
  constexpr uint32_t cb_a = tt::CBIndex::c_16, cb_b = tt::CBIndex::c_17;
  constexpr auto a_args = TensorAccessorArgs<0>();
  constexpr auto b_args = TensorAccessorArgs<a_args.next_compile_time_args_offset()>();
  const auto a = TensorAccessor(a_args, a_addr, get_tile_size(cb_a));
  const auto b = TensorAccessor(b_args, b_addr, get_tile_size(cb_b));
  cb_wait_front(cb_a, 1);
  noc_async_write_page(0, a, get_read_ptr(cb_a));
  cb_wait_front(cb_b, 1);
  noc_async_write_page(0, b, get_read_ptr(cb_b));
  noc_async_write_barrier();
  cb_pop_front(cb_a, 1);
  cb_pop_front(cb_b, 1);
}
