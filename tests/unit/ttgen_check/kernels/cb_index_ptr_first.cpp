// A reader through c_40, past Wormhole's 32 CBs, whose first call on the CB is get_write_ptr: on
// Wormhole the index error is reported there, once for the kernel (not again at the reserve or
// the push, and no "no page reserved" beside it).
#include <cstdint>

#include "api/dataflow/dataflow_api.h"

void kernel_main() {
  const uint32_t src_addr = get_arg_val<uint32_t>(0);
  const uint32_t n_tiles = get_arg_val<uint32_t>(1);
  constexpr uint32_t cb = tt::CBIndex::c_40;
  const uint32_t l1 = get_write_ptr(cb);
  constexpr auto src_args = TensorAccessorArgs<0>();
  const auto src = TensorAccessor(src_args, src_addr, get_tile_size(cb));
  for (uint32_t i = 0; i < n_tiles; i++) {
    cb_reserve_back(cb, 1);
    noc_async_read_page(i, src, l1);
    noc_async_read_barrier();
    cb_push_back(cb, 1);
  }
}
