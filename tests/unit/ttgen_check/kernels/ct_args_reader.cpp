// A reader whose CB index and block size are compile-time args, as TTNN's kernels take them
// (`constexpr uint32_t cb_id = get_compile_time_arg_val(0)`): with `--compile-args` ttgen check
// knows both, without it neither.
#include <cstdint>

#include "api/dataflow/dataflow_api.h"

void kernel_main() {
  constexpr uint32_t cb = get_compile_time_arg_val(0);
  constexpr uint32_t block = get_compile_time_arg_val(1);
  const uint32_t n_blocks = get_arg_val<uint32_t>(0);
  for (uint32_t b = 0; b < n_blocks; b++) {
    cb_reserve_back(cb, block);
    cb_push_back(cb, block);
  }
}
