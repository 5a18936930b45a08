#include "lowering/cpu/lower_gemm.hpp"

#include "lowering/ir/printer.hpp"
#include "lowering/ir/util.hpp"
#include "lowering/ir/visitor.hpp"

#include <map>
#include <optional>
#include <set>
#include <vector>

namespace tk::lower {

namespace {

using namespace ir;

const Type kTile = Type::tile(DType::f32);

class GemmLowering {
public:
  GemmLowering(const Program& p, const Function& f, const std::set<std::string>& scratch)
      : prog_(p), fn_(f), names_(p), scratch_(scratch) {
    for (const auto& [dim, count] : tile_count_vars(f))
      dim_of_count_[count] = dim;
  }

  // The materialised values this program reads as a gemm's A in packed form.
  const std::set<std::string>& packed_scratch() const { return packed_scratch_; }

  Stmt run(const Stmt& body) {
    const Block* b = as<Block>(body);
    std::vector<Stmt> out = lower_block(b ? b->stmts : std::vector<Stmt>{body});
    if (packs_.empty())
      return body;
    // A B that no loop reads a column block at a time is packed whole before the loop: deferred,
    // it would be packed whole inside it, by one thread while the others wait (PackedB).
    for (auto& [fn, tensor] : packs_)
      if (fn == Intrinsic::cpu_pack_b && !by_units_.count(tensor))
        fn = Intrinsic::cpu_pack_b_whole;
    std::vector<Stmt> packs;
    for (const auto& [fn, tensor] : packs_)
      packs.push_back(evaluate(call(fn, {tensor_ref(tensor)})));
    std::vector<Stmt> with_packs;
    bool placed = false;
    for (const Stmt& s : out) {
      const For* f = as<For>(s);
      const Decl* d = as<Decl>(s);
      const Call* units = d ? as<Call>(d->value) : nullptr;
      if (!placed && ((f && f->role == ForRole::per_thread) ||
                      (units && units->fn == Intrinsic::cpu_gemm_units))) {
        with_packs.insert(with_packs.end(), packs.begin(), packs.end());
        placed = true;
      }
      with_packs.push_back(s);
    }
    if (!placed)
      with_packs.insert(with_packs.begin(), packs.begin(), packs.end());
    return block(drop_unused_lets(std::move(with_packs)));
  }

private:
  std::vector<Stmt> lower_block(const std::vector<Stmt>& stmts) {
    std::vector<Stmt> out;
    for (std::size_t k = 0; k < stmts.size(); ++k) {
      if (k + 1 < stmts.size() && gemm(stmts[k], stmts[k + 1], out)) {
        ++k;
        continue;
      }
      Stmt lowered = lower_stmt(stmts[k]);
      const Block* units = as<For>(stmts[k]) ? as<Block>(lowered) : nullptr;
      if (units) // by_units: the unit count, then its loop
        out.insert(out.end(), units->stmts.begin(), units->stmts.end());
      else
        out.push_back(std::move(lowered));
    }
    return out;
  }

  Stmt lower_body(const Stmt& s) {
    if (!s)
      return s;
    const Block* b = as<Block>(s);
    return block(lower_block(b ? b->stmts : std::vector<Stmt>{s}));
  }

  Stmt lower_stmt(const Stmt& s) {
    if (const For* f = as<For>(s)) {
      if (f->role != ForRole::per_thread)
        return for_loop(f->var, f->min, f->extent, f->role, lower_body(f->body), f->loc.range);
      order_.reset();
      loop_bs_.clear();
      Stmt body = lower_body(f->body);
      if (order_)
        if (std::optional<Stmt> ordered = reorder(*f, body, *order_)) {
          by_units_.insert(loop_bs_.begin(), loop_bs_.end());
          return by_units(*f, *ordered, *order_);
        }
      return for_loop(f->var, f->min, f->extent, f->role, body, f->loc.range);
    }
    if (const IfThenElse* i = as<IfThenElse>(s))
      return if_then_else(i->cond, lower_body(i->then_case), lower_body(i->else_case),
                          i->loc.range);
    if (const Block* b = as<Block>(s))
      return block(lower_block(b->stmts));
    return s;
  }

