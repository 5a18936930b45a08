// Copies n_banks pages of an interleaved DRAM buffer, reading page b straight from DRAM bank b with
// get_noc_addr_from_bank_id (as contributed/multicast's coordinator does) and writing it to page b
// of the output.
#include <cstdint>

void kernel_main() {
  const uint32_t src_addr = get_arg_val<uint32_t>(0);
  const uint32_t dst_addr = get_arg_val<uint32_t>(1);
  const uint32_t n_banks = get_arg_val<uint32_t>(2);
  constexpr uint32_t cb = tt::CBIndex::c_0;
  constexpr auto args = TensorAccessorArgs<0>();
  const auto dst = TensorAccessor(args, dst_addr, get_tile_size(cb));
  for (uint32_t b = 0; b < n_banks; b++) {
    cb_reserve_back(cb, 1);
    noc_async_read(get_noc_addr_from_bank_id<true>(b, src_addr), get_write_ptr(cb),
                   get_tile_size(cb));
    noc_async_read_barrier();
    noc_async_write_page(b, dst, get_write_ptr(cb));
    noc_async_write_barrier();
    cb_push_back(cb, 1);
    cb_wait_front(cb, 1);
    cb_pop_front(cb, 1);
  }
}
