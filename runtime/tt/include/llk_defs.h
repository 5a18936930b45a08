// The LLK's enums (mirrors tt-llk's tt_llk_wormhole_b0/llk_lib/llk_defs.h, which the SDK's JIT puts
// on a kernel's include path: PoolType, ReduceDim, BroadcastType, EltwiseBinaryType, VectorMode,
// ReluType, DstSync, MathFidelity in namespace ckernel). TTNN's kernel_lib helpers include it by
// name
// (`#include "llk_defs.h"`); compute kernels reach it through api/compute/common_globals.h.
#pragma once
#include <cstdint>

namespace ckernel {
enum class PoolType { SUM, AVG, MAX, MIN };
enum class ReduceDim { REDUCE_ROW, REDUCE_COL, REDUCE_SCALAR };
enum class BroadcastType : std::uint8_t { NONE = 0, COL = 1, ROW = 2, SCALAR = 3 };
enum EltwiseBinaryType : std::uint8_t { ELWMUL, ELWDIV, ELWADD, ELWSUB, ELWLESS };
enum VectorMode { None = 0, R = 1, C = 2, RC = 4, RC_custom = 6, Invalid = 0xFF };
enum ReluType { NO_RELU, ZERO_RELU, MIN_THRESHOLD_RELU, MAX_THRESHOLD_RELU };
enum class DstSync : std::uint8_t { SyncHalf = 0, SyncFull = 1 };
// The JIT's MATH_FIDELITY (chlkc_descriptors.h) is one of these (genfiles.cpp casts the
// ComputeConfig's math_fidelity to it).
enum class MathFidelity : std::uint8_t { LoFi = 0, HiFi2 = 2, HiFi3 = 3, HiFi4 = 4 };
} // namespace ckernel
// In the SDK these enums are reachable unqualified in kernels too (llk_defs.h is at global scope).
using ckernel::BroadcastType;
using ckernel::EltwiseBinaryType;
using ckernel::PoolType;
using ckernel::ReduceDim;
using ckernel::ReluType;
