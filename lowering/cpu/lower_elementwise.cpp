#include "lowering/cpu/lower_elementwise.hpp"

#include "lowering/cpu/narrow_columns.hpp"

#include "lowering/ir/printer.hpp"
#include "lowering/ir/util.hpp"
#include "lowering/ir/visitor.hpp"

#include <map>
#include <set>
#include <vector>

namespace tk::lower {

namespace {

using namespace ir;

const Type kTile = Type::tile(DType::f32);

// How deep one fused element expression may nest: a deeper operand is computed into a tile
// buffer of its own first. Keeps the generated C++ readable and within what the templates
// (common/ir.jinja recurses per level, within the Jinja engine's 200 calls) and C++ compilers
// (clang's default bracket depth is 256) take, whatever the .tk expression's depth.
constexpr int kMaxElementDepth = 16;

// The CPU element function `f32.<op>` of a unary op table row.
std::optional<Intrinsic> f32_unary(Intrinsic fn) {
  std::optional<ops::Op> op = op_of(fn);
  return op ? f32_intrinsic(*op) : std::nullopt;
}

std::optional<Intrinsic> reduction(Intrinsic fn) {
  switch (fn) {
  case Intrinsic::tile_rowsum:
    return Intrinsic::cpu_rowsum;
  case Intrinsic::tile_rowmax:
    return Intrinsic::cpu_rowmax;
  case Intrinsic::tile_colsum:
    return Intrinsic::cpu_colsum;
  case Intrinsic::tile_colmax:
    return Intrinsic::cpu_colmax;
  default:
    return std::nullopt;
  }
}

bool is_buffer(const Expr& e) {
  const Call* c = as<Call>(e);
  return c && c->fn == Intrinsic::cpu_tile;
}

// The tile variables worth packing once as a matmul's A: read as the A of a matmul (`v @ b`,
// `acc + v @ b`) only in loops deeper than every statement that writes them, every write a
// `let`/assignment of a tile value (not a buffer a runtime call fills). Attention's `p` is written
// once per key step and read by `o[d] = o[d] * c + p @ V[h, j, d]` for every d: packed where it
// is written, it is not repacked per d (tile_matmul_acc repacks its A on every call).
class PackedOperands : public Visitor {
public:
  std::set<std::string> names() const {
    std::set<std::string> out;
    for (const auto& [name, u] : uses_)
      if (!excluded_.count(name) && writes_.count(name) && writes_.at(name) < u)
        out.insert(name);
    return out;
  }

protected:
  void visit_node(const For& f) override {
    ++depth_;
    Visitor::visit_node(f);
    --depth_;
  }
  void visit_node(const Decl& d) override {
    if (d.type.is_tile()) {
      if (is_buffer(d.value))
        excluded_.insert(d.name);
      write(d.name);
    }
    Visitor::visit_node(d);
  }
  void visit_node(const Assign& a) override {
    if (a.value && a.value->type.is_tile())
      write(a.name);
    Visitor::visit_node(a);
  }
  void visit_node(const Call& c) override {
    const std::size_t at = c.fn == Intrinsic::tile_matmul_acc ? 1 : 0;
    if (c.fn == Intrinsic::tile_matmul_acc || c.fn == Intrinsic::tile_matmul)
      if (const Var* v = as<Var>(c.args[at])) {
        auto [it, fresh] = uses_.emplace(v->name, depth_);
        if (!fresh && depth_ < it->second)
          it->second = depth_;
      }
    Visitor::visit_node(c);
  }

private:
  void write(const std::string& name) {
    auto [it, fresh] = writes_.emplace(name, depth_);
    if (!fresh && depth_ > it->second)
      it->second = depth_;
  }
  int depth_ = 0;
  std::map<std::string, int> writes_, uses_; // the deepest write, the shallowest use as A
  std::set<std::string> excluded_;
};

class FunctionLowering {
public:
  explicit FunctionLowering(const Program& p) : names_(p) {
    // The materialised value lower-gemm reads packed: its tiles are stored packed.
    packed_a_ = p.cpu_packed_a;
    er_ = names_.fresh("er");
    ec_ = names_.fresh("ec");
  }

  Stmt run(const Stmt& body) {
    PackedOperands scan;
    scan.visit(body);
    for (const std::string& name : scan.names())
      packed_[name] = names_.fresh(name + "_pa");
    const Block* b = as<Block>(body);
    std::vector<Stmt> out;
    lower_block(b ? b->stmts : std::vector<Stmt>{body}, out);
    // Tiles of which only column 0 is read are computed in column 0 only (narrow_columns.hpp).
    return narrow_columns(block(std::move(out)), er_, ec_);
  }

private:
  // ---- statements -------------------------------------------------------------------------------
  void lower_block(const std::vector<Stmt>& stmts, std::vector<Stmt>& out) {
    for (const Stmt& s : stmts)
      lower_stmt(s, out);
  }

