#include "lowering/tt/peel_mask.hpp"

#include "lowering/ir/util.hpp"
#include "lowering/tt/target.hpp"

#include <map>
#include <set>

namespace tk::lower {

namespace {

using namespace tk::ir;

const Call* call_of(const Stmt& s) {
  const Evaluate* e = as<Evaluate>(s);
  return e ? as<Call>(e->call) : nullptr;
}

bool is_call(const Stmt& s, Intrinsic fn) {
  const Call* c = call_of(s);
  return c && c->fn == fn;
}

std::int64_t literal(const Expr& e, std::int64_t otherwise = -1) {
  const IntImm* i = as<IntImm>(e);
  return i ? i->value : otherwise;
}

bool same_cb(const Expr& a, const Expr& b) {
  const Ref* x = as<Ref>(a);
  const Ref* y = as<Ref>(b);
  return x && y && x->name == y->name;
}

// The row variable X of a mask difference `32 * (j - X)`, or empty.
std::string row_of(const Expr& diff, const std::string& j) {
  const Binary* m = as<Binary>(diff);
  if (!m || m->op != BinaryOp::mul || literal(m->a) != 32)
    return {};
  const Binary* d = as<Binary>(m->b);
  if (!d || d->op != BinaryOp::sub)
    return {};
  const Var* a = as<Var>(d->a);
  const Var* x = as<Var>(d->b);
  return a && x && a->name == j && x->name != j ? x->name : std::string();
}

// The mask group of `where(tril(i, j), x, fill(-inf))` as select-tile-ops writes it, at
// stmts[k .. k + 7): fill_tile(F), df.tril_tile(cb, f, 32 * (j - X)), cb_wait_front(cb, 1),
// copy_tile(cb, 0, M), cb_pop_front(cb, 1), where_tile(f, M, T, F, OUT), pack_tile(OUT, out) (and
// maybe more packs of OUT: a copy for the FPU, select-tile-ops' pack_fpu_copy), and nothing after
// them that computes in the section.
struct Group {
  const Block* block = nullptr;
  std::size_t at = 0;
  std::string row;
  Expr true_slot;
  std::size_t packs = 1; // pack_tile(OUT, ..) at stmts[at + 6 .. at + 6 + packs)
};

std::optional<Group> group_at(const Block& b, std::size_t k, const std::string& j) {
  const std::vector<Stmt>& s = b.stmts;
  if (k + 7 > s.size())
    return std::nullopt;
  const Call* fill = call_of(s[k]);
  const Call* tril = call_of(s[k + 1]);
  const Call* wait = call_of(s[k + 2]);
  const Call* copy = call_of(s[k + 3]);
  const Call* pop = call_of(s[k + 4]);
  const Call* where = call_of(s[k + 5]);
  const Call* pack = call_of(s[k + 6]);
  if (!fill || fill->fn != Intrinsic::fill_tile || !tril || tril->fn != Intrinsic::df_tril_tile ||
      !wait || wait->fn != Intrinsic::cb_wait_front || !copy || copy->fn != Intrinsic::copy_tile ||
      !pop || pop->fn != Intrinsic::cb_pop_front || !where || where->fn != Intrinsic::where_tile ||
      !pack || pack->fn != Intrinsic::pack_tile)
    return std::nullopt;
  const Expr& cb = tril->args[0];
  if (!same_cb(wait->args[0], cb) || literal(wait->args[1]) != 1 || !same_cb(copy->args[0], cb) ||
      literal(copy->args[1]) != 0 || !same_cb(pop->args[0], cb) || literal(pop->args[1]) != 1)
    return std::nullopt;
  // where_tile(format, condition, true, false, out)
  const std::int64_t mask = literal(copy->args[2]), fill_slot = literal(fill->args[0]);
  const std::int64_t out = literal(where->args[4]), t = literal(where->args[2]);
  if (mask < 0 || fill_slot < 0 || out < 0 || t < 0 || literal(where->args[1]) != mask ||
      literal(where->args[3]) != fill_slot || literal(pack->args[0]) != out || t == mask ||
      t == fill_slot)
    return std::nullopt;
  std::size_t packs = 1;
  while (k + 6 + packs < s.size()) {
    const Call* p = call_of(s[k + 6 + packs]);
    if (!p || p->fn != Intrinsic::pack_tile || literal(p->args[0]) != out)
      break;
    ++packs;
  }
  const std::size_t after = k + 6 + packs;
  if (after < s.size() &&
      (ir::any_call(s[after], tt::writes_dst) ||
       ir::any_call(s[after], [](Intrinsic f) { return f == Intrinsic::pack_tile; })))
    return std::nullopt;
  std::string row = row_of(tril->args[2], j);
  if (row.empty())
    return std::nullopt;
  return Group{&b, k, row, where->args[2], packs};
}

// Every mask group under `s` (a loop body), and the Decl of each name with the loops around it.
struct Finder {
  const std::string& j;
  std::vector<Group> groups;
  std::map<std::string, std::pair<const Decl*, std::vector<const For*>>> decls;
  std::vector<const For*> loops;
  int trils = 0;
  std::set<std::string> assigned; // a row variable assigned in the loop has no bound here
  explicit Finder(const std::string& v) : j(v) {}
  void walk(const Stmt& s) {
    if (const Block* b = as<Block>(s)) {
      for (std::size_t k = 0; k < b->stmts.size(); ++k) {
        if (is_call(b->stmts[k], Intrinsic::df_tril_tile))
          ++trils;
        if (std::optional<Group> g = group_at(*b, k, j))
          groups.push_back(*g);
        walk(b->stmts[k]);
      }
    } else if (const For* f = as<For>(s)) {
      loops.push_back(f);
      walk(f->body);
      loops.pop_back();
    } else if (const IfThenElse* i = as<IfThenElse>(s)) {
      walk(i->then_case);
      if (i->else_case)
        walk(i->else_case);
    } else if (const Decl* d = as<Decl>(s)) {
      decls[d->name] = {d, loops};
    } else if (const Assign* a = as<Assign>(s)) {
      assigned.insert(a->name);
    }
  }
};

// A lower bound of `e` over the loops `inner` (each variable at least its loop's minimum), or
// null. An expression that reads none of them is its own bound.
Expr lower_bound(const Expr& e, const std::vector<const For*>& inner) {
  bool reads_inner = false;
  for (const For* f : inner)
    reads_inner = reads_inner || ir::mentions(e, f->var);
  if (!reads_inner)
    return e;
  if (const Var* v = as<Var>(e)) {
    for (const For* f : inner)
      if (f->var == v->name)
        return lower_bound(f->min, inner);
    return nullptr;
  }
  const Binary* b = as<Binary>(e);
  if (!b)
    return nullptr;
  const Expr la = lower_bound(b->a, inner);
  switch (b->op) {
  case BinaryOp::add: {
    const Expr lb = lower_bound(b->b, inner);
    return la && lb ? ir::add(la, lb) : nullptr;
  }
  case BinaryOp::sub: {
    const Expr lb = lower_bound(b->b, inner);
    return la && lb == b->b ? la - b->b : nullptr; // the subtrahend reads no inner loop
  }
  case BinaryOp::min: {
    const Expr lb = lower_bound(b->b, inner);
    return la && lb ? binary(BinaryOp::min, la, lb) : nullptr;
  }
  default:
    return nullptr;
  }
}

// `s` with the mask group of `g` taken out: the where's result is its true operand.
struct Unmask : Mutator {
  const Group& g;
  explicit Unmask(const Group& x) : g(x) {}
  Stmt mutate_node(const Block& b, const Stmt& self) override {
    if (&b != g.block)
      return Mutator::mutate_node(b, self);
    std::vector<Stmt> out(b.stmts.begin(), b.stmts.begin() + static_cast<long>(g.at));
    for (std::size_t p = g.at + 6; p < g.at + 6 + g.packs; ++p) {
      const Call* pack = call_of(b.stmts[p]);
      out.push_back(
          evaluate(call(Intrinsic::pack_tile, {g.true_slot, pack->args[1]}, pack->loc.range),
                   b.stmts[p]->loc.range));
    }
    out.insert(out.end(), b.stmts.begin() + static_cast<long>(g.at + 6 + g.packs), b.stmts.end());
    return block(std::move(out));
  }
};

class Peeler {
public:
  explicit Peeler(const Program& p) : names_(p) {
    for (const Function& f : p.functions)
      names_.add(f);
  }

