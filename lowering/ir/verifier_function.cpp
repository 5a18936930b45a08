// The tile IR verifier, one function at a time: its parameters and body (verifier_internal.hpp).
#include "lowering/ir/printer.hpp"
#include "lowering/ir/verifier_internal.hpp"

#include <set>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

namespace tk::ir::verifier {

namespace {

// Integer types convert implicitly (C rules), tile values convert between element types at
// assignment and store; nothing else converts.
bool assignable(Type to, Type from) {
  if (to.is_int() && from.is_int())
    return true;
  if (to.is_tile() && from.is_tile())
    return true;
  return to == from;
}

struct VarInfo {
  Type type;
  bool mutable_ = true;
};

class FunctionChecker {
public:
  FunctionChecker(const Program& p, const Function& f) : prog_(p), fn_(f) {
    for (const Tensor& t : p.tensors)
      globals_.insert(t.name);
    for (const CircularBuffer& c : p.cbs)
      globals_.insert(c.name);
  }

  void run() {
    std::set<std::string> seen;
    for (const Param& p : fn_.params) {
      if (!seen.insert(p.name).second)
        fail("duplicate parameter " + q(p.name));
      switch (p.type.kind) {
      case Type::Kind::tensor:
        if (!prog_.find_tensor(p.name))
          fail("tensor parameter " + q(p.name) + " names no tensor of the program");
        break;
      case Type::Kind::i32:
      case Type::Kind::u32:
      case Type::Kind::f32:
      case Type::Kind::boolean:
        break;
      default:
        fail("parameter " + q(p.name) + " has invalid type " + to_string(p.type));
      }
      put(p.name, {p.type, false});
    }
    if (!fn_.body)
      fail("function has no body");
    stmt(fn_.body);
  }

private:
  const Program& prog_;
  const Function& fn_;
  // The variables in scope. A name is declared at most once among the scopes a statement sees
  // (a redeclaration is an error), so one map holds them all; `declared_` lists them in order and
  // `scope_starts_` where each open scope's begin, so that closing a scope removes its own. The
  // keys view the IR's names, which outlive the check.
  std::unordered_map<std::string_view, VarInfo> vars_;
  std::vector<std::string_view> declared_;
  std::vector<std::size_t> scope_starts_;
  std::unordered_set<std::string_view> globals_; // the program's tensors and CBs
  std::vector<ForRole> loops_;
  const ExprNode* row_value_ = nullptr; // the row.alloc / row.set a row's let or update holds

  const VarInfo* lookup(std::string_view name) const {
    auto f = vars_.find(name);
    return f == vars_.end() ? nullptr : &f->second;
  }
  void put(std::string_view name, VarInfo v) {
    vars_.emplace(name, v);
    declared_.push_back(name);
  }
  void declare(const std::string& name, Type t, bool is_mutable) {
    if (lookup(name))
      fail("redeclaration of " + q(name));
    if (globals_.count(name))
      fail("variable " + q(name) + " shadows a tensor or circular buffer");
    put(name, {t, is_mutable});
  }
  void open_scope() { scope_starts_.push_back(declared_.size()); }
  void close_scope() {
    for (std::size_t i = scope_starts_.back(); i < declared_.size(); ++i)
      vars_.erase(declared_[i]);
    declared_.resize(scope_starts_.back());
    scope_starts_.pop_back();
  }
  const Tensor& tensor(const std::string& name, std::string_view what) {
    const Tensor* t = prog_.find_tensor(name);
    if (!t)
      fail(std::string(what) + " unknown tensor " + q(name));
    return *t;
  }
  void indices(const std::vector<Expr>& idx, const Tensor& t) {
    if (idx.size() != t.dims.size())
      fail("tensor " + q(t.name) + " has rank " + std::to_string(t.dims.size()) +
           " but is indexed with " + std::to_string(idx.size()) + " indices");
    for (const Expr& i : idx)
      if (!expr(i).is_int())
        fail("index of tensor " + q(t.name) + " is not an integer: " + print(i));
  }

