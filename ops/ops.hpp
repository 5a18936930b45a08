// The op table: every tile operation of the language, one row each, with everything the compiler
// knows about it. The DSL builtins, the tile-IR intrinsics `tile.<op>`, the TT compute calls of
// the SFPU element-wise ops with their inits and SDK headers, and the CPU element functions are
// all derived from this table; nothing else lists the ops. docs/ops.md explains the columns and
// how to add an op.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

// X(op, surface, args, kind, tt_call, tt_init, tt_header, cpu_fn, cpu_body)
//   op        the name: the DSL builtin `op(...)` when surface is call, the IR intrinsic `tile.op`
//   surface   call: a builtin function of the language; infix: written as an operator (+ - * @);
//             internal: made by to-tile-ir only (a scalar operand, the accumulating matmul)
//   args      the operands of `tile.op` in the IR: tile, f32 or int (a tile index: a loop variable,
//             optionally plus or minus an integer, or an integer), space-separated (the DSL arity
//             is their count)
//   kind      unary: element-wise, one tile -> one tile, one SFPU call in place on a DST slot;
//             scalar: tile op f32 scalar, an SFPU call in place with the scalar's f32 bits (as a
//             builtin, elu(x, alpha), the scalar is its second argument);
//             binary, reduce, broadcast, matmul, constant, transpose, compare (a mask: 1.0
//             where it holds, 0.0 elsewhere), select, position (a 0/1 tile that depends only on
//             the tile's position, given by its int operands: tril, triu): lowered by their own
//             rules
//             (lowering/tt/select_tile_ops_rules.cpp, lowering/cpu/lower_elementwise.cpp)
//   tt_call   unary: the TT compute call `tt_call(dst_slot)`, declared by this row (fixed extra
//             arguments, softplus_tile's beta, 1/beta and threshold, are spelled by the TT
//             compute template's `calls`); scalar and compare: the TT intrinsic it selects
//             (declared in lowering/ir/intrinsics.hpp); others: _
//   tt_init   the init that must run before tt_call (same rules); others: _
//   tt_header unary: the SDK header declaring tt_call and tt_init; others: ""
//   cpu_fn    unary: a C++ function of one float the CPU target calls (e.g. std::exp), or ""
//   cpu_body  unary when cpu_fn is "": the body of `float tk_<op>(float x)` as a C++ expression
#define TK_TILE_OPS(X)                                                                             \
  X(add, infix, "tile tile", binary, _, _, "", "", "")                                             \
  X(sub, infix, "tile tile", binary, _, _, "", "", "")                                             \
  X(mul, infix, "tile tile", binary, _, _, "", "", "")                                             \
  X(add_scalar, internal, "tile f32", scalar, add_unary_tile, binop_with_scalar_tile_init, "", "", \
    "")                                                                                            \
  X(sub_scalar, internal, "tile f32", scalar, sub_unary_tile, binop_with_scalar_tile_init, "", "", \
    "")                                                                                            \
  X(rsub_scalar, internal, "tile f32", scalar, rsub_unary_tile, binop_with_scalar_tile_init, "",   \
    "", "")                                                                                        \
  X(mul_scalar, internal, "tile f32", scalar, mul_unary_tile, binop_with_scalar_tile_init, "", "", \
    "")                                                                                            \
  X(matmul, infix, "tile tile", matmul, _, _, "", "", "")                                          \
  X(matmul_acc, internal, "tile tile tile", matmul, _, _, "", "", "")                              \
  X(exp, call, "tile", unary, exp_tile, exp_tile_init, "api/compute/eltwise_unary/exp.h",          \
    "std::exp", "")                                                                                \
  X(log, call, "tile", unary, log_tile, log_tile_init, "api/compute/compute_kernel_api.h",         \
    "std::log", "")                                                                                \
  X(sqrt, call, "tile", unary, sqrt_tile, sqrt_tile_init, "api/compute/eltwise_unary/sqrt.h",      \
    "std::sqrt", "")                                                                               \
  X(recip, call, "tile", unary, recip_tile, recip_tile_init, "api/compute/eltwise_unary/recip.h",  \
    "", "1.0f / x")                                                                                \
  X(rsqrt, call, "tile", unary, rsqrt_tile, rsqrt_tile_init, "api/compute/eltwise_unary/rsqrt.h",  \
    "", "1.0f / std::sqrt(x)")                                                                     \
  X(relu, call, "tile", unary, relu_tile, relu_tile_init, "api/compute/eltwise_unary/relu.h", "",  \
    "x > 0.0f ? x : 0.0f")                                                                         \
  X(gelu, call, "tile", unary, gelu_tile, gelu_tile_init, "api/compute/eltwise_unary/gelu.h", "",  \
    "0.5f * x * (1.0f + tk::cpu::erf_approx(x * 0.70710678118654752f))")                           \
  X(sigmoid, call, "tile", unary, sigmoid_tile, sigmoid_tile_init,                                 \
    "api/compute/compute_kernel_api.h", "", "1.0f / (1.0f + std::exp(-x))")                        \
  X(tanh, call, "tile", unary, tanh_tile, tanh_tile_init, "api/compute/compute_kernel_api.h",      \
    "std::tanh", "")                                                                               \
  X(abs, call, "tile", unary, abs_tile, abs_tile_init, "api/compute/compute_kernel_api.h",         \
    "std::fabs", "")                                                                               \
  X(neg, call, "tile", unary, negative_tile, negative_tile_init,                                   \
    "api/compute/eltwise_unary/negative.h", "", "-x")                                              \
  X(square, call, "tile", unary, square_tile, square_tile_init,                                    \
    "api/compute/compute_kernel_api.h", "", "x * x")                                               \
  X(silu, call, "tile", unary, silu_tile, silu_tile_init, "api/compute/compute_kernel_api.h", "",  \
    "x / (1.0f + std::exp(-x))")                                                                   \
  X(erf, call, "tile", unary, erf_tile, erf_tile_init, "api/compute/eltwise_unary/erf_erfc.h",     \
    "std::erf", "")                                                                                \
  X(hardsigmoid, call, "tile", unary, hardsigmoid_tile, hardsigmoid_tile_init,                     \
    "api/compute/eltwise_unary/activations.h", "", "std::clamp(x / 6.0f + 0.5f, 0.0f, 1.0f)")      \
  X(exp2, call, "tile", unary, exp2_tile, exp2_tile_init, "api/compute/compute_kernel_api.h",      \
    "std::exp2", "")                                                                               \
  X(log1p, call, "tile", unary, log1p_tile, log1p_tile_init, "api/compute/eltwise_unary/log1p.h",  \
    "std::log1p", "")                                                                              \
  X(sin, call, "tile", unary, sin_tile, sin_tile_init, "api/compute/eltwise_unary/trigonometry.h", \
    "std::sin", "")                                                                                \
  X(cos, call, "tile", unary, cos_tile, cos_tile_init, "api/compute/eltwise_unary/trigonometry.h", \
    "std::cos", "")                                                                                \
  X(sign, call, "tile", unary, sign_tile, sign_tile_init, "api/compute/compute_kernel_api.h", "",  \
    "x == 0.0f ? 0.0f : (std::signbit(x) ? -1.0f : 1.0f)")                                         \
  X(floor, call, "tile", unary, floor_tile, rounding_op_tile_init,                                 \
    "api/compute/eltwise_unary/rounding.h", "std::floor", "")                                      \
  X(softplus, call, "tile", unary, softplus_tile, softplus_tile_init,                              \
    "api/compute/eltwise_unary/softplus.h", "",                                                    \
    "x < 20.0f ? std::fmax(x, 0.0f) + std::log1p(std::exp(-std::fabs(x))) : x")                    \
  X(elu, call, "tile f32", scalar, elu_tile, elu_tile_init, "", "", "")                            \
  X(max, call, "tile tile", binary, _, _, "", "", "")                                              \
  X(min, call, "tile tile", binary, _, _, "", "", "")                                              \
  X(rowsum, call, "tile", reduce, _, _, "", "", "")                                                \
  X(rowmax, call, "tile", reduce, _, _, "", "", "")                                                \
  X(colsum, call, "tile", reduce, _, _, "", "", "")                                                \
  X(colmax, call, "tile", reduce, _, _, "", "", "")                                                \
  X(bcast_col, call, "tile", broadcast, _, _, "", "", "")                                          \
  X(bcast_row, call, "tile", broadcast, _, _, "", "", "")                                          \
  X(transpose, call, "tile", transpose, _, _, "", "", "")                                          \
  X(lt, infix, "tile tile", compare, lt_binary_tile, lt_binary_tile_init, "", "", "")              \
  X(le, infix, "tile tile", compare, le_binary_tile, le_binary_tile_init, "", "", "")              \
  X(gt, infix, "tile tile", compare, gt_binary_tile, gt_binary_tile_init, "", "", "")              \
  X(ge, infix, "tile tile", compare, ge_binary_tile, ge_binary_tile_init, "", "", "")              \
  X(eq, infix, "tile tile", compare, eq_binary_tile, eq_binary_tile_init, "", "", "")              \
  X(ne, infix, "tile tile", compare, ne_binary_tile, ne_binary_tile_init, "", "", "")              \
  X(where, call, "tile tile tile", select, _, _, "", "", "")                                       \
  X(zeros, call, "", constant, _, _, "", "", "")                                                   \
  X(fill, call, "f32", constant, _, _, "", "", "")                                                 \
  X(tril, call, "int int", position, _, _, "", "", "")                                             \
  X(triu, call, "int int", position, _, _, "", "", "")

