// Host-side DataFormat and tile sizes (mirrors tt_metal/api/tt-metalium/tt_backend_api_types.hpp).
#pragma once
#include <cstdint>

namespace tt {
enum class DataFormat : std::uint8_t {
  Float32 = 0,
  Float16 = 1,
  Bfp8 = 2,
  Bfp4 = 3,
  Tf32 = 4,
  Float16_b = 5,
  Bfp8_b = 6,
  Bfp4_b = 7,
  Int32 = 8,
  UInt16 = 9,
  Lf8 = 10,
  Bfp2 = 11,
  Int16 = 13,
  Int8 = 14,
  Bfp2_b = 15,
  UInt32 = 24,
  Fp8_e4m3 = 26,
  UInt8 = 30,
  RawUInt8 = 240,
  RawUInt16 = 241,
  RawUInt32 = 242,
  Invalid = 255
};

// Bytes of one 32x32 tile in `format` (tile_size() in the SDK).
constexpr std::uint32_t tile_size(DataFormat format) {
  switch (format) {
  case DataFormat::Float32:
  case DataFormat::Int32:
  case DataFormat::UInt32:
  case DataFormat::RawUInt32:
    return 4096;
  case DataFormat::Float16:
  case DataFormat::Float16_b:
  case DataFormat::UInt16:
  case DataFormat::Int16:
  case DataFormat::RawUInt16:
    return 2048;
  case DataFormat::Bfp8:
  case DataFormat::Bfp8_b:
    return 1088;
  case DataFormat::Bfp4:
  case DataFormat::Bfp4_b:
    return 576;
  case DataFormat::Bfp2:
  case DataFormat::Bfp2_b:
    return 320;
  case DataFormat::Int8:
  case DataFormat::UInt8:
  case DataFormat::Lf8:
  case DataFormat::Fp8_e4m3:
  case DataFormat::RawUInt8:
    return 1024;
  default:
    return 0;
  }
}
} // namespace tt
