// The checker's part for rows of tiles (docs/language.md, "Rows of tiles"): `o[d in tiles(D)] =
// EXPR` binds a row, `o[d] = EXPR` updates one of its tiles, `o[d]` reads one; the index is a
// plain loop variable over the row's range, so every access is inside and every tile is set.
#include "dsl/check_internal.hpp"

namespace tk::dsl::detail {

namespace {
std::string example_index(const Binding& row, const std::string& n) {
  return n + "[d], d over " + row.row_range;
}
} // namespace

void Checker::check_row_init(RowInit& r) {
  const std::string& n = r.name.name;
  SourceRange at = r.name.loc.range;
  if (phase_ != Phase::inside) // before the 'parallel', check_prologue reported it already
    error(at, "row of tiles '" + n +
                  "' after 'parallel': the statements after a kernel's 'parallel' run once, to "
                  "finish its reductions; bind rows inside the 'parallel'")
        .note(keyword_range(*parallel_, 8), "the 'parallel' block is here");
  Binding* old = lookup(n);
  if (old && old->kind != Binding::Kind::loop) // a loop index: check_loop_var's shadowing error
    error(at, "'" + n +
                  "' is already bound; a row of tiles is bound once in its scope: update its "
                  "tiles with '" +
                  n + "[d] = ...' inside a loop over its range")
        .note(old->where, "'" + n + "' is bound here");
  scopes_.emplace_back();
  LoopInfo* L = check_loop_var(r.loop, false, at);
  bool range_ok = L && L->valid;
  if (range_ok && (L->lo.value != 0 || L->outer)) {
    error(r.loop.range.loc.range,
          "a row of tiles covers a whole range from 0: write " + n + "[" + r.loop.var.name +
              " in tiles(D)], " + n + "[" + r.loop.var.name + " in 0 .. B] or " + n + "[" +
              r.loop.var.name + " in 0 .. 4]; index a part of it with a loop over that part");
    range_ok = false;
  }
  enclosing_.push_back(L);
  Shape sh = check_expr(r.value);
  enclosing_.pop_back();
  scopes_.pop_back();
  if (r.value.type == Type::scalar)
    error(r.value.loc.range, "row '" + n +
                                 "' would hold scalars, but a row holds tiles; for constant "
                                 "tiles, write " +
                                 n + "[" + r.loop.var.name + " in " +
                                 (L ? L->range_str() : std::string("tiles(D)")) + "] = fill(" +
                                 expr_str(r.value) + ")");
  if (old && old->kind != Binding::Kind::loop)
    return;
  Binding b;
  b.kind = Binding::Kind::row;
  b.where = at;
  b.shape = sh;
  b.read = true; // rows take no part in -Wunused-value
  if (range_ok) {
    b.row_hi = L->hi;
    b.row_range = L->range_str();
  }
  bind(n, std::move(b));
}

bool Checker::check_row_index(const Access& a, SourceRange where, const Binding& row) {
  const std::string& n = a.tensor.name;
  if (row.row_range.empty())
    return false; // its range was reported
  if (a.indices.size() != 1) {
    error(where, "'" + n + "' is a row of tiles over " + row.row_range + ", indexed with one " +
                     "loop variable, but here with " + std::to_string(a.indices.size()) +
                     " indices; write " + example_index(row, n))
        .note(row.where, "'" + n + "' is bound here");
    return false;
  }
  const TensorIndex& ix = a.indices[0];
  if (!ix.var || ix.offset != 0 || ix.divided) {
    error(ix.loc.range, "index '" + index_str(ix) + "' of row '" + n +
                            "': a row of tiles is indexed by a plain loop variable over its "
                            "range, " +
                            example_index(row, n))
        .note(row.where, "'" + n + "' is bound here");
    return false;
  }
  LoopInfo* L = index_loop(*ix.var);
  if (!L || !L->valid)
    return false;
  if (!(L->hi == row.row_hi) || L->excess > 0) {
    error(ix.loc.range, "index '" + ix.var->name + "' ranges over " + L->range_str() +
                            ", but row '" + n + "' holds the tiles of " + row.row_range +
                            "; index it with a variable over " + row.row_range)
        .note(SourceRange{L->lv->var.loc.range.begin, L->lv->range.loc.range.end},
              "'" + ix.var->name + "' is defined here")
        .note(row.where, "'" + n + "' is bound here");
    return false;
  }
  return true;
}

Shape Checker::check_row_read(Access& a, SourceRange where, Binding& row) {
  a.row = true;
  row.read = true;
  if (!check_row_index(a, where, row))
    return {};
  return row.shape;
}

void Checker::check_row_store(Store& st, Binding& row, const Shape& value) {
  const std::string& n = st.target.tensor.name;
  st.target.row = true;
  if (st.value.type == Type::scalar) {
    error(st.value.loc.range, "a tile of row '" + n + "' is a tile, but '" + expr_str(st.value) +
                                  "' is a scalar; for a constant tile, write fill(" +
                                  expr_str(st.value) + ")");
    return;
  }
  if (!check_row_index(st.target, st.target_loc.range, row))
    return;
  // Every tile of a row has one shape: the one it was bound with, refined by later stores.
  auto differ = [&](const DimKey& have, const DimKey& got, const char* what) {
    if (!provably_differ(have, got))
      return false;
    Diagnostic& d =
        error(st.value.loc.range, "the tile stored into '" + access_str(st.target) +
                                      "' does not agree with row '" + n + "': the " + what +
                                      " of '" + expr_str(st.value) + "' come from " + got.str() +
                                      ", the " + what + " of '" + n + "' from " + have.str());
    d.note(row.where, "'" + n + "' is bound here");
    return true;
  };
  if (differ(row.shape.rows, value.rows, "rows") || differ(row.shape.cols, value.cols, "columns"))
    return;
  row.shape = {merge(row.shape.rows, value.rows), merge(row.shape.cols, value.cols)};
}

void Checker::row_as_tile(const Ident& id, const Binding& row, const std::string& how) {
  error(id.loc.range, "'" + id.name + "' is a row of tiles" +
                          (row.row_range.empty() ? "" : " over " + row.row_range) + "; " + how +
                          " one of its tiles, " +
                          (row.row_range.empty() ? id.name + "[d]" : example_index(row, id.name)))
      .note(row.where, "'" + id.name + "' is bound here");
}

} // namespace tk::dsl::detail
