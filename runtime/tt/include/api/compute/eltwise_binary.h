// FPU element-wise binary ops (mirrors tt_metal/hw/inc/api/compute/eltwise_binary.h): DST = A op B,
// or DST += A op B after an init with acc_to_dest.
#pragma once
#include "api/compute/common.h"
#include "tk_emulator/op_keys.hpp"

namespace ckernel {
ALWI void binary_op_init_common(uint32_t icb0, uint32_t icb1, uint32_t ocb,
                                uint32_t /*call_line*/ = __builtin_LINE()) {
  ::tk::rt::emu::configure_formats(icb0, icb1, ocb, "binary_op_init_common");
  // llk_unpack_AB_init<NONE>; no math init (add_tiles_init and the like program the math thread).
  ::tk::rt::emu::op_init("binary_op_init_common", "AB", nullptr);
}
// tt_metal/hw/inc/api/compute/eltwise_binary.h: template <bool full_init, EltwiseBinaryType
// eltwise_binary_type> void binary_tiles_init(uint32_t icb0, uint32_t icb1, bool acc_to_dest =
// false, uint32_t call_line = __builtin_LINE()); the SDK's add/sub/mul_tiles_init call it.
template <bool full_init, EltwiseBinaryType eltwise_binary_type>
ALWI void binary_tiles_init(uint32_t /*icb0*/, uint32_t /*icb1*/, bool acc_to_dest = false,
                            uint32_t /*call_line*/ = __builtin_LINE()) {
  ::tk::rt::emu::binary_init(acc_to_dest);
  ::tk::rt::emu::op_init("binary_tiles_init", "AB",
                         ::tk::rt::emu::op_keys::binary(eltwise_binary_type, BroadcastType::NONE));
}
ALWI void mul_tiles_init(uint32_t /*icb0*/, uint32_t /*icb1*/,
                         uint32_t /*call_line*/ = __builtin_LINE()) {
  ::tk::rt::emu::binary_init(false);
  ::tk::rt::emu::op_init("mul_tiles_init", "AB", "ELWMUL");
}
ALWI void mul_tiles_init(uint32_t /*icb0*/, uint32_t /*icb1*/, bool acc_to_dest,
                         uint32_t /*call_line*/ = __builtin_LINE()) {
  ::tk::rt::emu::binary_init(acc_to_dest);
  ::tk::rt::emu::op_init("mul_tiles_init", "AB", "ELWMUL");
}
ALWI void add_tiles_init(uint32_t /*icb0*/, uint32_t /*icb1*/, bool acc_to_dest = false,
                         uint32_t /*call_line*/ = __builtin_LINE()) {
  ::tk::rt::emu::binary_init(acc_to_dest);
  ::tk::rt::emu::op_init("add_tiles_init", "AB", "ELWADD");
}
ALWI void sub_tiles_init(uint32_t /*icb0*/, uint32_t /*icb1*/, bool acc_to_dest = false,
                         uint32_t /*call_line*/ = __builtin_LINE()) {
  ::tk::rt::emu::binary_init(acc_to_dest);
  ::tk::rt::emu::op_init("sub_tiles_init", "AB", "ELWSUB");
}
ALWI void mul_tiles(uint32_t icb0, uint32_t icb1, uint32_t itile0, uint32_t itile1, uint32_t idst) {
  ::tk::rt::emu::op_call("mul_tiles", "AB", "ELWMUL", "mul_tiles_init(icb0, icb1)");
  ::tk::rt::emu::binary_tiles(::tk::rt::emu::Binary::Mul, ::tk::rt::emu::Bcast::None, icb0, icb1,
                              itile0, itile1, idst);
}
ALWI void add_tiles(uint32_t icb0, uint32_t icb1, uint32_t itile0, uint32_t itile1, uint32_t idst) {
  ::tk::rt::emu::op_call("add_tiles", "AB", "ELWADD", "add_tiles_init(icb0, icb1)");
  ::tk::rt::emu::binary_tiles(::tk::rt::emu::Binary::Add, ::tk::rt::emu::Bcast::None, icb0, icb1,
                              itile0, itile1, idst);
}
ALWI void sub_tiles(uint32_t icb0, uint32_t icb1, uint32_t itile0, uint32_t itile1, uint32_t idst) {
  ::tk::rt::emu::op_call("sub_tiles", "AB", "ELWSUB", "sub_tiles_init(icb0, icb1)");
  ::tk::rt::emu::binary_tiles(::tk::rt::emu::Binary::Sub, ::tk::rt::emu::Bcast::None, icb0, icb1,
                              itile0, itile1, idst);
}
} // namespace ckernel
