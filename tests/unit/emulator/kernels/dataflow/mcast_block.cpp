// Multicast writer: n pages of c_0 (reserved, never pushed) to L1 address `dst` of every core of
// the rectangle (x0, y0)-(x1, y1) (NoC coordinates, as the kernel's NoC wants them), the sender
// included if it lies inside, all requests issued before one barrier (TT's NoC estimator's
// ONE_TO_ROW / ROW_TO_ROW writer, tests/tt_metal/tt_metal/data_movement/noc_estimator_tests).
#include <cstdint>

#include "api/dataflow/dataflow_api.h"

void kernel_main() {
  const uint32_t x0 = get_arg_val<uint32_t>(0), y0 = get_arg_val<uint32_t>(1);
  const uint32_t x1 = get_arg_val<uint32_t>(2), y1 = get_arg_val<uint32_t>(3);
  const uint32_t num_dests = get_arg_val<uint32_t>(4);
  const uint32_t n_pages = get_arg_val<uint32_t>(5);
  const uint32_t dst = get_arg_val<uint32_t>(6);
  const uint32_t loopback = get_arg_val<uint32_t>(7);
  constexpr uint32_t cb = tt::CBIndex::c_0;
  const uint32_t page_bytes = get_tile_size(cb);
  cb_reserve_back(cb, 1);
  const uint32_t l1 = get_write_ptr(cb);
  for (uint32_t i = 0; i < n_pages; i++) {
    const uint64_t to = get_noc_multicast_addr(x0, y0, x1, y1, dst);
    if (loopback)
      noc_async_write_multicast_loopback_src(l1, to, page_bytes, num_dests);
    else
      noc_async_write_multicast(l1, to, page_bytes, num_dests);
  }
  noc_async_write_barrier();
}
