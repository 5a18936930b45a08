// matmul_multi_core writer: writes the `count` tiles that arrive in c_16 to pages start ..
// start + count - 1 of C.
// Runtime args: C address, count, start. Compile-time args: C's accessor.
#include <cstdint>

#include "api/dataflow/dataflow_api.h"

void kernel_main() {
  const uint32_t c_addr = get_arg_val<uint32_t>(0);
  const uint32_t count = get_arg_val<uint32_t>(1);
  const uint32_t start = get_arg_val<uint32_t>(2);

  constexpr uint32_t cb_out = tt::CBIndex::c_16;
  constexpr auto c_args = TensorAccessorArgs<0>();
  const auto c = TensorAccessor(c_args, c_addr);

  for (uint32_t id = start; id < start + count; ++id) {
    cb_wait_front(cb_out, 1);
    noc_async_write_page(id, c, get_read_ptr(cb_out));
    noc_async_write_barrier();
    cb_pop_front(cb_out, 1);
  }
}
