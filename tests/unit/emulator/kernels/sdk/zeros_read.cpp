// Zero-fills a c_0 page the way TTNN's dataflow_kernel_lib::zero_tile does: NoC reads of the
// core's hardware zeros region (MEM_ZEROS_BASE, MEM_ZEROS_SIZE) through a read state
// (Noc::set_async_read_state, async_read_with_state, a UnicastEndpoint at the core's own
// coordinates) into a CoreLocalMem, over a page first filled with ones. Then it writes through
// the CoreLocalMem what the JIT's descriptors give a data-movement kernel (unpack_tile_r_dim,
// get_tile_size, pack_dst_format) into words 5..7, and sends the page to page 0 of the output.
#include <cstdint>

#include "experimental/circular_buffer.h"
#include "experimental/core_local_mem.h"
#include "experimental/endpoints.h"
#include "experimental/noc.h"

void kernel_main() {
  const uint32_t dst_addr = get_arg_val<uint32_t>(0);
  constexpr uint32_t cb = tt::CBIndex::c_0;
  experimental::CircularBuffer page(cb);
  experimental::Noc noc;
  experimental::UnicastEndpoint self;
  page.reserve_back(1);
  const uint32_t addr = page.get_write_ptr();
  experimental::CoreLocalMem<uint32_t> words(addr);
  for (uint32_t i = 0; i < 2048 / 4; ++i)
    words[i] = 0xFFFFFFFF;
  const auto zeros = experimental::noc_traits_t<experimental::UnicastEndpoint>::src_args_type{
      .noc_x = my_x[noc.get_noc_id()], .noc_y = my_y[noc.get_noc_id()], .addr = MEM_ZEROS_BASE};
  noc.set_async_read_state<experimental::Noc::VcSelection::DEFAULT, MEM_ZEROS_SIZE>(
      self, MEM_ZEROS_SIZE, zeros);
  for (uint32_t at = addr; at < addr + 2048; at += MEM_ZEROS_SIZE)
    noc.async_read_with_state<experimental::Noc::VcSelection::DEFAULT, 1>(
        self, experimental::CoreLocalMem<uint32_t>(at), 0, zeros, {});
  noc.async_read_barrier();
  words[5] = unpack_tile_r_dim[cb];
  words[6] = static_cast<uint32_t>(get_tile_size(cb));
  *(words + 7) = pack_dst_format[cb];
  page.push_back(1);
  page.wait_front(1);
  const InterleavedAddrGen<true> dst = {.bank_base_address = dst_addr, .page_size = 2048};
  noc_async_write(page.get_read_ptr(), get_noc_addr(0, dst), 2048);
  noc_async_write_barrier();
  page.pop_front(1);
}
