// Column-0-only reads of tile values (column_zero_reads.hpp): a backward need analysis to its
// greatest fixed point, one fact per variable name.
#include "lowering/tt/column_zero_reads.hpp"

#include "lowering/ir/visitor.hpp"
#include "ops/ops.hpp"

#include <map>
#include <utility>
#include <vector>

namespace tk::lower::tt {

using namespace tk::ir;

namespace {

bool is_tile_like(const Type& t) {
  return t.is_tile() || t.is_row();
}

// Whether `fn` computes each element of its result from the same element of its tile operands.
bool elementwise(Intrinsic fn) {
  if (fn == Intrinsic::tile_exp_scaled) // exp(x * f), fold-scale's
    return true;
  const std::optional<ops::Op> op = op_of(fn);
  if (!op)
    return false;
  switch (ops::info(*op).kind) {
  case ops::Kind::unary:
  case ops::Kind::scalar:
  case ops::Kind::binary:
  case ops::Kind::compare:
  case ops::Kind::select:
    return true;
  default:
    return false;
  }
}

class Need {
public:
  explicit Need(const Function& kernel) {
    struct Defs : Visitor {
      std::vector<std::pair<std::string, Expr>> defs;
      std::vector<Expr> whole; // read in full: stored values, conditions, call arguments
      void visit_node(const Decl& d) override {
        if (is_tile_like(d.type))
          defs.emplace_back(d.name, d.value);
        else
          whole.push_back(d.value);
      }
      void visit_node(const Assign& a) override { defs.emplace_back(a.name, a.value); }
      void visit_node(const Store& s) override { whole.push_back(s.value); }
      void visit_node(const Evaluate& e) override { whole.push_back(e.call); }
      void visit_node(const For& f) override {
        whole.push_back(f.min);
        whole.push_back(f.extent);
        visit(f.body);
      }
      void visit_node(const IfThenElse& s) override {
        whole.push_back(s.cond);
        visit(s.then_case);
        visit(s.else_case);
      }
    } d;
    d.visit(kernel.body);
    defs_ = std::move(d.defs);
    whole_ = std::move(d.whole);
  }

  ColumnZeroReads solve() {
    // Rounds until no variable newly needs its whole tile (each round only adds to `full_`).
    for (std::size_t before = full_.size() + 1; before != full_.size();) {
      before = full_.size();
      round();
    }
    // The last round saw the final facts: each call's reads are recorded in it.
    ColumnZeroReads out;
    for (const auto& [name, value] : defs_)
      if (!full_.count(name))
        out.vars.insert(name);
    for (const auto& [call, full] : call_full_)
      if (!full)
        out.calls.insert(call);
    return out;
  }

private:
  void round() {
    call_full_.clear();
    for (const Expr& e : whole_)
      read(e, true);
    for (const auto& [name, value] : defs_)
      read(value, full_.count(name) > 0);
  }

  // `e` is read in full, or only in column 0.
  void read(const Expr& e, bool full) {
    if (const Var* v = as<Var>(e)) {
      if (full && is_tile_like(v->type))
        full_.insert(v->name);
      return;
    }
    if (const Binary* b = as<Binary>(e)) {
      read(b->a, true);
      read(b->b, true);
      return;
    }
    if (const Load* l = as<Load>(e)) {
      for (const Expr& i : l->indices)
        read(i, true);
      return;
    }
    const Call* c = as<Call>(e);
    if (!c)
      return;
    if (is_tile_like(c->type)) {
      auto [it, fresh] = call_full_.emplace(c, full);
      if (!fresh)
        it->second = it->second || full;
    }
    bool operands_full = true;
    if (c->fn == Intrinsic::tile_bcast_col)
      operands_full = false;
    else if (elementwise(c->fn) || c->fn == Intrinsic::row_get || c->fn == Intrinsic::row_set)
      operands_full = full;
    for (const Expr& a : c->args)
      read(a, is_tile_like(a->type) ? operands_full : true);
  }

  std::vector<std::pair<std::string, Expr>> defs_;
  std::vector<Expr> whole_;
  std::set<std::string> full_;            // variables some read needs in full
  std::map<const Call*, bool> call_full_; // each call reached, and whether read in full
};

} // namespace

ColumnZeroReads column_zero_reads(const Function& kernel) {
  return Need(kernel).solve();
}

namespace {
struct ColumnCall {
  Intrinsic rc, c;
};
constexpr ColumnCall kColumnCalls[] = {{Intrinsic::exp_tile, Intrinsic::exp_tile_col},
                                       {Intrinsic::recip_tile, Intrinsic::recip_tile_col}};
} // namespace

std::optional<Intrinsic> column_call(Intrinsic rc) {
  for (const ColumnCall& k : kColumnCalls)
    if (k.rc == rc)
      return k.c;
  return std::nullopt;
}

std::optional<Intrinsic> rc_call(Intrinsic fn) {
  for (const ColumnCall& k : kColumnCalls)
    if (k.c == fn)
      return k.rc;
  return std::nullopt;
}

} // namespace tk::lower::tt
