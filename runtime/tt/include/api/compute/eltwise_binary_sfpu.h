// DST tile op DST tile into a third DST tile on the SFPU (mirrors
// tt_metal/hw/inc/api/compute/eltwise_binary_sfpu.h: add/sub/mul_binary_tile(idst0, idst1, odst)
// and their *_init()). The SDK's functions are templates whose parameters (rounding mode, fp32 DST)
// all have defaults; calls written without them compile against both.
#pragma once
#include "api/compute/common.h"

namespace ckernel {
ALWI void add_binary_tile_init() {}
ALWI void sub_binary_tile_init() {}
ALWI void mul_binary_tile_init() {}
ALWI void add_binary_tile(uint32_t idst0, uint32_t idst1, uint32_t odst) {
  ::tk::rt::emu::dst_binary_tile(::tk::rt::emu::DstBinary::Add, idst0, idst1, odst);
}
ALWI void sub_binary_tile(uint32_t idst0, uint32_t idst1, uint32_t odst) {
  ::tk::rt::emu::dst_binary_tile(::tk::rt::emu::DstBinary::Sub, idst0, idst1, odst);
}
ALWI void mul_binary_tile(uint32_t idst0, uint32_t idst1, uint32_t odst) {
  ::tk::rt::emu::dst_binary_tile(::tk::rt::emu::DstBinary::Mul, idst0, idst1, odst);
}
} // namespace ckernel
