#include "lowering/tt/multicast_reads.hpp"

#include "lowering/ir/util.hpp"
#include "lowering/tt/target.hpp"

namespace tk::lower {

namespace {

using namespace tk::ir;

enum class Along : std::uint8_t { row, column };

// One tensor's multicast: the reader parameters its df.mcast_block passes.
struct Mcast {
  std::string tensor;
  Along along;
  std::string receives, x0, y0, x1, y1, dests, sender_x, sender_y, ready, valid;
  /// The ten in df.mcast_block's order, which is also the reader's parameter order.
  std::vector<std::string> values() const {
    return {receives, x0, y0, x1, y1, dests, sender_x, sender_y, ready, valid};
  }
};

class Multicast : public Mutator {
public:
  Multicast(Program& p, const CoreGrid& g) : p_(p), g_(g), names_(p) {}

  std::vector<Mcast> mcasts;

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
    const bool column = d.count(g_.x) > 0, row = d.count(g_.y) > 0;
    if (column && row)
      return self;
    const Mcast* found = mcast_of(as<Ref>(c->args[1])->name, column ? Along::column : Along::row);
    if (!found) // out of semaphores: a read of its own
      return self;
    const Mcast& m = *found;
    std::vector<Expr> args = c->args;
    for (const std::string& n : m.values())
      args.push_back(var(n, Type::i32()));
    return evaluate(call(Intrinsic::df_mcast_block, std::move(args)), e.loc.range);
  }

private:
  Program& p_;
  const CoreGrid& g_;
  ir::NameSet names_;
  std::map<std::string, std::set<std::string>> deps_;
  std::set<std::string> control_;

  std::set<std::string> deps(const Expr& e) const {
    std::set<std::string> out;
    for (const std::string& v : ir::vars_read(e)) {
      if (v == g_.x || v == g_.y)
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
    mcasts.push_back({tensor, along, n("receives"), n("x0"), n("y0"), n("x1"), n("y1"), n("dests"),
                      n("sender_x"), n("sender_y"), n("ready"), n("valid")});
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
    if (tt::kReaderNoc == Noc::noc_1) {
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

} // namespace

ir::Module multicast_reads(const ir::Module& m, Diagnostics&) {
  ir::Module out = m;
  for (Program& p : out.programs) {
    if (!p.host_plan || !p.host_plan->core_grid)
      continue;
    Function* reader = ir::find_function(p, FuncKind::reader);
    if (!reader)
      continue;
    Multicast mc(p, *p.host_plan->core_grid);
    reader->body = mc.mutate(reader->body);
    if (mc.mcasts.empty())
      continue;
    for (const Mcast& x : mc.mcasts) {
      for (const std::string& n : x.values())
        reader->params.push_back({n, Type::i32()});
      p.host_plan->semaphores.push_back(x.ready);
      p.host_plan->semaphores.push_back(x.valid);
    }
    p.functions.push_back(host_core(p, *p.host_plan->core_grid, mc.mcasts));
  }
  return out;
}

} // namespace tk::lower
