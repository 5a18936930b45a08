// The compute kernel sentinel's configuration calls (mirrors
// tt_metal/hw/inc/api/compute/sentinel/compute_kernel_sentinel.h and sentinel_core.h). The SDK's
// sentinel is off unless TT_METAL_COMPUTE_KERNEL_SENTINEL_ENABLED is defined, and then its
// state_configure calls do nothing (ComputeKernelSentinelImpl<false>); the emulator has the
// disabled sentinel only. TTNN's kernel_lib calls state_configure before its raw LLK inits.
#pragma once
#include <cstdint>

namespace ckernel {
enum class Operand : uint8_t {
  SRCA = 0x1,
  SRCB = 0x2,
  PACK = 0x4,
};
constexpr uint32_t INVALID_CB_INDEX = 0xFFFFFFFFU;
constexpr uint32_t INVALID_LINE_NUMBER = 0xFFFFFFFFU;
} // namespace ckernel

constexpr bool sentinel_enabled = false;

template <ckernel::Operand operand = ckernel::Operand::SRCA>
inline __attribute__((always_inline)) void state_configure(uint32_t /*cb*/,
                                                           uint32_t /*call_line*/) {}
template <ckernel::Operand operand_a = ckernel::Operand::SRCA,
          ckernel::Operand operand_b = ckernel::Operand::SRCB>
inline __attribute__((always_inline)) void state_configure(uint32_t /*cb_a*/, uint32_t /*cb_b*/,
                                                           uint32_t /*call_line*/) {}
inline __attribute__((always_inline)) void state_configure(uint32_t /*cb_a*/, uint32_t /*cb_b*/,
                                                           uint32_t /*cb_out*/,
                                                           uint32_t /*call_line*/) {}
