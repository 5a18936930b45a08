// MathFidelity and UnpackToDestMode (mirrors tt_metal/api/tt-metalium/base_types.hpp).
#pragma once
#include <cstdint>

enum class MathFidelity : std::uint8_t {
  LoFi = 0,
  HiFi2 = 2,
  HiFi3 = 3,
  HiFi4 = 4,
  Invalid = 0xff
};
enum class UnpackToDestMode : std::uint8_t { Default, UnpackToDestFp32 };