// Row filters for the consumers of TK_TILE_OPS: TK_OPS_IF_<word>(...) keeps its arguments when
// <word> is the column value asked for, e.g. `TK_OPS_IF_unary(x)` is `x` and `TK_OPS_IF_reduce(x)`
// is nothing. Use them inside an X macro: `TK_OPS_UNARY(kind, text)`.
#define TK_OPS_KEEP(...) __VA_ARGS__
#define TK_OPS_DROP(...)
#define TK_OPS_UNARY_unary TK_OPS_KEEP
#define TK_OPS_UNARY_scalar TK_OPS_DROP
#define TK_OPS_UNARY_binary TK_OPS_DROP
#define TK_OPS_UNARY_reduce TK_OPS_DROP
#define TK_OPS_UNARY_broadcast TK_OPS_DROP
#define TK_OPS_UNARY_matmul TK_OPS_DROP
#define TK_OPS_UNARY_constant TK_OPS_DROP
#define TK_OPS_UNARY_transpose TK_OPS_DROP
#define TK_OPS_UNARY_compare TK_OPS_DROP
#define TK_OPS_UNARY_select TK_OPS_DROP
#define TK_OPS_UNARY_position TK_OPS_DROP
/// `text` for a row of kind unary, nothing for any other kind.
#define TK_OPS_UNARY(kind, ...) TK_OPS_UNARY_##kind(__VA_ARGS__)
#define TK_OPS_SFPU_unary TK_OPS_KEEP
#define TK_OPS_SFPU_scalar TK_OPS_KEEP
#define TK_OPS_SFPU_binary TK_OPS_DROP
#define TK_OPS_SFPU_reduce TK_OPS_DROP
#define TK_OPS_SFPU_broadcast TK_OPS_DROP
#define TK_OPS_SFPU_matmul TK_OPS_DROP
#define TK_OPS_SFPU_constant TK_OPS_DROP
#define TK_OPS_SFPU_transpose TK_OPS_DROP
#define TK_OPS_SFPU_compare TK_OPS_KEEP
#define TK_OPS_SFPU_select TK_OPS_DROP
#define TK_OPS_SFPU_position TK_OPS_DROP
/// `text` for a row whose TT call and init are SFPU calls it names (kinds unary, scalar and
/// compare), else nothing.
#define TK_OPS_SFPU(kind, ...) TK_OPS_SFPU_##kind(__VA_ARGS__)
#define TK_OPS_CALL_call TK_OPS_KEEP
#define TK_OPS_CALL_infix TK_OPS_DROP
#define TK_OPS_CALL_internal TK_OPS_DROP
/// `text` for a builtin function of the language (surface call), else nothing.
#define TK_OPS_CALL(surface, ...) TK_OPS_CALL_##surface(__VA_ARGS__)

namespace tk::ops {

enum class Op : std::uint8_t {
#define TK_X(op, surface, args, kind, call, init, header, fn, body) op,
  TK_TILE_OPS(TK_X)
#undef TK_X
};

enum class Surface : std::uint8_t { call, infix, internal };
enum class Kind : std::uint8_t {
  unary,
  scalar,
  binary,
  reduce,
  broadcast,
  matmul,
  constant,
  transpose,
  compare,
  select,
  position
};

struct OpInfo {
  std::string_view name;
  Surface surface;
  std::string_view args; // IR operand kinds, e.g. "tile f32"
  int arity;
  Kind kind;
  std::string_view tt_header; // unary: the SDK header of its TT call and init
  std::string_view cpu_fn;    // unary: the C++ function the CPU target calls, or ""
  std::string_view cpu_body;  // unary with no cpu_fn: the body of `float tk_<op>(float x)`
};

const OpInfo& info(Op);
std::string_view to_string(Op);
std::optional<Op> op_from_string(std::string_view); // by name, any surface
std::span<const Op> all_ops();

} // namespace tk::ops
