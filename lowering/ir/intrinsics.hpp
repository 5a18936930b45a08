// The intrinsic table: every operation a Call can name, with its signature. The tile ops
// (`tile.*`), the TT compute call and init of each SFPU element-wise op and the CPU element
// functions (`f32.*`) are declared by the op table (ops/ops.hpp, TK_IR_OP_INTRINSICS below); the
// rest are TT-Metalium kernel API primitives (docs/ir.md lists the source of each name) and CPU
// runtime helpers. Intrinsics are looked up by exact name only.
#pragma once

#include "lowering/ir/types.hpp"
#include "ops/ops.hpp"

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace tk::ir {

// X(enumerator, printed name, argument kinds, result, effect, SDK header)
//   argument kinds: int (i32/u32 expression), slot (a DST slot a compute op works on: an int),
//                   const (integer immediate), f32, tile, cb, tensor
//                   (a tensor the call neither reads nor writes), src (a tensor it reads: never an
//                   output), dst (a tensor it writes: never an input),
//                   pool (PoolType::*), rdim (ReduceDim::*), bcast (BroadcastType::*),
//                   binop (EltwiseBinaryType::*), row (a row of tiles)
//   result: void, i32 (index math), u32, f32, tile (f32 if any tile argument is f32 or there is
//   none, else bf16), row (a row of f32 tiles) effect: pure (value only), reads (reads device
//   state: keep order), writes (statement only),
//           init (statement only: configures the compute engine for the calls that follow)
//   SDK header: for a TT compute call, the api/compute/ header that declares it, included by the
//           generated compute kernel when it calls it; "" where the template always includes
//           the header (CB, DST and pack APIs) or for anything else
#define TK_IR_INTRINSICS(X)                                                                        \
  /* ---- helpers with an obvious C++ spelling ---- */                                             \
  X(float_bits, "float_bits", "f32", u32, pure, "") /* std::bit_cast<uint32_t>(x) */               \
  X(to_f32, "to_f32", "int", f32, pure, "")         /* static_cast<float>(x): a size as a value */ \
  /* ---- TT data movement: args, CBs, NoC (dataflow_api.h) ---- */                                \
  X(get_arg_val, "get_arg_val", "const", u32, pure, "")                                            \
  X(get_common_arg_val, "get_common_arg_val", "const", u32, pure, "")                              \
  X(get_compile_time_arg_val, "get_compile_time_arg_val", "const", u32, pure, "")                  \
  X(tensor_accessor, "tensor_accessor", "tensor const int int", void, writes, "")                  \
  X(tensor_accessor_chained, "tensor_accessor.chained", "tensor tensor int int", void, writes, "") \
  X(cb_reserve_back, "cb_reserve_back", "cb int", void, writes, "")                                \
  X(cb_push_back, "cb_push_back", "cb int", void, writes, "")                                      \
  X(cb_wait_front, "cb_wait_front", "cb int", void, writes, "")                                    \
  X(cb_pop_front, "cb_pop_front", "cb int", void, writes, "")                                      \
  X(get_write_ptr, "get_write_ptr", "cb", u32, reads, "")                                          \
  X(get_read_ptr, "get_read_ptr", "cb", u32, reads, "")                                            \
  X(get_tile_size, "get_tile_size", "cb", u32, pure, "")                                           \
  X(noc_async_read_tile, "noc_async_read_tile", "int src int", void, writes, "")                   \
  X(noc_async_write_tile, "noc_async_write_tile", "int dst int", void, writes, "")                 \
  X(noc_async_read_page, "noc_async_read_page", "int src int", void, writes, "")                   \
  X(noc_async_write_page, "noc_async_write_page", "int dst int", void, writes, "")                 \
  X(noc_async_read_barrier, "noc_async_read_barrier", "", void, writes, "")                        \
  X(noc_async_write_barrier, "noc_async_write_barrier", "", void, writes, "")                      \
  X(noc_async_writes_flushed, "noc_async_writes_flushed", "", void, writes, "")                    \
  /* multicast and semaphores (dataflow_api.h): a semaphore is an L1 address (get_semaphore);      \
     a multicast names the receivers' NoC rectangle (x0, y0, x1, y1) and their number */           \
  X(get_semaphore, "get_semaphore", "int", u32, pure, "")                                          \
  X(noc_semaphore_wait, "noc_semaphore_wait", "int int", void, writes, "")                         \
  X(noc_semaphore_set, "noc_semaphore_set", "int int", void, writes, "")                           \
  X(noc_semaphore_inc, "noc_semaphore_inc", "int int int int", void, writes, "") /* x y sem n */   \
  X(noc_async_write_multicast, "noc_async_write_multicast", "int int int int int int int", void,   \
    writes, "") /* src, rectangle, bytes, receivers */                                             \
  X(noc_semaphore_set_multicast, "noc_semaphore_set_multicast", "int int int int int int", void,   \
    writes, "") /* sem, rectangle, receivers */                                                    \
  /* ---- TT compute: DST, pack, copy (reg_api.h, pack.h, tile_move_copy.h) ---- */                \
  X(tile_regs_acquire, "tile_regs_acquire", "", void, writes, "")                                  \
  X(tile_regs_commit, "tile_regs_commit", "", void, writes, "")                                    \
  X(tile_regs_wait, "tile_regs_wait", "", void, writes, "")                                        \
  X(tile_regs_release, "tile_regs_release", "", void, writes, "")                                  \
  X(pack_tile, "pack_tile", "int cb", void, writes, "")                                            \
  /* TileKit-only, no code: the slot is zero, untouched since tile_regs_acquire */                 \
  X(dst_assume_zero, "dst.assume_zero", "slot", void, writes, "")                                  \
  X(copy_tile_init, "copy_tile_init", "cb", void, init, "api/compute/tile_move_copy.h")            \
  X(copy_tile_to_dst_init_short, "copy_tile_to_dst_init_short", "cb", void, init,                  \
    "api/compute/tile_move_copy.h")                                                                \
  X(copy_tile, "copy_tile", "cb int slot", void, writes, "api/compute/tile_move_copy.h")           \
  /* ---- TT compute: matmul, FPU binary, broadcast, reduce ---- */                                \
  X(mm_init, "mm_init", "cb cb cb", void, init, "api/compute/matmul.h")                            \
  X(mm_init_short, "mm_init_short", "cb cb", void, init, "api/compute/matmul.h")                   \
  /* A @ transpose(B): matmul_tiles after mm_init_short(a, b, 1), which transposes each in1 tile   \
   */                                                                                              \
  X(mm_init_short_bt, "mm_init_short.bt", "cb cb", void, init, "api/compute/matmul.h")             \
  X(matmul_tiles_bt, "matmul_tiles.bt", "cb cb int int slot", void, writes,                        \
    "api/compute/matmul.h")                                                                        \
  X(transpose_wh_init_short, "transpose_wh_init_short", "cb", void, init,                          \
    "api/compute/transpose_wh.h")                                                                  \
  X(transpose_wh_tile, "transpose_wh_tile", "cb int slot", void, writes,                           \
    "api/compute/transpose_wh.h")                                                                  \
  X(matmul_tiles, "matmul_tiles", "cb cb int int slot", void, writes, "api/compute/matmul.h")      \
  /* the block form (docs/lowering.md, "Blocked matmul"): (in0, in1, transpose, ct_dim, rt_dim,    \
     kt_dim) and (in0, in1, in0 index, in1 index, idst, transpose, ct_dim, rt_dim, kt_dim): an     \
     rt_dim x ct_dim block of DST from rt_dim x kt_dim tiles of in0 and kt_dim x ct_dim of in1 */  \
  X(mm_block_init_short, "mm_block_init_short", "cb cb const const const int", void, init,         \
    "api/compute/matmul.h")                                                                        \
  X(matmul_block, "matmul_block", "cb cb int int slot const const const int", void, writes,        \
    "api/compute/matmul.h")                                                                        \
  X(binary_op_init_common, "binary_op_init_common", "cb cb cb", void, init,                        \
    "api/compute/eltwise_binary.h")                                                                \
  X(add_tiles_init, "add_tiles_init", "cb cb", void, init, "api/compute/eltwise_binary.h")         \
  X(sub_tiles_init, "sub_tiles_init", "cb cb", void, init, "api/compute/eltwise_binary.h")         \
  X(mul_tiles_init, "mul_tiles_init", "cb cb", void, init, "api/compute/eltwise_binary.h")         \
  X(add_tiles, "add_tiles", "cb cb int int slot", void, writes, "api/compute/eltwise_binary.h")    \
  X(sub_tiles, "sub_tiles", "cb cb int int slot", void, writes, "api/compute/eltwise_binary.h")    \
  X(mul_tiles, "mul_tiles", "cb cb int int slot", void, writes, "api/compute/eltwise_binary.h")    \
  X(compute_kernel_hw_startup, "compute_kernel_hw_startup", "cb cb cb", void, init,                \
    "api/compute/compute_kernel_hw_startup.h")                                                     \
  /* the unpacker's srcA / srcB and the packer take the new CB's data format (common.h brings in   \
     reconfig_data_format.h and pack.h) */                                                         \
  X(reconfig_data_format_srca, "reconfig_data_format_srca", "cb", void, init, "")                  \
  X(reconfig_data_format_srcb, "reconfig_data_format_srcb", "cb", void, init, "")                  \
  X(pack_reconfig_data_format, "pack_reconfig_data_format", "cb", void, init, "")                  \
  /* bcast inits */                                                                                \
  X(init_bcast, "init_bcast", "binop bcast cb cb cb", void, init, "api/compute/bcast.h")           \
  X(add_bcast_rows_init_short, "add_bcast_rows_init_short", "cb cb", void, init,                   \
    "api/compute/bcast.h")                                                                         \
  X(add_bcast_cols_init_short, "add_bcast_cols_init_short", "cb cb", void, init,                   \
    "api/compute/bcast.h")                                                                         \
  X(sub_bcast_cols_init_short, "sub_bcast_cols_init_short", "cb cb", void, init,                   \
    "api/compute/bcast.h")                                                                         \
  X(add_bcast_scalar_init_short, "add_bcast_scalar_init_short", "cb cb", void, init,               \
    "api/compute/bcast.h")                                                                         \
  X(mul_bcast_rows_init_short, "mul_bcast_rows_init_short", "cb cb", void, init,                   \
    "api/compute/bcast.h")                                                                         \
  X(mul_bcast_cols_init_short, "mul_bcast_cols_init_short", "cb cb", void, init,                   \
    "api/compute/bcast.h")                                                                         \
  X(add_tiles_bcast, "add_tiles_bcast", "bcast cb cb int int slot", void, writes,                  \
    "api/compute/bcast.h")                                                                         \
  X(sub_tiles_bcast, "sub_tiles_bcast", "bcast cb cb int int slot", void, writes,                  \
    "api/compute/bcast.h")                                                                         \
  X(mul_tiles_bcast, "mul_tiles_bcast", "bcast cb cb int int slot", void, writes,                  \
    "api/compute/bcast.h")                                                                         \
  /* a broadcast into DST, no second operand: unpacked straight to DST from a Float32 CB in        \
     UnpackToDestFp32 mode (exact), else through SrcB (bcast.h) */                                 \
  X(unary_bcast_init, "unary_bcast_init", "bcast cb cb", void, init, "api/compute/bcast.h")        \
  X(unary_bcast, "unary_bcast", "bcast cb int slot", void, writes, "api/compute/bcast.h")          \
  X(reduce_init, "reduce_init", "pool rdim cb cb cb", void, init, "api/compute/reduce.h")          \
  X(reduce_tile, "reduce_tile", "pool rdim cb cb int int slot", void, writes,                      \
    "api/compute/reduce.h")                                                                        \
  X(reduce_uninit, "reduce_uninit", "", void, init, "api/compute/reduce.h")                        \
  /* ---- TT compute: SFPU (in place on a DST tile) ---- */                                        \
  X(init_sfpu, "init_sfpu", "cb cb", void, init, "api/compute/eltwise_unary/eltwise_unary.h")      \
  X(unary_op_init_common, "unary_op_init_common", "cb cb", void, init,                             \
    "api/compute/eltwise_unary/eltwise_unary.h")                                                   \
  X(fill_tile_init, "fill_tile_init", "", void, init, "api/compute/eltwise_unary/fill.h")          \
  X(fill_tile, "fill_tile", "slot f32", void, writes, "api/compute/eltwise_unary/fill.h")          \
  /* scalar binops on a DST tile; the scalar is passed as its f32 bit pattern */                   \
  X(binop_with_scalar_tile_init, "binop_with_scalar_tile_init", "", void, init,                    \
    "api/compute/eltwise_unary/binop_with_scalar.h")                                               \
  X(add_unary_tile, "add_unary_tile", "slot int", void, writes,                                    \
    "api/compute/eltwise_unary/binop_with_scalar.h")                                               \
  X(sub_unary_tile, "sub_unary_tile", "slot int", void, writes,                                    \
    "api/compute/eltwise_unary/binop_with_scalar.h")                                               \
  X(rsub_unary_tile, "rsub_unary_tile", "slot int", void, writes,                                  \
    "api/compute/eltwise_unary/binop_with_scalar.h")                                               \
  X(mul_unary_tile, "mul_unary_tile", "slot int", void, writes,                                    \
    "api/compute/eltwise_unary/binop_with_scalar.h")                                               \
  /* elu(x, alpha) on a DST tile; alpha is passed as its f32 bit pattern */                        \
  X(elu_tile_init, "elu_tile_init", "", void, init, "api/compute/eltwise_unary/elu.h")             \
  X(elu_tile, "elu_tile", "slot int", void, writes, "api/compute/eltwise_unary/elu.h")             \
  /* SFPU binary ops between two DST tiles (dst0, dst1, odst) */                                   \
  X(add_binary_tile_init, "add_binary_tile_init", "", void, init,                                  \
    "api/compute/eltwise_binary_sfpu.h")                                                           \
  X(add_binary_tile, "add_binary_tile", "slot slot slot", void, writes,                            \
    "api/compute/eltwise_binary_sfpu.h")                                                           \
  X(sub_binary_tile_init, "sub_binary_tile_init", "", void, init,                                  \
    "api/compute/eltwise_binary_sfpu.h")                                                           \
  X(sub_binary_tile, "sub_binary_tile", "slot slot slot", void, writes,                            \
    "api/compute/eltwise_binary_sfpu.h")                                                           \
  X(mul_binary_tile_init, "mul_binary_tile_init", "", void, init,                                  \
    "api/compute/eltwise_binary_sfpu.h")                                                           \
  X(mul_binary_tile, "mul_binary_tile", "slot slot slot", void, writes,                            \
    "api/compute/eltwise_binary_sfpu.h")                                                           \
  X(binary_max_tile_init, "binary_max_tile_init", "", void, init, "api/compute/binary_max_min.h")  \
  X(binary_max_tile, "binary_max_tile", "slot slot slot", void, writes,                            \
    "api/compute/binary_max_min.h")                                                                \
  X(binary_min_tile_init, "binary_min_tile_init", "", void, init, "api/compute/binary_max_min.h")  \
  X(eq_binary_tile_init, "eq_binary_tile_init", "", void, init,                                    \
    "api/compute/eltwise_binary_sfpu.h")                                                           \
  X(ne_binary_tile_init, "ne_binary_tile_init", "", void, init,                                    \
    "api/compute/eltwise_binary_sfpu.h")                                                           \
  X(lt_binary_tile_init, "lt_binary_tile_init", "", void, init,                                    \
    "api/compute/eltwise_binary_sfpu.h")                                                           \
  X(gt_binary_tile_init, "gt_binary_tile_init", "", void, init,                                    \
    "api/compute/eltwise_binary_sfpu.h")                                                           \
  X(le_binary_tile_init, "le_binary_tile_init", "", void, init,                                    \
    "api/compute/eltwise_binary_sfpu.h")                                                           \
  X(ge_binary_tile_init, "ge_binary_tile_init", "", void, init,                                    \
    "api/compute/eltwise_binary_sfpu.h")                                                           \
  X(eq_binary_tile, "eq_binary_tile", "slot slot slot", void, writes,                              \
    "api/compute/eltwise_binary_sfpu.h")                                                           \
  X(ne_binary_tile, "ne_binary_tile", "slot slot slot", void, writes,                              \
    "api/compute/eltwise_binary_sfpu.h")                                                           \
  X(lt_binary_tile, "lt_binary_tile", "slot slot slot", void, writes,                              \
    "api/compute/eltwise_binary_sfpu.h")                                                           \
  X(gt_binary_tile, "gt_binary_tile", "slot slot slot", void, writes,                              \
    "api/compute/eltwise_binary_sfpu.h")                                                           \
  X(le_binary_tile, "le_binary_tile", "slot slot slot", void, writes,                              \
    "api/compute/eltwise_binary_sfpu.h")                                                           \
  X(ge_binary_tile, "ge_binary_tile", "slot slot slot", void, writes,                              \
    "api/compute/eltwise_binary_sfpu.h")                                                           \
  X(where_tile_init, "where_tile_init", "", void, init, "api/compute/eltwise_unary/where.h")       \
  /* exp_tile<true>: tt-llk's approximate exp (ClampToNegative), @options(exp_approx_mode) */      \
  X(exp_tile_approx, "exp_tile.approx", "slot", void, writes, "api/compute/eltwise_unary/exp.h")   \
  X(exp_tile_init_approx, "exp_tile_init.approx", "", void, init,                                  \
    "api/compute/eltwise_unary/exp.h")                                                             \
  /* exp_tile<true, false, InputClamping::None, 32>(i, VectorMode::None): tt-llk's unclamped */    \
  /* approximate exp over the tile's 32 rows at once, for an argument proved <= 0 */               \
  /* (prove_nonpositive.cpp); its packs run with the packer's ReLU (guard_fast_exp.cpp) */         \
  X(exp_tile_approx_noclamp, "exp_tile.approx_noclamp", "slot", void, writes,                      \
    "api/compute/eltwise_unary/exp.h")                                                             \
  X(exp_tile_init_approx_noclamp, "exp_tile_init.approx_noclamp", "", void, init,                  \
    "api/compute/eltwise_unary/exp.h")                                                             \
  /* pack.h pack_relu_config(ReluType::ZERO_RELU) / (ReluType::NO_RELU): the packer's ReLU */      \
  X(pack_relu_on, "pack_relu_config.zero_relu", "", void, init, "")                                \
  X(pack_relu_off, "pack_relu_config.no_relu", "", void, init, "")                                 \
  /* exp_tile / recip_tile on VectorMode::C (faces 0 and 2): a value read only in column 0         \
     (lowering/tt/column_zero_reads.hpp) */                                                        \
  X(exp_tile_col, "exp_tile.col", "slot", void, writes, "api/compute/eltwise_unary/exp.h")         \
  X(recip_tile_col, "recip_tile.col", "slot", void, writes, "api/compute/eltwise_unary/recip.h")   \
  /* the same with the input's scale folded into the init's constants (fold-scale): the call's int \
     and the init's are the scale's fp32 bits as a compile-time value: exp_tile_init<true, bits>   \
   */                                                                                              \
  X(exp_tile_approx_scaled, "exp_tile.approx_scaled", "slot int", void, writes,                    \
    "api/compute/eltwise_unary/exp.h")                                                             \
  X(exp_tile_init_approx_scaled, "exp_tile_init.approx_scaled", "int", void, init,                 \
    "api/compute/eltwise_unary/exp.h")                                                             \
  /* the unclamped 32-row form with the scale folded into its init (fold-scale and            */   \
  /* prove_nonpositive together): exp_tile_init<true, bits, InputClamping::None>             */    \
  X(exp_tile_approx_noclamp_scaled, "exp_tile.approx_noclamp_scaled", "slot int", void, writes,    \
    "api/compute/eltwise_unary/exp.h")                                                             \
  X(exp_tile_init_approx_noclamp_scaled, "exp_tile_init.approx_noclamp_scaled", "int", void, init, \
    "api/compute/eltwise_unary/exp.h")                                                             \
  X(where_tile, "where_tile", "dformat slot slot slot slot", void, writes,                         \
    "api/compute/eltwise_unary/where.h")                                                           \
  /* CPU element forms of the masks: 1.0 where the comparison holds, else 0.0; a select */         \
  X(f32_lt, "f32.lt", "f32 f32", f32, pure, "")                                                    \
  X(f32_le, "f32.le", "f32 f32", f32, pure, "")                                                    \
  X(f32_gt, "f32.gt", "f32 f32", f32, pure, "")                                                    \
  X(f32_ge, "f32.ge", "f32 f32", f32, pure, "")                                                    \
  X(f32_eq, "f32.eq", "f32 f32", f32, pure, "")                                                    \
  X(f32_ne, "f32.ne", "f32 f32", f32, pure, "")                                                    \
  X(f32_where, "f32.where", "f32 f32 f32", f32, pure, "")                                          \
  X(f32_elu, "f32.elu", "f32 f32", f32, pure, "") /* CPU element form of elu(x, alpha) */          \
  X(binary_min_tile, "binary_min_tile", "slot slot slot", void, writes,                            \
    "api/compute/binary_max_min.h")                                                                \
  /* ---- TT chain: abstract tile streams, lowered by insert-cb-protocol ---- */                   \
  X(df_read_tile, "df.read_tile", "cb src int", void, writes, "")   /* reader: page -> cb */       \
  X(df_write_tile, "df.write_tile", "cb dst int", void, writes, "") /* writer: cb -> page */       \
  X(df_scaler_tile, "df.scaler_tile", "cb int", void, writes, "")   /* reader: one scaler tile */  \
  /* reader: the tile of tril(i, j) / triu(i, j) in the CB's format; the int is 32 * (j - i) */    \
  X(df_tril_tile, "df.tril_tile", "cb dformat int", void, writes, "")                              \
  X(df_triu_tile, "df.triu_tile", "cb dformat int", void, writes, "")                              \
  /* blocks of pages: (cb, tensor, first page, rows, cols, row stride, column stride (in pages),   \
     valid rows, valid cols, CB pages): page (r, c) of the block is page first + r * row stride +  \
     c * column stride of the tensor (column stride 1: rows of consecutive pages; K: a block of    \
     B^T) and rows x cols pages, row-major, at the front of a window of `CB pages` reserved        \
     (waited for) at once; the pages past the valid ones are left as they are (a block over the    \
     edge of the tensor), and so are those past the block */                                       \
  X(df_read_block, "df.read_block", "cb src int int int int int int int const", void, writes, "")  \
  X(df_write_block, "df.write_block", "cb dst int int int int int int int const", void, writes,    \
    "")                                                                                            \
  /* a df.read_block every core of a grid row (column) makes alike: the row's first core reads     \
     it and multicasts it to the others (multicast-reads; insert-cb-protocol writes the            \
     handshake). After the block's ten: this core sends (0 / 1), the receivers' NoC rectangle      \
     (x0, y0, x1, y1), their number, the sender's NoC x and y, the semaphore ids the receivers     \
     raise when ready and the sender sets when the block has landed */                             \
  /* compute: the tile at index `int` of the CB's waited front, which holds a row kept in L1       \
     (keep-rows); select-tile-ops reads it in place, without a wait or a pop of its own */         \
  X(cb_tile, "cb.tile", "cb int", tile, reads, "")                                                 \
  /* compute: waits until the CB's front holds `int` pages (cb_wait_front, which counts from       \
     the front: a count that grows as a kept row arrives, without a pop of its own; the row's      \
     one cb_wait_front of its window and its pop balance the reader's pushes) */                   \
  X(cb_wait_upto, "cb.wait_upto", "cb int", void, writes, "")                                      \
  X(df_mcast_block, "df.mcast_block",                                                              \
    "cb src int int int int int int int const int int int int int int int int int int", void,      \
    writes, "")                                                                                    \
  /* a worker core's NoC coordinates from its logical ones (host: worker_core_from_logical_core)   \
   */                                                                                              \
  X(tt_noc_x, "tt.noc_x", "int int", u32, pure, "")                                                \
  X(tt_noc_y, "tt.noc_y", "int int", u32, pure, "")                                                \
  /* the blocked matmul's rule (include/tilekit/matmul_blocks.hpp), on the host: field (0 rows,    \
     1 cols, 2 depth), Mt, Kt, Nt, grid x, grid y, sub-block rows, cols, CB capacities (A, B,      \
     partials) in tiles, costs (a product, a partial sum's round trip, in cycles; a multicast's    \
     and the DRAM's bytes per cycle; a page of A and of B; a core's read bytes per cycle; a K      \
     step's latency; a page of C; a core's write bytes per cycle), the block @options fixes (rows, \
     cols; 0 and 0 for the rule's) */                                                              \
  X(tt_matmul_block, "tt.matmul_block",                                                            \
    "const int int int const const const const const const const const const const const const "   \
    "const const const const const const const",                                                   \
    i32, pure, "")                                                                                 \
  /* the Q chunk rule (include/tilekit/q_chunk.hpp), on the host: H, St, Dt, then its limits       \
     (tk::tt_host::q_chunk_limits): the cores, the Q window's pages, the largest chunk, a page's   \
     bytes, one NoC's DRAM bytes per 1000 cycles, the key tiles of a chunk step, then for q = 1,   \
     2, 4, 8 the cycles (fixed, per tile of D) of the item, a chunk, a single, a diagonal step */  \
  X(tt_q_chunk, "tt.q_chunk",                                                                      \
    "int int int const const const const const const const const const const const const const "   \
    "const const const const const const const const const const const const const const const "   \
    "const const const const const const const const const const",                                 \
    i32, pure, "")                                                                                 \
  /* a scale folded into exp_tile_init<true, scale> (fold-scale), on the host: its fp32 bits, or a \
     run-time error when it is not > 0 (include/tilekit/tt_host.hpp, exp_scale_bits) */            \
  X(tt_exp_scale_bits, "tt.exp_scale_bits", "f32", u32, pure, "")                                  \
  /* the reduce scaler tile at an L1 address: a packed bf16 pair in row 0 of each face */          \
  X(fill_scaler_tile, "fill_scaler_tile", "int int", void, writes, "")                             \
  /* a tril / triu tile at an L1 address (reader template): 1.0 where row - column >= (<=) the     \
     int, 0.0 elsewhere, in the face layout */                                                     \
  X(fill_tril_tile, "fill_tril_tile", "dformat int int", void, writes, "")                         \
  X(fill_triu_tile, "fill_triu_tile", "dformat int int", void, writes, "")                         \
  /* exp(x * f) for a run-time f > 0 (TT, fold-scale, exp_approx_mode): exp_tile<true> with f in   \
     its init's constants (select-tile-ops: exp_tile.approx_scaled) */                             \
  X(tile_exp_scaled, "tile.exp_scaled", "tile f32", tile, pure, "")                                \
  /* ---- rows of tiles (both chains): a row of n tiles; tile d of it; the row with tile d         \
     replaced, only as `o = row.set(o, d, t)` (an update in place: the verifier checks it) ---- */ \
  X(row_alloc, "row.alloc", "int", row, pure, "")                                                  \
  X(row_get, "row.get", "row int", tile, pure, "")                                                 \
  X(row_set, "row.set", "row int tile", row, pure, "")                                             \
  /* ---- CPU chain: elements of a tensor (row, col in elements) and f32 math ---- */              \
  X(elem_load, "elem.load", "src int int", f32, reads, "")                                         \
  X(elem_store, "elem.store", "dst int int f32", void, writes, "")                                 \
  /* ---- CPU chain: fp32 tile buffers, runtime tile helpers, the packed matmul ---- */            \
  X(cpu_tile, "cpu.tile", "", tile, pure, "")                                                      \
  X(cpu_load_tile, "cpu.load_tile", "src int int tile", void, writes, "")                          \
  X(cpu_store_tile, "cpu.store_tile", "tile dst int int", void, writes, "")                        \
  X(cpu_load_batch_tile, "cpu.load_batch_tile", "src int int int tile", void, writes, "")          \
  X(cpu_store_batch_tile, "cpu.store_batch_tile", "tile dst int int int", void, writes, "")        \
  X(cpu_tile_get, "cpu.tile_get", "tile int int", f32, reads, "")                                  \
  X(cpu_tile_set, "cpu.tile_set", "tile int int f32", void, writes, "")                            \
  /* tile d of a row copied into a tile buffer, and a tile buffer copied into tile d of a row */   \
  X(cpu_row_get, "cpu.row_get", "row int tile", void, writes, "")                                  \
  X(cpu_row_set, "cpu.row_set", "row int tile", void, writes, "")                                  \
  X(cpu_rowsum, "cpu.rowsum", "tile tile", void, writes, "")                                       \
  X(cpu_rowmax, "cpu.rowmax", "tile tile", void, writes, "")                                       \
  X(cpu_colsum, "cpu.colsum", "tile tile", void, writes, "")                                       \
  X(cpu_colmax, "cpu.colmax", "tile tile", void, writes, "")                                       \
  /* c += a @ b on tile buffers (a matmul outside the packed pattern), the gemm's micro-kernel */  \
  X(cpu_tile_matmul_acc, "cpu.tile_matmul_acc", "tile tile tile", void, writes, "")                \
  /* its A packed once for several products (p @ V[h, j, d] over d), then each product */          \
  X(cpu_pack_tile_a, "cpu.pack_tile_a", "tile tile", void, writes, "")                             \
  X(cpu_packed_tile_matmul_acc, "cpu.packed_tile_matmul_acc", "tile tile tile", void, writes, "")  \
  X(cpu_pack_a, "cpu.pack_a", "src", void, writes, "")                                             \
  X(cpu_pack_b, "cpu.pack_b", "src", void, writes, "")                                             \
  /* transpose(T) packed as a gemm's B (A @ transpose(T)): the same variable as cpu.pack_b */      \
  X(cpu_pack_bt, "cpu.pack_bt", "src", void, writes, "")                                           \
  /* B packed whole, never deferred: no loop over it goes a column block at a time */              \
  X(cpu_pack_b_whole, "cpu.pack_b_whole", "src", void, writes, "")                                 \
  /* tile (row, k) of a materialised value stored straight into its packed-A form */               \
  X(cpu_store_packed_a, "cpu.store_packed_a", "tile dst int int", void, writes, "")                \
  X(cpu_gemm_tile, "cpu.gemm_tile", "src src int int tile", void, writes, "")                      \
  /* the batched form: A's matrix, B's matrix (0 for a rank-2 operand), then as above */           \
  X(cpu_gemm_batch_tile, "cpu.gemm_batch_tile", "src int src int int int tile", void, writes, "")  \
  /* work item -> output tile (row, col) in the order that keeps the packed B in L2 */             \
  X(cpu_gemm_row, "cpu.gemm_row", "src src int", i32, pure, "")                                    \
  X(cpu_gemm_col, "cpu.gemm_col", "src src int", i32, pure, "")                                    \
  /* a tile-parallel loop over n work items, a unit at a time: how many, and unit u's items */     \
  X(cpu_gemm_units, "cpu.gemm_units", "src src int", i32, pure, "")                                \
  X(cpu_gemm_unit_begin, "cpu.gemm_unit_begin", "src src int int", i32, pure, "")                  \
  X(cpu_gemm_unit_size, "cpu.gemm_unit_size", "src src int int", i32, pure, "")                    \
  /* tile rows per block of a loop over blocks of rows: at least n, every thread a block */

// The intrinsics one op table row declares, as rows of an X macro that must be named TK_X (expand
// `TK_TILE_OPS(TK_IR_OP_INTRINSICS)` right after `TK_IR_INTRINSICS(TK_X)`): `tile.<op>` for
// every op; for a unary op also its TT call (in place on one DST slot), the call's init and the
// CPU element function `f32.<op>`.
#define TK_IR_OP_INTRINSICS(op, surface, args, kind, tt_call, tt_init, header, fn, body)           \
  TK_X(tile_##op, "tile." #op, args, tile, pure, "")                                               \
  TK_OPS_UNARY(kind, TK_X(tt_call, #tt_call, "slot", void, writes, header)                         \
                         TK_X(tt_init, #tt_init, "", void, init, header)                           \
                             TK_X(f32_##op, "f32." #op, "f32", f32, pure, ""))

enum class Intrinsic : std::uint16_t {
#define TK_X(e, name, args, result, effect, header) e,
  TK_IR_INTRINSICS(TK_X) TK_TILE_OPS(TK_IR_OP_INTRINSICS)
#undef TK_X
};

enum class ArgKind : std::uint8_t {
  int_,
  slot,
  const_,
  f32,
  tile,
  cb,
  tensor,
  src,
  dst,
  pool,
  rdim,
  bcast,
  binop,
  dformat,
  row
};
enum class ResultKind : std::uint8_t { void_, i32, u32, f32, tile, row };
enum class Effect : std::uint8_t { pure, reads, writes, init };

struct IntrinsicInfo {
  std::string_view name;
  std::span<const ArgKind> args;
  ResultKind result;
  Effect effect;
  std::string_view header; // the SDK header of a TT compute call, or ""
};

const IntrinsicInfo& info(Intrinsic);
std::string_view to_string(Intrinsic);
std::string_view to_string(ArgKind);
std::optional<Intrinsic> intrinsic_from_string(std::string_view);
std::span<const Intrinsic> all_intrinsics();

// ---- the op table's view of the intrinsics ------------------------------------------------------
/// `tile.<op>`.
Intrinsic tile_intrinsic(ops::Op);
/// The op of a `tile.*` intrinsic; nullopt for any other intrinsic.
std::optional<ops::Op> op_of(Intrinsic);
/// The TT compute call an op is selected to when it is one SFPU call in place on a DST slot
/// (kinds unary and scalar), and that call's init; nullopt for every other op.
std::optional<Intrinsic> tt_call(ops::Op);
std::optional<Intrinsic> tt_init(ops::Op);
/// `f32.<op>`, the CPU element function of a unary op; nullopt for every other op.
std::optional<Intrinsic> f32_intrinsic(ops::Op);

// ---- symbolic constants (template arguments of TT compute ops) ----------------------------------
// X(enumerator, group, name): printed as `group::name`, e.g. `PoolType::SUM`.
#define TK_IR_ENUM_CONSTS(X)                                                                       \
  X(pool_sum, PoolType, SUM)                                                                       \
  X(pool_avg, PoolType, AVG)                                                                       \
  X(pool_max, PoolType, MAX)                                                                       \
  X(pool_min, PoolType, MIN)                                                                       \
  X(reduce_row, ReduceDim, REDUCE_ROW)                                                             \
  X(reduce_col, ReduceDim, REDUCE_COL)                                                             \
  X(reduce_scalar, ReduceDim, REDUCE_SCALAR)                                                       \
  X(bcast_row, BroadcastType, ROW)                                                                 \
  X(bcast_col, BroadcastType, COL)                                                                 \
  X(bcast_scalar, BroadcastType, SCALAR)                                                           \
  X(elw_add, EltwiseBinaryType, ELWADD)                                                            \
  X(elw_sub, EltwiseBinaryType, ELWSUB)                                                            \
  X(elw_mul, EltwiseBinaryType, ELWMUL)                                                            \
  X(df_float32, DataFormat, Float32)                                                               \
  X(df_float16_b, DataFormat, Float16_b)

enum class EnumConst : std::uint8_t {
#define TK_X(e, group, name) e,
  TK_IR_ENUM_CONSTS(TK_X)
#undef TK_X
};

std::string_view to_string(EnumConst); // "PoolType::SUM"
std::optional<EnumConst> enum_const_from_string(std::string_view);
/// The argument kind an enum constant satisfies (pool, rdim, bcast or binop).
ArgKind arg_kind_of(EnumConst);
std::span<const EnumConst> all_enum_consts();

} // namespace tk::ir