  void stmt(const Stmt& s) {
    if (!s)
      fail("null statement");
    if (const Block* b = as<Block>(s)) {
      for (const Stmt& x : b->stmts)
        stmt(x);
    } else if (const Decl* d = as<Decl>(s)) {
      if (d->type.kind == Type::Kind::void_ || d->type.kind == Type::Kind::enumc ||
          d->type.kind == Type::Kind::cb || d->type.kind == Type::Kind::tensor)
        fail("variable " + q(d->name) + " declared with invalid type " + to_string(d->type));
      if (d->type.is_row()) { // a row is created by row.alloc only: no two names share one
        const Call* c = as<Call>(d->value);
        if (!c || c->fn != Intrinsic::row_alloc)
          fail("row " + q(d->name) + " initialised with " + print(d->value) +
               "; a row is declared with row.alloc(n)");
        row_value_ = d->value.get();
      }
      Type v = expr(d->value);
      if (!assignable(d->type, v))
        fail("variable " + q(d->name) + " of type " + to_string(d->type) + " initialised with a " +
             to_string(v));
      declare(d->name, d->type, true);
    } else if (const Assign* a = as<Assign>(s)) {
      const VarInfo* vi = lookup(a->name);
      if (!vi)
        fail("assignment to undeclared variable " + q(a->name));
      if (!vi->mutable_)
        fail("assignment to loop variable or parameter " + q(a->name));
      if (vi->type.is_row()) { // updated in place: `o = row.set(o, d, t)`, the row itself
        const Call* c = as<Call>(a->value);
        const Var* self = c && c->fn == Intrinsic::row_set ? as<Var>(c->args.at(0)) : nullptr;
        if (!self || self->name != a->name)
          fail("assignment " + q(a->name) + " = " + print(a->value) +
               "; a row is updated only as " + a->name + " = row.set(" + a->name + ", d, t)");
        row_value_ = a->value.get();
      }
      Type v = expr(a->value);
      if (!assignable(vi->type, v))
        fail("assignment of a " + to_string(v) + " to " + q(a->name) + " of type " +
             to_string(vi->type));
    } else if (const Store* st = as<Store>(s)) {
      const Tensor& t = tensor(st->tensor, "store to");
      if (t.role == TensorRole::input)
        fail("store to input tensor " + q(t.name));
      indices(st->indices, t);
      if (!expr(st->value).is_tile())
        fail("store of a non-tile value to " + q(t.name));
    } else if (const Evaluate* e = as<Evaluate>(s)) {
      const Call* c = as<Call>(e->call);
      if (!c)
        fail("evaluate of a non-call: " + print(e->call));
      call(*c, true);
    } else if (const For* f = as<For>(s)) {
      loop(*f);
    } else if (const IfThenElse* i = as<IfThenElse>(s)) {
      if (expr(i->cond).kind != Type::Kind::boolean)
        fail("if condition is not a bool: " + print(i->cond));
      scoped(i->then_case);
      if (i->else_case)
        scoped(i->else_case);
    }
  }
  void scoped(const Stmt& s) {
    open_scope();
    stmt(s);
    close_scope();
  }

  void loop(const For& f) {
    if (!expr(f.min).is_int() || !expr(f.extent).is_int())
      fail("bounds of loop " + q(f.var) + " are not integers");
    switch (f.role) {
    case ForRole::parallel:
      if (fn_.kind != FuncKind::kernel)
        fail("parallel loop " + q(f.var) + " in a " + std::string(to_string(fn_.kind)) +
             " function");
      for (ForRole x : loops_)
        if (x != ForRole::parallel)
          fail("parallel loop " + q(f.var) + " nested in a " + std::string(to_string(x)) + " loop");
      break;
    case ForRole::per_core:
      if (fn_.kind == FuncKind::cpu || fn_.kind == FuncKind::host ||
          fn_.kind == FuncKind::host_core)
        fail("per_core loop " + q(f.var) + " in a " + std::string(to_string(fn_.kind)) +
             " function");
      if (!loops_.empty())
        fail("per_core loop " + q(f.var) + " is not outermost");
      break;
    case ForRole::per_thread:
      if (fn_.kind != FuncKind::cpu && fn_.kind != FuncKind::kernel)
        fail("per_thread loop " + q(f.var) + " in a " + std::string(to_string(fn_.kind)) +
             " function");
      if (!loops_.empty())
        fail("per_thread loop " + q(f.var) + " is not outermost");
      break;
    case ForRole::serial:
    case ForRole::reduction:
      break; // allowed anywhere
    }
    open_scope();
    declare(f.var, Type::i32(), false);
    loops_.push_back(f.role);
    stmt(f.body);
    loops_.pop_back();
    close_scope();
  }

  Type expr(const Expr& e) {
    if (!e)
      fail("null expression");
    Type t = check_expr(e);
    if (!(t == e->type))
      fail("expression " + print(e) + " has type " + to_string(e->type) + " but should be " +
           to_string(t));
    return t;
  }

