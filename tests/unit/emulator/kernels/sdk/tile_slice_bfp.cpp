// DEVICE_PRINT of TileSlices of a Bfp8_b tile (c_0) and a Bfp4_b tile (c_1), written here byte by
// byte in the format's layout: 64 shared exponents (face row r: 133 + r % 3 for Bfp8_b, 129 for
// Bfp4_b) then the codes of the 1024 values in face order. Value i's Bfp8_b code is magnitude
// (i / 16) % 64 + 1, so a value is that times 2^(r % 3); its Bfp4_b code is magnitude
// (i / 16) % 7 + 1, negative in face row 16.
#include <cstdint>

#include "api/debug/device_print.h"

void kernel_main() {
  constexpr uint32_t b8 = tt::CBIndex::c_0;
  constexpr uint32_t b4 = tt::CBIndex::c_1;
  cb_reserve_back(b8, 1);
  cb_reserve_back(b4, 1);
  volatile uint8_t* p8 = reinterpret_cast<volatile uint8_t*>(get_write_ptr(b8));
  volatile uint8_t* p4 = reinterpret_cast<volatile uint8_t*>(get_write_ptr(b4));
  for (uint32_t r = 0; r < 64; ++r) {
    p8[r] = static_cast<uint8_t>(133 + r % 3);
    p4[r] = 129;
  }
  for (uint32_t i = 0; i < 512; ++i)
    p4[64 + i] = 0;
  for (uint32_t i = 0; i < 1024; ++i) {
    p8[64 + i] = static_cast<uint8_t>((i / 16) % 64 + 1);
    const uint32_t code = ((i / 16) % 7 + 1) | (i / 16 == 16 ? 8u : 0u);
    p4[64 + i / 2] = static_cast<uint8_t>(p4[64 + i / 2] | (code << ((i % 2) * 4)));
  }
  // Row-major, then untilized (face by face), elements [0:32:16, 0:32:16] of each.
  DEVICE_PRINT("{}", TileSlice(b8, 0, SliceRange::hw0_32_16(), TSLICE_OUTPUT_CB, TSLICE_WR_PTR,
                               true, false));
  DEVICE_PRINT(
      "{}", TileSlice(b8, 0, SliceRange::hw0_32_16(), TSLICE_OUTPUT_CB, TSLICE_WR_PTR, true, true));
  DEVICE_PRINT("{}", TileSlice(b4, 0, SliceRange::hw0_32_16(), TSLICE_OUTPUT_CB, TSLICE_WR_PTR,
                               true, false));
  DEVICE_PRINT(
      "{}", TileSlice(b4, 0, SliceRange::hw0_32_16(), TSLICE_OUTPUT_CB, TSLICE_WR_PTR, true, true));
  // Two bytes a datum: a TileSlice<8> keeps four, of row 0 (0..3: code 1, exponent 133).
  DEVICE_PRINT("{}", TileSlice<8>(b8, 0, SliceRange::h0_w0_32(), TSLICE_OUTPUT_CB, TSLICE_WR_PTR,
                                  true, false));
  cb_push_back(b8, 1);
  cb_push_back(b4, 1);
}
