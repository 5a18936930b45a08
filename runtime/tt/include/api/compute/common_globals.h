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

#define ALWI inline __attribute__((always_inline))
#ifndef FORCE_INLINE
#define FORCE_INLINE inline __attribute__((always_inline))
#endif
#define MATH(x) x
#define PACK(x) x
#define UNPACK(x) x

namespace ckernel {
enum class PoolType { SUM, AVG, MAX, MIN };
enum class ReduceDim { REDUCE_ROW, REDUCE_COL, REDUCE_SCALAR };
enum class BroadcastType : std::uint8_t { NONE = 0, COL = 1, ROW = 2, SCALAR = 3 };
enum EltwiseBinaryType : std::uint8_t { ELWMUL, ELWDIV, ELWADD, ELWSUB, ELWLESS };
enum VectorMode { None = 0, R = 1, C = 2, RC = 4, RC_custom = 6, Invalid = 0xFF };
enum class DstSync : std::uint8_t { SyncHalf = 0, SyncFull = 1 };
enum class InputClamping : std::uint8_t { ClampToNegative = 1, None = 0 };
namespace p_sfpu {
constexpr std::uint32_t kCONST_1_FP16B = 0x3F80;
}
} // namespace ckernel
// In the SDK these enums are reachable unqualified in kernels too (llk_defs.h is at global scope).
using ckernel::BroadcastType;
using ckernel::EltwiseBinaryType;
using ckernel::PoolType;
using ckernel::ReduceDim;

namespace tk_emu_detail {
// SFPU scalar params arrive as the bits of an fp32 value.
inline float bits_to_float(std::uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}
} // namespace tk_emu_detail
