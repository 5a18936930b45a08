#include "lowering/tt/build_dataflow.hpp"

#include "lowering/ir/printer.hpp"
#include "lowering/ir/util.hpp"

#include <algorithm>
#include <map>

namespace tk::lower {

namespace {

using namespace tk::ir;

// A tile count as a sum of products of loop extents: {["Kt"]: 1} is Kt, {[]: 1, ["Nt"]: 1} is
// Nt + 1. Canonical, so counts from different walks compare equal when they are.
using Count = std::map<std::vector<std::string>, std::int64_t>;

std::string print_count(const Count& c) {
  std::vector<std::pair<std::vector<std::string>, std::int64_t>> terms(c.begin(), c.end());
  std::stable_sort(terms.begin(), terms.end(),
                   [](const auto& a, const auto& b) { return a.first.size() > b.first.size(); });
  std::string out;
  for (const auto& [mono, k] : terms) {
    if (k == 0)
      continue;
    std::string t;
    if (k != 1 || mono.empty())
      t = std::to_string(k);
    for (const std::string& f : mono)
      t += (t.empty() ? "" : " * ") + f;
    out += (out.empty() ? "" : " + ") + t;
  }
  return out.empty() ? "0" : out;
}

struct Flow {
  std::string producer, consumer;
  Count pushed_per_item, popped_per_item, pushed_per_core, popped_per_core;
};

class Graph {
public:
  std::map<std::string, Flow> flows;

  void walk(const Stmt& s, std::vector<std::string>& loops, bool in_core) {
    if (const Block* b = as<Block>(s)) {
      for (const Stmt& x : b->stmts)
        walk(x, loops, in_core);
    } else if (const For* f = as<For>(s)) {
      if (f->role == ForRole::per_core) {
        walk(f->body, loops, true);
        return;
      }
      loops.push_back(print(f->extent));
      walk(f->body, loops, in_core);
      loops.pop_back();
    } else if (const Evaluate* e = as<Evaluate>(s)) {
      const Call* c = as<Call>(e->call);
      switch (c->fn) {
      case Intrinsic::df_read_tile:
        event(c->args[0], "reader", true, loops, in_core);
        break;
      case Intrinsic::df_scaler_tile:
        event(c->args[0], "reader", true, loops, in_core);
        break;
      case Intrinsic::pack_tile:
        event(c->args[1], "compute", true, loops, in_core);
        break;
      case Intrinsic::cb_pop_front:
        event(c->args[0], "compute", false, loops, in_core);
        break;
      case Intrinsic::df_write_tile:
        event(c->args[0], "writer", false, loops, in_core);
        break;
      default:
        break;
      }
    }
  }

private:
  void event(const Expr& cb, const std::string& who, bool push, std::vector<std::string> loops,
             bool in_core) {
    const std::string& name = as<Ref>(cb)->name;
    Flow& f = flows[name];
    std::string& side = push ? f.producer : f.consumer;
    if (!side.empty() && side != who)
      throw InternalError("internal error: build-dataflow: circular buffer '" + name + "' is " +
                          (push ? "pushed" : "popped") + " by both the " + side + " and the " +
                          who);
    side = who;
    std::sort(loops.begin(), loops.end());
    Count& c = push ? (in_core ? f.pushed_per_item : f.pushed_per_core)
                    : (in_core ? f.popped_per_item : f.popped_per_core);
    c[loops] += 1;
  }
};

} // namespace

ir::Module build_dataflow(const ir::Module& m, Diagnostics&) {
  ir::Module out = m;
  for (Program& p : out.programs) {
    const Function* k = ir::find_function(p, FuncKind::kernel);
    if (!k)
      throw InternalError("internal error: build-dataflow: program '" + p.name + "' has no kernel");
    Graph g;
    std::vector<std::string> loops;
    g.walk(k->body, loops, false);
    std::vector<AttrValue> list;
    for (const CircularBuffer& cb : p.cbs) {
      auto it = g.flows.find(cb.name);
      if (it == g.flows.end())
        continue; // declared but unused (an input the kernel never reads)
      const Flow& f = it->second;
      std::string per_item = print_count(f.pushed_per_item);
      std::string per_core = print_count(f.pushed_per_core);
      if (f.producer.empty() || f.consumer.empty() || per_item != print_count(f.popped_per_item) ||
          per_core != print_count(f.popped_per_core))
        throw InternalError("internal error: build-dataflow: circular buffer '" + cb.name +
                                "' pushes " + per_item + " + " + per_core + " tiles (" +
                                f.producer + ") but pops " + print_count(f.popped_per_item) +
                                " + " + print_count(f.popped_per_core) + " (" + f.consumer + ")",
                            print(out));
      list.push_back(
          {std::vector<AttrValue>{{cb.name}, {f.producer}, {f.consumer}, {per_item}, {per_core}}});
    }
    p.attrs["dataflow"] = {list};
  }
  return out;
}

} // namespace tk::lower