  Stmt lower_body(const Stmt& s) {
    if (!s)
      return s;
    std::vector<Stmt> out;
    const Block* b = as<Block>(s);
    lower_block(b ? b->stmts : std::vector<Stmt>{s}, out);
    return block(std::move(out));
  }

  void lower_stmt(const Stmt& s, std::vector<Stmt>& out) {
    if (const Decl* d = as<Decl>(s)) {
      if (!d->type.is_tile() || is_buffer(d->value)) { // lower-gemm's accumulator is a buffer
        out.push_back(s);
        return;
      }
      out.push_back(decl(d->name, kTile, call(Intrinsic::cpu_tile, {}), d->loc.range));
      eval_into(d->value, d->name, out);
      if (auto it = packed_.find(d->name); it != packed_.end()) {
        out.push_back(decl(it->second, kTile, call(Intrinsic::cpu_tile, {}), d->loc.range));
        pack(d->name, out);
      }
    } else if (const Assign* a = as<Assign>(s)) {
      if (const Call* c = as<Call>(a->value); c && c->fn == Intrinsic::row_set) {
        // `o = row.set(o, d, t)`: t computed into a buffer, copied into tile d of the row.
        std::string src = buffer_of(c->args[2], out);
        out.push_back(evaluate(
            call(Intrinsic::cpu_row_set, {c->args[0], c->args[1], var(src, kTile)}), a->loc.range));
        return;
      }
      if (!a->value->type.is_tile()) {
        out.push_back(s);
        return;
      }
      eval_into(a->value, a->name, out);
      pack(a->name, out);
    } else if (const Store* st = as<Store>(s)) {
      std::string src = buffer_of(st->value, out);
      std::vector<Expr> args{var(src, kTile), tensor_ref(st->tensor)};
      args.insert(args.end(), st->indices.begin(), st->indices.end());
      // A batched tensor: tile (row, col) of matrix `b` (the first index).
      Intrinsic fn =
          st->indices.size() == 3 ? Intrinsic::cpu_store_batch_tile : Intrinsic::cpu_store_tile;
      if (st->tensor == packed_a_ && st->indices.size() == 2)
        fn = Intrinsic::cpu_store_packed_a;
      out.push_back(evaluate(call(fn, std::move(args)), st->loc.range));
    } else if (const For* f = as<For>(s)) {
      out.push_back(
          for_loop(f->var, f->min, f->extent, f->role, lower_body(f->body), f->loc.range));
    } else if (const IfThenElse* i = as<IfThenElse>(s)) {
      out.push_back(
          if_then_else(i->cond, lower_body(i->then_case), lower_body(i->else_case), i->loc.range));
    } else if (const Block* b = as<Block>(s)) {
      lower_block(b->stmts, out);
    } else {
      out.push_back(s);
    }
  }

  // After a write of a variable of packed_: its packed form, written again.
  void pack(const std::string& name, std::vector<Stmt>& out) {
    if (auto it = packed_.find(name); it != packed_.end())
      out.push_back(
          evaluate(call(Intrinsic::cpu_pack_tile_a, {var(name, kTile), var(it->second, kTile)})));
  }

  // ---- tile values ------------------------------------------------------------------------------
  Stmt new_buffer(std::string& name) {
    name = names_.numbered("t");
    return decl(name, kTile, call(Intrinsic::cpu_tile, {}));
  }

  /// A buffer holding the value of `e`: a tile variable itself, else a fresh temporary.
  std::string buffer_of(const Expr& e, std::vector<Stmt>& out, bool* fresh = nullptr) {
    if (const Var* v = as<Var>(e)) {
      if (fresh)
        *fresh = false;
      return v->name;
    }
    std::string t;
    out.push_back(new_buffer(t));
    eval_into(e, t, out);
    if (fresh)
      *fresh = true;
    return t;
  }

