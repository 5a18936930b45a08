#include "lowering/tt/multicast_reads.hpp"

#include "lowering/ir/util.hpp"
#include "lowering/tt/target.hpp"

namespace tk::lower {

namespace {

using namespace tk::ir;

// row, column: along a row (down a column) of a core_grid; grid: to every core of a
// split_work_to_cores program, a read that depends on no per-core value.
enum class Along : std::uint8_t { row, column, grid };

// One tensor's multicast: the reader parameters its df.mcast_block passes.
struct Mcast {
  std::string tensor;
  Along along;
  Noc noc; // the NoC of the kernel that multicasts it: the rectangle starts at its corner
  std::string receives, x0, y0, x1, y1, dests, sender_x, sender_y, ready, valid;
  /// The ten in df.mcast_block's order, which is also the reader's parameter order.
  std::vector<std::string> values() const {
    return {receives, x0, y0, x1, y1, dests, sender_x, sender_y, ready, valid};
  }
};

class Multicast : public Mutator {
public:
  // A core_grid program: its per-core values are the core's column and row.
  Multicast(Program& p, const CoreGrid& g) : names_(p), x_(g.x), y_(g.y) {}
  // A split_work_to_cores program: its per-core values are the first work item and the count.
  Multicast(Program& p, const PerCore& c) : names_(p), x_(c.start), y_(c.count), grid_(true) {}

  std::vector<Mcast> mcasts;

  /// The multicasts of one data-movement kernel, issued on `noc`.
  Stmt run(const Stmt& body, Noc noc) {
    noc_ = noc;
    deps_.clear();
    control_.clear();
    return mutate(body);
  }

protected:
  // Which of the core's column and row a value depends on, through the lets and loops around it.
  Stmt mutate_node(const Decl& d, const Stmt& self) override {
    deps_[d.name] = deps(d.value);
    return self;
  }
  Stmt mutate_node(const For& f, const Stmt&) override {
    std::set<std::string> c = deps(f.min), e = deps(f.extent);
    c.insert(e.begin(), e.end());
    deps_[f.var] = c;
    std::set<std::string> saved = control_;
    control_.insert(c.begin(), c.end());
    Stmt body = mutate(f.body);
    control_ = saved;
    return for_loop(f.var, f.min, f.extent, f.role, body, f.loc.range);
  }
  Stmt mutate_node(const IfThenElse& i, const Stmt& self) override {
    std::set<std::string> saved = control_, c = deps(i.cond);
    control_.insert(c.begin(), c.end());
    Stmt out = Mutator::mutate_node(i, self);
    control_ = saved;
    return out;
  }
  Stmt mutate_node(const Evaluate& e, const Stmt& self) override {
    const Call* c = as<Call>(e.call);
    if (!c || c->fn != Intrinsic::df_read_block)
      return self;
    std::set<std::string> d = control_;
    for (const Expr& a : c->args) {
      std::set<std::string> x = deps(a);
      d.insert(x.begin(), x.end());
    }
    // Alike along a row: it reads the core's row at most; down a column: its column at most.
    // Alike on every core of a split: it reads no per-core value (a row kept once per core).
    const bool column = d.count(x_) > 0, row = d.count(y_) > 0;
    if ((column && row) || (grid_ && (column || row)))
      return self;
    const Along along = grid_ ? Along::grid : column ? Along::column : Along::row;
    const Mcast* found = mcast_of(as<Ref>(c->args[1])->name, along);
    if (!found) // out of semaphores: a read of its own
      return self;
    const Mcast& m = *found;
    std::vector<Expr> args = c->args;
    for (const std::string& n : m.values())
      args.push_back(var(n, Type::i32()));
    return evaluate(call(Intrinsic::df_mcast_block, std::move(args)), e.loc.range);
  }

private:
  ir::NameSet names_;
  std::string x_, y_; // the per-core values
  bool grid_ = false;
  Noc noc_ = Noc::noc_0;
  std::map<std::string, std::set<std::string>> deps_;
  std::set<std::string> control_;

  std::set<std::string> deps(const Expr& e) const {
    std::set<std::string> out;
    for (const std::string& v : ir::vars_read(e)) {
      if (v == x_ || v == y_)
        out.insert(v);
      if (auto it = deps_.find(v); it != deps_.end())
        out.insert(it->second.begin(), it->second.end());
    }
    return out;
  }

