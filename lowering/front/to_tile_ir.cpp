#include "lowering/front/to_tile_ir.hpp"

#include "dsl/check.hpp"

#include <functional>
#include <map>
#include <set>

namespace tk::lower {

namespace {

using namespace tk::ir;

Intrinsic builtin_intrinsic(dsl::Builtin b) {
  return tile_intrinsic(dsl::to_op(b));
}

DType ir_dtype(dsl::DType d) {
  return d == dsl::DType::bf16 ? DType::bf16 : d == dsl::DType::f32 ? DType::f32 : DType::bfp8;
}

const Type kTileVar = Type::tile(DType::f32); // tile values are computed in f32 (docs/ir.md)
const Type kRowVar = Type::row(DType::f32);   // a row of such tiles

class KernelLowering {
public:
  KernelLowering(const dsl::Kernel& k, std::string_view arch) : k_(k), arch_(arch) {}

  Program run() {
    Program p;
    p.name = k_.name.name;
    p.loc.range = k_.loc.range;
    dsl::KernelOptions o = dsl::options_of(k_, arch_);
    Options& opts = p.options.emplace();
    if (arch_.empty()) // --arch is recorded by apply_overrides
      opts.arch = o.arch;
    opts.grid = Grid{o.grid_x, o.grid_y};
    opts.cb_depth = o.cb_depth;
    opts.fp32_acc = o.fp32_acc;
    opts.math_fidelity = o.math_fidelity;
    opts.q_chunk = o.q_chunk;
    opts.exp_approx_mode = o.exp_approx_mode;
    // Grouped indices `K[h / 2, ...]` (dsl::Kernel::grouped): [outer, ratio, inner], each checked
    // by the host (outer = ratio * inner) before the kernel runs.
    for (const dsl::GroupedDim& g : k_.grouped)
      p.grouped_dims.push_back({g.outer, g.ratio, g.inner});
    if (o.matmul_rows > 0) { // choose-blocks checks that the kernel is a matmul
      opts.matmul_rows = o.matmul_rows;
      opts.matmul_cols = o.matmul_cols;
    }

    Function f;
    f.name = k_.name.name;
    f.kind = FuncKind::kernel;
    f.loc.range = k_.loc.range;
    std::vector<std::string> dims;
    auto add_param = [&](const dsl::Param& prm, TensorRole role) {
      names_.insert(prm.name.name);
      if (!prm.is_tensor) {
        scalars_.insert(prm.name.name);
        f.params.push_back({prm.name.name, Type::f32()});
        return;
      }
      Tensor t;
      t.name = prm.name.name;
      t.dtype = ir_dtype(prm.dtype);
      t.role = role;
      t.loc.range = prm.loc.range;
      for (std::size_t i = 0; i < prm.dims.size(); ++i) {
        const dsl::Dim& d = prm.dims[i];
        t.dims.push_back(d.name ? Dim{d.name->name, 0} : Dim{"", d.size});
        if (d.name && std::find(dims.begin(), dims.end(), d.name->name) == dims.end())
          dims.push_back(d.name->name);
        if (d.name && prm.dims.size() == 3 && i == 0) // counted in matrices: no tile count
          batch_dims_.insert(d.name->name);
      }
      p.tensors.push_back(t);
      f.params.push_back({t.name, Type::tensor()});
    };
    for (const dsl::Param& prm : k_.inputs)
      add_param(prm, TensorRole::input);
    for (const dsl::Param& prm : k_.outputs)
      add_param(prm, TensorRole::output);
    // The generated run_cpu / run_tt take these, in this order; the attribute outlives the kernel
    // function (the TT chain splits it), so code is generated from a dump of any stage.
    for (const Param& q : f.params)
      p.signature.push_back(q.name);
    collect_names(k_.body);
    std::vector<Stmt> body;
    for (const std::string& d : dims) {
      names_.insert(d);
      f.params.push_back({d, Type::i32()});
    }
    // Tile counts get fresh names so they never capture a user's name.
    for (const std::string& d : dims) {
      dim_names_.insert(d);
      if (batch_dims_.count(d))
        continue;
      std::string t = d + "t";
      while (names_.count(t))
        t += "_";
      names_.insert(t);
      tile_counts_[d] = t;
      body.push_back(decl(t, Type::i32(), var(d, Type::i32()) / int_imm(32)));
    }
    for (const dsl::Param& prm : k_.inputs)
      if (prm.is_tensor)
        dtypes_[prm.name.name] = ir_dtype(prm.dtype);
    scopes_.emplace_back();
    body.push_back(stmts(k_.body));
    f.body = block(std::move(body));
    p.functions.push_back(std::move(f));
    return p;
  }

private:
  const dsl::Kernel& k_;
  std::string_view arch_; // ttgen --arch, or empty
  std::set<std::string> names_, scalars_;
  std::set<std::string> dim_names_, batch_dims_; // every dimension name; those counting matrices
  std::map<std::string, std::string> tile_counts_;
  std::map<std::string, DType> dtypes_;
  std::vector<std::map<std::string, Type>> scopes_; // locals bound per block, with their type
  std::vector<std::set<std::string>> loop_vars_;
  std::vector<bool*> rebinds_outer_; // per enclosing loop: did its body rebind an outer value?