  Type check_expr(const Expr& e) {
    switch (e->kind) {
    case ExprKind::IntImm:
      if (!e->type.is_int())
        fail("integer immediate of type " + to_string(e->type));
      return e->type;
    case ExprKind::FloatImm:
      return Type::f32();
    case ExprKind::EnumImm:
      return Type::enumc();
    case ExprKind::Var: {
      const Var& v = static_cast<const Var&>(*e);
      const VarInfo* vi = lookup(v.name);
      if (!vi)
        fail("use of undefined variable " + q(v.name));
      if (!(vi->type == v.type))
        fail("variable " + q(v.name) + " used as " + to_string(v.type) + " but declared " +
             to_string(vi->type));
      return vi->type;
    }
    case ExprKind::Ref: {
      const Ref& r = static_cast<const Ref&>(*e);
      if (r.type.kind == Type::Kind::cb && !prog_.find_cb(r.name))
        fail("reference to unknown circular buffer " + q(r.name));
      if (r.type.kind == Type::Kind::tensor && !prog_.find_tensor(r.name))
        fail("reference to unknown tensor " + q(r.name));
      if (r.type.kind != Type::Kind::cb && r.type.kind != Type::Kind::tensor)
        fail("reference " + q(r.name) + " of type " + to_string(r.type));
      return r.type;
    }
    case ExprKind::Binary: {
      const Binary& b = static_cast<const Binary&>(*e);
      Type a = expr(b.a), c = expr(b.b);
      const std::string_view op = to_string(b.op);
      if (is_logical(b.op)) {
        if (a.kind != Type::Kind::boolean || c.kind != Type::Kind::boolean)
          fail("operands of '" + std::string(op) + "' are not bools: " + print(e));
        return Type::boolean();
      }
      bool ints = a.is_int() && c.is_int();
      bool floats = a.kind == Type::Kind::f32 && c.kind == Type::Kind::f32;
      if (!ints && !(floats && b.op != BinaryOp::mod))
        fail("invalid operands " + to_string(a) + " and " + to_string(c) + " of '" +
             std::string(op) + "': " + print(e));
      return binary(b.op, b.a, b.b)->type;
    }
    case ExprKind::Load: {
      const Load& l = static_cast<const Load&>(*e);
      const Tensor& t = tensor(l.tensor, "load from");
      if (t.role == TensorRole::output)
        fail("load from output tensor " + q(t.name));
      indices(l.indices, t);
      return Type::tile(t.dtype);
    }
    case ExprKind::Call: {
      const Call& c = static_cast<const Call&>(*e);
      if ((c.fn == Intrinsic::row_alloc || c.fn == Intrinsic::row_set) && e.get() != row_value_)
        fail(q(info(c.fn).name) + " used as a value in " + print(e) +
             "; it is only the whole value of a row's let (row.alloc) or update (row.set)");
      call(c, false);
      return call_type(c.fn, c.args);
    }
    }
    fail("unknown expression kind");
  }

  void call(const Call& c, bool statement) {
    const IntrinsicInfo& in = info(c.fn);
    const bool effect_only = in.effect == Effect::writes || in.effect == Effect::init;
    if (!statement && effect_only)
      fail("intrinsic " + q(in.name) + " has side effects and is used as a value");
    if (statement && !effect_only)
      fail("result of intrinsic " + q(in.name) + " is discarded");
    if (c.args.size() != in.args.size())
      fail("intrinsic " + q(in.name) + " takes " + std::to_string(in.args.size()) +
           " arguments, got " + std::to_string(c.args.size()));
    for (std::size_t i = 0; i < c.args.size(); ++i) {
      Type t = expr(c.args[i]);
      ArgKind k = in.args[i];
      bool ok = false;
      switch (k) {
      case ArgKind::int_:
      case ArgKind::slot:
        ok = t.is_int();
        break;
      case ArgKind::const_:
        ok = as<IntImm>(c.args[i]) != nullptr;
        break;
      case ArgKind::f32:
        ok = t.kind == Type::Kind::f32;
        break;
      case ArgKind::tile:
        ok = t.is_tile();
        break;
      case ArgKind::row:
        ok = t.is_row();
        break;
      case ArgKind::cb:
        ok = t.kind == Type::Kind::cb;
        break;
      case ArgKind::tensor:
      case ArgKind::src:
      case ArgKind::dst:
        ok = t.kind == Type::Kind::tensor;
        break;
      default: {
        const EnumImm* en = as<EnumImm>(c.args[i]);
        ok = en && arg_kind_of(en->value) == k;
      }
      }
      if (!ok)
        fail("argument " + std::to_string(i + 1) + " of " + q(in.name) + " must be " +
             std::string(to_string(k)) + ", got " + print(c.args[i]) + " of type " + to_string(t));
      if (k == ArgKind::src || k == ArgKind::dst)
        tensor_access(c, static_cast<const Ref&>(*c.args[i]).name, k);
    }
  }
  // Intrinsics that move data to or from a tensor obey the same roles as Load and Store; the
  // signature says which way (src: read, dst: written).
  void tensor_access(const Call& c, const std::string& name, ArgKind k) {
    const Tensor& t = tensor(name, "access to");
    if (k == ArgKind::dst && t.role == TensorRole::input)
      fail(q(info(c.fn).name) + " writes to input tensor " + q(name));
    if (k == ArgKind::src && t.role == TensorRole::output)
      fail(q(info(c.fn).name) + " reads from output tensor " + q(name));
  }
};

} // namespace

void check_function(const Program& p, const Function& f) {
  FunctionChecker(p, f).run();
}

} // namespace tk::ir::verifier