  // `let acc = tile.zeros()` then `for k in 0 .. Kt { acc = tile.matmul_acc(acc, load A[x, k],
  // load B[k, y]) }` over all of K: the packed micro-kernel computes the whole tile.
  bool gemm(const Stmt& first, const Stmt& second, std::vector<Stmt>& out) {
    const Decl* d = as<Decl>(first);
    const For* f = as<For>(second);
    if (!d || !f || !d->type.is_tile())
      return false;
    const Call* z = as<Call>(d->value);
    const Block* body = as<Block>(f->body);
    if (!z || z->fn != Intrinsic::tile_zeros || !body || body->stmts.size() != 1)
      return false;
    const Assign* a = as<Assign>(body->stmts[0]);
    const Call* mm = a ? as<Call>(a->value) : nullptr;
    if (!mm || a->name != d->name || mm->fn != Intrinsic::tile_matmul_acc)
      return false;
    const Var* acc = as<Var>(mm->args[0]);
    const Load* la = as<Load>(mm->args[1]);
    const Load* lb = as<Load>(mm->args[2]);
    // A @ transpose(T[.., y, k]): B = transpose(T), packed from T by cpu.pack_bt (attention's
    // Q K^T), so its k index is T's last and its column index T's second to last.
    const Call* tr = as<Call>(mm->args[2]);
    const bool transposed =
        !lb && tr && tr->fn == Intrinsic::tile_transpose && tr->args.size() == 1;
    if (transposed)
      lb = as<Load>(tr->args[0]);
    if (!acc || acc->name != d->name || !la || !lb)
      return false;
    const Tensor* ta = prog_.find_tensor(la->tensor);
    const Tensor* tb = prog_.find_tensor(lb->tensor);
    // Rank 2, or rank 3 with the batch index first: A[b, x, k] @ B[b', k, y].
    auto rank_ok = [](const Load* l, const Tensor* t) {
      return t && (l->indices.size() == 2 || l->indices.size() == 3) &&
             t->dims.size() == l->indices.size();
    };
    if (!rank_ok(la, ta) || !rank_ok(lb, tb))
      return false;
    const std::size_t ra = la->indices.size(), rb = lb->indices.size();
    const std::size_t col_at = transposed ? rb - 2 : rb - 1, k_at = transposed ? rb - 1 : rb - 2;
    const Expr& row = la->indices[ra - 2];
    const Expr& col = lb->indices[col_at];
    const Var* ka = as<Var>(la->indices[ra - 1]);
    const Var* kb = as<Var>(lb->indices[k_at]);
    if (!ka || !kb || ka->name != f->var || kb->name != f->var)
      return false;
    // Everything but k is fixed over the loop: row, column and the batch indices.
    std::vector<Expr> fixed = {row, col};
    if (ra == 3)
      fixed.push_back(la->indices[0]);
    if (rb == 3)
      fixed.push_back(lb->indices[0]);
    for (const Expr& e : fixed)
      if (mentions(e, f->var) || mentions(e, d->name))
        return false;
    if (!covers_k(*f, ta->dims[ra - 1]) || !covers_k(*f, tb->dims[k_at]))
      return false;
    // One packed form per B tensor in a program: the variable is named after the tensor.
    const Intrinsic pack_b = transposed ? Intrinsic::cpu_pack_bt : Intrinsic::cpu_pack_b;
    const Intrinsic other_b = transposed ? Intrinsic::cpu_pack_b : Intrinsic::cpu_pack_bt;
    if (packed_.count({other_b, lb->tensor}))
      return false;
    out.push_back(decl(d->name, kTile, call(Intrinsic::cpu_tile, {}), d->loc.range));
    const Var* row_var = as<Var>(row);
    const Var* col_var = as<Var>(col);
    if (!order_ && row_var && col_var)
      order_ = Order{
          la->tensor,           lb->tensor, row_var->name, col_var->name, ta->dims[ra - 2].name,
          tb->dims[col_at].name};
    // A materialised value read only here, as a rank-2 A, is never row-major: the first loop nest
    // stores its tiles straight into the packed form (cpu.store_packed_a) and this one reads it.
    if (ra == 2 && scratch_.count(la->tensor) && loads_of(fn_.body, la->tensor) == 1)
      packed_scratch_.insert(la->tensor);
    else
      add_pack(Intrinsic::cpu_pack_a, la->tensor);
    add_pack(pack_b, lb->tensor);
    loop_bs_.insert(lb->tensor);
    const Expr tile = var(d->name, kTile);
    if (ra == 2 && rb == 2) {
      out.push_back(evaluate(call(Intrinsic::cpu_gemm_tile,
                                  {tensor_ref(la->tensor), tensor_ref(lb->tensor), row, col, tile}),
                             f->loc.range));
      return true;
    }
    // A batched product: each operand's matrix (a rank-2 one is the same for every batch).
    const Expr batch_a = ra == 3 ? la->indices[0] : int_imm(0);
    const Expr batch_b = rb == 3 ? lb->indices[0] : int_imm(0);
    out.push_back(evaluate(
        call(Intrinsic::cpu_gemm_batch_tile,
             {tensor_ref(la->tensor), batch_a, tensor_ref(lb->tensor), batch_b, row, col, tile}),
        f->loc.range));
    return true;
  }