  void collect_names(const std::vector<dsl::Stmt>& ss) {
    for (const dsl::Stmt& s : ss)
      std::visit(
          [&](const auto& n) {
            using T = std::decay_t<decltype(n)>;
            if constexpr (std::is_same_v<T, dsl::Assign> || std::is_same_v<T, dsl::Accumulate>)
              names_.insert(n.name.name);
            if constexpr (std::is_same_v<T, dsl::RowInit>) {
              names_.insert(n.name.name);
              names_.insert(n.loop.var.name);
            }
            if constexpr (std::is_same_v<T, dsl::For>) {
              names_.insert(n.loop.var.name);
              collect_names(n.body);
            }
            if constexpr (std::is_same_v<T, dsl::Parallel>) {
              for (const dsl::LoopVar& l : n.loops)
                names_.insert(l.var.name);
              collect_names(n.body);
            }
          },
          s.node);
  }

  bool is_loop_var(const std::string& n) const {
    for (const auto& s : loop_vars_)
      if (s.count(n))
        return true;
    return false;
  }
  // The scope depth that binds tile local `n`, or -1.
  int bound_at(const std::string& n) const {
    for (int i = static_cast<int>(scopes_.size()) - 1; i >= 0; --i)
      if (scopes_[static_cast<std::size_t>(i)].count(n))
        return i;
    return -1;
  }

  Type local_type(const std::string& n) const {
    int at = bound_at(n);
    return at < 0 ? kTileVar : scopes_[static_cast<std::size_t>(at)].at(n);
  }

  Expr bound(const dsl::Bound& b) {
    if (b.size_of && b.is_index) // an enclosing loop variable plus an offset: a triangular loop
      return b.offset == 0  ? var(b.size_of->name, Type::i32())
             : b.offset > 0 ? var(b.size_of->name, Type::i32()) + int_imm(b.offset)
                            : var(b.size_of->name, Type::i32()) - int_imm(-b.offset);
    if (b.size_of) // a batch dimension: its size is its count of matrices
      return var(b.size_of->name, Type::i32());
    if (!b.tiles_of)
      return int_imm(b.value);
    return var(tile_counts_.at(b.tiles_of->name), Type::i32());
  }
  Stmt loop(const dsl::LoopVar& lv, ForRole role, const std::function<Stmt()>& body,
            SourceRange loc) {
    Expr lo = lv.range.lo ? bound(*lv.range.lo) : int_imm(0);
    Expr extent = bound(lv.range.hi);
    // `a .. b` has extent b - a; folded when both are literals, so `0 .. 4` prints as written.
    const auto* lo_imm = as<IntImm>(lo);
    const auto* hi_imm = as<IntImm>(extent);
    if (lo_imm && hi_imm)
      extent = int_imm(hi_imm->value - lo_imm->value);
    else if (!(lo_imm && lo_imm->value == 0))
      extent = extent - lo;
    bool rebinds = false;
    loop_vars_.push_back({lv.var.name});
    scopes_.emplace_back();
    rebinds_outer_.push_back(&rebinds);
    Stmt b = body();
    rebinds_outer_.pop_back();
    scopes_.pop_back();
    loop_vars_.pop_back();
    if (role == ForRole::serial && rebinds)
      role = ForRole::reduction;
    return for_loop(lv.var.name, lo, extent, role, b, loc);
  }

  Stmt stmts(const std::vector<dsl::Stmt>& ss) {
    std::vector<Stmt> out;
    for (const dsl::Stmt& s : ss)
      out.push_back(stmt(s));
    return block(std::move(out));
  }

  Stmt bind(const std::string& name, Expr value, SourceRange loc) {
    int at = bound_at(name);
    if (at < 0) {
      // Tile values are computed in f32; a scalar binding (if the language allows one) stays f32.
      Type t = value->type.is_tile() ? kTileVar : value->type;
      scopes_.back()[name] = t;
      return decl(name, t, std::move(value), loc);
    }
    // Rebinding a value declared outside a loop makes that loop (and every loop between) carry it.
    std::size_t loops_inside = scopes_.size() - 1 - static_cast<std::size_t>(at);
    for (std::size_t i = 0; i < loops_inside && i < rebinds_outer_.size(); ++i)
      *rebinds_outer_[rebinds_outer_.size() - 1 - i] = true;
    return assign(name, std::move(value), loc);
  }

