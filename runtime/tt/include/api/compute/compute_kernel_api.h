// Unary SFPU ops declared in the umbrella header (mirrors
// tt_metal/hw/inc/api/compute/compute_kernel_api.h).
#pragma once
#include "api/compute/cb_api.h"
#include "api/compute/common.h"
#include "api/compute/pack.h"
#include "api/compute/reg_api.h"

namespace ckernel {
template <bool fast_and_approx = false>
ALWI void sigmoid_tile_init() {
  ::tk::rt::emu::init_call();
  // sigmoid_init<false>: _init_reciprocal_<false, false> -> _init_sfpu_reciprocal_ loads
  // vConstFloatPrgm0..2.
  if constexpr (!fast_and_approx)
    ::tk::rt::emu::sfpu_constants_loaded("sigmoid_tile_init");
}
template <int vec_mode = VectorMode::RC, bool fast_and_approx = false>
ALWI void sigmoid_tile(uint32_t idst) {
  ::tk::rt::emu::unary_tile(::tk::rt::emu::Unary::Sigmoid, idst, 0.0f, 0.0f, 0.0f, vec_mode);
}
template <bool fast_and_approx = false>
ALWI void log_tile_init() {
  ::tk::rt::emu::init_call();
}
template <bool fast_and_approx = false>
ALWI void log_tile(uint32_t idst) {
  ::tk::rt::emu::unary_tile(::tk::rt::emu::Unary::Log, idst, 0.0f);
}
template <bool fast_and_approx = false>
ALWI void tanh_tile_init() {
  ::tk::rt::emu::init_call();
}
template <bool fast_and_approx = false>
ALWI void tanh_tile(uint32_t idst) {
  ::tk::rt::emu::unary_tile(::tk::rt::emu::Unary::Tanh, idst, 0.0f);
}
ALWI void abs_tile_init() {
  ::tk::rt::emu::init_call();
}
ALWI void abs_tile(uint32_t idst) {
  ::tk::rt::emu::unary_tile(::tk::rt::emu::Unary::Abs, idst, 0.0f);
}
ALWI void square_tile_init() {
  ::tk::rt::emu::init_call();
}
ALWI void square_tile(uint32_t idst) {
  ::tk::rt::emu::unary_tile(::tk::rt::emu::Unary::Square, idst, 0.0f);
}
ALWI void silu_tile_init() {
  ::tk::rt::emu::init_call();
  ::tk::rt::emu::sfpu_constants_loaded("silu_tile_init"); // silu_init: _init_sfpu_reciprocal_
}
ALWI void silu_tile(uint32_t idst) {
  ::tk::rt::emu::unary_tile(::tk::rt::emu::Unary::Silu, idst, 0.0f);
}
// 2^x; the SDK computes exp(x * ln 2).
ALWI void exp2_tile_init() {
  ::tk::rt::emu::init_call();
  ::tk::rt::emu::sfpu_constants_loaded("exp2_tile_init"); // _init_exp2_: vConstFloatPrgm0 = ln 2
}
ALWI void exp2_tile(uint32_t idst) {
  ::tk::rt::emu::unary_tile(::tk::rt::emu::Unary::Exp2, idst, 0.0f);
}
// -1, 0 or 1: 0 for +-0, -1 when the sign bit is set (a NaN too), else 1.
ALWI void sign_tile_init() {
  ::tk::rt::emu::init_call();
}
ALWI void sign_tile(uint32_t idst) {
  ::tk::rt::emu::unary_tile(::tk::rt::emu::Unary::Sign, idst, 0.0f);
}
} // namespace ckernel
