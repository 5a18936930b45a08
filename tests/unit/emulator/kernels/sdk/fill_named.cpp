// Fills n_pages pages of the output with fill + page index, as uint32 words. Written as shipped
// tt-metal data-movement kernels often are: it does not include api/dataflow/dataflow_api.h (the
// firmware build includes it before the kernel) and takes its constants as named compile-time
// args (get_named_compile_time_arg_val, tt_metal/hw/inc/api/compile_time_args.h).
#include <cstdint>

void kernel_main() {
  const uint32_t dst_addr = get_arg_val<uint32_t>(0);
  constexpr uint32_t n_pages = get_named_compile_time_arg_val("n_pages");
  constexpr uint32_t fill = get_named_compile_time_arg_val("fill");
  constexpr uint32_t cb = tt::CBIndex::c_0;
  constexpr auto args = TensorAccessorArgs<0>();
  const auto dst = TensorAccessor(args, dst_addr, get_tile_size(cb));
  for (uint32_t p = 0; p < n_pages; p++) {
    cb_reserve_back(cb, 1);
    volatile tt_l1_ptr uint32_t* words =
        reinterpret_cast<volatile tt_l1_ptr uint32_t*>(get_write_ptr(cb));
    for (uint32_t i = 0; i < get_tile_size(cb) / sizeof(uint32_t); i++)
      words[i] = fill + p;
    noc_async_write_page(p, dst, get_write_ptr(cb));
    noc_async_write_barrier();
  }
}
