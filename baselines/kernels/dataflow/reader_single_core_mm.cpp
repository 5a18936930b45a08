// matmul_single_core reader (tt-metal programming_examples/matmul/matmul_single_core): for every
// output tile (mt, nt), in row-major order, streams A(mt, kt) into c_0 and B(kt, nt) into c_1 for
// kt = 0 .. Kt-1, one tile at a time.
// Runtime args: A address, B address, Mt, Kt, Nt. Compile-time args: A's then B's accessor.
#include <cstdint>

#include "api/dataflow/dataflow_api.h"

void kernel_main() {
  const uint32_t a_addr = get_arg_val<uint32_t>(0);
  const uint32_t b_addr = get_arg_val<uint32_t>(1);
  const uint32_t Mt = get_arg_val<uint32_t>(2);
  const uint32_t Kt = get_arg_val<uint32_t>(3);
  const uint32_t Nt = get_arg_val<uint32_t>(4);

  constexpr uint32_t cb_a = tt::CBIndex::c_0;
  constexpr uint32_t cb_b = tt::CBIndex::c_1;
  constexpr auto a_args = TensorAccessorArgs<0>();
  const auto a = TensorAccessor(a_args, a_addr);
  constexpr auto b_args = TensorAccessorArgs<a_args.next_compile_time_args_offset()>();
  const auto b = TensorAccessor(b_args, b_addr);

  for (uint32_t mt = 0; mt < Mt; ++mt) {
    for (uint32_t nt = 0; nt < Nt; ++nt) {
      for (uint32_t kt = 0; kt < Kt; ++kt) {
        cb_reserve_back(cb_a, 1);
        noc_async_read_page(mt * Kt + kt, a, get_write_ptr(cb_a)); // A is Mt x Kt tiles
        noc_async_read_barrier();
        cb_push_back(cb_a, 1);

        cb_reserve_back(cb_b, 1);
        noc_async_read_page(kt * Nt + nt, b, get_write_ptr(cb_b)); // B is Kt x Nt tiles
        noc_async_read_barrier();
        cb_push_back(cb_b, 1);
      }
    }
  }
}
