#include "lowering/tt/select_tile_ops_rows.hpp"

#include "lowering/ir/printer.hpp"
#include "lowering/ir/util.hpp"
#include "lowering/tt/target.hpp"

namespace tk::lower::tt {

using namespace tk::ir;

namespace {

// The row.get / row.set calls of `row` in `s`, in program order.
std::vector<const Call*> row_calls(const Stmt& s, const std::string& row) {
  std::vector<const Call*> out;
  for (Intrinsic fn : {Intrinsic::row_get, Intrinsic::row_set})
    for (const Call* c : calls_of(s, fn))
      if (const Var* v = as<Var>(c->args.at(0)); v && v->name == row)
        out.push_back(c);
  return out;
}

SourceRange first_mention(const Stmt& s, const std::string& row) {
  for (const Call* c : row_calls(s, row))
    if (c->loc.range != SourceRange{})
      return c->loc.range;
  return s->loc.range;
}

[[noreturn]] void fail(Diagnostics& diags, SourceRange at, const std::string& row,
                       const std::string& why) {
  diags.error(at, "row of tiles '" + row + "' on Tenstorrent: " + why +
                      "; a row is read and set as " + row +
                      "[d] inside a loop 'for d in' over its whole extent, set at most once "
                      "per iteration and not read after that");
  throw UserErrorReported{};
}

bool at_index(const Call& c, const std::string& index) {
  const Var* v = as<Var>(c.args.at(1));
  return v && v->name == index;
}

} // namespace

bool is_zero(const Expr& e) {
  const IntImm* i = as<IntImm>(e);
  return i && i->value == 0;
}

std::optional<RowUse> row_use(const For& f, const std::string& row, const Expr& extent,
                              const Expr& start, Diagnostics& diags) {
  const Stmt loop = std::make_shared<For>(f);
  if (count_mentions(loop, row) == 0)
    return std::nullopt;
  if (print(f.min) != print(start))
    fail(diags, first_mention(loop, row), row,
         is_zero(start) ? "this loop does not run over its whole extent from 0"
                        : "this loop does not continue at " + print(start) +
                              ", where the loop over it before stopped");
  RowUse u;
  u.ends = print(f.extent) == print(is_zero(start) ? extent : extent - start);
  for (const Stmt& s : as<Block>(f.body)->stmts) {
    if (count_mentions(s, row) == 0)
      continue;
    if (u.sets)
      fail(diags, first_mention(s, row), row,
           "it is used again after it was set in this iteration");
    if (as<For>(s) || as<IfThenElse>(s))
      fail(diags, first_mention(s, row), row,
           "a loop or condition inside the loop over it uses it");
    for (const Call* c : row_calls(s, row)) {
      if (!at_index(*c, f.var))
        fail(diags, c->loc.range, row,
             std::string(c->fn == Intrinsic::row_get ? "it is read" : "it is set") +
                 " at an index other than the loop's '" + f.var + "'");
      (c->fn == Intrinsic::row_get ? u.reads : u.sets) = true;
    }
  }
  return u;
}

Expr row_cursor(const For& f, const Expr& start) {
  if (is_zero(start))
    return f.extent;
  // `for d in start .. +end - start` (keep-rows' splits at row_mid and row_kept) stops at end.
  if (const Binary* b = as<Binary>(f.extent);
      b && b->op == BinaryOp::sub && print(b->b) == print(start))
    return b->a;
  return start + f.extent;
}

void row_partial_loop(const Stmt& s, const std::string& row, Diagnostics& diags) {
  fail(diags, first_mention(s, row), row, "this loop does not run over its whole extent from 0");
}

void row_outside_loop(const Stmt& s, const std::string& row, Diagnostics& diags) {
  fail(diags, first_mention(s, row), row, "it is used outside a loop over it");
}

std::int64_t row_capacity(std::int64_t rows) {
  constexpr std::int64_t kShare = 256 * 1024;
  return kShare / tile_bytes(DType::f32) / std::max<std::int64_t>(1, rows);
}

} // namespace tk::lower::tt
