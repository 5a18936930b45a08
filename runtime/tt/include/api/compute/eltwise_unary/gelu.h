// GELU on a DST tile (mirrors tt_metal/hw/inc/api/compute/eltwise_unary/gelu.h); computed exactly
// (erf form).
#pragma once
#include "api/compute/common.h"

namespace ckernel {
template <bool fast_and_approx = true>
ALWI void gelu_tile_init() {
  // The SDK's default is its approximation, which the emulator does not compute: an error, never a
  // silently exact answer (generated code asks for gelu_tile<false>).
  if constexpr (fast_and_approx)
    ::tk::rt::emu::not_modelled("gelu_tile_init<true> (the SDK's approximate gelu)");
}
template <bool fast_and_approx = true>
ALWI void gelu_tile(uint32_t idst) {
  if constexpr (fast_and_approx)
    ::tk::rt::emu::not_modelled("gelu_tile<true> (the SDK's approximate gelu)");
  ::tk::rt::emu::unary_tile(::tk::rt::emu::Unary::Gelu, idst, 0.0f);
}
} // namespace ckernel
