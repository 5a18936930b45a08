// Reduction of a tile with a scaler tile (mirrors tt_metal/hw/inc/api/compute/reduce.h).
// Accumulates into DST: REDUCE_ROW leaves a column vector in column 0, REDUCE_COL a row vector in
// row 0, REDUCE_SCALAR (0,0).
#pragma once
#include "api/compute/common.h"

namespace ckernel {
template <PoolType reduce_type, ReduceDim reduce_dim, bool enforce_fp32_accumulation = false>
ALWI void reduce_init(uint32_t /*icb*/, uint32_t /*icb_scaler*/, uint32_t /*ocb*/,
                      uint32_t /*call_line*/ = __builtin_LINE()) {}
template <bool enforce_fp32_accumulation = false>
ALWI void reduce_uninit(uint32_t /*icb*/ = 0) {}
template <PoolType reduce_type, ReduceDim reduce_dim, bool enforce_fp32_accumulation = false>
ALWI void reduce_tile(uint32_t icb, uint32_t icb_scaler, uint32_t itile, uint32_t itile_scaler,
                      uint32_t idst) {
  ::tk::rt::emu::reduce_tile(static_cast<int>(reduce_type), static_cast<int>(reduce_dim), icb,
                             icb_scaler, itile, itile_scaler, idst);
}
} // namespace ckernel
