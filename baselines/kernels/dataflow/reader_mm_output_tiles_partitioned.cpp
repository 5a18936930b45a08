// matmul_multi_core reader: this core computes the output tiles start .. start + count - 1
// (row-major ids over the Mt x Nt output); for each it streams the Kt tiles of A's row and B's
// column into c_0 and c_1. Runtime args: A address, B address, Mt, Kt, Nt, first output tile,
// number of output tiles. Compile-time args: A's then B's accessor.
#include <cstdint>

#include "api/dataflow/dataflow_api.h"

void kernel_main() {
  const uint32_t a_addr = get_arg_val<uint32_t>(0);
  const uint32_t b_addr = get_arg_val<uint32_t>(1);
  // arg 2 is Mt (unused: the tile ids already say where each output tile is)
  const uint32_t Kt = get_arg_val<uint32_t>(3);
  const uint32_t Nt = get_arg_val<uint32_t>(4);
  const uint32_t start = get_arg_val<uint32_t>(5);
  const uint32_t count = get_arg_val<uint32_t>(6);

  constexpr uint32_t cb_a = tt::CBIndex::c_0;
  constexpr uint32_t cb_b = tt::CBIndex::c_1;
  constexpr auto a_args = TensorAccessorArgs<0>();
  const auto a = TensorAccessor(a_args, a_addr);
  constexpr auto b_args = TensorAccessorArgs<a_args.next_compile_time_args_offset()>();
  const auto b = TensorAccessor(b_args, b_addr);

  for (uint32_t id = start; id < start + count; ++id) {
    const uint32_t row = id / Nt;
    const uint32_t col = id % Nt;
    for (uint32_t kt = 0; kt < Kt; ++kt) {
      cb_reserve_back(cb_a, 1);
      noc_async_read_page(row * Kt + kt, a, get_write_ptr(cb_a));
      noc_async_read_barrier();
      cb_push_back(cb_a, 1);

      cb_reserve_back(cb_b, 1);
      noc_async_read_page(kt * Nt + col, b, get_write_ptr(cb_b));
      noc_async_read_barrier();
      cb_push_back(cb_b, 1);
    }
  }
}
