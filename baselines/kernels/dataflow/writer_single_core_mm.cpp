// matmul_single_core writer: the Mt x Nt output tiles arrive in c_16 in row-major order; each is
// written to its page of C.
// Runtime args: C address, Mt, Nt. Compile-time args: C's accessor.
#include <cstdint>

#include "api/dataflow/dataflow_api.h"

void kernel_main() {
  const uint32_t c_addr = get_arg_val<uint32_t>(0);
  const uint32_t Mt = get_arg_val<uint32_t>(1);
  const uint32_t Nt = get_arg_val<uint32_t>(2);

  constexpr uint32_t cb_out = tt::CBIndex::c_16;
  constexpr auto c_args = TensorAccessorArgs<0>();
  const auto c = TensorAccessor(c_args, c_addr);

  for (uint32_t mt = 0; mt < Mt; ++mt) {
    for (uint32_t nt = 0; nt < Nt; ++nt) {
      cb_wait_front(cb_out, 1);
      noc_async_write_page(mt * Nt + nt, c, get_read_ptr(cb_out));
      noc_async_write_barrier();
      cb_pop_front(cb_out, 1);
    }
  }
}
