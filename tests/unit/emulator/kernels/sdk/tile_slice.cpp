// DEVICE_PRINT of TileSlices of a bf16 tile of c_0 whose element at memory index i is i: sampled
// row-major and untilized, with and without a newline per row, and one cut short by its MAX_BYTES.
#include <cstdint>

#include "api/debug/device_print.h"

void kernel_main() {
  constexpr uint32_t cb = tt::CBIndex::c_0;
  cb_reserve_back(cb, 1);
  volatile uint16_t* tile = reinterpret_cast<volatile uint16_t*>(get_write_ptr(cb));
  for (uint32_t i = 0; i < 1024; ++i) {
    const float f = static_cast<float>(i);
    uint32_t bits;
    __builtin_memcpy(&bits, &f, 4);
    tile[i] = static_cast<uint16_t>(bits >> 16);
  }
  DEVICE_PRINT("{}", TileSlice(cb, 0, SliceRange::hw0_32_16(), TSLICE_OUTPUT_CB, TSLICE_WR_PTR,
                               true, false));
  DEVICE_PRINT(
      "{}", TileSlice(cb, 0, SliceRange::hw0_32_16(), TSLICE_OUTPUT_CB, TSLICE_WR_PTR, true, true));
  DEVICE_PRINT("[{}]\n", TileSlice(cb, 0, SliceRange::hw0_32_16(), TSLICE_OUTPUT_CB, TSLICE_WR_PTR,
                                   false, false));
  DEVICE_PRINT("{}", TileSlice<8>(cb, 0, SliceRange::h0_w0_32(), TSLICE_OUTPUT_CB, TSLICE_WR_PTR,
                                  true, false));
  cb_push_back(cb, 1);
}
