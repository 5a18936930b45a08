// A sub-device (mirrors tt_metal/api/tt-metalium/sub_device.hpp): a set of cores of each
// programmable kind, element i of the constructor's span being the cores of
// HalProgrammableCoreType i (the emulator has Tensix cores only: any other kind must be empty).
#pragma once
#include <array>
#include <cstdint>
#include <memory>

#include <tt-metalium/core_coord.hpp>
#include <tt-metalium/hal_types.hpp>
#include <tt_stl/span.hpp>

namespace tt::tt_metal {
class SubDevice {
public:
  explicit SubDevice(ttsl::Span<const CoreRangeSet> cores);

  const CoreRangeSet& cores(HalProgrammableCoreType core_type) const;

private:
  std::array<CoreRangeSet, NumHalProgrammableCoreTypes> cores_;
};
} // namespace tt::tt_metal