  const Mcast* mcast_of(const std::string& tensor, Along along) {
    for (const Mcast& m : mcasts)
      if (m.tensor == tensor && m.along == along)
        return &m;
    if (2 * static_cast<std::int64_t>(mcasts.size() + 1) > tt::kMaxSemaphores)
      return nullptr;
    auto n = [&](const char* what) { return names_.fresh(tensor + "_mcast_" + what); };
    mcasts.push_back({tensor, along, noc_, n("receives"), n("x0"), n("y0"), n("x1"), n("y1"),
                      n("dests"), n("sender_x"), n("sender_y"), n("ready"), n("valid")});
    return &mcasts.back();
  }
};

// The host_core function: each multicast's per-core values from the core's column and row. Along
// a row the first column sends to columns 1 .. cols - 1 of its row; down a column the top row
// sends to rows 1 .. rows - 1. The rectangle runs from the corner the reader's NoC starts at.
Function host_core(const Program& p, const CoreGrid& g, const std::vector<Mcast>& mcasts) {
  auto u = [](const std::string& n) { return var(n, Type::u32()); };
  auto k = [](std::int64_t v) { return int_imm(v, Type::u32()); };
  auto min = [](Expr a, Expr b) { return binary(BinaryOp::min, std::move(a), std::move(b)); };
  auto noc = [](Intrinsic xy, Expr x, Expr y) { return call(xy, {std::move(x), std::move(y)}); };
  std::vector<Stmt> body;
  for (const Mcast& m : mcasts) {
    const bool row = m.along == Along::row;
    const std::string& along = row ? g.x : g.y; // the coordinate that varies along the multicast
    const std::string& size = row ? g.cols : g.rows;
    // (logical x, y) of the core at position `i` along the multicast
    auto at = [&](Expr i) { return row ? std::pair{i, u(g.y)} : std::pair{u(g.x), i}; };
    auto [fx, fy] = at(min(k(1), u(size) - k(1))); // the first receiver (itself when alone)
    auto [lx, ly] = at(u(size) - k(1));            // the last receiver
    auto [sx, sy] = at(k(0));                      // the sender
    if (m.noc == Noc::noc_1) {
      std::swap(fx, lx);
      std::swap(fy, ly);
    }
    body.push_back(decl(m.receives, Type::u32(), min(u(along), k(1))));
    body.push_back(decl(m.x0, Type::u32(), noc(Intrinsic::tt_noc_x, fx, fy)));
    body.push_back(decl(m.y0, Type::u32(), noc(Intrinsic::tt_noc_y, fx, fy)));
    body.push_back(decl(m.x1, Type::u32(), noc(Intrinsic::tt_noc_x, lx, ly)));
    body.push_back(decl(m.y1, Type::u32(), noc(Intrinsic::tt_noc_y, lx, ly)));
    body.push_back(decl(m.dests, Type::u32(), u(size) - k(1)));
    body.push_back(decl(m.sender_x, Type::u32(), noc(Intrinsic::tt_noc_x, sx, sy)));
    body.push_back(decl(m.sender_y, Type::u32(), noc(Intrinsic::tt_noc_y, sx, sy)));
  }
  Function f;
  f.kind = FuncKind::host_core;
  ir::NameSet names(p);
  f.name = names.fresh(p.name + "_host_core");
  for (const std::string& n : {g.x, g.y, g.cols, g.rows})
    f.params.push_back({n, Type::u32()});
  f.body = block(std::move(body));
  return f;
}

// The host_core function of a split_work_to_cores program: each grid multicast's per-core values
// from the core's logical coordinates, the number of cores the split used and the grid. The split
// takes cores column by column (row by row when row_wise): the largest rectangle from (0, 0) that
// holds only used cores is w x h, w = max(cores / gy, 1) and h = min(cores, gy) (transposed when
// row_wise). Core (0, 0) reads and multicasts to it, itself inside (noc_async_write_multicast
// without loopback writes every core of the rectangle but the sender: num_dests = w * h - 1,
// tt-metal's dataflow_api.h); a used core outside it (the last, partial column) reads its own.
Function grid_host_core(const Program& p, bool row_wise, const std::vector<Mcast>& mcasts) {
  ir::NameSet names(p);
  const std::string x = names.fresh("core_x"), y = names.fresh("core_y"),
                    n = names.fresh("used_cores"), gx = names.fresh("grid_x"),
                    gy = names.fresh("grid_y");
  auto u = [](const std::string& v) { return var(v, Type::u32()); };
  auto k = [](std::int64_t v) { return int_imm(v, Type::u32()); };
  auto min = [](Expr a, Expr b) { return binary(BinaryOp::min, std::move(a), std::move(b)); };
  auto max = [](Expr a, Expr b) { return binary(BinaryOp::max, std::move(a), std::move(b)); };
  auto noc = [](Intrinsic xy, Expr a, Expr b) { return call(xy, {std::move(a), std::move(b)}); };
  std::vector<Stmt> body;
  const std::string w = names.fresh("mcast_cols"), h = names.fresh("mcast_rows");
  body.push_back(decl(w, Type::u32(), row_wise ? min(u(n), u(gx)) : max(u(n) / u(gy), k(1))));
  body.push_back(decl(h, Type::u32(), row_wise ? max(u(n) / u(gx), k(1)) : min(u(n), u(gy))));
  // 1 when the core is inside the rectangle (x < w and y < h), 0 when not; 1 when it is not (0, 0)
  Expr inside = min(u(w) - min(u(x), u(w)), k(1)) * min(u(h) - min(u(y), u(h)), k(1));
  Expr other = min(u(x) + u(y), k(1));
  for (const Mcast& m : mcasts) {
    Expr fx = k(0), fy = k(0), lx = u(w) - k(1), ly = u(h) - k(1);
    if (m.noc == Noc::noc_1) {
      std::swap(fx, lx);
      std::swap(fy, ly);
    }
    body.push_back(decl(m.receives, Type::u32(), inside * other));
    body.push_back(decl(m.x0, Type::u32(), noc(Intrinsic::tt_noc_x, fx, fy)));
    body.push_back(decl(m.y0, Type::u32(), noc(Intrinsic::tt_noc_y, fx, fy)));
    body.push_back(decl(m.x1, Type::u32(), noc(Intrinsic::tt_noc_x, lx, ly)));
    body.push_back(decl(m.y1, Type::u32(), noc(Intrinsic::tt_noc_y, lx, ly)));
    body.push_back(decl(m.dests, Type::u32(), (k(1) - other) * (u(w) * u(h) - k(1))));
    body.push_back(decl(m.sender_x, Type::u32(), noc(Intrinsic::tt_noc_x, k(0), k(0))));
    body.push_back(decl(m.sender_y, Type::u32(), noc(Intrinsic::tt_noc_y, k(0), k(0))));
  }
  Function f;
  f.kind = FuncKind::host_core;
  f.name = names.fresh(p.name + "_host_core");
  // In this order: the template binds them to the core's x and y, the split's core count and grid.
  for (const std::string& v : {x, y, n, gx, gy})
    f.params.push_back({v, Type::u32()});
  f.body = block(std::move(body));
  return f;
}

} // namespace

ir::Module multicast_reads(const ir::Module& m, Diagnostics&) {
  ir::Module out = m;
  for (Program& p : out.programs) {
    if (!p.host_plan || (!p.host_plan->core_grid && !p.host_plan->per_core))
      continue;
    const HostPlan& plan = *p.host_plan;
    Multicast mc = plan.core_grid ? Multicast(p, *plan.core_grid) : Multicast(p, *plan.per_core);
    // The reader's block reads, then the writer's (an input CB read_by writer: a blocked
    // matmul's B), each multicast on its own kernel's NoC.
    std::vector<std::pair<Function*, Stmt>> changed;
    for (auto [kind, noc] : {std::pair{FuncKind::reader, tt::reader_noc(p)},
                             std::pair{FuncKind::writer, tt::writer_noc(p)}}) {
      Function* f = ir::find_function(p, kind);
      if (!f)
        continue;
      const std::size_t before = mc.mcasts.size();
      Stmt body = mc.run(f->body, noc);
      if (mc.mcasts.size() == before)
        continue; // unchanged (the dumps say so)
      f->body = body;
      for (std::size_t i = before; i < mc.mcasts.size(); ++i)
        for (const std::string& n : mc.mcasts[i].values())
          f->params.push_back({n, Type::i32()});
    }
    if (mc.mcasts.empty())
      continue;
    for (const Mcast& x : mc.mcasts) {
      p.host_plan->semaphores.push_back(x.ready);
      p.host_plan->semaphores.push_back(x.valid);
    }
    p.functions.push_back(plan.core_grid ? host_core(p, *plan.core_grid, mc.mcasts)
                                         : grid_host_core(p, plan.row_wise, mc.mcasts));
  }
  return out;
}

} // namespace tk::lower