  // The first gemm of a per_thread loop whose row and column are plain variables: the tile order
  // of that loop may follow it.
  struct Order {
    std::string a, b;             // the packed operands
    std::string row, col;         // the variables of the output tile
    std::string row_dim, col_dim; // A's row and B's column dimension names
  };

  // partition-threads decodes the work item row-major: `let i = w / Nt` (`w / Nt % Mt` when a
  // batch loop is outside it) and `let j = w % Nt` over `Mt * Nt` (`X * Mt * Nt`) items, Mt and
  // Nt the tile counts of A's rows and B's columns. Then any order of the Mt x Nt tiles is as
  // good, and the runtime's keeps blocks of B in L2: i and j become cpu.gemm_row/col(A, B, w).
  // Any other decode is left as it is.
  std::optional<Stmt> reorder(const For& f, const Stmt& body, const Order& o) const {
    std::string mt, nt;
    for (const auto& [count, dim] : dim_of_count_) {
      if (!dim.empty() && dim == o.row_dim)
        mt = count;
      if (!dim.empty() && dim == o.col_dim)
        nt = count;
    }
    const Block* b = as<Block>(body);
    if (mt.empty() || nt.empty() || !b)
      return std::nullopt;
    const std::string extent = print(f.extent), w = f.var;
    const std::string items = mt + " * " + nt;
    std::string row_decode;
    if (extent == items)
      row_decode = w + " / " + nt;
    else if (extent.size() > items.size() && extent.compare(extent.size() - items.size() - 3,
                                                            std::string::npos, " * " + items) == 0)
      row_decode = w + " / " + nt + " % " + mt;
    else
      return std::nullopt;
    const Decl* row = nullptr;
    const Decl* col = nullptr;
    for (const Stmt& st : b->stmts)
      if (const Decl* d = as<Decl>(st)) {
        if (d->name == o.row && print(d->value) == row_decode)
          row = d;
        if (d->name == o.col && print(d->value) == w + " % " + nt)
          col = d;
      }
    if (!row || !col || row == col)
      return std::nullopt;
    std::vector<Stmt> stmts;
    for (const Stmt& st : b->stmts) {
      const Decl* d = as<Decl>(st);
      if (d == row || d == col)
        stmts.push_back(decl(d->name, d->type,
                             call(d == row ? Intrinsic::cpu_gemm_row : Intrinsic::cpu_gemm_col,
                                  {tensor_ref(o.a), tensor_ref(o.b), var(w, Type::i32())}),
                             d->loc.range));
      else
        stmts.push_back(st);
    }
    return block(std::move(stmts));
  }

  // The tile loop in the order of reorder(), `for w in 0 .. n per_thread { body }`, goes a unit
  // of tiles at a time: `for u in 0 .. cpu.gemm_units(A, B, n) per_thread { let w0 =
  // cpu.gemm_unit_begin(A, B, n, u); let wn = cpu.gemm_unit_size(A, B, n, u); for w in w0 .. +wn
  // { body } }`. A unit is a column block of B where there are enough to go round, so that each
  // thread works on whole blocks and keeps their panels of B in its own L2, else one tile. The
  // unit count is a let before the loop (`let units = cpu.gemm_units(A, B, n)`, a block of the
  // two that lower_block splices in): the loop's head then fits on its line as clang-format lays
  // it out, and ttgen need not format the file (docs/ttgen.md, "Start-up").
  Stmt by_units(const For& f, const Stmt& body, const Order& o) {
    const SourceRange at = f.loc.range;
    const std::string u = names_.fresh("u"), first = names_.fresh(f.var + "0"),
                      size = names_.fresh(f.var + "n"), count = names_.fresh("units");
    const Expr a = tensor_ref(o.a), b = tensor_ref(o.b), unit = var(u, Type::i32());
    Stmt items =
        for_loop(f.var, var(first, Type::i32()), var(size, Type::i32()), ForRole::serial, body, at);
    Stmt each = block(
        {decl(first, Type::i32(), call(Intrinsic::cpu_gemm_unit_begin, {a, b, f.extent, unit}), at),
         decl(size, Type::i32(), call(Intrinsic::cpu_gemm_unit_size, {a, b, f.extent, unit}), at),
         items});
    Expr units = call(Intrinsic::cpu_gemm_units, {a, b, f.extent});
    const Type type = units->type;
    return block({decl(count, type, std::move(units), at),
                  for_loop(u, int_imm(0), var(count, type), ForRole::per_thread, each, at)});
  }

