// A reader whose CB comes from a runtime argument: ttgen check cannot tell which CB it feeds, so
// it proves no CB balanced (nor reports a deadlock) and says why. With PUSH_C0 it pushes c_0 after
// reserving that CB: no error, since the CB reserved may be c_0 (every CB's window is unknown
// after a call on a CB that is not a constant).
#include <cstdint>

#include "api/dataflow/dataflow_api.h"

void kernel_main() {
  const uint32_t cb = get_arg_val<uint32_t>(0);
  const uint32_t n_tiles = get_arg_val<uint32_t>(1);
  for (uint32_t i = 0; i < n_tiles; i++) {
    cb_reserve_back(cb, 1);
#if defined(PUSH_C0)
    cb_push_back(tt::CBIndex::c_0, 1);
#else
    cb_push_back(cb, 1);
#endif
  }
}
