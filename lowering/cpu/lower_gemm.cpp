#include "lowering/cpu/lower_gemm.hpp"

#include "lowering/ir/util.hpp"

#include <map>
#include <set>
#include <vector>

namespace tk::lower {

namespace {

using namespace ir;

const Type kTile = Type::tile(DType::f32);

class GemmLowering {
public:
  GemmLowering(const Program& p, const Function& f) : prog_(p) {
    for (const auto& [dim, count] : tile_count_vars(f))
      dim_of_count_[count] = dim;
  }

  Stmt run(const Stmt& body) {
    const Block* b = as<Block>(body);
    std::vector<Stmt> out = lower_block(b ? b->stmts : std::vector<Stmt>{body});
    if (packs_.empty())
      return body;
    std::vector<Stmt> with_packs;
    bool placed = false;
    for (const Stmt& s : out) {
      const For* f = as<For>(s);
      if (!placed && f && f->role == ForRole::per_thread) {
        with_packs.insert(with_packs.end(), packs_.begin(), packs_.end());
        placed = true;
      }
      with_packs.push_back(s);
    }
    if (!placed)
      with_packs.insert(with_packs.begin(), packs_.begin(), packs_.end());
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
      out.push_back(lower_stmt(stmts[k]));
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
    if (const For* f = as<For>(s))
      return for_loop(f->var, f->min, f->extent, f->role, lower_body(f->body), f->loc.range);
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
    const Expr& row = la->indices[ra - 2];
    const Expr& col = lb->indices[rb - 1];
    const Var* ka = as<Var>(la->indices[ra - 1]);
    const Var* kb = as<Var>(lb->indices[rb - 2]);
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
    if (!covers_k(*f, ta->dims[ra - 1]) || !covers_k(*f, tb->dims[rb - 2]))
      return false;
    out.push_back(decl(d->name, kTile, call(Intrinsic::cpu_tile, {}), d->loc.range));
    add_pack(Intrinsic::cpu_pack_a, la->tensor);
    add_pack(Intrinsic::cpu_pack_b, lb->tensor);
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
      packs_.push_back(evaluate(call(fn, {tensor_ref(tensor)})));
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

  const Program& prog_;
  std::map<std::string, std::string> dim_of_count_; // `Kt` -> `K`
  std::set<std::pair<Intrinsic, std::string>> packed_;
  std::vector<Stmt> packs_;
};

} // namespace

ir::Module lower_gemm(const ir::Module& m, Diagnostics&) {
  Module out = m;
  for (Program& p : out.programs)
    for (Function& f : p.functions)
      if (f.kind == FuncKind::kernel)
        f.body = GemmLowering(p, f).run(f.body);
  return out;
}

} // namespace tk::lower
