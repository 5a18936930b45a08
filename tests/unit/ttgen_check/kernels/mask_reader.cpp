// A reader whose runtime argument `use_mask` selects an extra page: a mask tile in c_1 that the
// compute kernel adds to every row (the shape of TTNN softmax's padding mask). It reads Wt tiles
// into c_0 and, when `use_mask` is set, fills c_1's page with -inf in its padded columns.
// NO_MASK_RESERVE drops the mask's cb_reserve_back (a write and a push with nothing reserved, the
// bug softmax's writer ships with); with DROP_MASK_PUSH too, no kernel pushes c_1 at all while the
// compute kernel waits for it. DROP_MASK_PUSH alone leaves the reserved page unpushed.
// PUSH_IN_SECOND_BRANCH pushes the mask in a second `if (use_mask)`: the same path, no bug.
// ZERO_MASK pushes a page of zeros when `use_mask` is not set (another path that pushes c_1).
#include <cstdint>

#include "api/dataflow/dataflow_api.h"

void kernel_main() {
  const uint32_t src_addr = get_arg_val<uint32_t>(0);
  const uint32_t Wt = get_arg_val<uint32_t>(1);
  const uint32_t use_mask = get_arg_val<uint32_t>(2);
  const uint32_t padded_columns = get_arg_val<uint32_t>(3);
  constexpr uint32_t cb_in = tt::CBIndex::c_0;
  constexpr uint32_t cb_mask = tt::CBIndex::c_1;
  constexpr auto args = TensorAccessorArgs<0>();
  const auto src = TensorAccessor(args, src_addr, get_tile_size(cb_in));

  if (use_mask) {
#if !defined(NO_MASK_RESERVE)
    cb_reserve_back(cb_mask, 1);
#endif
    // bfloat16 -inf in the padded columns of every row, 0 elsewhere.
    volatile tt_l1_ptr uint16_t* mask =
        reinterpret_cast<volatile tt_l1_ptr uint16_t*>(get_write_ptr(cb_mask));
    for (uint32_t i = 0; i < 32 * 32; ++i)
      mask[i] = i % 32 >= 32 - padded_columns ? 0xFF80 : 0;
#if !defined(DROP_MASK_PUSH) && !defined(PUSH_IN_SECOND_BRANCH)
    cb_push_back(cb_mask, 1);
#endif
  }
#if defined(ZERO_MASK)
  else {
    cb_reserve_back(cb_mask, 1);
    volatile tt_l1_ptr uint32_t* zeros =
        reinterpret_cast<volatile tt_l1_ptr uint32_t*>(get_write_ptr(cb_mask));
    for (uint32_t i = 0; i < 32 * 32 / 2; ++i)
      zeros[i] = 0;
    cb_push_back(cb_mask, 1);
  }
#endif
#if defined(PUSH_IN_SECOND_BRANCH)
  if (use_mask)
    cb_push_back(cb_mask, 1);
#endif

  for (uint32_t t = 0; t < Wt; ++t) {
    cb_reserve_back(cb_in, 1);
    noc_async_read_tile(t, src, get_write_ptr(cb_in));
    noc_async_read_barrier();
    cb_push_back(cb_in, 1);
  }
}
