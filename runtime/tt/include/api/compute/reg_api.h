// DST register hand-over between MATH and PACK (mirrors tt_metal/hw/inc/api/compute/reg_api.h).
#pragma once
#include "api/compute/common_globals.h"

namespace ckernel {
ALWI void tile_regs_acquire() {
  ::tk::rt::emu::tile_regs_acquire();
}
ALWI void tile_regs_commit() {
  ::tk::rt::emu::tile_regs_commit();
}
ALWI void tile_regs_wait() {
  ::tk::rt::emu::tile_regs_wait();
}
ALWI void tile_regs_release() {
  ::tk::rt::emu::tile_regs_release();
}
[[deprecated("Use tile_regs_acquire() instead")]] ALWI void acquire_dst() {
  ::tk::rt::emu::acquire_dst();
}
[[deprecated("Use tile_regs_release() instead")]] ALWI void release_dst() {
  ::tk::rt::emu::release_dst();
}
} // namespace ckernel
