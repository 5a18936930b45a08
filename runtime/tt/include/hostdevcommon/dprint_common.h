// The device-print structures host and device share (mirrors
// tt_metal/hostdevcommon/api/hostdevcommon/dprint_common.h of tt-metal a8c5af0f5a26): SliceRange,
// TileSliceHostDev and the TileSlice return codes. The emulator keeps the SDK's field layout.
#pragma once
#include <cstdint>

#ifndef ATTR_PACK
#define ATTR_PACK __attribute__((packed))
#endif

struct SliceRange {
  // A slice object encoding semantics of np.slice(h0:h1:hs, w0:w1:ws); used by TileSlice.
  uint8_t h0, h1, hs, w0, w1, ws;
  // [0:32:16, 0:32:16]
  static SliceRange hw0_32_16() {
    return SliceRange{.h0 = 0, .h1 = 32, .hs = 16, .w0 = 0, .w1 = 32, .ws = 16};
  }
  // [0:32:8, 0:32:8]
  static SliceRange hw0_32_8() {
    return SliceRange{.h0 = 0, .h1 = 32, .hs = 8, .w0 = 0, .w1 = 32, .ws = 8};
  }
  // [0:32:4, 0:32:4]
  static SliceRange hw0_32_4() {
    return SliceRange{.h0 = 0, .h1 = 32, .hs = 4, .w0 = 0, .w1 = 32, .ws = 4};
  }
  // [0, 0:32]
  static SliceRange h0_w0_32() {
    return SliceRange{.h0 = 0, .h1 = 1, .hs = 1, .w0 = 0, .w1 = 32, .ws = 1};
  }
  // [0:32, 0]
  static SliceRange h0_32_w0() {
    return SliceRange{.h0 = 0, .h1 = 32, .hs = 1, .w0 = 0, .w1 = 1, .ws = 1};
  }
  // [0:32:1, 1]
  static SliceRange h0_32_w1() {
    return SliceRange{.h0 = 0, .h1 = 32, .hs = 1, .w0 = 1, .w1 = 2, .ws = 1};
  }
  // [0:4:1, 0:4:1]
  static SliceRange hw041() {
    return SliceRange{.h0 = 0, .h1 = 4, .hs = 1, .w0 = 0, .w1 = 4, .ws = 1};
  }
} ATTR_PACK;

template <int MAX_BYTES = 0>
struct TileSliceHostDev {
  uint32_t cb_ptr;
  struct SliceRange slice_range;
  uint8_t cb_id;
  uint8_t data_format;
  uint8_t data_count;
  uint8_t endl_rows;
  uint8_t return_code;
  uint8_t pad;
  uint8_t data[MAX_BYTES];
} ATTR_PACK;

enum dprint_tileslice_return_code_enum {
  DPrintOK = 2,
  DPrintErrorBadTileIdx = 3,
  DPrintErrorBadPointer = 4,
  DPrintErrorUnsupportedFormat = 5,
  DPrintErrorMath = 6,
  DPrintErrorEthernet = 7,
};
