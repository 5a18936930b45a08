#include "lowering/tt/partition_work.hpp"

#include "lowering/ir/util.hpp"
#include "lowering/tt/target.hpp"

namespace tk::lower {

namespace {

using namespace tk::ir;

// The nest of parallel loops at the top of a kernel body (its last parallel loop), outermost
// first.
std::vector<const For*> parallel_nest(const Function& k) {
  Stmt last;
  for (const Stmt& s : as<Block>(k.body)->stmts)
    if (const For* x = as<For>(s); x && x->role == ForRole::parallel)
      last = s;
  Stmt body;
  return last ? ir::parallel_nest(last, body) : std::vector<const For*>{};
}

// Re-types a kernel index expression for the host, where sizes are u32.
struct ToHost : Mutator {
  Expr mutate_node(const Var& v, const Expr& self) override {
    return v.type.is_int() ? var(v.name, Type::u32()) : self;
  }
  Expr mutate_node(const IntImm& i, const Expr& self) override {
    return i.type.kind == Type::Kind::i32 ? int_imm(i.value, Type::u32()) : self;
  }
};

// The host function (sizes and scalars in, tile counts and the work-item count as lets) and the
// plan's work split over it.
Function host_function(const Program& p, const Function& k, HostPlan& plan) {
  Function h;
  h.kind = FuncKind::host;
  ir::NameSet names(p);
  h.name = names.fresh(p.name + "_host");
  for (const Param& q : k.params)
    if (q.type.kind != Type::Kind::tensor)
      h.params.push_back({q.name, q.type.is_int() ? Type::u32() : q.type});
  // The kernel's top-level lets the extents need (tile counts), re-typed for the host.
  std::vector<const For*> nest = parallel_nest(k);
  Expr items = int_imm(1, Type::u32());
  std::set<std::string> needed;
  ToHost to_host;
  for (const For* f : nest) {
    items = ir::mul(items, to_host.mutate(f->extent));
    std::set<std::string> r = ir::vars_read(f->extent);
    needed.insert(r.begin(), r.end());
  }
  const std::vector<Stmt>& top = as<Block>(k.body)->stmts;
  for (auto it = top.rbegin(); it != top.rend(); ++it) // lets the needed lets read
    if (const Decl* d = as<Decl>(*it); d && needed.count(d->name)) {
      std::set<std::string> r = ir::vars_read(d->value);
      needed.insert(r.begin(), r.end());
    }
  std::vector<Stmt> body;
  for (const Stmt& s : top)
    if (const Decl* d = as<Decl>(s); d && needed.count(d->name))
      body.push_back(decl(d->name, Type::u32(), to_host.mutate(d->value)));
  std::string work = names.fresh("work_items");
  body.push_back(decl(work, Type::u32(), items));
  h.body = block(std::move(body));
  // A blocked matmul's blocks go on a core grid, so that multicast-reads can share A's blocks
  // along a grid row and B's down a column (a batch's matrices one after the other).
  plan.split = p.blocking && (nest.size() == 2 || nest.size() == 3)
                   ? WorkSplit::core_grid
                   : WorkSplit::split_work_to_cores;
  plan.work_items = work;
  plan.grid = tt::option_grid(p);
  plan.row_wise = false;
  return h;
}

} // namespace

ir::Module partition_work(const ir::Module& m, Diagnostics&) {
  ir::Module out = m;
  for (Program& p : out.programs) {
    const Function* k = ir::find_function(p, FuncKind::kernel);
    if (!k)
      throw InternalError("internal error: partition-work: program '" + p.name +
                          "' has no kernel function");
    HostPlan plan;
    p.functions.push_back(host_function(p, *k, plan));
    p.host_plan = plan;
  }
  return out;
}

} // namespace tk::lower