  // The loop runs over every tile of dimension `k`: from 0 to its tile count.
  bool covers_k(const For& f, const Dim& k) const {
    const IntImm* lo = as<IntImm>(f.min);
    if (!lo || lo->value != 0)
      return false;
    if (const IntImm* n = as<IntImm>(f.extent))
      return k.name.empty() && k.size == n->value * 32;
    const Var* v = as<Var>(f.extent);
    auto it = v ? dim_of_count_.find(v->name) : dim_of_count_.end();
    return it != dim_of_count_.end() && !k.name.empty() && it->second == k.name;
  }

  void add_pack(Intrinsic fn, const std::string& tensor) {
    if (packed_.insert({fn, tensor}).second)
      packs_.emplace_back(fn, tensor);
  }

  // A tile count the gemm made unused (`let Kt: i32 = K / 32`) would be an unused C++ variable.
  static std::vector<Stmt> drop_unused_lets(std::vector<Stmt> stmts) {
    for (bool changed = true; changed;) {
      changed = false;
      for (std::size_t k = 0; k < stmts.size(); ++k) {
        const Decl* d = as<Decl>(stmts[k]);
        if (!d || d->type.is_tile())
          continue;
        bool used = false;
        for (std::size_t m = k + 1; m < stmts.size() && !used; ++m)
          used = mentions(stmts[m], d->name);
        if (!used) {
          stmts.erase(stmts.begin() + static_cast<std::ptrdiff_t>(k));
          changed = true;
          break;
        }
      }
    }
    return stmts;
  }

  struct LoadCounter : Visitor {
    const std::string& tensor;
    int count = 0;
    explicit LoadCounter(const std::string& t) : tensor(t) {}

  protected:
    void visit_node(const Load& l) override {
      count += l.tensor == tensor;
      Visitor::visit_node(l);
    }
  };
  static int loads_of(const Stmt& s, const std::string& tensor) {
    LoadCounter c{tensor};
    c.visit(s);
    return c.count;
  }

  const Program& prog_;
  const Function& fn_;
  NameSet names_;
  const std::set<std::string>& scratch_; // every program's materialised value
  std::set<std::string> packed_scratch_;
  std::map<std::string, std::string> dim_of_count_; // `Kt` -> `K`
  std::set<std::pair<Intrinsic, std::string>> packed_;
  std::vector<std::pair<Intrinsic, std::string>> packs_; // in order: (cpu.pack_a/b/bt, tensor)
  std::optional<Order> order_;                           // of the per_thread loop being lowered
  std::set<std::string> loop_bs_;                        // the B tensors of its gemms
  std::set<std::string> by_units_; // B tensors of a loop that goes a unit at a time (by_units)
};

} // namespace

ir::Module lower_gemm(const ir::Module& m, Diagnostics&) {
  Module out = m;
  // The materialised values: each first program's scratch tensor (materialise's decision).
  std::set<std::string> scratch;
  for (const Program& p : m.programs)
    if (p.materialise && p.materialise->choice == Materialise::Choice::dram)
      scratch.insert(p.materialise->tensor);
  std::set<std::string> packed;
  for (Program& p : out.programs)
    for (Function& f : p.functions)
      if (f.kind == FuncKind::kernel) {
        GemmLowering g(p, f, scratch);
        f.body = g.run(f.body);
        packed.insert(g.packed_scratch().begin(), g.packed_scratch().end());
      }
  // The program that stores a value read packed stores it packed (lower-elementwise).
  for (Program& p : out.programs)
    if (p.materialise && p.materialise->choice == Materialise::Choice::dram &&
        packed.count(p.materialise->tensor))
      p.cpu_packed_a = p.materialise->tensor;
  return out;
}

} // namespace tk::lower
