// A reader whose pushes happen inside helpers of an included header (helpers.h). push_pages is
// followed with its arguments (c_0 is proved balanced); push_to's CB is not a constant (ANY_CB:
// no CB is balanced); push_recursive (RECURSIVE) calls itself, which ttgen check does not follow,
// so what it does to c_0 is unknown and no balance is proved (a warning names the call): never a
// vacuous proof. page_bytes reaches no CB call and changes nothing.
#include <cstdint>

#include "helpers.h"

void kernel_main() {
  const uint32_t n_tiles = get_arg_val<uint32_t>(0);
  constexpr uint32_t cb_in = tt::CBIndex::c_0;
  const uint32_t bytes = page_bytes(cb_in);
  for (uint32_t i = 0; i < n_tiles; i++) {
#if defined(ANY_CB)
    push_to(i % 2, 1);
#elif defined(RECURSIVE)
    push_recursive(cb_in, 1);
#else
    push_pages(cb_in, 1);
#endif
  }
  (void)bytes;
}
