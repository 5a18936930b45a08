// The checker's expression part: types (index, scalar, tile), builtin calls, tensor accesses and
// the rule that every tensor index provably stays inside the dimension it indexes.
#include "dsl/check_internal.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace tk::dsl::detail {

std::string index_str(const TensorIndex& ix) {
  if (!ix.var)
    return std::to_string(ix.offset);
  if (ix.divisor_name)
    return ix.var->name + " / " + ix.divisor_name->name;
  if (ix.divided)
    return ix.var->name + " / " + std::to_string(ix.divisor);
  if (ix.offset == 0)
    return ix.var->name;
  return ix.var->name + (ix.offset > 0 ? " + " : " - ") + std::to_string(std::abs(ix.offset));
}

std::string access_str(const Access& a) {
  std::string s = a.tensor.name + "[";
  for (std::size_t i = 0; i < a.indices.size(); ++i)
    s += (i ? ", " : "") + index_str(a.indices[i]);
  return s + "]";
}

std::string expr_str(const Expr& e) {
  if (const auto* n = std::get_if<Number>(&e.node)) {
    if (std::isinf(n->value))
      return n->value > 0 ? "inf" : "-inf";
    std::ostringstream os;
    os << n->value;
    std::string s = os.str();
    if (!n->is_integer && s.find_first_of(".e") == std::string::npos)
      s += ".0";
    return s;
  }
  if (const auto* n = std::get_if<Name>(&e.node))
    return n->id.name;
  if (const auto* a = std::get_if<Access>(&e.node))
    return access_str(*a);
  if (const auto* c = std::get_if<Call>(&e.node)) {
    std::string s = c->callee.name + "(";
    for (std::size_t i = 0; i < c->args.size(); ++i)
      s += (i ? ", " : "") + expr_str(c->args[i]);
    return s + ")";
  }
  const auto& b = std::get<Binary>(e.node);
  auto side = [&](const Expr& x, bool right) {
    const auto* xb = std::get_if<Binary>(&x.node);
    int p = xb ? precedence(xb->op) : 3, me = precedence(b.op);
    bool paren = p < me || (right && p == me);
    return paren ? "(" + expr_str(x) + ")" : expr_str(x);
  };
  return side(*b.lhs, false) + " " + std::string(to_string(b.op)) + " " + side(*b.rhs, true);
}

namespace {

// A literal 0 (or -0), the one divisor the checker can see is zero.
bool is_zero(const Expr& e) {
  const auto* n = std::get_if<Number>(&e.node);
  return n && n->value == 0;
}

std::string dim_desc(const Param& t, std::size_t dim) {
  const Dim& d = t.dims[dim];
  return "dimension " + std::to_string(dim) + " of '" + t.name.name + "' (" +
         (d.name ? d.name->name : std::to_string(d.size)) + ")";
}

std::int64_t tile_count(std::int64_t size) {
  return size == 1 ? 1 : size / 32;
}

// tril, triu: builtins of op table kind position, whose arguments are tile indices.
bool is_position(const std::string& name) {
  Builtin f = builtin_from_string(name);
  return f != Builtin::unknown && ops::info(to_op(f)).kind == ops::Kind::position;
}

bool is_unary_elementwise(Builtin f) {
  return ops::info(to_op(f)).kind == ops::Kind::unary;
}

} // namespace

const Binding* Checker::resolve_tensor(const Ident& id) {
  Binding* b = lookup(id.name);
  if (!b) {
    std::vector<std::string> tensors;
    for (const auto& [n, p] : params_)
      if (p->is_tensor)
        tensors.push_back(n);
    unknown_name(id, tensors, "tensor");
    return nullptr;
  }
  switch (b->kind) {
  case Binding::Kind::tensor:
    return b;
  case Binding::Kind::scalar:
    error(id.loc.range, "'" + id.name +
                            "' is a scalar and cannot be indexed; use it as is, e.g. "
                            "x[i, j] * " +
                            id.name)
        .note(b->where, "'" + id.name + "' is declared here");
    break;
  case Binding::Kind::loop:
    error(id.loc.range, "'" + id.name + "' is a loop index, not a tensor")
        .note(b->loop->lv->var.loc.range, "'" + id.name + "' is defined here");
    break;
  case Binding::Kind::local:
    error(id.loc.range, "'" + id.name + "' is a tile value, not a tensor; use it without indices")
        .note(b->where, "'" + id.name + "' is bound here");
    break;
  case Binding::Kind::row: // check_expr and check_store take rows before resolving tensors
    break;
  }
  return nullptr;
}

