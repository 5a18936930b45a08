// DST tile op scalar (mirrors tt_metal/hw/inc/api/compute/eltwise_unary/binop_with_scalar.h); the
// scalar is fp32 bits.
#pragma once
#include "api/compute/common.h"

namespace ckernel {
ALWI void binop_with_scalar_tile_init() {
  ::tk::rt::emu::init_call();
}
ALWI void add_unary_tile(uint32_t idst, uint32_t param0) {
  ::tk::rt::emu::unary_tile(::tk::rt::emu::Unary::AddScalar, idst,
                            tk_emu_detail::bits_to_float(param0));
}
ALWI void sub_unary_tile(uint32_t idst, uint32_t param0) {
  ::tk::rt::emu::unary_tile(::tk::rt::emu::Unary::SubScalar, idst,
                            tk_emu_detail::bits_to_float(param0));
}
ALWI void mul_unary_tile(uint32_t idst, uint32_t param0) {
  ::tk::rt::emu::unary_tile(::tk::rt::emu::Unary::MulScalar, idst,
                            tk_emu_detail::bits_to_float(param0));
}
ALWI void div_unary_tile(uint32_t idst, uint32_t param0) {
  ::tk::rt::emu::unary_tile(::tk::rt::emu::Unary::DivScalar, idst,
                            tk_emu_detail::bits_to_float(param0));
}
ALWI void rsub_unary_tile(uint32_t idst, uint32_t param0) {
  ::tk::rt::emu::unary_tile(::tk::rt::emu::Unary::RsubScalar, idst,
                            tk_emu_detail::bits_to_float(param0));
}
} // namespace ckernel