  Stmt stmt(const dsl::Stmt& s) {
    SourceRange loc = s.loc.range;
    if (const auto* a = std::get_if<dsl::Assign>(&s.node))
      return bind(a->name.name, expr(a->value), loc);
    if (const auto* a = std::get_if<dsl::Accumulate>(&s.node)) {
      Expr acc = var(a->name.name, local_type(a->name.name));
      const auto* b = std::get_if<dsl::Binary>(&a->value.node);
      if (b && b->op == dsl::BinOp::matmul)
        return bind(a->name.name,
                    call(Intrinsic::tile_matmul_acc, {acc, expr(*b->lhs), expr(*b->rhs)},
                         a->value.loc.range),
                    loc);
      Expr v = expr(a->value);
      if (!acc->type.is_tile()) // scalar += scalar
        return bind(a->name.name, binary(BinaryOp::add, acc, v), loc);
      Intrinsic op = v->type.is_tile() ? Intrinsic::tile_add : Intrinsic::tile_add_scalar;
      return bind(a->name.name, call(op, {acc, v}, a->value.loc.range), loc);
    }
    if (const auto* st = std::get_if<dsl::Store>(&s.node)) {
      if (st->target.row) // `o[d] = e`: tile d of the row replaced, the row updated in place
        return bind(
            st->target.tensor.name,
            call(Intrinsic::row_set,
                 {var(st->target.tensor.name, kRowVar), indices(st->target).at(0), expr(st->value)},
                 loc),
            loc);
      return store(st->target.tensor.name, indices(st->target), expr(st->value), loc);
    }
    if (const auto* r = std::get_if<dsl::RowInit>(&s.node)) {
      // `o[d in R] = e`: `let o: row<f32> = row.alloc(extent)`, then every tile set by a loop
      // over R (which starts at 0: docs/language.md).
      Expr extent = bound(r->loop.range.hi);
      scopes_.back()[r->name.name] = kRowVar;
      Stmt alloc =
          decl(r->name.name, kRowVar, call(Intrinsic::row_alloc, {extent}, r->name.loc.range), loc);
      Stmt fill = loop(
          r->loop, ForRole::serial,
          [&] {
            return bind(r->name.name,
                        call(Intrinsic::row_set,
                             {var(r->name.name, kRowVar), var(r->loop.var.name, Type::i32()),
                              expr(r->value)},
                             r->value.loc.range),
                        loc);
          },
          loc);
      return block({alloc, fill});
    }
    if (const auto* f = std::get_if<dsl::For>(&s.node))
      return loop(f->loop, ForRole::serial, [&] { return stmts(f->body); }, loc);
    const auto& par = std::get<dsl::Parallel>(s.node);
    std::function<Stmt(std::size_t)> nest = [&](std::size_t i) -> Stmt {
      if (i == par.loops.size())
        return stmts(par.body);
      return loop(par.loops[i], ForRole::parallel, [&] { return nest(i + 1); }, loc);
    };
    return nest(0);
  }

  std::vector<Expr> indices(const dsl::Access& a) { return indices(a.indices); }
  std::vector<Expr> indices(const std::vector<dsl::TensorIndex>& ixs) {
    std::vector<Expr> out;
    for (const dsl::TensorIndex& ti : ixs) {
      if (!ti.var) {
        out.push_back(int_imm(ti.offset));
        continue;
      }
      Expr v = var(ti.var->name, Type::i32());
      if (ti.divisor > 1) // a grouped index `h / 2` (offset 0): the loop variable is never negative
        v = v / int_imm(ti.divisor);
      if (ti.offset > 0)
        v = v + int_imm(ti.offset);
      else if (ti.offset < 0)
        v = v - int_imm(-ti.offset);
      out.push_back(v);
    }
    return out;
  }

  // 1 / s, folded when s is a literal.
  static Expr reciprocal(const Expr& s) {
    if (const auto* f = as<FloatImm>(s))
      return float_imm(1.0 / f->value);
    return binary(BinaryOp::div, float_imm(1.0), s);
  }