bool Checker::check_indices(const Access& a, SourceRange where, const Param& t,
                            std::vector<LoopInfo*>& vars) {
  if (bad_params_.count(t.name.name))
    return false;
  if (a.indices.size() != t.dims.size()) {
    const std::string& n = t.name.name;
    bool batched = t.dims.size() == 3;
    std::string msg = "'" + n + "' has " + std::to_string(t.dims.size()) +
                      " dimensions but is indexed with " + std::to_string(a.indices.size()) +
                      " ind" + (a.indices.size() == 1 ? "ex" : "ices") + "; write " + n +
                      (batched ? "[batch, row, column], e.g. " + n + "[b, i, j]"
                               : "[row, column], e.g. " + n + "[i, j]");
    bool kernel_batched = false; // the hint only helps in a kernel that has batches
    for (const auto& [name, p] : params_)
      kernel_batched = kernel_batched || (p->is_tensor && p->dims.size() == 3);
    if (!batched && a.indices.size() == 3 && kernel_batched)
      msg += " (a matrix without a batch dimension is shared by every batch)";
    error(where, msg).note(decl_of(t), "'" + n + "' is declared here");
    return false;
  }
  bool ok = true;
  vars.assign(a.indices.size(), nullptr);
  for (std::size_t i = 0; i < a.indices.size(); ++i)
    ok = check_divisor(a, i, t) &&
         (is_batch_dim(t, i) ? check_batch_index(a, t, vars[i]) : check_index(a, i, t, vars[i])) &&
         ok;
  return ok;
}

// A grouped index `h / 2`: a positive integer divides a loop variable of a batch index.
bool Checker::check_divisor(const Access& a, std::size_t dim, const Param& t) {
  const TensorIndex& ix = a.indices[dim];
  if (!ix.divided)
    return true;
  const std::string shown = index_str(ix);
  const std::string how =
      "an index divides a loop variable by a positive integer, e.g. K[h / 2, j, e] (grouped "
      "heads: query head h reads key head h / 2)";
  SourceRange at = ix.divisor_loc.range;
  if (ix.divisor_name) {
    error(at, "index '" + shown + "' divides by '" + ix.divisor_name->name + "'; " + how);
    return false;
  }
  if (ix.divisor <= 0) {
    error(at, "index '" + shown + "' divides by " +
                  (ix.divisor == 0 ? std::string("zero") : std::to_string(ix.divisor)) + "; " +
                  how);
    return false;
  }
  if (!is_batch_dim(t, dim)) {
    error(ix.loc.range, "index '" + shown + "' divides a tile index (" + dim_desc(t, dim) +
                            "); only a batch index may be divided, e.g. K[h / 2, j, e] for "
                            "grouped heads");
    return false;
  }
  return true;
}

// The batch index of a rank-3 tensor: like a row or column index, counted in matrices instead of
// tiles, and a batch of one matrix (a weight shared by every batch) is indexed with 0.
LoopInfo* Checker::index_loop(const Ident& vid) {
  Binding* b = lookup(vid.name);
  if (!b) {
    unknown_name(vid, visible_names(true), "loop index");
    return nullptr;
  }
  if (b->kind != Binding::Kind::loop) {
    error(vid.loc.range, "'" + vid.name +
                             "' is not a loop index; a tensor index is a loop "
                             "index, an integer, a loop index plus or minus an integer, or a "
                             "loop index divided by an integer ('h / 2')")
        .note(b->where, "'" + vid.name + "' is declared here");
    return nullptr;
  }
  return b->loop;
}

