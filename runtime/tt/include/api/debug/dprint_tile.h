// TileSlice (mirrors tt_metal/hw/inc/api/debug/dprint_tile.h of tt-metal a8c5af0f5a26): samples
// the elements of tile `tile_idx` of a CB that a SliceRange selects, relative to the CB's read or
// write pointer, for DEVICE_PRINT to show. As in the SDK: on a data-movement kernel the caller says
// whether the CB is an input or an output and which pointer (TSLICE_*); on compute the unpacker's
// read pointer is used (the emulator runs one compute thread for UNPACK, MATH and PACK); elements
// are taken untilized (face by face) when print_untilized, else row-major; at most MAX_BYTES bytes
// of data. Supported formats are the SDK's: Float16_b, Float32, the integer formats, and Bfp8_b and
// Bfp4_b, whose datum is kept as the SDK keeps it, two bytes: its row's shared exponent (the
// exponent section first, one a face row) then its code (Bfp4_b: the low nibble of byte k is value
// 2k), so that a Bfp TileSlice holds MAX_BYTES / 2 data.
#pragma once
#include <cstdint>

#include "hostdevcommon/dprint_common.h"
#include "internal/tt-1xx/tensix_types.h"
#include "tk_emulator/device_api.hpp"

using dprint_tslice_ptr_t = bool;
#define TSLICE_RD_PTR true
#define TSLICE_WR_PTR false
using dprint_tslice_cb_t = bool;
#define TSLICE_INPUT_CB true
#define TSLICE_OUTPUT_CB false

namespace tk_emu_device_print {
// Bytes per datum, and whether the SDK's TileSlice supports the format (dprint_tile.h).
constexpr uint32_t datum_size(DataFormat f) {
  switch (f) {
  case DataFormat::Float32:
  case DataFormat::UInt32:
  case DataFormat::Int32:
    return 4;
  case DataFormat::UInt16:
  case DataFormat::Float16:
  case DataFormat::Float16_b:
    return 2;
  case DataFormat::Int8:
  case DataFormat::UInt8:
    return 1;
  default:
    return 0;
  }
}
constexpr bool supported(DataFormat f) {
  switch (f) {
  case DataFormat::Bfp4_b:
  case DataFormat::Bfp8_b:
  case DataFormat::Float16_b:
  case DataFormat::Float32:
  case DataFormat::Int8:
  case DataFormat::UInt8:
  case DataFormat::UInt16:
  case DataFormat::UInt32:
  case DataFormat::Int32:
    return true;
  default:
    return false;
  }
}
} // namespace tk_emu_device_print

template <int MAX_BYTES = 32 * 2>
struct TileSlice : TileSliceHostDev<MAX_BYTES> {
  // A 32x32 tile of four 16x16 faces.
  static inline uint32_t get_data_index(uint32_t h, uint32_t w, bool untilize) {
    if (untilize)
      return ((h / 16) * 2 + w / 16) * 256 + (h % 16) * 16 + w % 16;
    return w + h * 32;
  }
  // The face row whose shared exponent a Bfp datum uses: face by face when untilized, else the
  // row-major index's 16-element group (the SDK's get_exponent_index).
  static inline uint32_t get_exponent_index(uint32_t h, uint32_t w, bool untilize) {
    if (untilize)
      return ((h / 16) * 2 + w / 16) * 16 + h % 16;
    return (w + h * 32) / 16;
  }

  TileSlice(uint8_t cb, int tile_idx, const SliceRange& slice_range,
#if defined(COMPILE_FOR_NCRISC)
            dprint_tslice_cb_t cb_type, dprint_tslice_ptr_t ptr_type = TSLICE_WR_PTR,
#elif defined(COMPILE_FOR_BRISC)
            dprint_tslice_cb_t cb_type, dprint_tslice_ptr_t ptr_type = TSLICE_RD_PTR,
#endif
            bool endl_rows = true, bool print_untilized = true) {
    this->slice_range = slice_range;
    this->cb_id = cb;
    this->endl_rows = endl_rows;
    this->data_count = 0;
    this->return_code = DPrintOK;
    this->pad = MAX_BYTES;
    const auto state = ::tk::rt::emu::cb_interface(cb);
#if defined(COMPILE_FOR_NCRISC) || defined(COMPILE_FOR_BRISC)
    (void)cb_type; // the emulator's CB has one format for unpacker and packer
    this->cb_ptr = ptr_type == TSLICE_WR_PTR ? state.wr_ptr : state.rd_ptr;
#else
    this->cb_ptr = state.rd_ptr;
#endif
    const auto format = static_cast<DataFormat>(::tk::rt::emu::cb_data_format(cb));
    this->data_format = static_cast<uint8_t>(format);
    if (!tk_emu_device_print::supported(format)) {
      this->return_code = DPrintErrorUnsupportedFormat;
      return;
    }
    const bool bfp4 = format == DataFormat::Bfp4_b;
    const bool bfp = bfp4 || format == DataFormat::Bfp8_b;
    const uint32_t bytes = bfp ? 2 : tk_emu_device_print::datum_size(format);
    // A tile: 64 exponent bytes then 1024 codes of a byte (Bfp8_b, 1088) or a nibble (Bfp4_b, 576).
    const uint32_t tile_size = bfp ? 64 + (bfp4 ? 512 : 1024) : 1024 * bytes;
    this->cb_ptr += tile_idx * tile_size;
    const auto* cb_data =
        reinterpret_cast<const volatile uint8_t*>(static_cast<std::uintptr_t>(this->cb_ptr));
    uint32_t byte_idx = 0;
    for (uint32_t h = slice_range.h0; h < slice_range.h1; h += slice_range.hs) {
      for (uint32_t w = slice_range.w0; w < slice_range.w1; w += slice_range.ws) {
        if (byte_idx + bytes > MAX_BYTES)
          return;
        const uint32_t i = get_data_index(h, w, print_untilized);
        if (bfp) {
          this->data[byte_idx++] = cb_data[get_exponent_index(h, w, print_untilized)];
          this->data[byte_idx++] =
              bfp4 ? (cb_data[64 + i / 2] >> ((i % 2) * 4)) & 0xF : cb_data[64 + i];
        } else {
          for (uint32_t b = 0; b < bytes; ++b)
            this->data[byte_idx++] = cb_data[i * bytes + b];
        }
        this->data_count++;
      }
    }
  }
} ATTR_PACK;

using TSLICE = TileSlice<64>;