  /// Statements that leave the value of tile expression `e` in buffer `dst`.
  void eval_into(const Expr& e, const std::string& dst, std::vector<Stmt>& out) {
    if (const Var* v = as<Var>(e)) {
      if (v->name != dst)
        out.push_back(assign(dst, e));
      return;
    }
    if (const Load* l = as<Load>(e)) {
      std::vector<Expr> args{tensor_ref(l->tensor)};
      args.insert(args.end(), l->indices.begin(), l->indices.end());
      args.push_back(var(dst, kTile));
      Intrinsic fn =
          l->indices.size() == 3 ? Intrinsic::cpu_load_batch_tile : Intrinsic::cpu_load_tile;
      out.push_back(evaluate(call(fn, std::move(args)), l->loc.range));
      return;
    }
    if (const Call* c = as<Call>(e)) {
      if (c->fn == Intrinsic::row_get) { // tile d of a row, copied into dst
        out.push_back(evaluate(
            call(Intrinsic::cpu_row_get, {c->args[0], c->args[1], var(dst, kTile)}), c->loc.range));
        return;
      }
      if (std::optional<Intrinsic> r = reduction(c->fn)) {
        std::string src = buffer_of(c->args[0], out);
        out.push_back(evaluate(call(*r, {var(src, kTile), var(dst, kTile)}), c->loc.range));
        return;
      }
    }
    std::vector<Stmt> pre;
    bool shifted = false;
    Expr v = elem(e, pre, dst, shifted);
    if (shifted) { // a broadcast reads other elements of dst than the one being written
      std::string t;
      out.push_back(new_buffer(t));
      out.insert(out.end(), pre.begin(), pre.end());
      out.push_back(element_loop(t, v));
      out.push_back(assign(dst, var(t, kTile)));
      return;
    }
    out.insert(out.end(), pre.begin(), pre.end());
    out.push_back(element_loop(dst, v));
  }

  Expr get(const std::string& buf, Expr r, Expr c) {
    return call(Intrinsic::cpu_tile_get, {var(buf, kTile), std::move(r), std::move(c)});
  }
  Expr er() const { return var(er_, Type::i32()); }
  Expr ec() const { return var(ec_, Type::i32()); }

  Stmt element_loop(const std::string& dst, Expr value) {
    Stmt set =
        evaluate(call(Intrinsic::cpu_tile_set, {var(dst, kTile), er(), ec(), std::move(value)}));
    return for_loop(er_, int_imm(0), int_imm(32), ForRole::serial,
                    for_loop(ec_, int_imm(0), int_imm(32), ForRole::serial, set));
  }

  /// The f32 value of element (er, ec) of tile expression `e`; what cannot be computed element by
  /// element (loads, reductions, matmuls, broadcast operands), and an operand kMaxElementDepth
  /// below the top, is materialised into `pre` first. `depth`: how deep `e` is in the value.
  Expr elem(const Expr& e, std::vector<Stmt>& pre, const std::string& dst, bool& shifted,
            int depth = 0) {
    if (const Var* v = as<Var>(e))
      return get(v->name, er(), ec());
    if (as<Load>(e))
      return get(buffer_of(e, pre), er(), ec());
    const Call* c = as<Call>(e);
    if (c && c->fn == Intrinsic::row_get)
      return get(buffer_of(e, pre), er(), ec());
    if (!c)
      throw InternalError("internal error: lower-elementwise: unexpected tile expression " +
                          print(e));
    auto arg = [&](std::size_t i) {
      if (depth + 1 >= kMaxElementDepth)
        return get(buffer_of(c->args[i], pre), er(), ec());
      return elem(c->args[i], pre, dst, shifted, depth + 1);
    };
    // Operands are lowered left to right in separate statements: the order of the materialising
    // statements they emit must not depend on the C++ compiler's argument evaluation order.
    auto both = [&](BinaryOp op) {
      Expr a = arg(0);
      Expr b = arg(1);
      return binary(op, std::move(a), std::move(b));
    };
    if (std::optional<Intrinsic> u = f32_unary(c->fn))
      return call(*u, {arg(0)});
    switch (c->fn) {
    case Intrinsic::tile_zeros:
      return float_imm(0.0);
    case Intrinsic::tile_fill:
      return c->args[0];
    case Intrinsic::tile_add:
      return both(BinaryOp::add);
    case Intrinsic::tile_sub:
      return both(BinaryOp::sub);
    case Intrinsic::tile_mul:
      return both(BinaryOp::mul);
    case Intrinsic::tile_max:
      return both(BinaryOp::max);
    case Intrinsic::tile_min:
      return both(BinaryOp::min);
    case Intrinsic::tile_add_scalar:
      return binary(BinaryOp::add, arg(0), c->args[1]);
    case Intrinsic::tile_sub_scalar:
      return binary(BinaryOp::sub, arg(0), c->args[1]);
    case Intrinsic::tile_rsub_scalar:
      return binary(BinaryOp::sub, c->args[1], arg(0));
    case Intrinsic::tile_mul_scalar:
      return binary(BinaryOp::mul, arg(0), c->args[1]);
    case Intrinsic::tile_elu:
      return call(Intrinsic::f32_elu, {arg(0), c->args[1]});
    case Intrinsic::tile_bcast_row:
    case Intrinsic::tile_bcast_col: {
      std::string src = buffer_of(c->args[0], pre);
      shifted = shifted || src == dst;
      return c->fn == Intrinsic::tile_bcast_row ? get(src, int_imm(0), ec())
                                                : get(src, er(), int_imm(0));
    }
    case Intrinsic::tile_lt:
      return call(Intrinsic::f32_lt, {arg(0), arg(1)});
    case Intrinsic::tile_le:
      return call(Intrinsic::f32_le, {arg(0), arg(1)});
    case Intrinsic::tile_gt:
      return call(Intrinsic::f32_gt, {arg(0), arg(1)});
    case Intrinsic::tile_ge:
      return call(Intrinsic::f32_ge, {arg(0), arg(1)});
    case Intrinsic::tile_eq:
      return call(Intrinsic::f32_eq, {arg(0), arg(1)});
    case Intrinsic::tile_ne:
      return call(Intrinsic::f32_ne, {arg(0), arg(1)});
    case Intrinsic::tile_where: {
      Expr m = arg(0);
      Expr a = arg(1);
      Expr b = arg(2);
      return call(Intrinsic::f32_where, {std::move(m), std::move(a), std::move(b)});
    }
    case Intrinsic::tile_tril:   // 1.0 where the global row 32 i + er is >= (<=) the global
    case Intrinsic::tile_triu: { // column 32 j + ec, else 0.0: exact in f32 for any index
      Expr row = call(Intrinsic::to_f32, {int_imm(32) * c->args[0] + er()});
      Expr col = call(Intrinsic::to_f32, {int_imm(32) * c->args[1] + ec()});
      return call(c->fn == Intrinsic::tile_tril ? Intrinsic::f32_ge : Intrinsic::f32_le,
                  {std::move(row), std::move(col)});
    }
    case Intrinsic::tile_transpose: { // element (er, ec) is the operand's (ec, er)
      std::string src = buffer_of(c->args[0], pre);
      shifted = shifted || src == dst;
      return get(src, ec(), er());
    }
    case Intrinsic::tile_rowsum:
    case Intrinsic::tile_rowmax:
    case Intrinsic::tile_colsum:
    case Intrinsic::tile_colmax: {
      bool fresh = false;
      std::string src = buffer_of(c->args[0], pre, &fresh);
      std::string out = src; // the runtime reduces in place
      if (!fresh)
        pre.push_back(new_buffer(out));
      pre.push_back(evaluate(call(*reduction(c->fn), {var(src, kTile), var(out, kTile)})));
      return get(out, er(), ec());
    }
    case Intrinsic::tile_matmul:
    case Intrinsic::tile_matmul_acc:
      return get(matmul(*c, pre), er(), ec());
    default:
      throw InternalError("internal error: lower-elementwise: no CPU lowering for " + print(e));
    }
  }