bool Checker::check_batch_index(const Access& a, const Param& t, LoopInfo*& var) {
  const TensorIndex& ix = a.indices[0];
  const Dim& dim = t.dims[0];
  const std::string& tn = t.name.name;
  const std::string desc = "batch dimension 0 of '" + tn + "' (" +
                           (dim.name ? dim.name->name : std::to_string(dim.size)) + ")";
  SourceRange at = ix.loc.range;
  if (!dim.name && dim.size == 1 && !(!ix.var && ix.offset == 0)) {
    Access fixed = a;
    fixed.indices[0] = TensorIndex{};
    error(at, desc + " holds a single matrix, shared by every batch; index it with 0: " +
                  access_str(fixed))
        .note(dim.loc.range, "the batch of one is declared here");
    return false;
  }
  if (!ix.var) {
    std::int64_t v = ix.offset;
    if (v == 0)
      return true;
    if (dim.name)
      error(at, "index " + std::to_string(v) + " may be outside '" + tn + "': batch dimension " +
                    dim.name->name +
                    " is only known at run time and can hold a single matrix; only 0 is always "
                    "inside");
    else if (v < 0 || v >= dim.size)
      error(at, "index " + std::to_string(v) + " is outside '" + tn + "': " + desc + " has " +
                    std::to_string(dim.size) + " matri" + (dim.size == 1 ? "x" : "ces") +
                    ", 0 .. " + std::to_string(dim.size - 1));
    else
      return true;
    return false;
  }
  const Ident& vid = *ix.var;
  LoopInfo* found = index_loop(vid);
  if (!found)
    return false;
  LoopInfo& L = *found;
  var = &L;
  if (!L.valid)
    return false;
  const std::string& vn = vid.name;
  SourceRange loop_at{L.lv->var.loc.range.begin, L.lv->range.loc.range.end};
  const std::string whole =
      dim.name ? "0 .. " + dim.name->name : "0 .. " + std::to_string(dim.size);
  if (ix.divided) { // a grouped index: its variable ranges over another batch dimension
    if (dim.name && L.hi.batch)
      return check_grouped_index(a, t, L);
    if (!dim.name && L.hi.dim.empty())
      return check_grouped_index(a, t, L);
  }
  if (dim.name ? !(L.hi.batch && L.hi.dim == dim.name->name) : !L.hi.dim.empty()) {
    std::string why =
        !L.hi.dim.empty() && !L.hi.batch
            ? ", a batch dimension counted in matrices, not tiles; loop over " + whole
        : dim.name && L.hi.dim.empty()
            ? "; " + dim.name->name + " is only known at run time, so loop over " + whole
            : "; loop over " + whole + " or index another tensor";
    error(at, "index '" + vn + "' ranges over " + L.range_str() + ", but it indexes " + desc + why)
        .note(loop_at, "'" + vn + "' is defined here");
    return false;
  }
  std::string shown = index_str(ix);
  if (L.lo.value + ix.offset < 0) {
    error(at, "index '" + shown + "' can leave '" + tn + "': it is " +
                  std::to_string(L.lo.value + ix.offset) + " when '" + vn + "' is " +
                  std::to_string(L.lo.value) + "; start the loop at " + std::to_string(-ix.offset) +
                  ": " + std::to_string(-ix.offset) + " .. " + L.hi.str())
        .note(loop_at, "'" + vn + "' is defined here");
    return false;
  }
  const std::int64_t off = ix.offset + L.excess; // past hi - 1 at the variable's largest value
  bool over = dim.name ? off > 0 : L.hi.value + off > dim.size;
  if (over) {
    std::string reach =
        dim.name ? (off == 1 ? dim.name->name : dim.name->name + " + " + std::to_string(off - 1))
                 : std::to_string(L.hi.value + off - 1);
    error(at, "index '" + shown + "' can leave '" + tn + "': '" + vn + "' ranges over " +
                  L.range_str() + ", so " + shown + " reaches " + reach +
                  ", past the last matrix of " + desc)
        .note(loop_at, "'" + vn + "' is defined here");
    return false;
  }
  return true;
}

// `x[v / r, ...]`: v over 0 .. G (a batch dimension) or a literal range. Over a named batch
// dimension of another name, G must be r times it (recorded for the host's check); over a literal
// one, v / r must stay inside.
bool Checker::check_grouped_index(const Access& a, const Param& t, const LoopInfo& L) {
  const TensorIndex& ix = a.indices[0];
  const Dim& dim = t.dims[0];
  const std::string& tn = t.name.name;
  const std::string& vn = ix.var->name;
  const std::string shown = index_str(ix);
  const std::string desc = "batch dimension 0 of '" + tn + "' (" +
                           (dim.name ? dim.name->name : std::to_string(dim.size)) + ")";
  SourceRange loop_at{L.lv->var.loc.range.begin, L.lv->range.loc.range.end};
  if (dim.name) {
    if (L.excess > 0) {
      error(ix.loc.range, "index '" + shown + "' can leave '" + tn + "': '" + vn +
                              "' ranges over " + L.range_str() + ", past " + L.hi.dim +
                              ", so the host cannot check that " + shown + " stays inside " + desc +
                              "; divide a variable over 0 .. " + L.hi.dim)
          .note(loop_at, "'" + vn + "' is defined here");
      return false;
    }
    if (L.hi.dim != dim.name->name) {
      GroupedDim g{L.hi.dim, ix.divisor, dim.name->name};
      if (std::find(k_.grouped.begin(), k_.grouped.end(), g) == k_.grouped.end())
        k_.grouped.push_back(g);
    }
    return true;
  }
  const std::int64_t largest = L.hi.value - 1 + L.excess;
  if (largest / ix.divisor >= dim.size) {
    error(ix.loc.range, "index '" + shown + "' can leave '" + tn + "': '" + vn + "' ranges over " +
                            L.range_str() + ", so " + shown + " reaches " +
                            std::to_string(largest / ix.divisor) + ", past the last matrix of " +
                            desc)
        .note(loop_at, "'" + vn + "' is defined here");
    return false;
  }
  return true;
}

