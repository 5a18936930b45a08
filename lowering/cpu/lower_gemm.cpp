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
    if (!acc || acc->name != d->name || !la || !lb || la->indices.size() != 2 ||
        lb->indices.size() != 2)
      return false;
    const Var* ka = as<Var>(la->indices[1]);
    const Var* kb = as<Var>(lb->indices[0]);
    if (!ka || !kb || ka->name != f->var || kb->name != f->var ||
        mentions(la->indices[0], f->var) || mentions(lb->indices[1], f->var) ||
        mentions(la->indices[0], d->name) || mentions(lb->indices[1], d->name))
      return false;
    const Tensor* ta = prog_.find_tensor(la->tensor);
    const Tensor* tb = prog_.find_tensor(lb->tensor);
    if (!ta || !tb || ta->dims.size() != 2 || tb->dims.size() != 2 || !covers_k(*f, ta->dims[1]) ||
        !covers_k(*f, tb->dims[0]))
      return false;
    out.push_back(decl(d->name, kTile, call(Intrinsic::cpu_tile, {}), d->loc.range));
    add_pack(Intrinsic::cpu_pack_a, la->tensor);
    add_pack(Intrinsic::cpu_pack_b, lb->tensor);
    out.push_back(evaluate(
        call(Intrinsic::cpu_gemm_tile, {tensor_ref(la->tensor), tensor_ref(lb->tensor),
                                        la->indices[0], lb->indices[1], var(d->name, kTile)}),
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
