// The compute kernels' shared context (internal to the emulator): the running compute kernel's
// fiber, core, ComputeConfig and DST, and the checks and rounding every DST op applies. Defined in
// compute.cpp; used by it, compute_fpu.cpp and compute_sfpu.cpp.
#pragma once

#include <array>
#include <cstdint>
#include <cstring>

#include "state.hpp"
#include "timing.hpp"

namespace tk::rt::emu::compute_detail {

struct Compute {
  Fiber& f;
  CoreState& core;
  const ComputeConfig& cc;
  DstState& dst;
};

/// The running compute kernel's context; fails when `op` runs in a data-movement kernel.
Compute ctx(const char* op);
/// DST tiles in the kernel's mode (fp32 or 16-bit, half- or full-sync).
std::uint32_t capacity(const ComputeConfig& cc);
/// DST tile `idst`, checked: inside tile_regs_acquire ... tile_regs_commit and within capacity.
Tile& dst_tile(const Compute& c, const char* op, std::uint32_t idst);
/// Values written to a 16-bit DST keep bf16 precision (nothing without the arithmetic).
void store(const Compute& c, Tile& t);

// The numerics the unpacker, the FPU and the packer share (inline: they run per element).
inline float bits_float(std::uint32_t b) {
  float f;
  std::memcpy(&f, &b, 4);
  return f;
}
inline std::uint32_t float_bits(float f) {
  std::uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}
/// bf16 bits of `f`, rounded to nearest even (a NaN stays a NaN).
inline std::uint16_t to_bf16_rne(float f) {
  const std::uint32_t b = float_bits(f);
  if ((b & 0x7f800000u) == 0x7f800000u && (b & 0x7fffffu))
    return static_cast<std::uint16_t>((b >> 16) | 0x40);
  return static_cast<std::uint16_t>((b + 0x7fffu + ((b >> 16) & 1u)) >> 16);
}
inline float round_bf16(float f) {
  return bits_float(static_cast<std::uint32_t>(to_bf16_rne(f)) << 16);
}
/// TF32, as SrcA/SrcB hold an fp32 value: 10 mantissa bits kept.
inline float tf32(float f) {
  return bits_float(float_bits(f) & 0xffffe000u);
}

/// Offset of element (r, c) of a tile in its four-face layout, at r * 32 + c.
inline const std::array<std::uint16_t, 1024>& face_index() {
  static const std::array<std::uint16_t, 1024> table = [] {
    std::array<std::uint16_t, 1024> t{};
    for (int r = 0; r < 32; ++r)
      for (int c = 0; c < 32; ++c)
        t[r * 32 + c] =
            static_cast<std::uint16_t>(((r / 16) * 2 + c / 16) * 256 + (r % 16) * 16 + c % 16);
    return t;
  }();
  return table;
}

/// "Float16_b", ...: a CB's data format in a diagnostic.
const char* format_name(tt::DataFormat f);

/// The faces an SFPU call on tt-llk's VectorMode `vector_mode` (llk_defs.h: None 0, R 1, C 2,
/// RC 4) runs, for timing::sfpu_call; RC_custom and the others are not modelled.
timing::SfpuMode sfpu_mode(int vector_mode);

} // namespace tk::rt::emu::compute_detail
