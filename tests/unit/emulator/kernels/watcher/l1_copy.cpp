// Copies n tiles DRAM -> L1 at the offset `scratch` -> DRAM, one at a time. The host gives it an
// L1 offset outside every CB and buffer; with BAD_NOC it reads from NoC (1,0) instead, an Ethernet
// core of a Wormhole n150 (no DRAM bank or worker there).
#include <cstdint>

#include "api/dataflow/dataflow_api.h"

void kernel_main() {
  const uint32_t src_addr = get_arg_val<uint32_t>(0);
  const uint32_t dst_addr = get_arg_val<uint32_t>(1);
  const uint32_t n_tiles = get_arg_val<uint32_t>(2);
  const uint32_t scratch = get_arg_val<uint32_t>(3);
  constexpr uint32_t page = 2048;
  constexpr auto src_args = TensorAccessorArgs<0>();
  constexpr auto dst_args = TensorAccessorArgs<src_args.next_compile_time_args_offset()>();
  const auto src = TensorAccessor(src_args, src_addr, page);
  const auto dst = TensorAccessor(dst_args, dst_addr, page);
  for (uint32_t i = 0; i < n_tiles; i++) {
#if defined(BAD_NOC)
    noc_async_read(get_noc_addr(1, 0, src_addr), scratch, page);
#else
    noc_async_read_tile(i, src, scratch);
#endif
    noc_async_read_barrier();
    noc_async_write_tile(i, dst, scratch);
    noc_async_write_barrier();
  }
}
