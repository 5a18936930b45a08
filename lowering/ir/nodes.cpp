#include "lowering/ir/nodes.hpp"

namespace tk::ir {

namespace {
struct BinaryInfo {
  std::string_view spelling;
  int precedence;
};
constexpr BinaryInfo kBinary[] = {
#define TK_X(e, s, p) {s, p},
    TK_IR_BINARY_OPS(TK_X)
#undef TK_X
};

template <class T>
std::shared_ptr<T> make_expr(Type t) {
  auto n = std::make_shared<T>();
  n->kind = NodeKindOf<T>::value;
  n->type = t;
  return n;
}
template <class T>
std::shared_ptr<T> make_stmt(SourceRange loc) {
  auto n = std::make_shared<T>();
  n->kind = NodeKindOf<T>::value;
  n->loc.range = loc;
  return n;
}
} // namespace

std::string_view to_string(BinaryOp op) {
  return kBinary[static_cast<int>(op)].spelling;
}
int precedence(BinaryOp op) {
  return kBinary[static_cast<int>(op)].precedence;
}
bool is_comparison(BinaryOp op) {
  return op >= BinaryOp::lt && op <= BinaryOp::ne;
}
bool is_logical(BinaryOp op) {
  return op == BinaryOp::logical_and || op == BinaryOp::logical_or;
}

Expr int_imm(std::int64_t v, Type t) {
  auto n = make_expr<IntImm>(t);
  n->value = v;
  return n;
}
Expr float_imm(double v) {
  auto n = make_expr<FloatImm>(Type::f32());
  n->value = v;
  return n;
}
Expr enum_imm(EnumConst v) {
  auto n = make_expr<EnumImm>(Type::enumc());
  n->value = v;
  return n;
}
Expr var(std::string name, Type t) {
  auto n = make_expr<Var>(t);
  n->name = std::move(name);
  return n;
}
Expr cb_ref(std::string name) {
  auto n = make_expr<Ref>(Type::cb());
  n->name = std::move(name);
  return n;
}
Expr tensor_ref(std::string name) {
  auto n = make_expr<Ref>(Type::tensor());
  n->name = std::move(name);
  return n;
}

Expr binary(BinaryOp op, Expr a, Expr b) {
  Type t = a ? a->type : Type::void_();
  if (is_comparison(op) || is_logical(op))
    t = Type::boolean();
  else if (a && b && a->type.is_int() && b->type.is_int())
    t = a->type.kind == Type::Kind::u32 || b->type.kind == Type::Kind::u32 ? Type::u32()
                                                                           : Type::i32();
  auto n = make_expr<Binary>(t);
  n->op = op;
  n->a = std::move(a);
  n->b = std::move(b);
  return n;
}

Expr load(std::string tensor, DType dtype, std::vector<Expr> indices, SourceRange loc) {
  auto n = make_expr<Load>(Type::tile(dtype));
  n->tensor = std::move(tensor);
  n->indices = std::move(indices);
  n->loc.range = loc;
  return n;
}

Type call_type(Intrinsic fn, const std::vector<Expr>& args) {
  switch (info(fn).result) {
  case ResultKind::void_:
    return Type::void_();
  case ResultKind::i32:
    return Type::i32();
  case ResultKind::u32:
    return Type::u32();
  case ResultKind::f32:
    return Type::f32();
  case ResultKind::row:
    return Type::row(DType::f32);
  case ResultKind::tile:
    break;
  }
  // Tile values are computed in f32 unless every tile operand is bf16.
  bool any_tile = false;
  for (const Expr& a : args)
    if (a && a->type.is_tile()) {
      if (a->type.dtype == DType::f32)
        return Type::tile(DType::f32);
      any_tile = true;
    }
  return Type::tile(any_tile ? DType::bf16 : DType::f32);
}

Expr call(Intrinsic fn, std::vector<Expr> args, SourceRange loc) {
  auto n = make_expr<Call>(call_type(fn, args));
  n->fn = fn;
  n->args = std::move(args);
  n->loc.range = loc;
  return n;
}

Stmt block(std::vector<Stmt> stmts) {
  auto n = make_stmt<Block>({});
  for (Stmt& s : stmts) {
    if (!s)
      continue;
    if (const Block* b = as<Block>(s))
      n->stmts.insert(n->stmts.end(), b->stmts.begin(), b->stmts.end());
    else
      n->stmts.push_back(std::move(s));
  }
  return n;
}
Stmt decl(std::string name, Type t, Expr value, SourceRange loc) {
  auto n = make_stmt<Decl>(loc);
  n->name = std::move(name);
  n->type = t;
  n->value = std::move(value);
  return n;
}
Stmt assign(std::string name, Expr value, SourceRange loc) {
  auto n = make_stmt<Assign>(loc);
  n->name = std::move(name);
  n->value = std::move(value);
  return n;
}
Stmt store(std::string tensor, std::vector<Expr> indices, Expr value, SourceRange loc) {
  auto n = make_stmt<Store>(loc);
  n->tensor = std::move(tensor);
  n->indices = std::move(indices);
  n->value = std::move(value);
  return n;
}
Stmt evaluate(Expr c, SourceRange loc) {
  auto n = make_stmt<Evaluate>(loc);
  n->call = std::move(c);
  return n;
}
Stmt for_loop(std::string v, Expr min, Expr extent, ForRole role, Stmt body, SourceRange loc) {
  auto n = make_stmt<For>(loc);
  n->var = std::move(v);
  n->min = std::move(min);
  n->extent = std::move(extent);
  n->role = role;
  n->body = as<Block>(body) ? std::move(body) : block({std::move(body)});
  return n;
}
Stmt if_then_else(Expr cond, Stmt then_case, Stmt else_case, SourceRange loc) {
  auto n = make_stmt<IfThenElse>(loc);
  n->cond = std::move(cond);
  n->then_case = as<Block>(then_case) ? std::move(then_case) : block({std::move(then_case)});
  if (else_case && !as<Block>(else_case))
    else_case = block({std::move(else_case)});
  n->else_case = std::move(else_case);
  return n;
}

} // namespace tk::ir
