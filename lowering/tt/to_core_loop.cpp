#include "lowering/tt/to_core_loop.hpp"

#include "lowering/ir/util.hpp"

namespace tk::lower {

namespace {

using namespace tk::ir;

bool is_zero(const Expr& e) {
  const IntImm* i = as<IntImm>(e);
  return i && i->value == 0;
}

// Whether a loop inside `s` has a bound that reads `v` (`for j in 0 .. i + 1`).
bool bounds_a_loop(const Stmt& s, const std::string& v) {
  if (const Block* b = as<Block>(s)) {
    for (const Stmt& x : b->stmts)
      if (bounds_a_loop(x, v))
        return true;
    return false;
  }
  if (const For* f = as<For>(s))
    return ir::count_mentions(f->min, v) + ir::count_mentions(f->extent, v) > 0 ||
           bounds_a_loop(f->body, v);
  if (const IfThenElse* i = as<IfThenElse>(s))
    return bounds_a_loop(i->then_case, v) || (i->else_case && bounds_a_loop(i->else_case, v));
  return false;
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
    const bool fold = bounds_a_loop(body, nest.back()->var);
    if (nest.size() == 1 && is_zero(f.min) && !fold)
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
      // Causal balance: when the index bounds a loop inside (a triangular `0 .. i + 1`), the work
      // grows with it, and a core's run of consecutive items would be all light or all heavy.
      // The index is folded: r = 0, 1, 2, 3, ... decodes to 0, E-1, 1, E-2, ..., so every run of
      // two items sums to E-1 and split_work_to_cores' even runs carry even work (tt-metal's
      // FlashAttention gives each core a low and a high Q chunk: tech_reports/FlashAttention).
      if (k + 1 == nest.size() && fold) {
        const Expr half = idx / int_imm(2), odd = idx % int_imm(2);
        idx = ir::add(half, ir::mul(odd, l->extent - int_imm(1) - ir::mul(int_imm(2), half)));
      }
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

// core_grid: the nest `parallel i in 0 .. down { parallel j in 0 .. across { body } }` (inside a
// batch's `parallel b`, which becomes a serial loop around it) becomes
// `for ri in 0 .. ceil(down / rows) { for rj in 0 .. ceil(across / cols) { i = ri * rows + y;
// j = rj * cols + x; body } }`: every core walks as many items, and a grid row shares its i.
Stmt grid_loops(const For& outer, const CoreGrid& g, ir::NameSet& names) {
  const For& inner = *as<For>(as<Block>(outer.body)->stmts[0]);
  auto v = [](const std::string& n) { return var(n, Type::i32()); };
  auto rounds = [&](const Expr& extent, const std::string& cores) {
    return (extent + v(cores) - int_imm(1)) / v(cores);
  };
  std::string ri = names.fresh("ri"), rj = names.fresh("rj");
  Stmt body = block({decl(outer.var, Type::i32(), v(ri) * v(g.rows) + v(g.y)),
                     decl(inner.var, Type::i32(), v(rj) * v(g.cols) + v(g.x)), inner.body});
  Stmt across = for_loop(rj, int_imm(0), rounds(inner.extent, g.cols), ForRole::serial,
                         block({body}), inner.loc.range);
  return for_loop(ri, int_imm(0), rounds(outer.extent, g.rows), ForRole::serial, block({across}),
                  outer.loc.range);
}

void to_core_grid(Program& p, Function& k, ir::NameSet& names) {
  std::vector<Stmt> top = as<Block>(k.body)->stmts;
  Stmt body;
  const std::vector<const For*> nest =
      top.empty() ? std::vector<const For*>{} : ir::parallel_nest(top.back(), body);
  // Two loops, or three: a batch of matrices around them, which every core walks in order.
  const bool sized = nest.size() == 2 || nest.size() == 3;
  const For* batch = nest.size() == 3 ? nest[0] : nullptr;
  const For* outer = sized ? nest[nest.size() - 2] : nullptr;
  const For* inner = sized ? nest.back() : nullptr;
  const Var* down = outer ? as<Var>(outer->extent) : nullptr;
  const Var* across = inner ? as<Var>(inner->extent) : nullptr;
  if (!outer || !is_zero(outer->min) || !is_zero(inner->min) || !down || !across)
    throw InternalError("internal error: to-core-loop: program '" + p.name +
                        "' splits over a core grid but its kernel is no nest of two parallel "
                        "loops from 0 over lets (in a batch's loop or not)");
  CoreGrid g{names.fresh("core_x"),    names.fresh("core_y"), names.fresh("grid_cols"),
             names.fresh("grid_rows"), across->name,          down->name};
  top.back() = grid_loops(*outer, g, names);
  if (batch)
    top.back() = for_loop(batch->var, batch->min, batch->extent, ForRole::serial,
                          block({top.back()}), batch->loc.range);
  k.body = block(std::move(top));
  for (const std::string& n : {g.x, g.y, g.cols, g.rows})
    k.params.push_back({n, Type::i32()});
  p.host_plan->core_grid = g;
}

} // namespace

ir::Module to_core_loop(const ir::Module& m, Diagnostics&) {
  ir::Module out = m;
  for (Program& p : out.programs) {
    ir::NameSet names(p);
    for (Function& f : p.functions) {
      if (f.kind != FuncKind::kernel)
        continue;
      if (p.host_plan && p.host_plan->split == WorkSplit::core_grid) {
        to_core_grid(p, f, names);
        continue;
      }
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
