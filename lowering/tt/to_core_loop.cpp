#include "lowering/tt/to_core_loop.hpp"

#include "lowering/ir/util.hpp"

namespace tk::lower {

namespace {

using namespace tk::ir;

bool is_zero(const Expr& e) {
  const IntImm* i = as<IntImm>(e);
  return i && i->value == 0;
}

class CoreLoop : public Mutator {
public:
  CoreLoop(std::string start, std::string count, std::string linear)
      : start_(std::move(start)), count_(std::move(count)), linear_(std::move(linear)) {}

protected:
  Stmt mutate_node(const For& f, const Stmt& self) override {
    if (f.role != ForRole::parallel)
      return Mutator::mutate_node(f, self);
    std::vector<const For*> nest{&f};
    while (true) {
      const Block* b = as<Block>(nest.back()->body);
      const For* inner = b->stmts.size() == 1 ? as<For>(b->stmts[0]) : nullptr;
      if (!inner || inner->role != ForRole::parallel)
        break;
      nest.push_back(inner);
    }
    Expr start = var(start_, Type::u32()), count = var(count_, Type::u32());
    Stmt body = nest.back()->body;
    if (nest.size() == 1 && is_zero(f.min))
      return for_loop(f.var, start, count, ForRole::per_core, body, f.loc.range);
    // Row-major linear id: the last loop varies fastest.
    Expr w = var(linear_, Type::i32());
    std::vector<Stmt> decode;
    Expr stride = nullptr;
    for (std::size_t k = nest.size(); k-- > 0;) {
      const For* l = nest[k];
      Expr idx = stride ? w / stride : w;
      if (k > 0)
        idx = idx % l->extent;
      decode.insert(decode.begin(), decl(l->var, Type::i32(), ir::add(idx, l->min)));
      stride = stride ? ir::mul(stride, l->extent) : l->extent;
    }
    decode.push_back(body);
    return for_loop(linear_, start, count, ForRole::per_core, block(std::move(decode)),
                    f.loc.range);
  }

private:
  std::string start_, count_, linear_;
};

} // namespace

ir::Module to_core_loop(const ir::Module& m, Diagnostics&) {
  ir::Module out = m;
  for (Program& p : out.programs) {
    ir::NameSet names(p);
    for (Function& f : p.functions) {
      if (f.kind != FuncKind::kernel)
        continue;
      std::string start = names.fresh("start"), count = names.fresh("count");
      CoreLoop cl(start, count, names.fresh("w"));
      f.body = cl.mutate(f.body);
      f.params.push_back({start, Type::u32()});
      f.params.push_back({count, Type::u32()});
      // The host plan sets these two per core.
      if (p.host_plan)
        p.host_plan->per_core = PerCore{start, count};
    }
  }
  return out;
}

} // namespace tk::lower
