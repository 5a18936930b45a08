#include "lowering/tt/row_walks.hpp"

#include "lowering/ir/util.hpp"
#include "lowering/tt/target.hpp"

#include <set>

namespace tk::lower::tt {

namespace {

using namespace tk::ir;

// The names a statement assigns or declares.
struct Assigned : Visitor {
  std::set<std::string> names;
  void visit_node(const Decl& d) override {
    names.insert(d.name);
    Visitor::visit_node(d);
  }
  void visit_node(const Assign& a) override {
    names.insert(a.name);
    Visitor::visit_node(a);
  }
};

// `let d = e` followed by a statement that reads d only as `tile.mul(d, d)`: that statement with
// tile.square(e), the let dropped. A walk over a kept row then computes d and squares it in one
// DST section, where the let, read twice, was packed into a CB of its own and copied back twice
// (layernorm's variance walk: `d = x[i, j] - bcast_col(mean); v += rowsum(d * d)`).
struct SquareOf : Mutator {
  std::string name;
  Expr value;
  int found = 0;
  Expr mutate_node(const Call& c, const Expr& self) override {
    if (c.fn == Intrinsic::tile_mul && c.args.size() == 2)
      if (const Var* a = as<Var>(c.args[0]); a && a->name == name)
        if (const Var* b = as<Var>(c.args[1]); b && b->name == name) {
          ++found;
          return call(Intrinsic::tile_square, {value}, c.loc.range);
        }
    return Mutator::mutate_node(c, self);
  }
};

Stmt squares(const Stmt& s) {
  if (const For* f = as<For>(s))
    return for_loop(f->var, f->min, f->extent, f->role, squares(f->body), f->loc.range);
  const Block* b = as<Block>(s);
  if (!b)
    return s;
  std::vector<Stmt> out;
  for (std::size_t k = 0; k < b->stmts.size(); ++k) {
    const Decl* d = as<Decl>(b->stmts[k]);
    if (d && d->type.is_tile() && k + 1 < b->stmts.size() &&
        ir::count_mentions(b->stmts[k + 1], d->name) == 2 &&
        ir::count_mentions(
            block(std::vector<Stmt>(b->stmts.begin() + static_cast<std::ptrdiff_t>(k + 2),
                                    b->stmts.end())),
            d->name) == 0) {
      SquareOf sq;
      sq.name = d->name;
      sq.value = d->value;
      Stmt next = sq.mutate(b->stmts[k + 1]);
      if (sq.found == 1) {
        out.push_back(next);
        ++k;
        continue;
      }
    }
    out.push_back(squares(b->stmts[k]));
  }
  return block(std::move(out));
}

// `let v = tile.zeros()` and a reduction loop of one statement `v = tile.add(v, tile.rowsum(e))`,
// e computed (not a tile read as it is, which reduce_tile sums straight from its CB), v not
// assigned after it: the loop sums e tile by tile into a new accumulator and v is its rowsum
// after the loop (rowsum is linear). Each tile then takes one DST section, e and the add, where
// rowsum(e) packed e and carried v through its CB in a second one (layernorm's variance walk).
std::vector<Stmt> sums_then_rowsum(const std::vector<Stmt>& in, ir::NameSet& names) {
  std::vector<Stmt> out;
  for (std::size_t k = 0; k < in.size(); ++k) {
    const Decl* v = as<Decl>(in[k]);
    const Call* zero = v ? as<Call>(v->value) : nullptr;
    const For* f = k + 1 < in.size() ? as<For>(in[k + 1]) : nullptr;
    const Block* b = f ? as<Block>(f->body) : nullptr;
    const Assign* a = b && b->stmts.size() == 1 ? as<Assign>(b->stmts[0]) : nullptr;
    const Call* add = a ? as<Call>(a->value) : nullptr;
    const Call* sum = add && add->fn == Intrinsic::tile_add && add->args.size() == 2
                          ? as<Call>(add->args[1])
                          : nullptr;
    const Var* carried = add ? as<Var>(add->args[0]) : nullptr;
    const Call* e = sum && sum->fn == Intrinsic::tile_rowsum ? as<Call>(sum->args[0]) : nullptr;
    bool later_assign = false;
    for (std::size_t n = k + 2; n < in.size() && v; ++n) {
      Assigned assigned;
      assigned.visit(in[n]);
      later_assign = later_assign || assigned.names.count(v->name) > 0;
    }
    if (!zero || !a || zero->fn != Intrinsic::tile_zeros || f->role != ForRole::reduction ||
        a->name != v->name || !carried || carried->name != v->name || !e ||
        e->fn == Intrinsic::cb_tile || ir::count_mentions(sum->args[0], v->name) > 0 ||
        later_assign) {
      out.push_back(in[k]);
      continue;
    }
    const std::string acc = names.fresh(v->name + "_sum");
    const Expr acc_var = var(acc, v->type);
    out.push_back(decl(acc, v->type, v->value, v->loc.range));
    out.push_back(for_loop(
        f->var, f->min, f->extent, f->role,
        block({assign(acc, call(Intrinsic::tile_add, {acc_var, sum->args[0]}, add->loc.range),
                      a->loc.range)}),
        f->loc.range));
    out.push_back(decl(v->name, v->type, call(Intrinsic::tile_rowsum, {acc_var}, sum->loc.range),
                       v->loc.range));
    ++k;
  }
  return out;
}

} // namespace

// Sums before the rowsum move the rounding: the accumulator's 1024 sums reach the reduce instead
// of each term. That is exact only where select-tile-ops splits a reduced fp32 value into hi + lo
// (select_tile_ops_state.cpp's split_sums_; the reduction loop the rewrite needs makes DST fp32,
// tt::decide_dst_fp32). With Float32 intermediates the reduce read the accumulator through SrcA
// as TF32, truncating every sum (the mean of tests/e2e/sums.tk's `centred` drifted 0.0027 low at
// N = 4096), where rowsum(e) tile by tile rounded only each term. select-tile-ops now splits with
// Float32 intermediates too (hi and lo in bf16 CBs: Sums/RowSumF32), but the rewrite has not been
// measured on such kernels since: they keep the tile-by-tile rowsum.
bool exact_rowsum_of_sums(const Program& p) {
  return !intermediates_f32(p);
}

std::vector<Stmt> fewer_sections(const Program& p, const std::vector<Stmt>& walks, NameSet& names) {
  std::vector<Stmt> out = walks;
  for (Stmt& w : out)
    if (as<For>(w))
      w = squares(w);
  return exact_rowsum_of_sums(p) ? sums_then_rowsum(out, names) : out;
}

} // namespace tk::lower::tt
