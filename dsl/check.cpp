// The checker's statement part: the one top-level `parallel`, scopes of loop bodies, bindings,
// stores, and the rule that every output tile is stored exactly once (docs/language.md).
#include "dsl/check.hpp"

#include "dsl/check_internal.hpp"

#include <algorithm>

namespace tk::dsl {
namespace detail {

SourceRange keyword_range(const Stmt& s, std::uint32_t len) {
  return {s.loc.range.begin, s.loc.range.begin + len};
}

Binding* Checker::lookup(const std::string& name) {
  for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it)
    if (auto f = it->find(name); f != it->end())
      return &f->second;
  return nullptr;
}

std::vector<std::string> Checker::visible_names(bool loops_only) const {
  std::vector<std::string> r;
  for (const auto& s : scopes_)
    for (const auto& [n, b] : s)
      if (!loops_only || b.kind == Binding::Kind::loop)
        r.push_back(n);
  return r;
}

void Checker::unknown_name(const Ident& id, const std::vector<std::string>& candidates,
                           const std::string& what) {
  if (!reported_unknown_.insert(id.name).second)
    return; // one report per name: later uses are the same mistake
  if (auto it = expired_.find(id.name); it != expired_.end()) {
    error(id.loc.range, "'" + id.name +
                            "' is not visible here; it was bound inside a loop body, "
                            "which ends its scope")
        .note(it->second, "bind '" + id.name + "' before the loop to use it after it");
    return;
  }
  std::string hint = closest(id.name, candidates);
  error(id.loc.range, "unknown " + what + " '" + id.name + "'" +
                          (hint.empty() ? "" : "; did you mean '" + hint + "'?"));
}

bool Checker::check_bound(const Bound& b, SymBound& out) {
  if (!b.tiles_of && !b.size_of) {
    out = {"", b.value};
    if (b.value >= 0)
      return true;
    error(b.loc.range, "a range bound cannot be negative");
    return false;
  }
  const bool bare = b.size_of.has_value(); // `0 .. B`, not `tiles(B)`
  const std::string& n = bare ? b.size_of->name : b.tiles_of->name;
  SourceRange at = bare ? b.size_of->loc.range : b.tiles_of->loc.range;
  if (dims_.count(n)) {
    auto use = dim_use_.find(n);
    if (use == dim_use_.end()) { // declared by a tensor of the wrong rank: already reported
      out = {n, 0, bare};
      return true;
    }
    bool batch = use->second.batch;
    if (batch && !bare) {
      error(b.loc.range, "'" + n +
                             "' is a batch dimension, counted in matrices, not tiles; loop over "
                             "its matrices with 0 .. " +
                             n)
          .note(use->second.where,
                "'" + n + "' is the batch dimension of '" + use->second.tensor + "'");
      return false;
    }
    if (!batch && bare) {
      error(at, "'" + n +
                    "' is a row or column dimension, counted in tiles of 32; loop over its tiles "
                    "with tiles(" +
                    n + ")")
          .note(use->second.where, "'" + n + "' is declared here, in '" + use->second.tensor + "'");
      return false;
    }
    out = {n, 0, batch};
    return true;
  }
  auto p = params_.find(n);
  if (p != params_.end() && p->second->is_tensor &&
      (p->second->dims.size() == 2 || p->second->dims.size() == 3)) {
    std::string alts;
    for (std::size_t i = 0; i < p->second->dims.size(); ++i)
      if (const Dim& d = p->second->dims[i]; d.name)
        alts +=
            (alts.empty() ? "" : " or ") +
            (is_batch_dim(*p->second, i) ? "0 .. " + d.name->name : "tiles(" + d.name->name + ")");
    error(at, "'" + n + "' is a tensor, not a dimension; " +
                  (bare ? "a range ends at a dimension name" : "tiles() takes a dimension name") +
                  (alts.empty() ? std::string() : ", e.g. " + alts))
        .note(decl_of(*p->second), "'" + n + "' is declared here");
  } else if (p != params_.end()) {
    error(at, "'" + n + "' is a scalar, not a dimension; " +
                  (bare ? "a range ends at an integer, tiles(N) or a batch dimension"
                        : "tiles() takes a dimension name"))
        .note(decl_of(*p->second), "'" + n + "' is declared here");
  } else if (bare && lookup(n)) {
    error(at, "'" + n +
                  "' is not a dimension; a range ends at an integer, tiles(N), a batch "
                  "dimension or an enclosing loop variable ('0 .. i + 1')");
  } else {
    std::vector<std::string> dims;
    std::string all;
    for (const auto& [d, r] : dims_) {
      dims.push_back(d);
      all += (all.empty() ? "" : ", ") + d;
    }
    std::string hint = closest(n, dims);
    if (bare) // a loop variable is a candidate too
      for (const std::string& l : visible_names(true))
        dims.push_back(l);
    hint = closest(n, dims);
    error(at, "unknown " + std::string(bare ? "dimension or loop variable" : "dimension") + " '" +
                  n + "'" + (bare ? "" : " in tiles(" + n + ")") + "; " +
                  (!hint.empty() ? "did you mean '" + hint + "'?"
                   : all.empty() ? std::string("this kernel has no named dimensions")
                                 : "the dimensions of this kernel are " + all));
  }
  return false;
}

bool Checker::check_index_bound(Bound& b, LoopInfo& L, bool parallel) {
  const std::string& n = b.size_of->name;
  Binding* v = lookup(n);
  if (parallel) {
    error(b.loc.range, "a 'parallel' range cannot depend on '" + n +
                           "': the parallel space is a rectangle; loop over this variable with "
                           "'for' inside the 'parallel' instead")
        .note(v->where, "'" + n + "' is defined here");
    return false;
  }
  b.is_index = true;
  const LoopInfo& O = *v->loop;
  if (!O.valid)
    return false; // its range was already reported
  L.outer = &O;
  L.outer_offset = b.offset;
  L.hi = O.hi;
  L.excess = O.excess + b.offset - 1;
  return true;
}

LoopInfo* Checker::check_loop_var(LoopVar& lv, bool parallel, SourceRange keyword) {
  LoopInfo& L = loops_.emplace_back();
  L.lv = &lv;
  L.parallel = parallel;
  L.keyword = keyword;
  const std::string& n = lv.var.name;
  bool shadows = false; // then uses of the name are ambiguous: check none of them
  if (Binding* b = lookup(n)) {
    std::string what = b->kind == Binding::Kind::loop     ? "the loop index"
                       : b->kind == Binding::Kind::local  ? "the local name"
                       : b->kind == Binding::Kind::tensor ? "the tensor"
                       : b->kind == Binding::Kind::row    ? "the row of tiles"
                                                          : "the scalar";
    error(lv.var.loc.range, "loop variable '" + n + "' shadows " + what + " '" + n +
                                "'; give the loop its own name, e.g. '" + n + "2'")
        .note(b->kind == Binding::Kind::loop ? b->loop->lv->var.loc.range : b->where,
              "'" + n + "' is defined here");
    shadows = true;
  }
  bool ok = true;
  if (lv.range.lo) {
    if (lv.range.lo->tiles_of || lv.range.lo->size_of) {
      error(lv.range.lo->loc.range,
            "a range starts at an integer literal, e.g. 1 .. " +
                (lv.range.hi.tiles_of  ? "tiles(" + lv.range.hi.tiles_of->name + ")"
                 : lv.range.hi.size_of ? lv.range.hi.size_of->name
                                       : std::string("4")));
      ok = false;
    } else {
      ok = check_bound(*lv.range.lo, L.lo);
    }
  }
  Bound& hi = lv.range.hi;
  if (hi.size_of && lookup(hi.size_of->name) &&
      lookup(hi.size_of->name)->kind == Binding::Kind::loop) {
    ok = check_index_bound(hi, L, parallel) && ok;
  } else if (hi.size_of && hi.size_of->name == lv.var.name) {
    error(hi.size_of->loc.range, "the range of '" + lv.var.name + "' cannot end at '" +
                                     lv.var.name +
                                     "' itself; a bound can use the variables of enclosing loops "
                                     "only");
    ok = false;
  } else if (hi.offset != 0) {
    ok = check_bound(hi, L.hi) && ok;
    if (ok) {
      error(hi.loc.range, "'" + hi.size_of->name +
                              "' is a batch dimension; a range ends at it exactly (0 .. " +
                              hi.size_of->name +
                              "): an offset applies only to an enclosing loop variable, as in "
                              "'0 .. i + 1'");
      ok = false;
    }
  } else {
    ok = check_bound(hi, L.hi) && ok;
  }
  if (ok && !L.outer && L.hi.dim.empty() && L.lo.value >= L.hi.value) {
    error(lv.range.loc.range, "the range " + L.range_str() +
                                  " is empty; the upper bound is "
                                  "exclusive, so " +
                                  L.lo.str() + " .. " + std::to_string(L.lo.value + 1) +
                                  " has one iteration");
    ok = false;
  }
  L.valid = ok && !shadows;
  Binding b;
  b.kind = Binding::Kind::loop;
  b.loop = &L;
  b.where = lv.var.loc.range;
  bind(n, b);
  return &L;
}

void Checker::check_block(std::vector<Stmt>& body) {
  for (Stmt& s : body)
    check_stmt(s);
}

void Checker::check_stmt(Stmt& s) {
  if (auto* a = std::get_if<Assign>(&s.node)) {
    const std::string& n = a->name.name;
    SourceRange at = a->name.loc.range;
    std::string combine; // a reduction variable's combine inside the 'parallel'
    if (Binding* r = lookup(n); r && r->reduction && phase_ == Phase::inside)
      combine = combine_of(*a);
    Shape sh = check_expr(a->value);
    combine_operand_ = nullptr;
    Binding* b = lookup(n);
    if (b && b->kind == Binding::Kind::tensor) {
      error(at, "cannot assign to tensor '" + n + "'; " +
                    (b->is_output ? "store one tile of it: " + n + "[i, j] = ..."
                                  : "it is an input, and inputs are read-only"))
          .note(b->where, "'" + n + "' is declared here");
    } else if (b && b->kind == Binding::Kind::scalar) {
      error(at, "cannot assign to scalar parameter '" + n + "'; bind the result to a new name")
          .note(b->where, "'" + n + "' is declared here");
    } else if (b && b->kind == Binding::Kind::loop) {
      error(at, "cannot assign to loop index '" + n + "'; bind the value to a new name")
          .note(b->where, "'" + n + "' is defined here");
    } else if (b && b->kind == Binding::Kind::row) {
      row_as_tile(a->name, *b, "assign");
    } else {
      if (a->value.type == Type::scalar)
        error(a->value.loc.range, "'" + n +
                                      "' would hold a scalar, but names hold tiles; for a "
                                      "constant tile, write " +
                                      n + " = fill(" + expr_str(a->value) + ")");
      if (b) {
        b->shape = {merge(b->shape.rows, sh.rows), merge(b->shape.cols, sh.cols)};
        if (b->reduction && phase_ == Phase::inside) {
          if (combine.empty())
            reduction_misuse(*b, n, at, false);
          else
            record_combine(*b, n, combine, at);
        }
        write_local(*b, n, at, false);
      } else {
        Binding nb;
        nb.where = at;
        nb.shape = sh;
        nb.last_write = at;
        nb.read_since_write = false;
        nb.write_scope = scopes_.size();
        bind(n, nb);
      }
    }
  } else if (auto* acc = std::get_if<Accumulate>(&s.node)) {
    Shape sh = check_expr(acc->value);
    const std::string& n = acc->name.name;
    SourceRange at = acc->name.loc.range;
    Binding* b = lookup(n);
    if (!b) {
      if (reported_unknown_.insert(n).second) {
        Diagnostic& d = error(at, "'+=' on unbound name '" + n + "'; bind it first, e.g. '" + n +
                                      " = zeros()' before the loop");
        if (auto it = expired_.find(n); it != expired_.end())
          d.note(it->second, "this '" + n + "' is local to its loop body");
      }
      Binding nb; // bind it so that later uses are not reported again
      nb.where = at;
      bind(n, nb);
    } else if (b->kind == Binding::Kind::tensor) {
      error(at, "cannot accumulate into tensor '" + n +
                    "'; accumulate into a local name and "
                    "store that: acc += ...; " +
                    n + "[i, j] = acc")
          .note(b->where, "'" + n + "' is declared here");
    } else if (b->kind == Binding::Kind::row) {
      row_as_tile(acc->name, *b, "accumulate into");
    } else if (b->kind != Binding::Kind::local) {
      error(at, "cannot accumulate into " +
                    std::string(b->kind == Binding::Kind::loop ? "loop index '" : "scalar '") + n +
                    "'; '+=' updates a tile bound by '='")
          .note(b->where, "'" + n + "' is declared here");
    } else {
      b->shape = {merge(b->shape.rows, sh.rows), merge(b->shape.cols, sh.cols)};
      if (b->reduction && phase_ == Phase::inside)
        record_combine(*b, n, "+=", at);
      b->read_since_write = true; // '+=' adds to the value it holds
      write_local(*b, n, at, true);
    }
  } else if (auto* st = std::get_if<Store>(&s.node)) {
    check_store(*st);
  } else if (auto* r = std::get_if<RowInit>(&s.node)) {
    check_row_init(*r);
  } else if (auto* f = std::get_if<For>(&s.node)) {
    if (phase_ == Phase::after)
      error(keyword_range(s, 3),
            "'for' after 'parallel': the statements after a kernel's 'parallel' run once, to "
            "finish its reductions; loop inside the 'parallel' instead")
          .note(keyword_range(*parallel_, 8), "the 'parallel' block is here");
    if (++for_depth_ == kMaxLoopNesting + 1) // once, at the first loop too deep
      error(keyword_range(s, 3), "'for' loops nest too deeply here; the limit is " +
                                     std::to_string(kMaxLoopNesting) + " levels");
    scopes_.emplace_back();
    enclosing_.push_back(check_loop_var(f->loop, false, keyword_range(s, 3)));
    check_block(f->body);
    enclosing_.pop_back();
    --for_depth_;
    warn_unused_locals();
    for (const auto& [n, b] : scopes_.back())
      if (b.kind == Binding::Kind::local || b.kind == Binding::Kind::row)
        expired_[n] = b.where;
    scopes_.pop_back();
  } else {
    auto& p = std::get<Parallel>(s.node);
    error(keyword_range(s, 8), "nested 'parallel'; a kernel has one 'parallel', at its top, and "
                               "uses 'for' for loops inside it")
        .note(keyword_range(*parallel_, 8), "the kernel's 'parallel' is here");
    // Check the body as if it were a 'for' nest, so that the mistakes inside still show.
    scopes_.emplace_back();
    std::size_t depth = enclosing_.size();
    for (LoopVar& lv : p.loops)
      enclosing_.push_back(check_loop_var(lv, false, keyword_range(s, 8)));
    check_block(p.body);
    enclosing_.resize(depth);
    scopes_.pop_back();
  }
}

namespace {
// The accesses in `e` that read tile (b, a) for a store to (a, b): the tile grid swapped.
void find_swapped(const Expr& e, const Ident& a, const Ident& b, std::vector<const Expr*>& out) {
  if (const auto* acc = std::get_if<Access>(&e.node)) {
    const auto& ix = acc->indices; // rows and columns are the last two indices
    std::size_t r = ix.size() - 2;
    if (ix.size() >= 2 && ix[r].var && ix[r + 1].var && ix[r].var->name == b.name &&
        ix[r + 1].var->name == a.name)
      out.push_back(&e);
  } else if (const auto* c = std::get_if<Call>(&e.node)) {
    if (c->fn == Builtin::transpose)
      return; // transposed inside too: a real transpose
    for (const Expr& arg : c->args)
      find_swapped(arg, a, b, out);
  } else if (const auto* bin = std::get_if<Binary>(&e.node)) {
    find_swapped(*bin->lhs, a, b, out);
    find_swapped(*bin->rhs, a, b, out);
  }
}
} // namespace

// `y[j, i] = x[i, j]` moves whole tiles: the elements inside a tile keep their places.
void Checker::warn_tile_permutation(const Store& st) {
  const auto& ix = st.target.indices;
  if (ix.size() < 2)
    return;
  std::size_t r = ix.size() - 2;
  if (!ix[r].var || !ix[r + 1].var || ix[r].var->name == ix[r + 1].var->name)
    return;
  std::vector<const Expr*> swapped;
  find_swapped(st.value, *ix[r].var, *ix[r + 1].var, swapped);
  for (const Expr* e : swapped) {
    const std::string from = access_str(std::get<Access>(e->node));
    pending_.push_back({e->loc.range, "tile-permutation",
                        "tile '" + from + "' is stored at '" + access_str(st.target) +
                            "': whole 32x32 tiles move to the swapped positions, but the "
                            "elements inside each are not transposed; for a transpose, write '" +
                            access_str(st.target) + " = transpose(" + from + ")'",
                        st.target_loc.range, "stored here"});
  }
}

void Checker::write_local(Binding& b, const std::string& n, SourceRange at, bool accumulates) {
  // Overwritten unread: only within one block, since a loop in between may run no iteration.
  if (!b.read_since_write && b.write_scope == scopes_.size())
    pending_.push_back(
        {b.last_write, "unused-value",
         "the value " +
             std::string(b.last_write_accumulates ? "accumulated into '" : "assigned to '") + n +
             "' here is overwritten before it is read",
         at, "'" + n + "' is assigned again here"});
  b.read_since_write = false;
  b.last_write = at;
  b.last_write_accumulates = accumulates;
  b.write_scope = scopes_.size();
}

void Checker::warn_unused_locals() {
  for (const auto& [n, b] : scopes_.back()) {
    if (b.kind != Binding::Kind::local || b.read)
      continue;
    PendingWarning w{b.last_write,
                     "unused-value",
                     "'" + n + "' is " + (b.last_write_accumulates ? "accumulated" : "assigned") +
                         " but never used; store it to an output or remove it",
                     {},
                     ""};
    if (b.last_write != b.where)
      w.note_at = b.where, w.note = "'" + n + "' is bound here";
    pending_.push_back(std::move(w));
  }
}

void Checker::warn_unused_inputs() {
  for (const Param& p : k_.inputs) {
    const Binding* b = lookup(p.name.name);
    if (b && b->param == &p && !b->read && !bad_params_.count(p.name.name))
      pending_.push_back({p.name.loc.range,
                          "unused-input",
                          std::string(p.is_tensor ? "input tensor '" : "scalar input '") +
                              p.name.name + "' is never read",
                          {},
                          ""});
  }
}

void Checker::check_prologue(Stmt& s) {
  auto* a = std::get_if<Assign>(&s.node);
  if (!a) {
    error(s.loc.range, "statement before 'parallel'; before its 'parallel' a kernel only binds "
                       "reduction variables to a constant tile ('s = zeros()', 'm = "
                       "fill(-inf)'); move this statement inside the 'parallel' block or after it")
        .note(keyword_range(*parallel_, 8), "the 'parallel' block is here");
    if (std::holds_alternative<Store>(s.node))
      coverage_ok_ = false;
    return;
  }
  const std::size_t errors_before = d_.error_count();
  check_stmt(s);
  Binding* b = lookup(a->name.name);
  if (!b || b->kind != Binding::Kind::local || d_.error_count() != errors_before)
    return;
  const auto* c = std::get_if<Call>(&a->value.node);
  const std::string& n = a->name.name;
  if (!c || (c->fn != Builtin::zeros && c->fn != Builtin::fill)) {
    error(a->value.loc.range,
          "'" + n +
              "' is bound before 'parallel', so it is a reduction variable, which starts from a "
              "constant tile: write '" +
              n + " = zeros()' or '" + n +
              " = fill(c)' here, and compute this value inside the 'parallel' or after it")
        .note(keyword_range(*parallel_, 8), "the 'parallel' block is here");
    return;
  }
  b->reduction = true;
}

std::string Checker::combine_of(const Assign& a) {
  const auto* c = std::get_if<Call>(&a.value.node);
  if (!c || c->args.size() != 2)
    return "";
  Builtin fn = builtin_from_string(c->callee.name);
  if (fn != Builtin::max && fn != Builtin::min)
    return "";
  auto names = [&](const Expr& e) {
    const auto* nm = std::get_if<Name>(&e.node);
    return nm && nm->id.name == a.name.name;
  };
  // One operand is the variable itself; a second mention is a read the combine does not allow.
  const Expr* self = names(c->args[0]) ? &c->args[0] : names(c->args[1]) ? &c->args[1] : nullptr;
  if (!self)
    return "";
  combine_operand_ = self;
  return std::string(to_string(fn));
}

void Checker::record_combine(Binding& b, const std::string& n, const std::string& op,
                             SourceRange at) {
  if (b.combine.empty()) {
    b.combine = op;
    b.combine_at = at;
    return;
  }
  if (b.combine == op || !reported_reduction_.insert(n).second)
    return;
  auto spell = [&](const std::string& o) {
    return o == "+=" ? "'" + n + " += ...'" : "'" + n + " = " + o + "(" + n + ", ...)'";
  };
  error(at, "reduction variable '" + n + "' is combined by " + spell(op) + " here but by " +
                spell(b.combine) +
                " before; a reduction variable has one combine, so bind another one before "
                "'parallel' for this")
      .note(b.combine_at, "'" + n + "' is first combined here");
}

void Checker::reduction_misuse(const Binding& b, const std::string& n, SourceRange at, bool read) {
  if (!reported_reduction_.insert(n).second)
    return;
  const std::string forms =
      "'" + n + " += e', '" + n + " = max(" + n + ", e)' or '" + n + " = min(" + n + ", e)'";
  error(at, "'" + n + "' is a reduction variable (bound before 'parallel'), " +
                (read ? "so it is not read inside the 'parallel': its value there would depend "
                        "on the order of the iterations; inside, only combine into it with " +
                            forms + ", and use it after the 'parallel'"
                      : "so inside the 'parallel' it is only combined, with " + forms +
                            "; for a value of one iteration, bind a new name"))
      .note(b.where, "'" + n + "' is bound here");
}

void Checker::check_store(Store& st) {
  Shape value = check_expr(st.value);
  if (Binding* row = lookup(st.target.tensor.name); row && row->kind == Binding::Kind::row) {
    check_row_store(st, *row, value);
    return;
  }
  const Binding* b = resolve_tensor(st.target.tensor);
  if (!b) {
    coverage_ok_ = false; // the store was probably meant for an output; don't add "never stored"
    return;
  }
  const Param& p = *b->param;
  const std::string& n = p.name.name;
  if (bad_params_.count(n)) { // its declaration is wrong; nothing to check the store against
    stores_.emplace(n, StoreSite{st.target_loc.range});
    return;
  }
  if (!b->is_output) {
    std::string outs;
    for (const Param& o : k_.outputs)
      outs += (outs.empty() ? "" : ", ") + o.name.name;
    error(st.target.tensor.loc.range,
          "storing to input '" + n + "'; inputs are read-only" +
              (outs.empty() ? "" : ", store to an output (" + outs + ")"))
        .note(b->where, "'" + n + "' is declared as an input here");
    coverage_ok_ = false;
    return;
  }
  std::vector<LoopInfo*> vars;
  bool indices_ok = check_indices(st.target, st.target_loc.range, p, vars);
  if (st.value.type == Type::scalar)
    error(st.value.loc.range, "a store needs a tile, but '" + expr_str(st.value) +
                                  "' is a scalar; for a constant tile, write fill(" +
                                  expr_str(st.value) + ")");
  if (!indices_ok) {
    stores_.emplace(n, StoreSite{st.target_loc.range});
    return;
  }
  warn_tile_permutation(st);
  check_coverage(st, p, vars);
}

void Checker::check_coverage(const Store& st, const Param& out,
                             const std::vector<LoopInfo*>& vars) {
  const std::string& n = out.name.name;
  SourceRange at = st.target_loc.range;
  if (auto it = stores_.find(n); it != stores_.end()) {
    error(at, "output '" + n +
                  "' is stored twice; each output is stored by exactly one "
                  "statement, which writes every tile once")
        .note(it->second.where, "first store to '" + n + "' is here");
    return;
  }
  stores_.emplace(n, StoreSite{at});
  std::string shown = access_str(st.target);
  for (std::size_t d = 0; d < vars.size(); ++d) {
    const TensorIndex& ix = st.target.indices[d];
    const Dim& dim = out.dims[d];
    const bool batch = is_batch_dim(out, d);
    std::string dn = dim.name ? dim.name->name : std::to_string(dim.size);
    // The range that covers the dimension, and its count of tiles (matrices for a batch).
    std::int64_t count = batch ? dim.size : dim.size / 32;
    std::string whole =
        dim.name ? (batch ? "0 .. " + dn : "tiles(" + dn + ")") : "0 .. " + std::to_string(count);
    if (!ix.var) {
      if (!dim.name && (batch ? dim.size == 1 : (dim.size == 1 || dim.size == 32)))
        continue; // the one tile (matrix) of this dimension
      if (phase_ == Phase::after) {
        error(ix.loc.range, "'" + shown +
                                "' is stored after 'parallel', which runs once and writes one "
                                "tile, but dimension " +
                                std::to_string(d) + " of '" + n + "' (" + dn +
                                ") can hold more; declare '" + n + "' with one tile, e.g. '" + n +
                                ": bf16[1, 32]', or store it inside the 'parallel'");
        return;
      }
      error(ix.loc.range, "'" + shown + "' stores only " + (batch ? "matrix " : "tile ") +
                              std::to_string(ix.offset) + " of dimension " + std::to_string(d) +
                              " (" + dn + "); index it with a loop variable over " + whole +
                              " so that every " + (batch ? "matrix" : "tile") + " is written");
      return;
    }
    const LoopInfo& L = *vars[d];
    SourceRange loop_at{L.lv->var.loc.range.begin, L.lv->range.loc.range.end};
    if (ix.divided) {
      error(ix.loc.range, "store index '" + index_str(ix) + "' is divided, so several values of '" +
                              ix.var->name + "' would write the same " +
                              (batch ? "matrix" : "tile") + " of '" + n +
                              "'; store with a plain loop variable over " + whole)
          .note(loop_at, "'" + ix.var->name + "' is defined here");
      return;
    }
    if (ix.offset != 0) {
      error(ix.loc.range, "store index '" + index_str(ix) +
                              "' is offset; store with a plain "
                              "loop variable so that every tile of '" +
                              n + "' is written once");
      return;
    }
    bool full = L.lo.value == 0 && !L.outer && (dim.name || L.hi.value == count);
    if (!full) {
      error(ix.loc.range, "'" + ix.var->name + "' ranges over " + L.range_str() + ", so '" + shown +
                              "' misses " + (batch ? "matrices" : "tiles") + " of dimension " + dn +
                              "; loop over " + whole)
          .note(loop_at, "'" + ix.var->name + "' is defined here");
      return;
    }
    for (std::size_t e = 0; e < d; ++e)
      if (vars[e] == vars[d]) {
        error(at, std::string(vars.size() == 2 ? "both" : "two") + " indices of '" + shown +
                      "' are '" + ix.var->name +
                      "', so only the "
                      "diagonal tiles would be written; use one loop index per dimension");
        return;
      }
  }
  for (LoopInfo* L : enclosing_) {
    if (std::find(vars.begin(), vars.end(), L) != vars.end())
      continue;
    const std::string& v = L->lv->var.name;
    Diagnostic& e =
        L->parallel
            ? error(at, "'" + shown + "' does not use the parallel index '" + v + "', so every '" +
                            v + "' iteration writes the same tiles; index '" + n + "' with '" + v +
                            "' or drop '" + v + "' from 'parallel'")
            : error(at, "'" + shown + "' is stored inside 'for " + v + "' but does not use '" + v +
                            "', so each tile is written once per iteration; move the store after "
                            "the loop");
    e.note(L->keyword, "the loop over '" + v + "' is here");
    return;
  }
}

void Checker::run() {
  const std::size_t errors_before = d_.error_count();
  check_body();
  if (d_.error_count() != errors_before)
    return;
  warn_unused_inputs();
  std::stable_sort(pending_.begin(), pending_.end(),
                   [](const PendingWarning& a, const PendingWarning& b) {
                     return a.where.begin < b.where.begin;
                   });
  for (const PendingWarning& w : pending_) {
    Diagnostic& d = d_.warning(w.where, w.name, w.message);
    if (!w.note.empty())
      d.note(w.note_at, w.note);
  }
}

void Checker::check_body() {
  scopes_.emplace_back();
  check_options();
  check_params();
  for (Stmt& s : k_.body)
    if (std::holds_alternative<Parallel>(s.node) && !parallel_)
      parallel_ = &s;
  if (!parallel_) {
    // A statement spanning lines is underlined to the end of its first line.
    SourceRange at = k_.body.empty() ? k_.name.loc.range : k_.body.front().loc.range;
    error(at, "kernel '" + k_.name.name +
                  "' has no 'parallel' block; put its statements in "
                  "one, e.g. parallel i in tiles(M), j in tiles(N) { ... }");
    return; // nothing to check the statements against without their iteration space
  }
  // Reduction variables and the statements after the 'parallel' live in the kernel's scope.
  scopes_.emplace_back();
  for (Stmt& s : k_.body) {
    if (&s == parallel_) {
      auto& p = std::get<Parallel>(s.node);
      phase_ = Phase::inside;
      scopes_.emplace_back();
      for (LoopVar& lv : p.loops)
        enclosing_.push_back(check_loop_var(lv, true, keyword_range(s, 8)));
      check_block(p.body);
      enclosing_.clear();
      warn_unused_locals();
      for (const auto& [n, b] : scopes_.back())
        if (b.kind == Binding::Kind::local || b.kind == Binding::Kind::row)
          expired_[n] = b.where;
      scopes_.pop_back();
      phase_ = Phase::after;
      for (auto& [n, b] : scopes_.back())
        if (b.reduction && b.combine.empty() && reported_reduction_.insert(n).second)
          error(b.where, "reduction variable '" + n +
                             "' is never combined inside 'parallel'; combine into it there ('" + n +
                             " += e', '" + n + " = max(" + n + ", e)' or '" + n + " = min(" + n +
                             ", e)'), or bind it after the 'parallel'")
              .note(keyword_range(*parallel_, 8), "the 'parallel' block is here");
    } else if (std::holds_alternative<Parallel>(s.node)) {
      error(keyword_range(s, 8), "second 'parallel' block; a kernel has exactly one "
                                 "(write another kernel for a second iteration space)")
          .note(keyword_range(*parallel_, 8), "the first 'parallel' is here");
      coverage_ok_ = false;
    } else if (phase_ == Phase::before) {
      check_prologue(s);
    } else {
      check_stmt(s);
    }
  }
  warn_unused_locals();
  scopes_.pop_back();
  if (!coverage_ok_)
    return;
  for (const Param& o : k_.outputs)
    if (o.is_tensor && !bad_params_.count(o.name.name) && !stores_.count(o.name.name) &&
        params_[o.name.name] == &o)
      error(o.name.loc.range, "output '" + o.name.name +
                                  "' is never stored; store each of its "
                                  "tiles once inside 'parallel', e.g. " +
                                  o.name.name + "[i, j] = ...");
}

} // namespace detail

bool check(Module& m, Diagnostics& diags) {
  std::size_t before = diags.error_count();
  std::map<std::string, const Kernel*> names;
  for (Kernel& k : m.kernels) {
    if (auto [it, fresh] = names.emplace(k.name.name, &k); !fresh)
      diags.error(k.name.loc.range, "kernel '" + k.name.name + "' is defined twice")
          .note(it->second->name.loc.range, "first defined here");
    detail::Checker(k, diags).run();
  }
  return diags.error_count() == before;
}

} // namespace tk::dsl