bool Checker::check_index(const Access& a, std::size_t dim, const Param& t, LoopInfo*& var) {
  const TensorIndex& ix = a.indices[dim];
  const std::string& tn = t.name.name;
  DimKey dk = DimKey::of(t.dims[dim], tn);
  SourceRange at = ix.loc.range;
  if (dk.is_vector() && !(!ix.var && ix.offset == 0)) {
    Access fixed = a;
    fixed.indices[dim] = TensorIndex{};
    error(at, dim_desc(t, dim) + " has size 1 (" + tn + " is a " +
                  (dim + 2 == t.dims.size() ? "row" : "column") +
                  " vector); index it with 0: " + access_str(fixed))
        .note(t.dims[dim].loc.range, "the size-1 dimension is declared here");
    return false;
  }
  if (!ix.var) {
    std::int64_t v = ix.offset;
    if (!dk.known() || dk.is_vector() || v == 0)
      return true;
    if (dk.kind == DimKey::Kind::named)
      error(at, "index " + std::to_string(v) + " may be outside '" + tn + "': dimension " +
                    dk.name +
                    " is only known at run time and can be a single tile; only 0 is "
                    "always inside");
    else if (v < 0 || v >= tile_count(dk.size))
      error(at, "index " + std::to_string(v) + " is outside '" + tn + "': " + dim_desc(t, dim) +
                    " has " + std::to_string(tile_count(dk.size)) + " tile(s), 0 .. " +
                    std::to_string(tile_count(dk.size) - 1));
    else
      return true;
    return false;
  }
  const Ident& vid = *ix.var;
  LoopInfo* found = index_loop(vid);
  if (!found)
    return false;
  LoopInfo& L = *found;
  var = &L;
  if (!L.valid || !dk.known())
    return false; // the range or the dimension was already reported
  const std::string& vn = vid.name;
  SourceRange loop_at{L.lv->var.loc.range.begin, L.lv->range.loc.range.end};
  auto mismatch = [&](const std::string& why) {
    error(at, "index '" + vn + "' ranges over " + L.range_str() + ", but it indexes " +
                  dim_desc(t, dim) + why)
        .note(loop_at, "'" + vn + "' is defined here");
    return false;
  };
  std::int64_t hi_limit = 0; // the index must stay below tiles(dim) (named) or this (literal)
  if (dk.kind == DimKey::Kind::named) {
    if (L.hi.dim != dk.name)
      return mismatch(L.hi.dim.empty()
                          ? "; " + dk.name + " is only known at run time, so loop over tiles(" +
                                dk.name + ")"
                          : "; loop over tiles(" + dk.name + ") or index another tensor");
  } else {
    hi_limit = tile_count(dk.size);
    if (!L.hi.dim.empty())
      return mismatch(", which has " + std::to_string(hi_limit) + " tile(s); loop over 0 .. " +
                      std::to_string(hi_limit));
  }
  std::string shown = index_str(ix);
  if (L.lo.value + ix.offset < 0) {
    error(at, "index '" + shown + "' can leave '" + tn + "': it is " +
                  std::to_string(L.lo.value + ix.offset) + " when '" + vn + "' is " +
                  std::to_string(L.lo.value) + "; start the loop at " + std::to_string(-ix.offset) +
                  ": " + std::to_string(-ix.offset) + " .. " + L.hi.str())
        .note(loop_at, "'" + vn + "' is defined here");
    return false;
  }
  const std::int64_t off = ix.offset + L.excess; // past hi - 1 at the variable's largest value
  bool over = dk.kind == DimKey::Kind::named ? off > 0 : L.hi.value + off > hi_limit;
  if (over) {
    std::string end =
        dk.kind == DimKey::Kind::named ? "tiles(" + dk.name + ")" : std::to_string(hi_limit);
    error(at, "index '" + shown + "' can leave '" + tn + "': '" + vn + "' ranges over " +
                  L.range_str() + ", so " + shown + " reaches " +
                  (dk.kind == DimKey::Kind::named
                       ? (off == 1 ? end : end + " + " + std::to_string(off - 1))
                       : std::to_string(L.hi.value + off - 1)) +
                  ", past the last tile of " + dim_desc(t, dim))
        .note(loop_at, "'" + vn + "' is defined here");
    return false;
  }
  return true;
}

