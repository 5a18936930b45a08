// DST tile op DST tile into a third DST tile on the SFPU (mirrors
// tt_metal/hw/inc/api/compute/eltwise_binary_sfpu.h: add/sub/mul_binary_tile(idst0, idst1, odst)
// and their *_init(); the comparisons eq/ne/lt/gt/le/ge_binary_tile). The SDK's functions are
// templates whose parameters (rounding mode, fp32 DST) all have defaults; calls written without
// them compile against both.
#pragma once
#include "api/compute/common.h"

namespace ckernel {
ALWI void add_binary_tile_init() {
  ::tk::rt::emu::init_call();
}
ALWI void sub_binary_tile_init() {
  ::tk::rt::emu::init_call();
}
ALWI void mul_binary_tile_init() {
  ::tk::rt::emu::init_call();
}
ALWI void add_binary_tile(uint32_t idst0, uint32_t idst1, uint32_t odst) {
  ::tk::rt::emu::dst_binary_tile(::tk::rt::emu::DstBinary::Add, idst0, idst1, odst);
}
ALWI void sub_binary_tile(uint32_t idst0, uint32_t idst1, uint32_t odst) {
  ::tk::rt::emu::dst_binary_tile(::tk::rt::emu::DstBinary::Sub, idst0, idst1, odst);
}
ALWI void mul_binary_tile(uint32_t idst0, uint32_t idst1, uint32_t odst) {
  ::tk::rt::emu::dst_binary_tile(::tk::rt::emu::DstBinary::Mul, idst0, idst1, odst);
}
// Comparisons: odst = 1.0 where idst0 OP idst1 holds, else 0.0.
ALWI void eq_binary_tile_init() {
  ::tk::rt::emu::init_call();
}
ALWI void ne_binary_tile_init() {
  ::tk::rt::emu::init_call();
}
ALWI void lt_binary_tile_init() {
  ::tk::rt::emu::init_call();
}
ALWI void gt_binary_tile_init() {
  ::tk::rt::emu::init_call();
}
ALWI void le_binary_tile_init() {
  ::tk::rt::emu::init_call();
}
ALWI void ge_binary_tile_init() {
  ::tk::rt::emu::init_call();
}
ALWI void eq_binary_tile(uint32_t idst0, uint32_t idst1, uint32_t odst) {
  ::tk::rt::emu::dst_binary_tile(::tk::rt::emu::DstBinary::Eq, idst0, idst1, odst);
}
ALWI void ne_binary_tile(uint32_t idst0, uint32_t idst1, uint32_t odst) {
  ::tk::rt::emu::dst_binary_tile(::tk::rt::emu::DstBinary::Ne, idst0, idst1, odst);
}
ALWI void lt_binary_tile(uint32_t idst0, uint32_t idst1, uint32_t odst) {
  ::tk::rt::emu::dst_binary_tile(::tk::rt::emu::DstBinary::Lt, idst0, idst1, odst);
}
ALWI void gt_binary_tile(uint32_t idst0, uint32_t idst1, uint32_t odst) {
  ::tk::rt::emu::dst_binary_tile(::tk::rt::emu::DstBinary::Gt, idst0, idst1, odst);
}
ALWI void le_binary_tile(uint32_t idst0, uint32_t idst1, uint32_t odst) {
  ::tk::rt::emu::dst_binary_tile(::tk::rt::emu::DstBinary::Le, idst0, idst1, odst);
}
ALWI void ge_binary_tile(uint32_t idst0, uint32_t idst1, uint32_t odst) {
  ::tk::rt::emu::dst_binary_tile(::tk::rt::emu::DstBinary::Ge, idst0, idst1, odst);
}
} // namespace ckernel
