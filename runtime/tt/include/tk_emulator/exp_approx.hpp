// exp_tile<approx = true>: the same values as the accurate exp in the emulator, timed as the
// tt-llk kernel the template arguments select (docs/timing.md, "SFPU calls"). Its own header, so
// that only the SFPU's source and exp.h depend on it.
#pragma once

#include <cstdint>

namespace tk::rt::emu {

/// exp(x * scale) on DST tile `idst`, charged as tt-llk's approximate kernel: with the input
/// clamped (`clamp`, InputClamping::ClampToNegative) `exp_approx`; unclamped over 8 rows a face
/// `exp_approx_noclamp`; unclamped over 32 rows in one call (VectorMode::None, the whole tile, as
/// SDPA calls it) `exp_approx_noclamp_32`. Any other unclamped combination is not modelled.
void exp_approx_tile(std::uint32_t idst, float scale, bool clamp, int iterations, int vector_mode);

} // namespace tk::rt::emu