  // A matmul outside the recognised pattern (an operand is computed, as gelu(h) in mlp): out (=
  // 0 or the accumulator) += a @ b by the runtime, on the packed gemm's micro-kernel. As a loop
  // nest in generated code (i-k-j, vectorised along rows with the flags the kernel is built with,
  // SSE2 by default) it was about ten times slower: mlp at 256x512x2048 on one thread took 126 ms
  // with the nest and 95 ms with this.
  std::string matmul(const Call& c, std::vector<Stmt>& pre) {
    bool acc = c.fn == Intrinsic::tile_matmul_acc;
    std::string a = buffer_of(c.args[acc ? 1 : 0], pre);
    std::string b = buffer_of(c.args[acc ? 2 : 1], pre);
    std::string t;
    pre.push_back(new_buffer(t));
    eval_into(acc ? c.args[0] : call(Intrinsic::tile_zeros, {}), t, pre);
    // An A packed where it was written (PackedOperands) is not packed again.
    const auto packed = as<Var>(c.args[acc ? 1 : 0]) ? packed_.find(a) : packed_.end();
    if (packed != packed_.end())
      pre.push_back(evaluate(call(Intrinsic::cpu_packed_tile_matmul_acc,
                                  {var(packed->second, kTile), var(b, kTile), var(t, kTile)})));
    else
      pre.push_back(evaluate(
          call(Intrinsic::cpu_tile_matmul_acc, {var(a, kTile), var(b, kTile), var(t, kTile)})));
    return t;
  }

  NameSet names_;
  std::string packed_a_;                      // a materialised value stored in packed-A form
  std::map<std::string, std::string> packed_; // a tile variable -> its packed-A copy
  std::string er_, ec_;
};

} // namespace

ir::Module lower_elementwise(const ir::Module& m, Diagnostics&) {
  Module out = m;
  for (Program& p : out.programs)
    for (Function& f : p.functions) {
      if (f.kind != FuncKind::kernel)
        continue;
      f.body = FunctionLowering(p).run(f.body);
      f.kind = FuncKind::cpu;
    }
  return out;
}

} // namespace tk::lower
