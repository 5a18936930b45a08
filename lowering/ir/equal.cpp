#include "lowering/ir/equal.hpp"

namespace tk::ir {

namespace {

bool equal_all(const std::vector<Expr>& a, const std::vector<Expr>& b) {
  if (a.size() != b.size())
    return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (!equal(a[i], b[i]))
      return false;
  return true;
}

// One overload per node kind; both sides have the same kind when these are called.
bool same(const IntImm& a, const IntImm& b) {
  return a.value == b.value;
}
bool same(const FloatImm& a, const FloatImm& b) {
  return a.value == b.value || (a.value != a.value && b.value != b.value); // nan == nan here
}
bool same(const EnumImm& a, const EnumImm& b) {
  return a.value == b.value;
}
bool same(const Var& a, const Var& b) {
  return a.name == b.name;
}
bool same(const Ref& a, const Ref& b) {
  return a.name == b.name;
}
bool same(const Binary& a, const Binary& b) {
  return a.op == b.op && equal(a.a, b.a) && equal(a.b, b.b);
}
bool same(const Load& a, const Load& b) {
  return a.tensor == b.tensor && equal_all(a.indices, b.indices);
}
bool same(const Call& a, const Call& b) {
  return a.fn == b.fn && equal_all(a.args, b.args);
}

bool same(const Block& a, const Block& b) {
  if (a.stmts.size() != b.stmts.size())
    return false;
  for (std::size_t i = 0; i < a.stmts.size(); ++i)
    if (!equal(a.stmts[i], b.stmts[i]))
      return false;
  return true;
}
bool same(const Decl& a, const Decl& b) {
  return a.name == b.name && a.type == b.type && equal(a.value, b.value);
}
bool same(const Assign& a, const Assign& b) {
  return a.name == b.name && equal(a.value, b.value);
}
bool same(const Store& a, const Store& b) {
  return a.tensor == b.tensor && equal_all(a.indices, b.indices) && equal(a.value, b.value);
}
bool same(const Evaluate& a, const Evaluate& b) {
  return equal(a.call, b.call);
}
bool same(const For& a, const For& b) {
  return a.var == b.var && a.role == b.role && equal(a.min, b.min) && equal(a.extent, b.extent) &&
         equal(a.body, b.body);
}
bool same(const IfThenElse& a, const IfThenElse& b) {
  return equal(a.cond, b.cond) && equal(a.then_case, b.then_case) &&
         equal(a.else_case, b.else_case);
}

} // namespace

bool equal(const Expr& a, const Expr& b) {
  if (a == b)
    return true;
  if (!a || !b || a->kind != b->kind || !(a->type == b->type))
    return false;
  switch (a->kind) {
#define TK_X(n)                                                                                    \
  case ExprKind::n:                                                                                \
    return same(static_cast<const n&>(*a), static_cast<const n&>(*b));
    TK_IR_EXPR_NODES(TK_X)
#undef TK_X
  }
  return false;
}

bool equal(const Stmt& a, const Stmt& b) {
  if (a == b)
    return true;
  if (!a || !b || a->kind != b->kind)
    return false;
  switch (a->kind) {
#define TK_X(n)                                                                                    \
  case StmtKind::n:                                                                                \
    return same(static_cast<const n&>(*a), static_cast<const n&>(*b));
    TK_IR_STMT_NODES(TK_X)
#undef TK_X
  }
  return false;
}

bool equal(const Module& a, const Module& b) {
  if (a.attrs != b.attrs || a.programs.size() != b.programs.size())
    return false;
  for (std::size_t i = 0; i < a.programs.size(); ++i) {
    const Program &p = a.programs[i], &q = b.programs[i];
    if (p.name != q.name || p.attrs != q.attrs || p.signature != q.signature ||
        p.combine != q.combine || p.dst_fp32 != q.dst_fp32 || p.cpu_packed_a != q.cpu_packed_a ||
        p.grouped_dims != q.grouped_dims || p.rows != q.rows || p.options != q.options ||
        p.blocking != q.blocking || p.materialise != q.materialise || p.tensors != q.tensors ||
        p.cbs != q.cbs || p.accessors != q.accessors || p.host_plan != q.host_plan ||
        p.functions.size() != q.functions.size())
      return false;
    for (std::size_t j = 0; j < p.functions.size(); ++j) {
      const Function &f = p.functions[j], &g = q.functions[j];
      if (f.name != g.name || f.kind != g.kind || f.params != g.params || f.attrs != g.attrs ||
          f.config != g.config || !equal(f.body, g.body))
        return false;
    }
  }
  return true;
}

} // namespace tk::ir
