#include "lowering/cpu/partition_threads.hpp"

#include "lowering/ir/util.hpp"

#include <vector>

namespace tk::lower {

namespace {

using namespace ir;

bool is_zero(const Expr& e) {
  const IntImm* i = as<IntImm>(e);
  return i && i->value == 0;
}

Expr offset(const Expr& min, Expr v) {
  return is_zero(min) ? v : min + v;
}

Stmt partition(const For& outer, const Stmt& self, ir::NameSet& names) {
  Stmt body;
  std::vector<const For*> nest = parallel_nest(self, body);
  if (nest.size() == 1)
    return for_loop(outer.var, outer.min, outer.extent, ForRole::per_thread, outer.body,
                    outer.loc.range);
  const std::string w = names.fresh("w");
  Expr wv = var(w, Type::i32());
  Expr total = nest[0]->extent;
  for (std::size_t k = 1; k < nest.size(); ++k)
    total = total * nest[k]->extent;
  // Row-major decode: v_k = (w / prod_{m>k} e_m) % e_k; the first is not reduced, the last not
  // divided.
  std::vector<Stmt> stmts;
  for (std::size_t k = 0; k < nest.size(); ++k) {
    Expr stride;
    for (std::size_t m = k + 1; m < nest.size(); ++m)
      stride = stride ? stride * nest[m]->extent : nest[m]->extent;
    Expr v = stride ? wv / stride : wv;
    if (k > 0)
      v = v % nest[k]->extent;
    stmts.push_back(decl(nest[k]->var, Type::i32(), offset(nest[k]->min, v)));
  }
  stmts.push_back(body);
  return for_loop(w, int_imm(0), total, ForRole::per_thread, block(std::move(stmts)),
                  outer.loc.range);
}

} // namespace

ir::Module partition_threads(const ir::Module& m, Diagnostics&) {
  Module out = m;
  for (Program& p : out.programs)
    for (Function& f : p.functions) {
      if (f.kind != FuncKind::kernel)
        continue;
      const Block* b = as<Block>(f.body);
      if (!b)
        continue;
      ir::NameSet names(p);
      std::vector<Stmt> stmts;
      bool changed = false;
      for (const Stmt& s : b->stmts) {
        const For* loop = as<For>(s);
        if (loop && loop->role == ForRole::parallel) {
          stmts.push_back(partition(*loop, s, names));
          changed = true;
        } else {
          stmts.push_back(s);
        }
      }
      if (changed)
        f.body = block(std::move(stmts));
    }
  return out;
}

} // namespace tk::lower