void Checker::check_agree(const Shape& a, const Expr& ea, const Shape& b, const Expr& eb,
                          SourceRange where, const std::string& what) {
  auto one = [&](const DimKey& x, const DimKey& y, const char* axis, const char* bcast) {
    if (!provably_differ(x, y))
      return false;
    const Expr& vec = x.is_vector() ? ea : eb;
    if (x.is_vector() || y.is_vector()) {
      std::string kind = std::string(axis) == "rows" ? "row" : "column";
      std::string head = "'" + expr_str(vec) + "' is a " + kind + " vector (its " + axis +
                         " come from a size-1 dimension) but the other operand of " + what +
                         " is a full tile; ";
      // The other broadcast of a vector (bcast_row of a column vector): broadcast the vector
      // itself the right way, not the result a second time.
      const Call* c = std::get_if<Call>(&vec.node);
      const char* other = std::string(bcast) == "bcast_row" ? "bcast_col" : "bcast_row";
      if (c && c->callee.name == other && c->args.size() == 1) {
        error(vec.loc.range, head + other + " repeats " + (other[6] == 'r' ? "row" : "column") +
                                 " 0, which holds one value of a " + kind + " vector; " + bcast +
                                 " repeats its " + kind + " 0: " + bcast + "(" +
                                 expr_str(c->args[0]) + ")");
        return true;
      }
      error(vec.loc.range, head + "broadcast it: " + bcast + "(" + expr_str(vec) + ")");
      return true;
    }
    Diagnostic& d = error(where, "operands of " + what + " do not agree: the " + axis + " of '" +
                                     expr_str(ea) + "' come from " + x.str() + ", the " + axis +
                                     " of '" + expr_str(eb) + "' from " + y.str());
    d.note(x.where, x.str() + " is declared here, in '" + x.tensor + "'");
    d.note(y.where, y.str() + " is declared here, in '" + y.tensor + "'");
    return true;
  };
  if (!one(a.rows, b.rows, "rows", "bcast_row"))
    one(a.cols, b.cols, "columns", "bcast_col");
}

Shape Checker::check_position(Call& c, const Expr& e) {
  const std::string& fname = c.callee.name;
  c.fn = builtin_from_string(fname);
  c.indices.clear();
  if (static_cast<int>(c.args.size()) != arity(c.fn)) {
    error(e.loc.range, "'" + fname + "' takes 2 arguments, but " + std::to_string(c.args.size()) +
                           (c.args.size() == 1 ? " was" : " were") + " given");
    return {};
  }
  const std::string forms = "'" + fname +
                            "' takes tile indices: a loop variable, optionally plus or minus an "
                            "integer ('j', 'j + 1'), or an integer";
  DimKey keys[2];
  bool ok = true;
  // "but 'x[i, j]' is a tile; ...": what to write instead of a value.
  auto not_index = [&](const Expr& x, const std::string& is) {
    error(x.loc.range, forms + ", but '" + expr_str(x) + "' is " + is +
                           "; it makes the mask of the tile at those indices, e.g. " + fname +
                           "(i, j) for tile (i, j) of a score matrix");
    ok = false;
  };
  for (std::size_t k = 0; k < 2; ++k) {
    Expr& x = c.args[k];
    TensorIndex ix;
    ix.loc = x.loc;
    const Name* var = std::get_if<Name>(&x.node);
    if (const auto* b = std::get_if<Binary>(&x.node)) {
      const Name* lhs = std::get_if<Name>(&b->lhs->node);
      const Number* off = std::get_if<Number>(&b->rhs->node);
      if ((b->op != BinOp::add && b->op != BinOp::sub) || !lhs || !off || !off->is_integer) {
        error(x.loc.range, forms + ", not '" + expr_str(x) + "'");
        ok = false;
        continue;
      }
      var = lhs;
      ix.offset = static_cast<std::int64_t>(b->op == BinOp::add ? off->value : -off->value);
    } else if (const Number* num = std::get_if<Number>(&x.node)) {
      if (!num->is_integer) {
        not_index(x, "a scalar");
        continue;
      }
      ix.offset = static_cast<std::int64_t>(num->value);
      x.type = Type::index;
      c.indices.push_back(ix);
      continue;
    } else if (!var) { // a tensor access, a call: type it (its own errors first)
      check_expr(x);
      if (x.type == Type::tile || x.type == Type::scalar)
        not_index(x, x.type == Type::tile ? "a tile" : "a scalar");
      ok = false;
      continue;
    }
    Binding* bd = lookup(var->id.name);
    if (!bd && dims_.count(var->id.name)) {
      not_index(x, "a scalar (the size of a dimension)");
      continue;
    }
    if (!bd) {
      unknown_name(var->id, visible_names(true), "loop index");
      ok = false;
      continue;
    }
    if (bd->kind != Binding::Kind::loop) {
      bd->read = true; // named: not also an unused input
      Expr named{Name{var->id}, var->id.loc, Type::unknown};
      not_index(named, bd->kind == Binding::Kind::tensor   ? "a tensor"
                       : bd->kind == Binding::Kind::scalar ? "a scalar"
                                                           : "a tile");
      continue;
    }
    const LoopInfo& L = *bd->loop;
    if (L.valid && L.hi.batch) {
      error(x.loc.range, "'" + var->id.name + "' ranges over " + L.range_str() +
                             ", matrices of a batch dimension, but '" + fname +
                             "' takes tile indices (rows and columns of a matrix), e.g. " + fname +
                             "(i, j) with i and j over tiles(...)")
          .note(SourceRange{L.lv->var.loc.range.begin, L.lv->range.loc.range.end},
                "'" + var->id.name + "' is defined here");
      ok = false;
      continue;
    }
    ix.var = var->id;
    x.type = Type::index;
    if (L.valid && !L.hi.dim.empty()) {
      DimKey& key = keys[k];
      key.kind = DimKey::Kind::named;
      key.name = L.hi.dim;
      if (auto d = dims_.find(L.hi.dim); d != dims_.end())
        key.where = d->second;
      if (auto u = dim_use_.find(L.hi.dim); u != dim_use_.end())
        key.tensor = u->second.tensor;
    }
    c.indices.push_back(ix);
  }
  if (!ok)
    c.indices.clear();
  return {keys[0], keys[1]};
}