  Expr expr(const dsl::Expr& e) {
    SourceRange loc = e.loc.range;
    if (const auto* n = std::get_if<dsl::Number>(&e.node))
      return float_imm(n->value);
    if (const auto* n = std::get_if<dsl::Name>(&e.node)) {
      const std::string& id = n->id.name;
      if (is_loop_var(id))
        return var(id, Type::i32());
      if (bound_at(id) < 0 && scalars_.count(id))
        return var(id, Type::f32());
      if (bound_at(id) < 0 && dim_names_.count(id)) // a size as a value: its elements, in f32
        return call(Intrinsic::to_f32, {var(id, Type::i32())}, loc);
      return var(id, local_type(id));
    }
    if (const auto* a = std::get_if<dsl::Access>(&e.node); a && a->row) // `o[d]`: tile d of o
      return call(Intrinsic::row_get, {var(a->tensor.name, kRowVar), indices(*a).at(0)}, loc);
    if (const auto* a = std::get_if<dsl::Access>(&e.node))
      return load(a->tensor.name, dtypes_.at(a->tensor.name), indices(*a), loc);
    if (const auto* c = std::get_if<dsl::Call>(&e.node)) {
      dsl::Builtin b =
          c->fn != dsl::Builtin::unknown ? c->fn : dsl::builtin_from_string(c->callee.name);
      if (ops::info(dsl::to_op(b)).kind == ops::Kind::position) // tril(i, j): tile indices
        return call(builtin_intrinsic(b), indices(c->indices), loc);
      std::vector<Expr> args;
      for (const dsl::Expr& x : c->args)
        args.push_back(expr(x));
      if (b == dsl::Builtin::where) // a scalar branch is the constant tile of it
        for (Expr& a : args)
          if (!a->type.is_tile())
            a = call(Intrinsic::tile_fill, {a}, loc);
      return call(builtin_intrinsic(b), std::move(args), loc);
    }
    const auto& b = std::get<dsl::Binary>(e.node);
    Expr l = expr(*b.lhs), r = expr(*b.rhs);
    bool lt = l->type.is_tile(), rt = r->type.is_tile();
    if (!lt && !rt) { // scalar arithmetic: computed on the host
      BinaryOp op = b.op == dsl::BinOp::add   ? BinaryOp::add
                    : b.op == dsl::BinOp::sub ? BinaryOp::sub
                    : b.op == dsl::BinOp::div ? BinaryOp::div
                                              : BinaryOp::mul;
      return binary(op, l, r);
    }
    if (dsl::is_comparison(b.op)) { // a mask; a scalar side is the constant tile of it
      if (!lt)
        l = call(Intrinsic::tile_fill, {l}, loc);
      if (!rt)
        r = call(Intrinsic::tile_fill, {r}, loc);
      static const std::map<dsl::BinOp, Intrinsic> kCompare = {
          {dsl::BinOp::lt, Intrinsic::tile_lt}, {dsl::BinOp::le, Intrinsic::tile_le},
          {dsl::BinOp::gt, Intrinsic::tile_gt}, {dsl::BinOp::ge, Intrinsic::tile_ge},
          {dsl::BinOp::eq, Intrinsic::tile_eq}, {dsl::BinOp::ne, Intrinsic::tile_ne}};
      return call(kCompare.at(b.op), {l, r}, loc);
    }
    switch (b.op) {
    case dsl::BinOp::div: // t / s is t * (1 / s); s / t is s * recip(t)
      if (lt)
        return call(Intrinsic::tile_mul_scalar, {l, reciprocal(r)}, loc);
      return call(Intrinsic::tile_mul_scalar, {call(Intrinsic::tile_recip, {r}, loc), l}, loc);
    case dsl::BinOp::matmul:
      return call(Intrinsic::tile_matmul, {l, r}, loc);
    case dsl::BinOp::add:
      if (lt && rt)
        return call(Intrinsic::tile_add, {l, r}, loc);
      return call(Intrinsic::tile_add_scalar, lt ? std::vector{l, r} : std::vector{r, l}, loc);
    case dsl::BinOp::mul:
      if (lt && rt)
        return call(Intrinsic::tile_mul, {l, r}, loc);
      return call(Intrinsic::tile_mul_scalar, lt ? std::vector{l, r} : std::vector{r, l}, loc);
    case dsl::BinOp::sub:
      if (lt && rt)
        return call(Intrinsic::tile_sub, {l, r}, loc);
      if (lt)
        return call(Intrinsic::tile_sub_scalar, {l, r}, loc);
      return call(Intrinsic::tile_rsub_scalar, {r, l}, loc);
    default: // the comparisons, above
      break;
    }
    throw InternalError("internal error: to-tile-ir: unknown binary operator");
  }
};

} // namespace

ir::Module to_tile_ir(const dsl::Module& m, Diagnostics& /*diags*/, std::string_view arch) {
  ir::Module out;
  for (const dsl::Kernel& k : m.kernels)
    out.programs.push_back(KernelLowering(k, arch).run());
  return out;
}

} // namespace tk::lower
