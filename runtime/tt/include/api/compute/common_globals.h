// Compute-kernel basics (mirrors tt_metal/hw/inc/api/compute/common_globals.h): ALWI, the ckernel
// enums. The emulator runs a compute kernel as one fiber that does the UNPACK, MATH and PACK work
// of each call.
#pragma once
#include <stdint.h>

#include <cstdint>
#include <cstring>

#include "api/compile_time_args.h"
#include "hostdevcommon/kernel_structs.h"
#include "internal/tt-1xx/tensix_types.h"
#include "tk_emulator/device_api.hpp"
#include "tk_emulator/op_inits.hpp"

#define ALWI inline __attribute__((always_inline))
#ifndef FORCE_INLINE
#define FORCE_INLINE inline __attribute__((always_inline))
#endif
#define MATH(x) x
#define PACK(x) x
#define UNPACK(x) x

#include "llk_defs.h"
#include "llk_pack_api.h"

namespace ckernel {
enum class InputClamping : std::uint8_t { ClampToNegative = 1, None = 0 };
namespace p_sfpu {
constexpr std::uint32_t kCONST_1_FP16B = 0x3F80;
}
} // namespace ckernel

namespace tk_emu_detail {
// SFPU scalar params arrive as the bits of an fp32 value.
inline float bits_to_float(std::uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}
} // namespace tk_emu_detail