Shape Checker::check_expr(Expr& e) {
  if (auto* pc = std::get_if<Call>(&e.node); pc && is_position(pc->callee.name)) {
    Shape ps = check_position(*pc, e); // its arguments are indices, not values
    e.type = Type::tile;
    return ps;
  }
  Shape sh;
  Type t = Type::unknown;
  if (std::holds_alternative<Number>(e.node)) {
    t = Type::scalar;
  } else if (auto* n = std::get_if<Name>(&e.node)) {
    const std::string& nm = n->id.name;
    SourceRange at = n->id.loc.range;
    Binding* b = lookup(nm);
    if (!b) {
      if (builtin_from_string(nm) != Builtin::unknown && reported_unknown_.insert(nm).second)
        error(at, "'" + nm + "' is a function; call it, e.g. " + nm +
                      (arity(builtin_from_string(nm)) == 0 ? "()" : "(x[i, j])"));
      else if (dims_.count(nm))
        t = Type::scalar; // a dimension's size in elements, as a number (1.0 / N)
      else
        unknown_name(n->id, visible_names(false), "name");
    } else if (b->kind == Binding::Kind::tensor) {
      error(at, "tensor '" + nm +
                    "' is used without indices; a tensor is read one tile at a "
                    "time: " +
                    nm + "[i, j]")
          .note(b->where, "'" + nm + "' is declared here");
    } else if (b->kind == Binding::Kind::loop) {
      t = Type::index;
      error(at, "loop index '" + nm +
                    "' is used as a value; an index only selects a tile, e.g. "
                    "x[i, " +
                    nm + "]")
          .note(b->loop->lv->var.loc.range, "'" + nm + "' is defined here");
    } else if (b->kind == Binding::Kind::scalar) {
      t = Type::scalar;
      b->read = true;
    } else if (b->kind == Binding::Kind::row) {
      t = Type::tile; // reported; a tile, so that nothing else is
      row_as_tile(n->id, *b, "read");
    } else {
      t = Type::tile;
      sh = b->shape;
      b->read = b->read_since_write = true;
      if (b->reduction && phase_ == Phase::inside && &e != combine_operand_)
        reduction_misuse(*b, nm, at, true);
    }
  } else if (Binding* row = std::get_if<Access>(&e.node)
                                ? lookup(std::get<Access>(e.node).tensor.name)
                                : nullptr;
             row && row->kind == Binding::Kind::row) {
    t = Type::tile;
    sh = check_row_read(std::get<Access>(e.node), e.loc.range, *row);
  } else if (auto* a = std::get_if<Access>(&e.node)) {
    if (phase_ == Phase::after)
      error(e.loc.range, "'" + access_str(*a) +
                             "' reads a tensor after 'parallel'; the statements after a "
                             "kernel's 'parallel' run once and finish its reductions from "
                             "reduction variables, so read tensors inside the 'parallel'")
          .note(keyword_range(*parallel_, 8), "the 'parallel' block is here");
    if (const Binding* b = resolve_tensor(a->tensor)) {
      lookup(a->tensor.name)->read = true;
      t = Type::tile;
      const Param& p = *b->param;
      if (b->is_output && !bad_params_.count(p.name.name))
        error(a->tensor.loc.range, "reading output '" + p.name.name +
                                       "'; outputs are write-"
                                       "only, so keep the value in a local name and use that")
            .note(b->where, "'" + p.name.name + "' is declared as an output here");
      std::vector<LoopInfo*> vars;
      if (check_indices(*a, e.loc.range, p, vars)) { // rows and columns: the last two
        sh.rows = DimKey::of(p.dims[p.dims.size() - 2], p.name.name);
        sh.cols = DimKey::of(p.dims[p.dims.size() - 1], p.name.name);
      }
    }
  } else if (auto* c = std::get_if<Call>(&e.node)) {
    std::vector<Shape> args;
    for (Expr& x : c->args)
      args.push_back(check_expr(x));
    c->fn = builtin_from_string(c->callee.name);
    const std::string& fname = c->callee.name;
    if (c->fn == Builtin::unknown) {
      if (Binding* b = lookup(fname)) {
        error(c->callee.loc.range, "'" + fname + "' is not a function")
            .note(b->where, "'" + fname + "' is declared here");
      } else {
        std::vector<std::string> all;
        for (int i = 0; i < static_cast<int>(Builtin::unknown); ++i)
          all.emplace_back(to_string(static_cast<Builtin>(i)));
        std::string hint = closest(fname, all);
        error(c->callee.loc.range,
              "unknown function '" + fname + "'; " +
                  (hint.empty() ? "the functions are listed in docs/language.md (exp, relu, "
                                  "max, rowsum, bcast_col, zeros, fill, ...)"
                                : "did you mean '" + hint + "'?"));
      }
    } else if (static_cast<int>(c->args.size()) != arity(c->fn)) {
      int want = arity(c->fn);
      error(e.loc.range, "'" + fname + "' takes " + std::to_string(want) + " argument" +
                             (want == 1 ? "" : "s") + ", but " + std::to_string(c->args.size()) +
                             (c->args.size() == 1 ? " was" : " were") + " given");
      t = Type::tile; // the result is a tile whatever the arguments; do not cascade
    } else {
      t = Type::tile;
      Builtin f = c->fn;
      if (f == Builtin::fill) {
        if (c->args[0].type == Type::tile)
          error(c->args[0].loc.range, "'fill' takes a scalar (a number or a scalar parameter), "
                                      "not a tile, e.g. fill(0.5)");
      } else if (f == Builtin::max || f == Builtin::min) {
        bool ok = true;
        for (const Expr& x : c->args)
          if (x.type == Type::scalar) {
            error(x.loc.range, "'" + fname + "' takes two tiles, but '" + expr_str(x) +
                                   "' is a scalar; make a constant tile: " + fname + "(..., fill(" +
                                   expr_str(x) + "))");
            ok = false;
          }
        if (ok && c->args[0].type == Type::tile && c->args[1].type == Type::tile) {
          check_agree(args[0], c->args[0], args[1], c->args[1], e.loc.range, "'" + fname + "'");
          sh = {merge(args[0].rows, args[1].rows), merge(args[0].cols, args[1].cols)};
        }
      } else if (f == Builtin::where) {
        // where(mask, a, b): a and b may be scalars (where(m, x[i, j], -inf)).
        if (c->args[0].type == Type::scalar)
          error(c->args[0].loc.range,
                "'where' takes a mask tile first, but '" + expr_str(c->args[0]) +
                    "' is a scalar; make one with a comparison, e.g. where(x[i, j] > fill(0.0), "
                    "x[i, j], fill(0.0))");
        const Expr* first = nullptr;
        const Shape* first_shape = nullptr;
        for (std::size_t k = 0; k < 3; ++k) {
          if (c->args[k].type != Type::tile)
            continue;
          if (!first) {
            first = &c->args[k];
            first_shape = &args[k];
            sh = args[k];
            continue;
          }
          check_agree(*first_shape, *first, args[k], c->args[k], e.loc.range, "'where'");
          sh = {merge(sh.rows, args[k].rows), merge(sh.cols, args[k].cols)};
        }
      } else if (ops::info(to_op(f)).kind == ops::Kind::scalar) {
        // elu(x, alpha): element-wise on the tile x, with a scalar parameter.
        const Expr& x = c->args[0];
        const Expr& s = c->args[1];
        if (x.type == Type::scalar)
          error(x.loc.range, "'" + fname + "' applies to a tile, but '" + expr_str(x) +
                                 "' is a scalar; for a constant tile, write " + fname + "(fill(" +
                                 expr_str(x) + "), " + expr_str(s) + ")");
        if (s.type == Type::tile)
          error(s.loc.range, "'" + fname + "' takes a scalar second argument (a number or a " +
                                 "scalar parameter), but '" + expr_str(s) + "' is a tile, e.g. " +
                                 fname + "(x[i, j], 1.0)");
        sh = args[0];
      } else if (f != Builtin::zeros) {
        const Expr& x = c->args[0];
        if (x.type == Type::scalar)
          error(x.loc.range, "'" + fname + "' applies to a tile, but '" + expr_str(x) +
                                 "' is a scalar; for a constant tile, write " + fname + "(fill(" +
                                 expr_str(x) + "))");
        const Shape& a0 = args[0];
        if (is_unary_elementwise(f))
          sh = a0;
        else if (f == Builtin::transpose) // rows come from the operand's columns, and back
          sh = {a0.cols, a0.rows};
        else if (f == Builtin::rowsum || f == Builtin::rowmax)
          sh = {a0.rows, DimKey{DimKey::Kind::literal, "", 1, {}, {}}};
        else if (f == Builtin::colsum || f == Builtin::colmax)
          sh = {DimKey{DimKey::Kind::literal, "", 1, {}, {}}, a0.cols};
        else if (f == Builtin::bcast_col)
          sh = {a0.rows, {}};
        else if (f == Builtin::bcast_row)
          sh = {{}, a0.cols};
      }
    }
  } else {
    auto& b = std::get<Binary>(e.node);
    Shape ls = check_expr(*b.lhs), rs = check_expr(*b.rhs);
    Type lt = b.lhs->type, rt = b.rhs->type;
    std::string op = "'" + std::string(to_string(b.op)) + "'";
    if (lt == Type::unknown || rt == Type::unknown || lt == Type::index || rt == Type::index) {
      // An operand already has an error; assume the tile the user meant.
      t = Type::tile;
    } else if (b.op == BinOp::matmul) {
      t = Type::tile;
      for (const Expr* x : {&*b.lhs, &*b.rhs})
        if (x->type == Type::scalar)
          error(x->loc.range, "'@' multiplies two tiles, but '" + expr_str(*x) +
                                  "' is a scalar; to scale a tile, use '*'");
      if (lt == Type::tile && rt == Type::tile) {
        if (provably_differ(ls.cols, rs.rows)) {
          error(e.loc.range, "inner dimensions of '@' do not agree: the columns of '" +
                                 expr_str(*b.lhs) + "' come from " + ls.cols.str() +
                                 ", the rows of '" + expr_str(*b.rhs) + "' from " + rs.rows.str())
              .note(ls.cols.where, ls.cols.str() + " is declared here, in '" + ls.cols.tensor + "'")
              .note(rs.rows.where,
                    rs.rows.str() + " is declared here, in '" + rs.rows.tensor + "'");
        }
        sh = {ls.rows, rs.cols};
      }
    } else if (is_comparison(b.op)) {
      t = Type::tile; // a mask: 1.0 where it holds, 0.0 elsewhere
      if (lt == Type::scalar && rt == Type::scalar) {
        error(e.loc.range, "'" + expr_str(e) +
                               "' compares two scalars; a comparison makes a tile mask, so one "
                               "side must be a tile, e.g. x[i, j] " +
                               std::string(to_string(b.op)) + " " + expr_str(*b.rhs));
      } else if (lt == Type::tile && rt == Type::tile) {
        check_agree(ls, *b.lhs, rs, *b.rhs, e.loc.range, op);
        sh = {merge(ls.rows, rs.rows), merge(ls.cols, rs.cols)};
      } else {
        sh = lt == Type::tile ? ls : rs;
      }
    } else if (b.op == BinOp::div && lt == Type::tile && rt == Type::tile) {
      t = Type::tile;
      error(b.rhs->loc.range, "'/' divides by a scalar, but '" + expr_str(*b.rhs) +
                                  "' is a tile; to divide by a tile, multiply by its reciprocal: " +
                                  expr_str(*b.lhs) + " * recip(" + expr_str(*b.rhs) + ")");
    } else if (b.op == BinOp::div && is_zero(*b.rhs)) {
      t = lt;
      error(b.rhs->loc.range, "division by zero");
    } else if (lt == Type::scalar && rt == Type::scalar) {
      t = Type::scalar; // computed once, on the host
    } else {
      t = Type::tile;
      if (lt == Type::tile && rt == Type::tile) {
        check_agree(ls, *b.lhs, rs, *b.rhs, e.loc.range, op);
        sh = {merge(ls.rows, rs.rows), merge(ls.cols, rs.cols)};
      } else {
        sh = lt == Type::tile ? ls : rs;
      }
    }
  }
  e.type = t;
  return sh;
}

} // namespace tk::dsl::detail
