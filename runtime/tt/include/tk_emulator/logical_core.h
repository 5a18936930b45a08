#pragma once
#include <cstdint>

#include "tk_emulator/device_api.hpp"

// The core this kernel runs on (tt_metal/hw/inc/api/dataflow/dataflow_api.h and
// api/compute/common.h): absolute, from the grid's origin, and relative to its sub-device's
// origin; the emulator has no sub-devices, so the two are equal.
inline std::uint8_t get_absolute_logical_x() {
  return ::tk::rt::emu::logical_core_x();
}
inline std::uint8_t get_absolute_logical_y() {
  return ::tk::rt::emu::logical_core_y();
}
inline std::uint8_t get_relative_logical_x() {
  return ::tk::rt::emu::logical_core_x();
}
inline std::uint8_t get_relative_logical_y() {
  return ::tk::rt::emu::logical_core_y();
}
