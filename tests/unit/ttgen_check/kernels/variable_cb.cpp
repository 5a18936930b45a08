// A reader whose CB comes from a runtime argument: ttgen check cannot tell which CB it feeds, so
// it proves no CB balanced (nor reports a deadlock) and says why.
#include <cstdint>

#include "api/dataflow/dataflow_api.h"

void kernel_main() {
  const uint32_t cb = get_arg_val<uint32_t>(0);
  const uint32_t n_tiles = get_arg_val<uint32_t>(1);
  for (uint32_t i = 0; i < n_tiles; i++) {
    cb_reserve_back(cb, 1);
    cb_push_back(cb, 1);
  }
}
