// The intrinsic table: every operation a Call can name, with its signature. Target-independent
// tile ops (`tile.*`) come from the DSL; the rest are TT-Metalium kernel API primitives
// (docs/ir.md lists the source of each name). Intrinsics are looked up by exact name only.
#pragma once

#include "lowering/ir/types.hpp"

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace tk::ir {

// X(enumerator, printed name, argument kinds, result, effect)
//   argument kinds: int (i32/u32 expression), const (integer immediate), f32, tile, cb, tensor
//                   (a tensor the call neither reads nor writes), src (a tensor it reads: never an
//                   output), dst (a tensor it writes: never an input),
//                   pool (PoolType::*), rdim (ReduceDim::*), bcast (BroadcastType::*),
//                   binop (EltwiseBinaryType::*)
//   result: void, u32, f32, tile (f32 if any tile argument is f32 or there is none, else bf16)
//   effect: pure (value only), reads (reads device state: keep order), writes (statement only)
#define TK_IR_INTRINSICS(X)                                                                        \
  /* ---- target-independent tile ops ---- */                                                      \
  X(tile_add, "tile.add", "tile tile", tile, pure)                                                 \
  X(tile_sub, "tile.sub", "tile tile", tile, pure)                                                 \
  X(tile_mul, "tile.mul", "tile tile", tile, pure)                                                 \
  X(tile_add_scalar, "tile.add_scalar", "tile f32", tile, pure)                                    \
  X(tile_sub_scalar, "tile.sub_scalar", "tile f32", tile, pure)                                    \
  X(tile_rsub_scalar, "tile.rsub_scalar", "tile f32", tile, pure)                                  \
  X(tile_mul_scalar, "tile.mul_scalar", "tile f32", tile, pure)                                    \
  X(tile_matmul, "tile.matmul", "tile tile", tile, pure)                                           \
  X(tile_matmul_acc, "tile.matmul_acc", "tile tile tile", tile, pure)                              \
  X(tile_exp, "tile.exp", "tile", tile, pure)                                                      \
  X(tile_log, "tile.log", "tile", tile, pure)                                                      \
  X(tile_sqrt, "tile.sqrt", "tile", tile, pure)                                                    \
  X(tile_rsqrt, "tile.rsqrt", "tile", tile, pure)                                                  \
  X(tile_recip, "tile.recip", "tile", tile, pure)                                                  \
  X(tile_relu, "tile.relu", "tile", tile, pure)                                                    \
  X(tile_gelu, "tile.gelu", "tile", tile, pure)                                                    \
  X(tile_sigmoid, "tile.sigmoid", "tile", tile, pure)                                              \
  X(tile_tanh, "tile.tanh", "tile", tile, pure)                                                    \
  X(tile_abs, "tile.abs", "tile", tile, pure)                                                      \
  X(tile_neg, "tile.neg", "tile", tile, pure)                                                      \
  X(tile_square, "tile.square", "tile", tile, pure)                                                \
  X(tile_max, "tile.max", "tile tile", tile, pure)                                                 \
  X(tile_min, "tile.min", "tile tile", tile, pure)                                                 \
  X(tile_rowsum, "tile.rowsum", "tile", tile, pure)                                                \
  X(tile_rowmax, "tile.rowmax", "tile", tile, pure)                                                \
  X(tile_colsum, "tile.colsum", "tile", tile, pure)                                                \
  X(tile_colmax, "tile.colmax", "tile", tile, pure)                                                \
  X(tile_bcast_row, "tile.bcast_row", "tile", tile, pure)                                          \
  X(tile_bcast_col, "tile.bcast_col", "tile", tile, pure)                                          \
  X(tile_zeros, "tile.zeros", "", tile, pure)                                                      \
  X(tile_fill, "tile.fill", "f32", tile, pure)                                                     \
  /* ---- helpers with an obvious C++ spelling ---- */                                             \
  X(float_bits, "float_bits", "f32", u32, pure) /* std::bit_cast<uint32_t>(x) */                   \
  /* ---- TT data movement: args, CBs, NoC (dataflow_api.h) ---- */                                \
  X(get_arg_val, "get_arg_val", "const", u32, pure)                                                \
  X(get_common_arg_val, "get_common_arg_val", "const", u32, pure)                                  \
  X(get_compile_time_arg_val, "get_compile_time_arg_val", "const", u32, pure)                      \
  X(tensor_accessor, "tensor_accessor", "tensor const int int", void, writes)                      \
  X(tensor_accessor_chained, "tensor_accessor.chained", "tensor tensor int int", void, writes)     \
  X(cb_reserve_back, "cb_reserve_back", "cb int", void, writes)                                    \
  X(cb_push_back, "cb_push_back", "cb int", void, writes)                                          \
  X(cb_wait_front, "cb_wait_front", "cb int", void, writes)                                        \
  X(cb_pop_front, "cb_pop_front", "cb int", void, writes)                                          \
  X(get_write_ptr, "get_write_ptr", "cb", u32, reads)                                              \
  X(get_read_ptr, "get_read_ptr", "cb", u32, reads)                                                \
  X(get_tile_size, "get_tile_size", "cb", u32, pure)                                               \
  X(noc_async_read_tile, "noc_async_read_tile", "int src int", void, writes)                       \
  X(noc_async_write_tile, "noc_async_write_tile", "int dst int", void, writes)                     \
  X(noc_async_read_page, "noc_async_read_page", "int src int", void, writes)                       \
  X(noc_async_write_page, "noc_async_write_page", "int dst int", void, writes)                     \
  X(noc_async_read_barrier, "noc_async_read_barrier", "", void, writes)                            \
  X(noc_async_write_barrier, "noc_async_write_barrier", "", void, writes)                          \
  X(noc_async_writes_flushed, "noc_async_writes_flushed", "", void, writes)                        \
  /* ---- TT compute: DST, pack, copy (reg_api.h, pack.h, tile_move_copy.h) ---- */                \
  X(tile_regs_acquire, "tile_regs_acquire", "", void, writes)                                      \
  X(tile_regs_commit, "tile_regs_commit", "", void, writes)                                        \
  X(tile_regs_wait, "tile_regs_wait", "", void, writes)                                            \
  X(tile_regs_release, "tile_regs_release", "", void, writes)                                      \
  X(pack_tile, "pack_tile", "int cb", void, writes)                                                \
  X(copy_tile_init, "copy_tile_init", "cb", void, writes)                                          \
  X(copy_tile_to_dst_init_short, "copy_tile_to_dst_init_short", "cb", void, writes)                \
  X(copy_tile, "copy_tile", "cb int int", void, writes)                                            \
  /* ---- TT compute: matmul, FPU binary, broadcast, reduce ---- */                                \
  X(mm_init, "mm_init", "cb cb cb", void, writes)                                                  \
  X(mm_init_short, "mm_init_short", "cb cb", void, writes)                                         \
  X(matmul_tiles, "matmul_tiles", "cb cb int int int", void, writes)                               \
  X(binary_op_init_common, "binary_op_init_common", "cb cb cb", void, writes)                      \
  X(add_tiles_init, "add_tiles_init", "cb cb", void, writes)                                       \
  X(sub_tiles_init, "sub_tiles_init", "cb cb", void, writes)                                       \
  X(mul_tiles_init, "mul_tiles_init", "cb cb", void, writes)                                       \
  X(add_tiles, "add_tiles", "cb cb int int int", void, writes)                                     \
  X(sub_tiles, "sub_tiles", "cb cb int int int", void, writes)                                     \
  X(mul_tiles, "mul_tiles", "cb cb int int int", void, writes)                                     \
  X(compute_kernel_hw_startup, "compute_kernel_hw_startup", "cb cb cb", void, writes)              \
  X(init_bcast, "init_bcast", "binop bcast cb cb cb", void, writes) /* deprecated upstream */      \
  X(bcast_init, "bcast_init", "binop bcast cb cb", void, writes)                                   \
  X(add_bcast_rows_init_short, "add_bcast_rows_init_short", "cb cb", void, writes)                 \
  X(add_bcast_cols_init_short, "add_bcast_cols_init_short", "cb cb", void, writes)                 \
  X(sub_bcast_rows_init_short, "sub_bcast_rows_init_short", "cb cb", void, writes)                 \
  X(sub_bcast_cols_init_short, "sub_bcast_cols_init_short", "cb cb", void, writes)                 \
  X(add_bcast_scalar_init_short, "add_bcast_scalar_init_short", "cb cb", void, writes)             \
  X(mul_bcast_rows_init_short, "mul_bcast_rows_init_short", "cb cb", void, writes)                 \
  X(mul_bcast_cols_init_short, "mul_bcast_cols_init_short", "cb cb", void, writes)                 \
  X(add_tiles_bcast, "add_tiles_bcast", "bcast cb cb int int int", void, writes)                   \
  X(sub_tiles_bcast, "sub_tiles_bcast", "bcast cb cb int int int", void, writes)                   \
  X(mul_tiles_bcast, "mul_tiles_bcast", "bcast cb cb int int int", void, writes)                   \
  X(reduce_init, "reduce_init", "pool rdim cb cb cb", void, writes)                                \
  X(reduce_tile, "reduce_tile", "pool rdim cb cb int int int", void, writes)                       \
  X(reduce_uninit, "reduce_uninit", "", void, writes)                                              \
  /* ---- TT compute: SFPU (in place on a DST tile) ---- */                                        \
  X(init_sfpu, "init_sfpu", "cb cb", void, writes)                                                 \
  X(unary_op_init_common, "unary_op_init_common", "cb cb", void, writes)                           \
  X(exp_tile_init, "exp_tile_init", "", void, writes)                                              \
  X(exp_tile, "exp_tile", "int", void, writes)                                                     \
  X(log_tile_init, "log_tile_init", "", void, writes)                                              \
  X(log_tile, "log_tile", "int", void, writes)                                                     \
  X(sqrt_tile_init, "sqrt_tile_init", "", void, writes)                                            \
  X(sqrt_tile, "sqrt_tile", "int", void, writes)                                                   \
  X(rsqrt_tile_init, "rsqrt_tile_init", "", void, writes)                                          \
  X(rsqrt_tile, "rsqrt_tile", "int", void, writes)                                                 \
  X(recip_tile_init, "recip_tile_init", "", void, writes)                                          \
  X(recip_tile, "recip_tile", "int", void, writes)                                                 \
  X(relu_tile_init, "relu_tile_init", "", void, writes)                                            \
  X(relu_tile, "relu_tile", "int", void, writes)                                                   \
  X(gelu_tile_init, "gelu_tile_init", "", void, writes)                                            \
  X(gelu_tile, "gelu_tile", "int", void, writes)                                                   \
  X(sigmoid_tile_init, "sigmoid_tile_init", "", void, writes)                                      \
  X(sigmoid_tile, "sigmoid_tile", "int", void, writes)                                             \
  X(tanh_tile_init, "tanh_tile_init", "", void, writes)                                            \
  X(tanh_tile, "tanh_tile", "int", void, writes)                                                   \
  X(abs_tile_init, "abs_tile_init", "", void, writes)                                              \
  X(abs_tile, "abs_tile", "int", void, writes)                                                     \
  X(negative_tile_init, "negative_tile_init", "", void, writes)                                    \
  X(negative_tile, "negative_tile", "int", void, writes)                                           \
  X(square_tile_init, "square_tile_init", "", void, writes)                                        \
  X(square_tile, "square_tile", "int", void, writes)                                               \
  X(fill_tile_init, "fill_tile_init", "", void, writes)                                            \
  X(fill_tile, "fill_tile", "int f32", void, writes)                                               \
  /* scalar binops on a DST tile; the scalar is passed as its f32 bit pattern */                   \
  X(binop_with_scalar_tile_init, "binop_with_scalar_tile_init", "", void, writes)                  \
  X(add_unary_tile, "add_unary_tile", "int int", void, writes)                                     \
  X(sub_unary_tile, "sub_unary_tile", "int int", void, writes)                                     \
  X(rsub_unary_tile, "rsub_unary_tile", "int int", void, writes)                                   \
  X(mul_unary_tile, "mul_unary_tile", "int int", void, writes)                                     \
  /* SFPU binary ops between two DST tiles (dst0, dst1, odst) */                                   \
  X(add_binary_tile_init, "add_binary_tile_init", "", void, writes)                                \
  X(add_binary_tile, "add_binary_tile", "int int int", void, writes)                               \
  X(sub_binary_tile_init, "sub_binary_tile_init", "", void, writes)                                \
  X(sub_binary_tile, "sub_binary_tile", "int int int", void, writes)                               \
  X(mul_binary_tile_init, "mul_binary_tile_init", "", void, writes)                                \
  X(mul_binary_tile, "mul_binary_tile", "int int int", void, writes)                               \
  X(binary_max_tile_init, "binary_max_tile_init", "", void, writes)                                \
  X(binary_max_tile, "binary_max_tile", "int int int", void, writes)                               \
  X(binary_min_tile_init, "binary_min_tile_init", "", void, writes)                                \
  X(binary_min_tile, "binary_min_tile", "int int int", void, writes)                               \
  /* ---- TT chain: abstract tile streams, lowered by insert-cb-protocol ---- */                   \
  X(df_read_tile, "df.read_tile", "cb src int", void, writes)   /* reader: page -> cb */           \
  X(df_write_tile, "df.write_tile", "cb dst int", void, writes) /* writer: cb -> page */           \
  X(df_scaler_tile, "df.scaler_tile", "cb int", void, writes)   /* reader: one scaler tile */      \
  /* the reduce scaler tile at an L1 address: a packed bf16 pair in row 0 of each face */          \
  X(fill_scaler_tile, "fill_scaler_tile", "int int", void, writes)                                 \
  /* ---- CPU chain: elements of a tensor (row, col in elements) and f32 math ---- */              \
  X(elem_load, "elem.load", "src int int", f32, reads)                                             \
  X(elem_store, "elem.store", "dst int int f32", void, writes)                                     \
  X(f32_exp, "f32.exp", "f32", f32, pure)                                                          \
  X(f32_log, "f32.log", "f32", f32, pure)                                                          \
  X(f32_sqrt, "f32.sqrt", "f32", f32, pure)                                                        \
  X(f32_rsqrt, "f32.rsqrt", "f32", f32, pure)                                                      \
  X(f32_recip, "f32.recip", "f32", f32, pure)                                                      \
  X(f32_relu, "f32.relu", "f32", f32, pure)                                                        \
  X(f32_gelu, "f32.gelu", "f32", f32, pure)                                                        \
  X(f32_sigmoid, "f32.sigmoid", "f32", f32, pure)                                                  \
  X(f32_tanh, "f32.tanh", "f32", f32, pure)                                                        \
  X(f32_abs, "f32.abs", "f32", f32, pure)                                                          \
  X(f32_neg, "f32.neg", "f32", f32, pure)                                                          \
  X(f32_square, "f32.square", "f32", f32, pure)                                                    \
  /* ---- CPU chain: fp32 tile buffers, runtime tile helpers, the packed matmul ---- */            \
  X(cpu_tile, "cpu.tile", "", tile, pure)                                                          \
  X(cpu_load_tile, "cpu.load_tile", "src int int tile", void, writes)                              \
  X(cpu_store_tile, "cpu.store_tile", "tile dst int int", void, writes)                            \
  X(cpu_tile_get, "cpu.tile_get", "tile int int", f32, reads)                                      \
  X(cpu_tile_set, "cpu.tile_set", "tile int int f32", void, writes)                                \
  X(cpu_rowsum, "cpu.rowsum", "tile tile", void, writes)                                           \
  X(cpu_rowmax, "cpu.rowmax", "tile tile", void, writes)                                           \
  X(cpu_colsum, "cpu.colsum", "tile tile", void, writes)                                           \
  X(cpu_colmax, "cpu.colmax", "tile tile", void, writes)                                           \
  X(cpu_pack_a, "cpu.pack_a", "src", void, writes)                                                 \
  X(cpu_pack_b, "cpu.pack_b", "src", void, writes)                                                 \
  X(cpu_gemm_tile, "cpu.gemm_tile", "src src int int tile", void, writes)

enum class Intrinsic : std::uint16_t {
#define TK_X(e, name, args, result, effect) e,
  TK_IR_INTRINSICS(TK_X)
#undef TK_X
};

enum class ArgKind : std::uint8_t {
  int_,
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
  binop
};
enum class ResultKind : std::uint8_t { void_, u32, f32, tile };
enum class Effect : std::uint8_t { pure, reads, writes };

struct IntrinsicInfo {
  std::string_view name;
  std::span<const ArgKind> args;
  ResultKind result;
  Effect effect;
};

const IntrinsicInfo& info(Intrinsic);
std::string_view to_string(Intrinsic);
std::string_view to_string(ArgKind);
std::optional<Intrinsic> intrinsic_from_string(std::string_view);
std::span<const Intrinsic> all_intrinsics();

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
  X(elw_mul, EltwiseBinaryType, ELWMUL)

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
