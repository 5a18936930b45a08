// erf on a DST tile (mirrors tt_metal/hw/inc/api/compute/eltwise_unary/erf_erfc.h, whose
// erf_tile evaluates a piecewise rational approximation); computed with std::erf. erfc_tile is not
// mirrored: TileKit does not emit it.
#pragma once
#include "api/compute/common.h"

namespace ckernel {
template <bool fast_and_approx = true>
ALWI void erf_tile_init() {
  // The SDK's default is its approximation, which the emulator does not compute: an error, never a
  // silently exact answer (generated code asks for erf_tile<false>).
  if constexpr (fast_and_approx)
    ::tk::rt::emu::not_modelled("erf_tile_init<true> (the SDK's approximate erf)");
}
template <bool fast_and_approx = true>
ALWI void erf_tile(uint32_t idst) {
  if constexpr (fast_and_approx)
    ::tk::rt::emu::not_modelled("erf_tile<true> (the SDK's approximate erf)");
  ::tk::rt::emu::unary_tile(::tk::rt::emu::Unary::Erf, idst, 0.0f);
}
} // namespace ckernel
