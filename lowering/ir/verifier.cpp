#include "lowering/ir/verifier.hpp"

#include "arch/arch.hpp"
#include "lowering/ir/printer.hpp"
#include "support/diagnostics.hpp"

#include <algorithm>
#include <map>
#include <set>

namespace tk::ir {

namespace {

struct Invalid {
  std::string message;
};

[[noreturn]] void fail(std::string msg) {
  throw Invalid{std::move(msg)};
}

std::string q(std::string_view s) {
  return "'" + std::string(s) + "'";
}

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
  FunctionChecker(const Program& p, const Function& f) : prog_(p), fn_(f) {}

  void run() {
    scopes_.emplace_back();
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
      scopes_.back()[p.name] = {p.type, false};
    }
    if (!fn_.body)
      fail("function has no body");
    stmt(fn_.body);
  }

private:
  const Program& prog_;
  const Function& fn_;
  std::vector<std::map<std::string, VarInfo>> scopes_;
  std::vector<ForRole> loops_;
  const ExprNode* row_value_ = nullptr; // the row.alloc / row.set a row's let or update holds

  const VarInfo* lookup(const std::string& name) const {
    for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it)
      if (auto f = it->find(name); f != it->end())
        return &f->second;
    return nullptr;
  }
  void declare(const std::string& name, Type t, bool is_mutable) {
    if (lookup(name))
      fail("redeclaration of " + q(name));
    if (prog_.find_tensor(name) || prog_.find_cb(name))
      fail("variable " + q(name) + " shadows a tensor or circular buffer");
    scopes_.back()[name] = {t, is_mutable};
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
    scopes_.emplace_back();
    stmt(s);
    scopes_.pop_back();
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
    scopes_.emplace_back();
    declare(f.var, Type::i32(), false);
    loops_.push_back(f.role);
    stmt(f.body);
    loops_.pop_back();
    scopes_.pop_back();
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
      std::string op(to_string(b.op));
      if (is_logical(b.op)) {
        if (a.kind != Type::Kind::boolean || c.kind != Type::Kind::boolean)
          fail("operands of '" + op + "' are not bools: " + print(e));
        return Type::boolean();
      }
      bool ints = a.is_int() && c.is_int();
      bool floats = a.kind == Type::Kind::f32 && c.kind == Type::Kind::f32;
      if (!ints && !(floats && b.op != BinaryOp::mod))
        fail("invalid operands " + to_string(a) + " and " + to_string(c) + " of '" + op +
             "': " + print(e));
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

// A kernel config belongs to a reader, compute or writer, with the config of its kind; its
// compile-time args name accessors.
void check_config(const Program& p, const Function& f) {
  const KernelConfig& c = *f.config;
  bool data_movement = f.kind == FuncKind::reader || f.kind == FuncKind::writer;
  if (!data_movement && f.kind != FuncKind::compute)
    fail("a " + std::string(to_string(f.kind)) + " function has a kernel config");
  if (c.data_movement && !data_movement)
    fail("a compute kernel has a data-movement config (processor, noc)");
  if (c.compute && f.kind != FuncKind::compute)
    fail("a " + std::string(to_string(f.kind)) + " has a compute config (math_fidelity, ...)");
  std::set<std::string> seen;
  for (const CompileArg& a : c.compile_args) {
    if (!p.find_accessor(a.tensor))
      fail("compile-time args of " + q(a.tensor) + ", which has no accessor");
    if (!seen.insert(a.tensor).second)
      fail("compile-time args of " + q(a.tensor) + " twice");
  }
}

// The plan names the program's host function's lets, its tensors and its kernels.
void check_host_plan(const Program& p, const HostPlan& h) {
  const Function* host = nullptr;
  for (const Function& f : p.functions)
    if (f.kind == FuncKind::host) {
      if (host)
        fail("two host functions: " + q(host->name) + " and " + q(f.name));
      host = &f;
    }
  if (!host)
    fail("a host plan without a host function");
  std::set<std::string> lets;
  if (const Block* b = as<Block>(host->body))
    for (const Stmt& s : b->stmts)
      if (const Decl* d = as<Decl>(s))
        lets.insert(d->name);
  auto let = [&](const std::string& name, const std::string& what) {
    if (!lets.count(name))
      fail("the host plan's " + what + " " + q(name) + " is no let of " + q(host->name));
  };
  let(h.work_items, "work-item count");
  if (h.per_core && h.core_grid)
    fail("the host plan has both per_core values and a core_grid");
  if (h.core_grid && h.split != WorkSplit::core_grid)
    fail("the host plan has a core_grid but splits the work with " +
         std::string(to_string(h.split)));
  if (h.core_grid) {
    let(h.core_grid->across, "items across");
    let(h.core_grid->down, "items down");
  }
  if (h.grid.x <= 0 || h.grid.y <= 0)
    fail("the host plan's grid is empty");
  std::set<std::string> seen;
  for (const HostBuffer& b : h.buffers) {
    if (!p.find_tensor(b.tensor))
      fail("the host plan has a buffer of unknown tensor " + q(b.tensor));
    if (!seen.insert(b.tensor).second)
      fail("the host plan has two buffers of tensor " + q(b.tensor));
    if (!b.size.empty())
      let(b.size, "size of buffer");
    if (b.page_size < 0)
      fail("the buffer of " + q(b.tensor) + " has a negative page size");
  }
  seen.clear();
  for (const std::string& k : h.kernels) {
    const Function* f = nullptr;
    for (const Function& g : p.functions)
      if (g.name == k)
        f = &g;
    if (!f || (f->kind != FuncKind::reader && f->kind != FuncKind::compute &&
               f->kind != FuncKind::writer))
      fail("the host plan launches " + q(k) + ", which is no reader, compute or writer function");
    if (!seen.insert(k).second)
      fail("the host plan launches " + q(k) + " twice");
  }
}

// The options name a known architecture and a grid and block that fit it; choose-blocks' decision
// fits the architecture's DST (fp32, as every blocked matmul's) and CBs (docs/ir.md, "Programs").
void check_options(const Program& p) {
  const Options o = p.options.value_or(Options{});
  const arch::ArchSpec* a = o.arch.empty() ? &arch::default_arch() : arch::find(o.arch);
  if (a == nullptr)
    fail("the options name an unknown architecture " + q(o.arch) + "; the known ones are " +
         arch::names());
  if (o.grid && (o.grid->x < 1 || o.grid->y < 1 || o.grid->x > std::int64_t{a->grid_x} ||
                 o.grid->y > std::int64_t{a->grid_y}))
    fail("the options' grid " + std::to_string(o.grid->x) + "x" + std::to_string(o.grid->y) +
         " does not fit " + arch::describe(*a));
  if (o.cb_depth < 1)
    fail("the options' cb_depth " + std::to_string(o.cb_depth) + " is not positive");
  if (o.q_chunk < 0)
    fail("the options' q_chunk " + std::to_string(o.q_chunk) + " is negative");
  if ((o.matmul_rows > 0) != (o.matmul_cols > 0) || o.matmul_rows < 0 || o.matmul_cols < 0)
    fail("the options' matmul_block " + std::to_string(o.matmul_rows) + "x" +
         std::to_string(o.matmul_cols) + " is not a block of output tiles");
  if (!p.blocking)
    return;
  const Blocking& b = *p.blocking;
  auto n = [](std::int64_t v) { return std::to_string(v); };
  const std::int64_t dst = a->dst_tiles(true);
  if (b.sub_rows < 1 || b.sub_cols < 1 || b.sub_rows * b.sub_cols > dst)
    fail("the blocking's sub-block " + n(b.sub_rows) + "x" + n(b.sub_cols) + " does not fit the " +
         n(dst) + " fp32 tiles of DST on " + std::string(a->name));
  if (b.cap_a < 2 || b.cap_b < 2 || b.cap_a % 2 || b.cap_b % 2)
    fail("the blocking's CBs of A and B hold " + n(b.cap_a) + " and " + n(b.cap_b) +
         " tiles; each must hold two K steps' blocks (an even count)");
  if (b.cap_partials < b.sub_rows * b.sub_cols)
    fail("the blocking's partial sums (" + n(b.cap_partials) + " tiles) do not hold a sub-block");
  if (o.matmul_rows > 0 && (o.matmul_rows % b.sub_rows || o.matmul_cols % b.sub_cols ||
                            o.matmul_rows * o.matmul_cols > b.cap_partials ||
                            2 * o.matmul_rows > b.cap_a || 2 * o.matmul_cols > b.cap_b))
    fail("the options' matmul_block " + n(o.matmul_rows) + "x" + n(o.matmul_cols) +
         " is not whole " + n(b.sub_rows) + "x" + n(b.sub_cols) +
         " sub-blocks within the blocking's CBs");
  const Blocking::Costs& c = b.costs;
  for (std::int64_t x : {c.product, c.round_trip, c.multicast, c.dram, c.page_a, c.page_b, c.read,
                         c.page_c, c.write})
    if (x <= 0)
      fail("the blocking's costs must be positive (rates, pages and cycles)");
  if (c.step_latency < 0)
    fail("the blocking's step latency is negative");
}

/// materialise's decision: a value, a reason, and for `dram` the scratch tensor the program
/// writes (recomputing has none).
void check_materialise(const Program& p) {
  if (!p.materialise)
    return;
  const Materialise& m = *p.materialise;
  if (m.value.empty() || m.why.empty())
    fail("the materialise decision names no value or gives no reason");
  if (m.choice == Materialise::Choice::recompute) {
    if (!m.tensor.empty())
      fail("the materialise decision recomputes " + q(m.value) + " but names a scratch tensor " +
           q(m.tensor));
    return;
  }
  const Tensor* t = p.find_tensor(m.tensor);
  if (!t || t->role != TensorRole::output)
    fail("the materialise decision's scratch tensor " + q(m.tensor) + " is not an output of " +
         q(p.name));
}

// The typed header fields grouped_dims (to-tile-ir) and rows (select-tile-ops).
void check_groups_and_rows(const Program& p) {
  for (const GroupedDim& g : p.grouped_dims)
    if (g.outer.empty() || g.inner.empty() || g.outer == g.inner || g.ratio < 1)
      fail("program " + q(p.name) + " groups dimension " + q(g.outer) + " as " +
           std::to_string(g.ratio) + " x " + q(g.inner) +
           " (grouped_dims): two different dimensions and a positive ratio");
  std::set<std::string> rows;
  for (const RowOfTiles& r : p.rows) {
    if (r.name.empty() || r.dim.empty() || !rows.insert(r.name).second)
      fail("program " + q(p.name) + " lists row of tiles " + q(r.name) + " over " + q(r.dim) +
           " (rows): a row needs a name of its own and a dimension");
    if (r.capacity < 1)
      fail("program " + q(p.name) + "'s row of tiles " + q(r.name) + " holds " +
           std::to_string(r.capacity) + " tiles (rows): at least one");
  }
  const auto row_cbs = std::count_if(p.cbs.begin(), p.cbs.end(),
                                     [](const CircularBuffer& c) { return c.role == CBRole::row; });
  if (static_cast<std::size_t>(row_cbs) < p.rows.size())
    fail("program " + q(p.name) + " lists " + std::to_string(p.rows.size()) +
         " rows of tiles (rows) but has " + std::to_string(row_cbs) + " circular buffers for rows");
}

void check_program(const Program& p) {
  check_options(p);
  check_materialise(p);
  check_groups_and_rows(p);
  std::set<std::string> names;
  for (const Tensor& t : p.tensors) {
    if (!names.insert(t.name).second)
      fail("duplicate tensor " + q(t.name));
    if (t.dims.empty())
      fail("tensor " + q(t.name) + " has no dimensions");
    if (t.layout && t.layout->page_size <= 0)
      fail("tensor " + q(t.name) + " has a layout without a page size");
  }
  std::set<std::int64_t> indices;
  for (const CircularBuffer& c : p.cbs) {
    if (!names.insert(c.name).second)
      fail("duplicate name " + q(c.name) + " (circular buffer)");
    if (c.index < 0 || c.index > 31)
      fail("circular buffer " + q(c.name) + " has index " + std::to_string(c.index) +
           " outside 0..31");
    if (!indices.insert(c.index).second)
      fail("circular buffer index " + std::to_string(c.index) + " used twice");
    if (c.page_size <= 0 || c.depth <= 0)
      fail("circular buffer " + q(c.name) + " has no page size or depth");
    if (!c.tensor.empty() && !p.find_tensor(c.tensor))
      fail("circular buffer " + q(c.name) + " streams unknown tensor " + q(c.tensor));
    if (c.read_by_writer && c.role != CBRole::input)
      fail("circular buffer " + q(c.name) + " is read by the writer but its role is " +
           std::string(to_string(c.role)) + ", not input");
    if (!c.reader_writes_for.empty() && (c.role != CBRole::output || c.tensor.empty()))
      fail("circular buffer " + q(c.name) +
           " is written by the reader but is not an output CB "
           "of a tensor");
    if (!c.reader_writes_for.empty() && !p.find_cb(c.reader_writes_for))
      fail("circular buffer " + q(c.name) + " is written by the reader for unknown CB " +
           q(c.reader_writes_for));
  }
  std::set<std::string> accessors;
  for (const Accessor& a : p.accessors) {
    if (!p.find_tensor(a.tensor))
      fail("accessor of unknown tensor " + q(a.tensor));
    if (!accessors.insert(a.tensor).second)
      fail("two accessors of tensor " + q(a.tensor));
    if (a.args.empty())
      fail("the accessor of " + q(a.tensor) + " has no compile-time args");
  }
  std::set<std::string> fns;
  for (const Function& f : p.functions) {
    if (!fns.insert(f.name).second)
      fail("duplicate function " + q(f.name));
    try {
      FunctionChecker(p, f).run();
      if (f.config)
        check_config(p, f);
    } catch (Invalid& e) {
      e.message = "in function " + q(f.name) + ": " + e.message;
      throw;
    }
  }
  if (p.host_plan)
    check_host_plan(p, *p.host_plan);
}

} // namespace