  Stmt walk(const Stmt& s) {
    if (const Block* b = as<Block>(s)) {
      std::vector<Stmt> out;
      bool changed = false;
      for (const Stmt& x : b->stmts) {
        out.push_back(walk(x));
        changed = changed || out.back() != x;
      }
      return changed ? block(std::move(out)) : s;
    }
    if (const For* f = as<For>(s)) {
      if (Stmt peeled = peel(*f))
        return peeled;
      Stmt body = walk(f->body);
      return body == f->body ? s : for_loop(f->var, f->min, f->extent, f->role, body, f->loc.range);
    }
    return s;
  }

private:
  NameSet names_;

  Stmt peel(const For& f) {
    Finder find(f.var);
    find.walk(f.body);
    if (find.trils != 1 || find.groups.size() != 1)
      return nullptr;
    const Group& g = find.groups.front();
    Expr bound;
    auto d = find.decls.find(g.row);
    if (find.assigned.count(g.row))
      return nullptr;
    if (d != find.decls.end())
      bound = lower_bound(d->second.first->value, d->second.second);
    else
      bound = var(g.row, Type::i32()); // bound outside the loop
    if (!bound || ir::mentions(bound, f.var))
      return nullptr;
    Unmask unmask(g);
    const Stmt unmasked = unmask.mutate(f.body);
    const std::string below = names_.fresh(f.var + "_below");
    const Expr hi = ir::add(f.min, f.extent);
    const Expr below_hi = binary(BinaryOp::min, bound, hi);
    const Expr count =
        binary(BinaryOp::max, literal(f.min) == 0 ? below_hi : below_hi - f.min, int_imm(0));
    const Expr n = var(below, Type::i32());
    std::vector<Stmt> out;
    out.push_back(decl(below, Type::i32(), count, f.loc.range));
    out.push_back(for_loop(f.var, f.min, n, f.role, unmasked, f.loc.range));
    out.push_back(for_loop(f.var, ir::add(f.min, n), f.extent - n, f.role, f.body, f.loc.range));
    return block(std::move(out));
  }
};

} // namespace

ir::Module peel_mask(const ir::Module& m, Diagnostics&) {
  ir::Module out = m;
  for (Program& p : out.programs) {
    Peeler peeler(p);
    for (Function& f : p.functions)
      if (f.kind == FuncKind::kernel)
        f.body = peeler.walk(f.body);
  }
  return out;
}

} // namespace tk::lower
