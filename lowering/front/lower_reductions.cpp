#include "lowering/front/lower_reductions.hpp"

#include "lowering/ir/util.hpp"

#include <vector>

namespace tk::lower {

namespace {

using namespace ir;

// The parallel nest `s` with every parallel loop made a reduction loop: its iterations now run
// in order and carry the reduction variables.
Stmt sequential(const Stmt& s) {
  const For* f = as<For>(s);
  if (!f || f->role != ForRole::parallel)
    return s;
  const Block* b = as<Block>(f->body);
  Stmt body = f->body;
  if (b && b->stmts.size() == 1)
    body = block({sequential(b->stmts[0])});
  return for_loop(f->var, f->min, f->extent, ForRole::reduction, body, f->loc.range);
}

} // namespace

ir::Module lower_reductions(const ir::Module& m, Diagnostics&) {
  Module out = m;
  for (Program& p : out.programs)
    for (Function& f : p.functions) {
      if (f.kind != FuncKind::kernel)
        continue;
      const Block* b = as<Block>(f.body);
      if (!b)
        continue;
      // [size lets] [reduction variables' lets] parallel-nest [statements after it]
      std::size_t at = 0;
      while (at < b->stmts.size() && !(as<For>(b->stmts[at]) &&
                                       as<For>(b->stmts[at])->role == ForRole::parallel))
        ++at;
      if (at == b->stmts.size())
        continue;
      std::vector<Stmt> outer, inner;
      for (std::size_t i = 0; i < at; ++i) {
        const Decl* d = as<Decl>(b->stmts[i]);
        (d && !d->type.is_tile() ? outer : inner).push_back(b->stmts[i]);
      }
      if (inner.empty() && at + 1 == b->stmts.size())
        continue; // no reduction variable: the kernel is its parallel nest
      inner.push_back(sequential(b->stmts[at]));
      for (std::size_t i = at + 1; i < b->stmts.size(); ++i)
        inner.push_back(b->stmts[i]);
      NameSet names(p);
      outer.push_back(for_loop(names.fresh("z"), int_imm(0), int_imm(1), ForRole::parallel,
                               block(std::move(inner)), b->stmts[at]->loc.range));
      f.body = block(std::move(outer));
    }
  return out;
}

} // namespace tk::lower
