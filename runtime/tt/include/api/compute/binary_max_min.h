// Element-wise max/min of two DST tiles into a third (mirrors
// tt_metal/hw/inc/api/compute/binary_max_min.h).
#pragma once
#include "api/compute/common.h"

namespace ckernel {
ALWI void binary_max_tile_init() {
  ::tk::rt::emu::init_call();
}
ALWI void binary_min_tile_init() {
  ::tk::rt::emu::init_call();
}
ALWI void binary_max_tile(uint32_t idst0, uint32_t idst1, uint32_t odst,
                          int vector_mode = (int)VectorMode::RC) {
  ::tk::rt::emu::dst_binary_tile(::tk::rt::emu::DstBinary::Max, idst0, idst1, odst, vector_mode);
}
ALWI void binary_min_tile(uint32_t idst0, uint32_t idst1, uint32_t odst,
                          int vector_mode = (int)VectorMode::RC) {
  ::tk::rt::emu::dst_binary_tile(::tk::rt::emu::DstBinary::Min, idst0, idst1, odst, vector_mode);
}
} // namespace ckernel