std::optional<std::string> find_ir_error(const Module& m) {
  try {
    std::set<std::string> names;
    for (const Program& p : m.programs) {
      if (!names.insert(p.name).second)
        fail("duplicate program " + q(p.name));
      check_program(p);
    }
    // A program's combine is generated after it in the same run_cpu / run_tt: another program of
    // the module, finished by no other.
    std::set<std::string> combined;
    for (const Program& p : m.programs)
      if (!p.combine.empty() &&
          (p.combine == p.name || !names.count(p.combine) || !combined.insert(p.combine).second))
        fail("program " + q(p.name) + " names combine program " + q(p.combine) +
             (p.combine == p.name       ? ", itself"
              : !names.count(p.combine) ? ", which the module does not hold"
                                        : ", which another program names too"));
    // The value stored packed is one of the program's outputs.
    for (const Program& p : m.programs)
      if (const Tensor* t = p.cpu_packed_a.empty() ? nullptr : p.find_tensor(p.cpu_packed_a);
          !p.cpu_packed_a.empty() && (!t || t->role != TensorRole::output))
        fail("program " + q(p.name) + " stores " + q(p.cpu_packed_a) +
             " packed (cpu_packed_a), which is not one of its outputs");
  } catch (const Invalid& e) {
    return e.message;
  }
  return std::nullopt;
}

void verify(const Module& m, std::string_view after_stage) {
  if (auto err = find_ir_error(m))
    throw InternalError(
        "internal error: IR invalid after " + std::string(after_stage) + ": " + *err, print(m));
}

} // namespace tk::ir
