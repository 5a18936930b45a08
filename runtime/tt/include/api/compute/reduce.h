// Reduction of a tile with a scaler tile (mirrors tt_metal/hw/inc/api/compute/reduce.h).
// Accumulates into DST: REDUCE_ROW leaves a column vector in column 0, REDUCE_COL a row vector in
// row 0, REDUCE_SCALAR (0,0). reduce_init also sets the packer's edge mask (tt-llk
// llk_pack_reduce_mask_config): until reduce_uninit, every pack_tile keeps only column 0 (ROW),
// row 0 (COL) or element (0,0) (SCALAR) and writes zeros elsewhere.
#pragma once
#include "api/compute/common.h"
#include "api/compute/sentinel/compute_kernel_sentinel.h"
#include "llk_math_reduce_api.h"
#include "llk_unpack_AB_reduce_api.h"
#include "tk_emulator/op_keys.hpp"

namespace ckernel {
template <PoolType reduce_type, ReduceDim reduce_dim, bool enforce_fp32_accumulation = false>
ALWI void reduce_init(uint32_t /*icb*/, uint32_t /*icb_scaler*/, uint32_t /*ocb*/,
                      uint32_t /*call_line*/ = __builtin_LINE()) {
  ::tk::rt::emu::reduce_pack_mask(static_cast<int>(reduce_dim));
  // llk_unpack_AB_reduce_init<reduce_type, reduce_dim> and llk_math_reduce_init<reduce_type,
  // reduce_dim>.
  ::tk::rt::emu::op_init("reduce_init", ::tk::rt::emu::op_keys::unpack_reduce(reduce_dim),
                         ::tk::rt::emu::op_keys::reduce(reduce_type, reduce_dim));
}
template <bool enforce_fp32_accumulation = false>
ALWI void reduce_uninit(uint32_t /*icb*/ = 0) {
  ::tk::rt::emu::reduce_pack_mask(-1);
}
template <PoolType reduce_type, ReduceDim reduce_dim, bool enforce_fp32_accumulation = false>
ALWI void reduce_tile(uint32_t icb, uint32_t icb_scaler, uint32_t itile, uint32_t itile_scaler,
                      uint32_t idst) {
  ::tk::rt::emu::op_call("reduce_tile", ::tk::rt::emu::op_keys::unpack_reduce(reduce_dim),
                         ::tk::rt::emu::op_keys::reduce(reduce_type, reduce_dim),
                         ::tk::rt::emu::op_keys::reduce_init(reduce_type, reduce_dim));
  ::tk::rt::emu::reduce_tile(static_cast<int>(reduce_type), static_cast<int>(reduce_dim), icb,
                             icb_scaler, itile, itile_scaler, idst);
}
} // namespace ckernel
