#include "dsl/ast.hpp"

#include "support/diagnostics.hpp"

namespace tk::dsl {

std::string_view to_string(DType t) {
  return t == DType::bf16 ? "bf16" : t == DType::f32 ? "f32" : "bfp8";
}

std::optional<DType> dtype_from_string(std::string_view s) {
  if (s == "bf16")
    return DType::bf16;
  if (s == "f32")
    return DType::f32;
  if (s == "bfp8")
    return DType::bfp8;
  return std::nullopt;
}

namespace {
constexpr std::string_view kBuiltins[] = {
#define TK_X(op, surface, args, kind, call, init, header, fn, body) TK_OPS_CALL(surface, #op, )
    TK_TILE_OPS(TK_X)
#undef TK_X
};
} // namespace

std::string_view to_string(Builtin b) {
  return b == Builtin::unknown ? "<unknown>" : kBuiltins[static_cast<int>(b)];
}
int arity(Builtin b) {
  return b == Builtin::unknown ? -1 : ops::info(to_op(b)).arity;
}

ops::Op to_op(Builtin b) {
  switch (b) {
#define TK_X(op, surface, args, kind, call, init, header, fn, body)                                \
  TK_OPS_CALL(surface, case Builtin::op : return ops::Op::op;)
    TK_TILE_OPS(TK_X)
#undef TK_X
  case Builtin::unknown:
    break;
  }
  throw InternalError("internal error: to_op of an unresolved builtin");
}

Builtin builtin_from_string(std::string_view s) {
  for (int i = 0; i < static_cast<int>(Builtin::unknown); ++i)
    if (kBuiltins[i] == s)
      return static_cast<Builtin>(i);
  return Builtin::unknown;
}

std::string_view to_string(Type t) {
  switch (t) {
  case Type::index:
    return "index";
  case Type::scalar:
    return "scalar";
  case Type::tile:
    return "tile";
  case Type::unknown:
    break;
  }
  return "unknown";
}

std::string_view to_string(BinOp op) {
  switch (op) {
  case BinOp::add:
    return "+";
  case BinOp::sub:
    return "-";
  case BinOp::mul:
    return "*";
  case BinOp::matmul:
    return "@";
  case BinOp::div:
    return "/";
  case BinOp::lt:
    return "<";
  case BinOp::le:
    return "<=";
  case BinOp::gt:
    return ">";
  case BinOp::ge:
    return ">=";
  case BinOp::eq:
    return "==";
  case BinOp::ne:
    return "!=";
  }
  return "?";
}

bool is_comparison(BinOp op) {
  return op >= BinOp::lt;
}

int precedence(BinOp op) {
  return is_comparison(op) ? 0 : op == BinOp::add || op == BinOp::sub ? 1 : 2;
}

} // namespace tk::dsl
