// exp_tile<approx = true>: the values tt-llk's approximate exp kernels store to DST (Schraudolph's
// bit construction: about +-3% a value, +1% on average; docs/emulator.md, "The approximate exp"),
// timed as the kernel the template arguments select (docs/timing.md, "SFPU calls"). Its own
// header, so that only the SFPU's sources and exp.h depend on it.
#pragma once

#include <cstdint>

namespace tk::rt::emu {

/// exp_tile_init<true, scale, clamping>: the constants the kernel loads (A·scale and, clamped, the
/// threshold -88.5 / scale; `scale_bits` is the fp32 scale's bits) and its macro program, which
/// exp_tile<true> needs: the SFPU takes the scale from here, not from exp_tile's argument.
void exp_approx_init(std::uint32_t scale_bits, bool clamp);
/// exp_tile_init<false>: the accurate exp's init reloads the programmable constants the
/// approximate kernel reads, so an exp_tile<true> after it needs its own init again.
void exp_approx_forget();

/// exp(x · init's scale) on DST tile `idst`, as tt-llk's approximate kernel computes and charged as
/// it: with the input clamped (`clamp`, InputClamping::ClampToNegative) `exp_approx`; unclamped
/// over 8 rows a face `exp_approx_noclamp`; unclamped over 32 rows in one call (VectorMode::None,
/// the whole tile, as SDPA calls it) `exp_approx_noclamp_32`. Any other unclamped combination is
/// not modelled. `scale_bf16` is exp_tile's scale argument when scale_en, else -1: the kernel
/// ignores it; one that differs from the init's scale is a watcher violation.
void exp_approx_tile(std::uint32_t idst, bool clamp, int iterations, int vector_mode,
                     std::int32_t scale_bf16);

/// One value: the bits exp_tile<true> stores for the DST value `x` (fp32 bits; in a 16-bit DST a
/// bf16 value) after exp_tile_init<true, scale_bits, clamp>, in an fp32 DST (`fp32_dest`) or a
/// 16-bit one (then the high 16 bits, the low ones zero).
std::uint32_t exp_approx_bits(std::uint32_t x, std::uint32_t scale_bits, bool clamp,
                              bool fp32_dest);

} // namespace tk::rt::emu
