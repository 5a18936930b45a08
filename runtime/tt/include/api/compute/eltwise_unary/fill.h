// Fill a DST tile with a constant (mirrors tt_metal/hw/inc/api/compute/eltwise_unary/fill.h).
#pragma once
#include "api/compute/common.h"

namespace ckernel {
ALWI void fill_tile_init() {
  ::tk::rt::emu::init_call();
}
ALWI void fill_tile(uint32_t idst, float param0) {
  ::tk::rt::emu::unary_tile(::tk::rt::emu::Unary::Fill, idst, param0);
}
ALWI void fill_tile_bitcast(uint32_t idst, uint32_t param0) {
  ::tk::rt::emu::unary_tile(::tk::rt::emu::Unary::Fill, idst, tk_emu_detail::bits_to_float(param0));
}
} // namespace ckernel
