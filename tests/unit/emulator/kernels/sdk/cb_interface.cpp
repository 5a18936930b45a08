// Reads c_0's LocalCBInterface (get_local_cb_interface, as TTNN's writers read fifo_page_size)
// before and after one reserve/push, and writes what it saw as uint32 words to page 0 of the
// output: page size, pages, ring bytes, limit - start, wr_ptr == get_write_ptr, then after the
// push: received, acked, the write pointer's advance in bytes.
#include <cstdint>

void kernel_main() {
  const uint32_t dst_addr = get_arg_val<uint32_t>(0);
  constexpr uint32_t cb = tt::CBIndex::c_0;
  const InterleavedAddrGen<true> dst = {.bank_base_address = dst_addr, .page_size = 2048};
  const LocalCBInterface before = get_local_cb_interface(cb);
  cb_reserve_back(cb, 1);
  const uint32_t page = get_write_ptr(cb);
  cb_push_back(cb, 1);
  const LocalCBInterface& after = get_local_cb_interface(cb);
  cb_wait_front(cb, 1);
  uint32_t* words = reinterpret_cast<uint32_t*>(get_read_ptr(cb));
  words[0] = before.fifo_page_size;
  words[1] = before.fifo_num_pages;
  words[2] = before.fifo_size;
  words[3] = before.fifo_limit - before.fifo_wr_ptr;
  words[4] = before.fifo_wr_ptr == page;
  words[5] = after.tiles_received;
  words[6] = after.tiles_acked;
  words[7] = after.fifo_wr_ptr - before.fifo_wr_ptr;
  noc_async_write(get_read_ptr(cb), get_noc_addr(0, dst), 2048);
  noc_async_write_barrier();
  cb_pop_front(cb, 1);
}
