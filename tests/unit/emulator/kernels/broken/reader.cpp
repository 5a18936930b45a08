// A reader that breaks one CB/NoC/argument rule, chosen by a define; without one it reads n tiles
// into c_0.
#include <cstdint>

#include "api/dataflow/dataflow_api.h"

void kernel_main() {
  const uint32_t src_addr = get_arg_val<uint32_t>(0);
  const uint32_t n_tiles = get_arg_val<uint32_t>(1);
  constexpr uint32_t cb = tt::CBIndex::c_0;
  constexpr auto args = TensorAccessorArgs<0>();
  const auto src = TensorAccessor(args, src_addr, get_tile_size(cb));
#if defined(PUSH_UNRESERVED)
  cb_push_back(cb, 1);
#elif defined(WAIT_TOO_MANY)
  cb_wait_front(cb, 3);
#elif defined(READ_OUTSIDE_RESERVE)
  noc_async_read_tile(0, src, get_write_ptr(cb));
#elif defined(ARG_NEVER_SET)
  (void)get_arg_val<uint32_t>(5);
#elif defined(CT_ARG_OUT_OF_RANGE)
  (void)get_compile_time_arg_val(7);
#elif defined(NOC_OUTSIDE_BUFFER)
  cb_reserve_back(cb, 1);
  noc_async_read_tile(100, src, get_write_ptr(cb));
#elif defined(CB_INDEX_OUT_OF_RANGE)
  cb_reserve_back(32, 1);
#elif defined(BREAK_EXACT_WRAP)
  for (uint32_t i = 0; i < 2;
       i++) { // two pushes of 2 pages into a 3-page CB: the second runs past the end
    cb_reserve_back(cb, 2);
    cb_push_back(cb, 2);
  }
#elif defined(FORGET_PUSH)
  cb_reserve_back(cb, 1); // reads a tile into c_0 and returns without pushing it
  noc_async_read_tile(0, src, get_write_ptr(cb));
  noc_async_read_barrier();
#elif defined(RETURN_BEFORE_READ_BARRIER)
  cb_reserve_back(cb, 1); // reads a tile and returns without waiting for it to land
  noc_async_read_page(0, src, get_write_ptr(cb));
#elif defined(SYNTAX_ERROR)
  cb_push_bak(cb, 1);
#else
  for (uint32_t i = 0; i < n_tiles; i++) {
    cb_reserve_back(cb, 1);
    noc_async_read_tile(i, src, get_write_ptr(cb));
    noc_async_read_barrier();
    cb_push_back(cb, 1);
  }
#endif
}
