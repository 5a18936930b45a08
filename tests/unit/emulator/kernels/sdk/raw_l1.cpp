// Reads page p = the core's x of a DRAM buffer of 16-byte pages {a, b, 0, 0} into an L1 buffer's
// address (a runtime argument, the same on every core), computes {a, b, a + b, a * b} through raw
// pointers to that address, as tt-metal's add_2_integers_in_riscv kernel does, and writes the
// page back to page p of the output. Every core's pointer must reach its own L1.
#include <cstdint>

void kernel_main() {
  const uint32_t src_dram = get_arg_val<uint32_t>(0);
  const uint32_t dst_dram = get_arg_val<uint32_t>(1);
  const uint32_t l1 = get_arg_val<uint32_t>(2);
  const uint32_t page = get_arg_val<uint32_t>(3);
  InterleavedAddrGen<true> src = {.bank_base_address = src_dram, .page_size = 16};
  InterleavedAddrGen<true> dst = {.bank_base_address = dst_dram, .page_size = 16};
  noc_async_read(get_noc_addr(page, src), l1, 16);
  noc_async_read_barrier();
  uint32_t* words = (uint32_t*)l1;
  words[2] = words[0] + words[1];
  words[3] = words[0] * words[1];
  noc_async_write(l1, get_noc_addr(page, dst), 16);
  noc_async_write_barrier();
}
