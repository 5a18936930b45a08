// The keys the SDK mirror's compute headers pass to op_init / op_call (tk_emulator/op_inits.hpp):
// what an init configures the unpacker and the math thread for, by its template arguments.
#pragma once

#include "llk_defs.h"

namespace tk::rt::emu::op_keys {

inline constexpr int bcast_index(BroadcastType t) {
  return t == BroadcastType::COL      ? 1
         : t == BroadcastType::ROW    ? 2
         : t == BroadcastType::SCALAR ? 3
                                      : 0;
}
inline constexpr int binary_index(EltwiseBinaryType t) {
  return t == ELWADD ? 0 : t == ELWSUB ? 1 : 2;
}
/// llk_unpack_A_init<bcast>: copy_tile's and unary_bcast's unpacker.
inline constexpr const char* unpack_a(BroadcastType t) {
  constexpr const char* k[] = {"A", "A bcast COL", "A bcast ROW", "A bcast SCALAR"};
  return k[bcast_index(t)];
}
/// llk_math_eltwise_unary_datacopy_init<A2D, ..., bcast>.
inline constexpr const char* datacopy(BroadcastType t) {
  constexpr const char* k[] = {"datacopy", "datacopy bcast COL", "datacopy bcast ROW",
                               "datacopy bcast SCALAR"};
  return k[bcast_index(t)];
}
/// llk_unpack_AB_init<bcast>: the FPU binary ops' unpacker.
inline constexpr const char* unpack_ab(BroadcastType t) {
  constexpr const char* k[] = {"AB", "AB bcast COL", "AB bcast ROW", "AB bcast SCALAR"};
  return k[bcast_index(t)];
}
/// llk_math_eltwise_binary_init<op, bcast>.
inline constexpr const char* binary(EltwiseBinaryType op, BroadcastType t) {
  constexpr const char* k[3][4] = {
      {"ELWADD", "ELWADD bcast COL", "ELWADD bcast ROW", "ELWADD bcast SCALAR"},
      {"ELWSUB", "ELWSUB bcast COL", "ELWSUB bcast ROW", "ELWSUB bcast SCALAR"},
      {"ELWMUL", "ELWMUL bcast COL", "ELWMUL bcast ROW", "ELWMUL bcast SCALAR"}};
  return k[binary_index(op)][bcast_index(t)];
}
/// The init to name in a message about a binary op.
inline constexpr const char* binary_init(EltwiseBinaryType op, BroadcastType t) {
  constexpr const char* k[3][4] = {
      {"add_tiles_init(icb0, icb1)", "add_bcast_cols_init_short(icb0, icb1)",
       "add_bcast_rows_init_short(icb0, icb1)", "add_bcast_scalar_init_short(icb0, icb1)"},
      {"sub_tiles_init(icb0, icb1)", "sub_bcast_cols_init_short(icb0, icb1)",
       "init_bcast<ELWSUB, BroadcastType::ROW>(icb0, icb1, ocb)",
       "sub_tiles_bcast_scalar_init_short(icb0, icb1)"},
      {"mul_tiles_init(icb0, icb1)", "mul_bcast_cols_init_short(icb0, icb1)",
       "mul_bcast_rows_init_short(icb0, icb1)", "mul_tiles_bcast_scalar_init_short(icb0, icb1)"}};
  return k[binary_index(op)][bcast_index(t)];
}
/// llk_unpack_AB_reduce_init<type, dim> and llk_math_reduce_init<type, dim>.
inline constexpr const char* unpack_reduce(ReduceDim d) {
  constexpr const char* k[] = {"AB reduce REDUCE_ROW", "AB reduce REDUCE_COL",
                               "AB reduce REDUCE_SCALAR"};
  return k[static_cast<int>(d)];
}
inline constexpr const char* reduce(PoolType p, ReduceDim d) {
  constexpr const char* k[4][3] = {
      {"reduce SUM REDUCE_ROW", "reduce SUM REDUCE_COL", "reduce SUM REDUCE_SCALAR"},
      {"reduce AVG REDUCE_ROW", "reduce AVG REDUCE_COL", "reduce AVG REDUCE_SCALAR"},
      {"reduce MAX REDUCE_ROW", "reduce MAX REDUCE_COL", "reduce MAX REDUCE_SCALAR"},
      {"reduce MIN REDUCE_ROW", "reduce MIN REDUCE_COL", "reduce MIN REDUCE_SCALAR"}};
  return k[static_cast<int>(p)][static_cast<int>(d)];
}
inline constexpr const char* reduce_init(PoolType p, ReduceDim d) {
  constexpr const char* k[4][3] = {{"reduce_init<PoolType::SUM, ReduceDim::REDUCE_ROW>",
                                    "reduce_init<PoolType::SUM, ReduceDim::REDUCE_COL>",
                                    "reduce_init<PoolType::SUM, ReduceDim::REDUCE_SCALAR>"},
                                   {"reduce_init<PoolType::AVG, ReduceDim::REDUCE_ROW>",
                                    "reduce_init<PoolType::AVG, ReduceDim::REDUCE_COL>",
                                    "reduce_init<PoolType::AVG, ReduceDim::REDUCE_SCALAR>"},
                                   {"reduce_init<PoolType::MAX, ReduceDim::REDUCE_ROW>",
                                    "reduce_init<PoolType::MAX, ReduceDim::REDUCE_COL>",
                                    "reduce_init<PoolType::MAX, ReduceDim::REDUCE_SCALAR>"},
                                   {"reduce_init<PoolType::MIN, ReduceDim::REDUCE_ROW>",
                                    "reduce_init<PoolType::MIN, ReduceDim::REDUCE_COL>",
                                    "reduce_init<PoolType::MIN, ReduceDim::REDUCE_SCALAR>"}};
  return k[static_cast<int>(p)][static_cast<int>(d)];
}
/// unary_bcast_init<bcast>'s name.
inline constexpr const char* unary_bcast_init(BroadcastType t) {
  constexpr const char* k[] = {"unary_bcast_init<BroadcastType::NONE>(icb, ocb)",
                               "unary_bcast_init<BroadcastType::COL>(icb, ocb)",
                               "unary_bcast_init<BroadcastType::ROW>(icb, ocb)",
                               "unary_bcast_init<BroadcastType::SCALAR>(icb, ocb)"};
  return k[bcast_index(t)];
}

} // namespace tk::rt::emu::op_keys
