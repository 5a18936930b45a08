// Element-wise select on three DST tiles (mirrors
// tt_metal/hw/inc/api/compute/eltwise_unary/where.h): odst = idst0 != 0 ? idst1 : idst2. The float
// formats (Float32, Float16_b) are modelled; an integer format is an error.
#pragma once
#include "api/compute/common.h"

namespace ckernel {
template <DataFormat data_format>
ALWI void where_tile(uint32_t idst0, uint32_t idst1, uint32_t idst2, uint32_t odst) {
  ::tk::rt::emu::where_tile(data_format == DataFormat::Float32 ||
                                data_format == DataFormat::Float16_b,
                            idst0, idst1, idst2, odst);
}
ALWI void where_tile_init() {
  ::tk::rt::emu::init_call();
}
} // namespace ckernel
