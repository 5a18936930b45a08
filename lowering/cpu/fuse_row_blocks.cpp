#include "lowering/cpu/fuse_row_blocks.hpp"

#include "lowering/ir/printer.hpp"
#include "lowering/ir/util.hpp"
#include "lowering/ir/visitor.hpp"

#include <algorithm>
#include <optional>
#include <set>
#include <vector>

namespace tk::lower {

namespace {

using namespace ir;

// A program's kernel taken apart as materialise writes it: lets, then `parallel i { parallel x {
// body } }`.
struct Nest {
  std::vector<Stmt> lets;
  const For* outer = nullptr; // i
  const For* inner = nullptr; // f (first program) or j (second)
};

std::optional<Nest> nest_of(const Function& f) {
  const Block* b = as<Block>(f.body);
  if (!b || b->stmts.empty())
    return std::nullopt;
  Nest n;
  for (std::size_t k = 0; k + 1 < b->stmts.size(); ++k) {
    if (!as<Decl>(b->stmts[k]))
      return std::nullopt;
    n.lets.push_back(b->stmts[k]);
  }
  n.outer = as<For>(b->stmts.back());
  const Block* ob = n.outer ? as<Block>(n.outer->body) : nullptr;
  if (!ob || n.outer->role != ForRole::parallel || ob->stmts.size() != 1)
    return std::nullopt;
  n.inner = as<For>(ob->stmts[0]);
  if (!n.inner || n.inner->role != ForRole::parallel)
    return std::nullopt;
  return n;
}

bool is_var(const Expr& e, const std::string& name) {
  const Var* v = as<Var>(e);
  return v && v->name == name;
}

// Every access of the tensor has the row index `row` first; stores also the column `col`.
struct RowAccess : Visitor {
  const std::string& tensor;
  const std::string &row, &col;
  bool ok = true;
  int loads = 0, stores = 0;
  RowAccess(const std::string& t, const std::string& r, const std::string& c)
      : tensor(t), row(r), col(c) {}

protected:
  void visit_node(const Load& l) override {
    if (l.tensor == tensor) {
      ++loads;
      ok = ok && l.indices.size() == 2 && is_var(l.indices[0], row);
    }
    Visitor::visit_node(l);
  }
  void visit_node(const Store& s) override {
    if (s.tensor == tensor) {
      ++stores;
      ok = ok && s.indices.size() == 2 && is_var(s.indices[0], row) && is_var(s.indices[1], col);
    }
    Visitor::visit_node(s);
  }
};

class Fusion {
public:
  Fusion(Program& first, Program& second) : p_(first), q_(second) {}

  bool run() {
    if (!p_.materialise || p_.materialise->choice != Materialise::Choice::dram)
      return false;
    const std::string& h = p_.materialise->tensor;
    Function* fp = find_function(p_, FuncKind::kernel);
    Function* fq = find_function(q_, FuncKind::kernel);
    if (!fp || !fq)
      return false;
    const std::optional<Nest> a = nest_of(*fp), b = nest_of(*fq);
    if (!a || !b || a->outer->var != b->outer->var ||
        print(a->outer->min) != print(b->outer->min) ||
        print(a->outer->extent) != print(b->outer->extent))
      return false;
    // The first nest stores H[i, f] once; the second reads H only at row i.
    RowAccess wa(h, a->outer->var, a->inner->var), wb(h, b->outer->var, b->inner->var);
    wa.visit(a->inner->body);
    wb.visit(b->inner->body);
    if (!wa.ok || wa.stores != 1 || wa.loads != 0 || !wb.ok || wb.stores != 0 || wb.loads == 0)
      return false;
    std::vector<Stmt> lets = a->lets;
    for (const Stmt& s : b->lets) {
      const Decl* d = as<Decl>(s);
      bool same = false;
      for (const Stmt& t : a->lets)
        if (const Decl* e = as<Decl>(t); e->name == d->name) {
          if (print(e->value) != print(d->value))
            return false; // one name, two values
          same = true;
        }
      if (!same)
        lets.push_back(s);
    }
    NameSet names(p_);
    names.add(*fq);
    const SourceRange at = a->outer->loc.range;
    const Type i32 = Type::i32();
    const std::string rows = names.fresh("rows"), r = names.fresh("r"),
                      first = names.fresh(a->outer->var + "0"),
                      count = names.fresh(a->outer->var + "_n");
    const Expr mt = a->outer->extent, rv = var(rows, i32), start = var(first, i32);
    // The tile rows of H per block, at run time: at least the tiles of the weights' other
    // dimension (j's extent, D / 32 for mlp), since every block reads all the weights again, and
    // no more than gives every thread a block (tk::cpu::row_block_tiles).
    lets.push_back(
        decl(rows, i32, call(Intrinsic::cpu_row_block_tiles, {mt, b->inner->extent}), at));
    // for x { for i in i0 .. +n { body } }: x outside, so that each panel of the nest's B is read
    // once per block and reused for the block's rows.
    auto rows_of = [&](const Nest& n) {
      Stmt i = for_loop(n.outer->var, start, var(count, i32), ForRole::serial, n.inner->body,
                        n.outer->loc.range);
      return for_loop(n.inner->var, n.inner->min, n.inner->extent, ForRole::serial, block({i}),
                      n.inner->loc.range);
    };
    const Expr offset = var(r, i32) * rv;
    Stmt body = block(
        {decl(first, i32, is_zero(a->outer->min) ? offset : a->outer->min + offset, at),
         decl(count, i32, binary(BinaryOp::min, rv, mt - offset), at), rows_of(*a), rows_of(*b)});
    lets.push_back(
        for_loop(r, int_imm(0), (mt + rv - int_imm(1)) / rv, ForRole::parallel, body, at));
    // The second program's tensors and parameters join the first's; H is now stored and read there.
    for (const Tensor& t : q_.tensors)
      if (!p_.find_tensor(t.name))
        p_.tensors.push_back(t);
    for (Tensor& t : p_.tensors)
      if (t.name == h)
        t.role = TensorRole::intermediate;
    std::vector<Param> params;
    for (const Tensor& t : p_.tensors)
      params.push_back({t.name, Type::tensor()});
    for (const Function* f : {fp, fq})
      for (const Param& x : f->params)
        if (x.type.kind != Type::Kind::tensor &&
            std::none_of(params.begin(), params.end(),
                         [&](const Param& y) { return y.name == x.name; }))
          params.push_back(x);
    fp->params = std::move(params);
    fp->body = block(std::move(lets));
    fq->body = block({});
    p_.attrs["cpu_row_blocks"] = AttrValue{q_.name};
    return true;
  }

private:
  static bool is_zero(const Expr& e) {
    const IntImm* i = as<IntImm>(e);
    return i && i->value == 0;
  }

  Program& p_;
  Program& q_;
};

} // namespace

ir::Module fuse_row_blocks(const ir::Module& m, Diagnostics&) {
  Module out = m;
  for (Program& p : out.programs) {
    if (p.combine.empty() || !p.materialise || p.attrs.count("cpu_row_blocks"))
      continue;
    for (Program& q : out.programs)
      if (q.name == p.combine) {
        Fusion(p, q).run();
        break;
      }
  }
  return out;
}

} // namespace tk::lower
