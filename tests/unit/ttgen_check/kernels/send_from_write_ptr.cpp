// A writer that sends the page it waited for from get_write_ptr, not get_read_ptr, as tt-metal's
// NoC_tile_transfer example does: right only when the CB holds exactly the pages waited for (its
// write page has then wrapped onto its read page).
#include <cstdint>

#include "api/dataflow/dataflow_api.h"

void kernel_main() {
  const uint32_t dst_addr = get_arg_val<uint32_t>(0);
  constexpr uint32_t cb = tt::CBIndex::c_0;
  const InterleavedAddrGen<true> dst = {.bank_base_address = dst_addr, .page_size = 2048};
  cb_wait_front(cb, 1);
  noc_async_write(get_write_ptr(cb), get_noc_addr(0, dst), 2048);
  noc_async_write_barrier();
  cb_pop_front(cb, 1);
}
