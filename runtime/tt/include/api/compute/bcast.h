// Binary ops broadcasting the second tile's row 0 (ROW), column 0 (COL) or element (0,0) (SCALAR)
// (mirrors tt_metal/hw/inc/api/compute/bcast.h).
#pragma once
#include "api/compute/common.h"
#include "tk_emulator/op_keys.hpp"

namespace ckernel {
namespace tk_emu_bcast {
inline ::tk::rt::emu::Bcast dim(BroadcastType t) {
  switch (t) {
  case BroadcastType::ROW:
    return ::tk::rt::emu::Bcast::Row;
  case BroadcastType::COL:
    return ::tk::rt::emu::Bcast::Col;
  case BroadcastType::SCALAR:
    return ::tk::rt::emu::Bcast::Scalar;
  default:
    return ::tk::rt::emu::Bcast::None;
  }
}
inline ::tk::rt::emu::Binary op(EltwiseBinaryType t) {
  return t == ELWADD   ? ::tk::rt::emu::Binary::Add
         : t == ELWSUB ? ::tk::rt::emu::Binary::Sub
                       : ::tk::rt::emu::Binary::Mul;
}
} // namespace tk_emu_bcast

template <EltwiseBinaryType tBcastOp, BroadcastType tBcastDim>
ALWI void init_bcast(uint32_t /*icb0*/, uint32_t /*icb1*/, uint32_t /*ocb*/) {
  ::tk::rt::emu::binary_init(false);
  ::tk::rt::emu::op_init("init_bcast", ::tk::rt::emu::op_keys::unpack_ab(tBcastDim),
                         ::tk::rt::emu::op_keys::binary(tBcastOp, tBcastDim));
}
template <EltwiseBinaryType tBcastOp, BroadcastType tBcastDim>
ALWI void any_tiles_bcast(uint32_t icb0, uint32_t icb1, uint32_t itile0, uint32_t itile1,
                          uint32_t idst) {
  ::tk::rt::emu::op_call("an FPU binary op with broadcast",
                         ::tk::rt::emu::op_keys::unpack_ab(tBcastDim),
                         ::tk::rt::emu::op_keys::binary(tBcastOp, tBcastDim),
                         ::tk::rt::emu::op_keys::binary_init(tBcastOp, tBcastDim));
  ::tk::rt::emu::binary_tiles(tk_emu_bcast::op(tBcastOp), tk_emu_bcast::dim(tBcastDim), icb0, icb1,
                              itile0, itile1, idst);
}
template <BroadcastType tBcastDim>
ALWI void add_tiles_bcast(uint32_t icb0, uint32_t icb1, uint32_t itile0, uint32_t itile1,
                          uint32_t idst) {
  any_tiles_bcast<ELWADD, tBcastDim>(icb0, icb1, itile0, itile1, idst);
}
template <BroadcastType tBcastDim>
ALWI void sub_tiles_bcast(uint32_t icb0, uint32_t icb1, uint32_t itile0, uint32_t itile1,
                          uint32_t idst) {
  any_tiles_bcast<ELWSUB, tBcastDim>(icb0, icb1, itile0, itile1, idst);
}
template <BroadcastType tBcastDim>
ALWI void mul_tiles_bcast(uint32_t icb0, uint32_t icb1, uint32_t itile0, uint32_t itile1,
                          uint32_t idst) {
  any_tiles_bcast<ELWMUL, tBcastDim>(icb0, icb1, itile0, itile1, idst);
}

// A broadcast alone, into DST: unary_bcast_init configures both unpackers from icb and the packer
// for ocb (the SDK's llk_unpack_hw_configure / llk_pack_hw_configure); a Float32 icb in
// UnpackToDestFp32 mode is unpacked straight to DST, exactly ("SrcB is only 19bits wide"), any
// other through SrcB.
template <BroadcastType bcast_type>
ALWI void unary_bcast_init(uint32_t icb, uint32_t ocb, uint32_t /*call_line*/ = __builtin_LINE()) {
  ::tk::rt::emu::binary_init(false);
  // llk_unpack_A_init<bcast_type, ...> and llk_math_eltwise_unary_datacopy_init<A2D or B2D, ...,
  // bcast_type>: with NONE the same as copy_tile_to_dst_init_short.
  ::tk::rt::emu::op_init("unary_bcast_init", ::tk::rt::emu::op_keys::unpack_a(bcast_type),
                         ::tk::rt::emu::op_keys::datacopy(bcast_type));
  ::tk::rt::emu::configure_formats(static_cast<std::int32_t>(icb), static_cast<std::int32_t>(icb),
                                   static_cast<std::int32_t>(ocb), "unary_bcast_init");
}
template <BroadcastType bcast_type>
ALWI void unary_bcast(uint32_t icb, uint32_t in_tile_index, uint32_t dst_tile_index) {
  ::tk::rt::emu::op_call("unary_bcast", ::tk::rt::emu::op_keys::unpack_a(bcast_type),
                         ::tk::rt::emu::op_keys::datacopy(bcast_type),
                         ::tk::rt::emu::op_keys::unary_bcast_init(bcast_type));
  ::tk::rt::emu::unary_bcast(tk_emu_bcast::dim(bcast_type), icb, in_tile_index, dst_tile_index);
}
template <BroadcastType bcast_type>
ALWI void unary_bcast_uninit(uint32_t /*icb*/) {
  ::tk::rt::emu::init_call();
  // llk_unpack_A_uninit and llk_math_eltwise_unary_datacopy_uninit restore the registers the
  // broadcast changed; neither side is set up for an operation until the next init.
  ::tk::rt::emu::op_init("unary_bcast_uninit", "nothing (after unary_bcast_uninit)",
                         "nothing (after unary_bcast_uninit)");
}

#define TK_EMU_BCAST_FN(name, op, dim)                                                             \
  ALWI void name(uint32_t icb0, uint32_t icb1, uint32_t itile0, uint32_t itile1, uint32_t idst) {  \
    any_tiles_bcast<op, BroadcastType::dim>(icb0, icb1, itile0, itile1, idst);                     \
  }
TK_EMU_BCAST_FN(add_tiles_bcast_rows, ELWADD, ROW)
TK_EMU_BCAST_FN(add_tiles_bcast_cols, ELWADD, COL)
TK_EMU_BCAST_FN(add_tiles_bcast_scalar, ELWADD, SCALAR)
TK_EMU_BCAST_FN(sub_tiles_bcast_rows, ELWSUB, ROW)
TK_EMU_BCAST_FN(sub_tiles_bcast_cols, ELWSUB, COL)
TK_EMU_BCAST_FN(sub_tiles_bcast_scalar, ELWSUB, SCALAR)
TK_EMU_BCAST_FN(mul_tiles_bcast_rows, ELWMUL, ROW)
TK_EMU_BCAST_FN(mul_tiles_bcast_cols, ELWMUL, COL)
TK_EMU_BCAST_FN(mul_tiles_bcast_scalar, ELWMUL, SCALAR)
#undef TK_EMU_BCAST_FN

// The SDK's short-init spellings (bcast.h): *_bcast_{rows,cols}_init_short and
// mul_tiles_bcast_scalar_init_short.
// Each: llk_math_eltwise_binary_init_with_operands<op, dim> and llk_unpack_AB_init<dim>.
#define TK_EMU_BCAST_INIT(name, op, dim)                                                           \
  ALWI void name(uint32_t /*icb0*/, uint32_t /*icb1*/,                                             \
                 uint32_t /*call_line*/ = __builtin_LINE()) {                                      \
    ::tk::rt::emu::binary_init(false);                                                             \
    ::tk::rt::emu::op_init(#name, ::tk::rt::emu::op_keys::unpack_ab(BroadcastType::dim),           \
                           ::tk::rt::emu::op_keys::binary(op, BroadcastType::dim));                \
  }
TK_EMU_BCAST_INIT(add_bcast_rows_init_short, ELWADD, ROW)
TK_EMU_BCAST_INIT(add_bcast_cols_init_short, ELWADD, COL)
TK_EMU_BCAST_INIT(add_bcast_scalar_init_short, ELWADD, SCALAR)
TK_EMU_BCAST_INIT(sub_bcast_cols_init_short, ELWSUB, COL)
TK_EMU_BCAST_INIT(sub_bcast_scalar_init_short, ELWSUB, SCALAR)
TK_EMU_BCAST_INIT(mul_bcast_rows_init_short, ELWMUL, ROW)
TK_EMU_BCAST_INIT(mul_bcast_cols_init_short, ELWMUL, COL)
TK_EMU_BCAST_INIT(mul_tiles_bcast_scalar_init_short, ELWMUL, SCALAR)
#undef TK_EMU_BCAST_INIT
} // namespace ckernel
