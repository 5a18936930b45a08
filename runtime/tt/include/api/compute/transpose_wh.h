// Tile transpose (mirrors tt_metal/hw/inc/api/compute/transpose_wh.h): DST[idst] = the 32x32
// transpose of a CB tile, B[w, h] = A[h, w], unpacked through SrcA.
#pragma once
#include "api/compute/common.h"

namespace ckernel {
ALWI void transpose_wh_init(uint32_t icb, uint32_t ocb, uint32_t /*call_line*/ = __builtin_LINE()) {
  ::tk::rt::emu::configure_formats(icb, icb, ocb, "transpose_wh_init");
  // llk_unpack_A_init with the unpacker's transpose, llk_math_eltwise_unary_datacopy_init<A2D>.
  ::tk::rt::emu::op_init("transpose_wh_init", "A transpose", "datacopy");
}
ALWI void transpose_wh_init_short(uint32_t /*icb*/, uint32_t /*call_line*/ = __builtin_LINE()) {
  ::tk::rt::emu::op_init("transpose_wh_init_short", "A transpose", "datacopy");
}
ALWI void transpose_wh_tile(uint32_t icb, uint32_t itile, uint32_t idst) {
  ::tk::rt::emu::op_call("transpose_wh_tile", "A transpose", "datacopy",
                         "transpose_wh_init_short(icb)");
  ::tk::rt::emu::transpose_wh_tile(icb, itile, idst);
}
} // namespace ckernel
