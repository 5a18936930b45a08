// MathFidelity and UnpackToDestMode (mirrors tt_metal/api/tt-metalium/base_types.hpp): declared in
// tt::tt_metal, with the SDK's global aliases (which the SDK marks deprecated).
#pragma once
#include <cstdint>

namespace tt::tt_metal {
enum class MathFidelity : std::uint8_t {
  LoFi = 0,
  HiFi2 = 2,
  HiFi3 = 3,
  HiFi4 = 4,
  Invalid = 0xff
};
/// The SDK's order: a value-initialised UnpackToDestMode is UnpackToDestFp32. UnpackToDestFp32
/// unpacks a Float32 CB straight into DST at full precision and makes the CB unusable through
/// SrcA/SrcB (its FPU operands).
enum class UnpackToDestMode : std::uint8_t { UnpackToDestFp32, Default };
} // namespace tt::tt_metal

using MathFidelity [[deprecated("Use tt::tt_metal::MathFidelity")]] = tt::tt_metal::MathFidelity;
using UnpackToDestMode [[deprecated("Use tt::tt_metal::UnpackToDestMode")]] =
    tt::tt_metal::UnpackToDestMode;
