#include "lowering/tt/split_kernels.hpp"

#include "lowering/ir/printer.hpp"
#include "lowering/ir/util.hpp"

#include <algorithm>

namespace tk::lower {

namespace {

using namespace tk::ir;

FuncKind side_of(const Program& p, const Call& c) {
  // A block read into an input CB the writer fills (CircularBuffer::read_by_writer) is the
  // writer's: its reads go out on the writer's NoC.
  if (c.fn == Intrinsic::df_read_block && !c.args.empty())
    if (const Ref* r = as<Ref>(c.args.front()))
      if (const CircularBuffer* cb = p.find_cb(r->name); cb && cb->read_by_writer)
        return FuncKind::writer;
  // A write from an output CB the reader drains (CircularBuffer::reader_writes_for) is the
  // reader's: it goes out on the reader's NoC.
  if ((c.fn == Intrinsic::df_write_tile || c.fn == Intrinsic::df_write_block) && !c.args.empty())
    if (const Ref* r = as<Ref>(c.args.front()))
      if (const CircularBuffer* cb = p.find_cb(r->name); cb && !cb->reader_writes_for.empty())
        return FuncKind::reader;
  switch (c.fn) {
  case Intrinsic::df_read_tile:
  case Intrinsic::df_read_block:
  case Intrinsic::df_mcast_block:
  case Intrinsic::df_scaler_tile:
  case Intrinsic::df_tril_tile:
  case Intrinsic::df_triu_tile:
    return FuncKind::reader;
  case Intrinsic::df_write_tile:
  case Intrinsic::df_write_block:
    return FuncKind::writer;
  default:
    return FuncKind::compute;
  }
}

// The statements of one side: its calls, and every loop and integer let (unused ones are dropped
// afterwards).
Stmt project(const Program& p, const Stmt& s, FuncKind side) {
  if (const Block* b = as<Block>(s)) {
    std::vector<Stmt> out;
    for (const Stmt& x : b->stmts)
      if (Stmt y = project(p, x, side))
        out.push_back(y);
    return block(std::move(out));
  }
  if (const For* f = as<For>(s))
    return for_loop(f->var, f->min, f->extent, f->role, project(p, f->body, side), f->loc.range);
  if (const Evaluate* e = as<Evaluate>(s))
    return side_of(p, *as<Call>(e->call)) == side ? s : nullptr;
  if (const Decl* d = as<Decl>(s); d && !d->type.is_tile())
    return s;
  if (as<Assign>(s) || as<Store>(s) || as<Decl>(s) || as<IfThenElse>(s))
    throw InternalError("internal error: split-kernels: unexpected statement after "
                        "select-tile-ops: " +
                        print(s));
  return nullptr;
}

// A per-core loop whose variable the body does not read needs only the count.
struct CountOnly : Mutator {
  Stmt mutate_node(const For& f, const Stmt& self) override {
    if (f.role != ForRole::per_core || ir::count_mentions(f.body, f.var) > 0)
      return self;
    return for_loop(f.var, int_imm(0), f.extent, f.role, f.body, f.loc.range);
  }
};

struct RefCollector : Visitor {
  std::set<std::string> names;
  void visit_node(const Ref& r) override { names.insert(r.name); }
};

Function make(const Program& p, const Function& k, FuncKind side, ir::NameSet& names) {
  Function f;
  f.kind = side;
  f.name = names.fresh(k.name + "_" + std::string(to_string(side)));
  f.loc = k.loc;
  CountOnly co;
  f.body = co.mutate(ir::drop_dead_code(project(p, k.body, side)));
  std::set<std::string> reads = ir::vars_read(f.body);
  RefCollector refs;
  refs.visit(f.body);
  for (const Param& q : k.params)
    if (reads.count(q.name) || (q.type.kind == Type::Kind::tensor && refs.names.count(q.name)))
      f.params.push_back(q);
  return f;
}

} // namespace

ir::Module split_kernels(const ir::Module& m, Diagnostics&) {
  ir::Module out = m;
  for (Program& p : out.programs) {
    auto it = std::find_if(p.functions.begin(), p.functions.end(),
                           [](const Function& f) { return f.kind == FuncKind::kernel; });
    if (it == p.functions.end())
      throw InternalError("internal error: split-kernels: program '" + p.name + "' has no kernel");
    Function kernel = *it;
    ir::NameSet names(p);
    std::vector<Function> three;
    for (FuncKind side : {FuncKind::reader, FuncKind::compute, FuncKind::writer})
      three.push_back(make(p, kernel, side, names));
    it = p.functions.erase(it);
    p.functions.insert(it, three.begin(), three.end());
  }
  return out;
}

} // namespace tk::lower
