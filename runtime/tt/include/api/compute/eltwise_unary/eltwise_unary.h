// SFPU set-up (mirrors tt_metal/hw/inc/api/compute/eltwise_unary/eltwise_unary.h).
#pragma once
#include "api/compute/common.h"

namespace ckernel {
ALWI void unary_op_init_common(uint32_t icb, uint32_t ocb,
                               uint32_t /*call_line*/ = __builtin_LINE()) {
  ::tk::rt::emu::configure_formats(icb, icb, ocb, "unary_op_init_common");
  ::tk::rt::emu::op_init("unary_op_init_common", "A", "datacopy");
}
ALWI void init_sfpu(uint32_t icb, uint32_t ocb, uint32_t /*call_line*/ = __builtin_LINE()) {
  ::tk::rt::emu::configure_formats(icb, icb, ocb, "init_sfpu");
  ::tk::rt::emu::op_init("init_sfpu", "A", "datacopy");
}
} // namespace ckernel
