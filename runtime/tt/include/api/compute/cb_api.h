// Circular buffers in compute kernels (mirrors tt_metal/hw/inc/api/compute/cb_api.h).
#pragma once
#include "api/compute/common_globals.h"

namespace ckernel {
ALWI void cb_wait_front(uint32_t cbid, uint32_t ntiles) {
  ::tk::rt::emu::cb_wait_front(cbid, ntiles);
}
ALWI void cb_pop_front(uint32_t cbid, uint32_t ntiles) {
  ::tk::rt::emu::cb_pop_front(cbid, ntiles);
}
ALWI void cb_reserve_back(uint32_t cbid, uint32_t ntiles) {
  ::tk::rt::emu::cb_reserve_back(cbid, ntiles);
}
ALWI void cb_push_back(uint32_t cbid, uint32_t ntiles) {
  ::tk::rt::emu::cb_push_back(cbid, ntiles);
}
ALWI uint32_t get_tile_size(uint32_t cbid) {
  return ::tk::rt::emu::cb_page_size(cbid);
}
} // namespace ckernel
