// Tile matmul (mirrors tt_metal/hw/inc/api/compute/matmul.h): DST[idst] += A[in0_tile] x
// B[in1_tile].
#pragma once
#include "api/compute/common.h"
#include "api/compute/sentinel/compute_kernel_sentinel.h"
// The LLK halves of a matmul (the SDK includes them for the math and unpack threads; the
// emulator's one compute thread does both).
#include "llk_math_matmul_api.h"
#include "llk_unpack_AB_matmul_api.h"
#include "llk_unpack_common_api.h"
// The default throttle level of matmul kernels.
#ifndef MM_THROTTLE
#define MM_THROTTLE 0
#endif

namespace ckernel {
// `transpose` (non-zero): the matmul_tiles that follow use each in1 tile transposed. The full init
// configures the unpacker with in1 first: srcA takes in1's format, srcB in0's.
ALWI void mm_init(uint32_t in0_cb_id, uint32_t in1_cb_id, uint32_t out_cb_id,
                  const uint32_t transpose = 0, uint32_t /*call_line*/ = __builtin_LINE()) {
  ::tk::rt::emu::configure_formats(in1_cb_id, in0_cb_id, out_cb_id, "mm_init");
  ::tk::rt::emu::matmul_init(transpose != 0);
  ::tk::rt::emu::op_init("mm_init", "AB matmul", "matmul");
}
ALWI void mm_init_short(uint32_t /*in0_cb_id*/, uint32_t /*in1_cb_id*/,
                        const uint32_t transpose = 0, uint32_t /*call_line*/ = __builtin_LINE()) {
  ::tk::rt::emu::matmul_init(transpose != 0);
  ::tk::rt::emu::op_init("mm_init_short", "AB matmul", "matmul");
}
// Also reconfigures srcA (from c_in_old_srca's format) to in1's.
ALWI void mm_init_short_with_dt(uint32_t /*in0_cb_id*/, uint32_t in1_cb_id,
                                uint32_t /*c_in_old_srca*/, const uint32_t transpose = 0) {
  ::tk::rt::emu::configure_formats(in1_cb_id, ::tk::rt::emu::kKeep, ::tk::rt::emu::kKeep,
                                   "mm_init_short_with_dt");
  ::tk::rt::emu::matmul_init(transpose != 0);
  ::tk::rt::emu::op_init("mm_init_short_with_dt", "AB matmul", "matmul");
}
ALWI void matmul_tiles(uint32_t in0_cb_id, uint32_t in1_cb_id, uint32_t in0_tile_index,
                       uint32_t in1_tile_index, uint32_t idst) {
  ::tk::rt::emu::op_call("matmul_tiles", "AB matmul", "matmul", "mm_init_short(in0, in1)");
  ::tk::rt::emu::matmul_tiles(in0_cb_id, in1_cb_id, in0_tile_index, in1_tile_index, idst,
                              ::tk::rt::emu::matmul_transposed());
}
ALWI void mm_block_init(uint32_t in0, uint32_t in1, uint32_t out, const uint32_t transpose = 0,
                        uint32_t /*ct_dim*/ = 1, uint32_t /*rt_dim*/ = 1, uint32_t /*kt_dim*/ = 1,
                        uint32_t /*call_line*/ = __builtin_LINE()) {
  ::tk::rt::emu::configure_formats(in1, in0, out, "mm_block_init");
  ::tk::rt::emu::matmul_init(transpose != 0);
  ::tk::rt::emu::op_init("mm_block_init", "AB matmul", "matmul");
}
ALWI void mm_block_init_short(uint32_t /*in0_cb_id*/, uint32_t /*in1_cb_id*/,
                              const uint32_t transpose = 0, uint32_t /*ct_dim*/ = 1,
                              uint32_t /*rt_dim*/ = 1, uint32_t /*kt_dim*/ = 1,
                              uint32_t /*call_line*/ = __builtin_LINE()) {
  ::tk::rt::emu::matmul_init(transpose != 0);
  ::tk::rt::emu::op_init("mm_block_init_short", "AB matmul", "matmul");
}
// Block form: an rt_dim x ct_dim block of DST += (rt_dim x kt_dim of in0) x (kt_dim x ct_dim of
// in1) for one k step; in0 tiles are row-major with row stride kt_dim, in1 tiles with row stride
// ct_dim.
ALWI void matmul_block(uint32_t in0_cb_id, uint32_t in1_cb_id, uint32_t in0_tile_index,
                       uint32_t in1_tile_index, uint32_t idst, const uint32_t transpose,
                       uint32_t ct_dim, uint32_t rt_dim, uint32_t kt_dim) {
  ::tk::rt::emu::op_call("matmul_block", "AB matmul", "matmul",
                         "mm_block_init_short(in0, in1, ...)");
  ::tk::rt::emu::matmul_block(in0_cb_id, in1_cb_id, in0_tile_index, in1_tile_index, idst,
                              transpose != 0, ct_dim, rt_dim, kt_dim);
}
} // namespace ckernel
