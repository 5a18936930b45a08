// The kinds of programmable cores (mirrors tt_metal/api/tt-metalium/hal_types.hpp).
#pragma once
#include <cstdint>

namespace tt::tt_metal {
enum class HalProgrammableCoreType {
  TENSIX = 0,
  ACTIVE_ETH = 1,
  IDLE_ETH = 2,
  DRAM = 3,
  COUNT = 4
};
static constexpr uint32_t NumHalProgrammableCoreTypes =
    static_cast<uint32_t>(HalProgrammableCoreType::COUNT);
} // namespace tt::tt_metal
