// Reduce reader: writes the scaler tile into c_2 through a raw L1 pointer (like the SDK's
// generate_reduce_scaler), then streams the Ht x Wt input tiles row-major (or column-major) into
// c_0.
#include <cstdint>

#include "api/dataflow/dataflow_api.h"

void kernel_main() {
  const uint32_t src_addr = get_arg_val<uint32_t>(0);
  const uint32_t Ht = get_arg_val<uint32_t>(1);
  const uint32_t Wt = get_arg_val<uint32_t>(2);
  const uint32_t scaler_bits = get_arg_val<uint32_t>(3); // fp32 bits of the scaler
  const uint32_t col_major = get_arg_val<uint32_t>(4);
  constexpr uint32_t cb_in = tt::CBIndex::c_0;
  constexpr uint32_t cb_scaler = tt::CBIndex::c_2;

  cb_reserve_back(cb_scaler, 1);
  volatile tt_l1_ptr uint16_t* scaler =
      reinterpret_cast<volatile tt_l1_ptr uint16_t*>(get_write_ptr(cb_scaler));
  for (uint32_t i = 0; i < 1024; i++)
    scaler[i] = static_cast<uint16_t>(scaler_bits >> 16);
  cb_push_back(cb_scaler, 1);

  constexpr auto args = TensorAccessorArgs<0>();
  const auto src = TensorAccessor(args, src_addr, get_tile_size(cb_in));
  for (uint32_t outer = 0; outer < (col_major ? Wt : Ht); outer++) {
    for (uint32_t inner = 0; inner < (col_major ? Ht : Wt); inner++) {
      const uint32_t tile = col_major ? inner * Wt + outer : outer * Wt + inner;
      cb_reserve_back(cb_in, 1);
      noc_async_read_tile(tile, src, get_write_ptr(cb_in));
      noc_async_read_barrier();
      cb_push_back(cb_in, 1);
    }
  }
}
