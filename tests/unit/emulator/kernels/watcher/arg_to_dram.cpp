// Writes runtime arg ARG of its core into the first word of page `slot` of a DRAM buffer.
#include <cstdint>

#include "api/dataflow/dataflow_api.h"

void kernel_main() {
  const uint32_t dst_addr = get_arg_val<uint32_t>(0);
  const uint32_t slot = get_arg_val<uint32_t>(1);
  const uint32_t value = get_arg_val<uint32_t>(ARG);
  constexpr uint32_t cb = tt::CBIndex::c_0;
  constexpr auto args = TensorAccessorArgs<0>();
  const auto dst = TensorAccessor(args, dst_addr, get_tile_size(cb));
  cb_reserve_back(cb, 1);
  *reinterpret_cast<volatile uint32_t*>(get_write_ptr(cb)) = value;
  noc_async_write_tile(slot, dst, get_write_ptr(cb));
  noc_async_write_barrier();
}
