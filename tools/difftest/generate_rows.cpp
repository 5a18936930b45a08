// The kinds that exercise FlashAttention's constructs (docs/difftest.md, "Rows and grouped
// indices"): rows of tiles carried across a loop (`rows`: `o[d in tiles(N)] = ...`, updated by
// `@` or element-wise, with a decay, read after the loop; sometimes a kept row of an input's
// tiles, sometimes a triangular loop) and grouped batch indices (`grouped`: `x[h / 2, i, j]`, a
// batch of matrices shared by groups of heads, in a product and element-wise). Each draws from a
// random stream of its own (generate.cpp), so no other kind's kernel moves.
#include "tools/difftest/gen.hpp"

namespace tk::difftest::gen {

// parallel i: a row o over the columns, carried over k and updated in place, then stored.
void Gen::rows_kernel() {
  p_.shape = "rows";
  const Axis R = axis("M"), C = axis("N");
  // A triangular loop over the row tiles (k in 0 .. i + 1, a causal P @ V) or a plain one.
  const bool triangular = chance(0.3);
  const bool product = chance(0.7);
  // An element-wise update reads no tensor over K: its loop then counts a literal number of steps.
  const int literal = 1 + static_cast<int>(pick(3));
  const Axis K =
      triangular ? R
      : product  ? axis("K")
                 : Axis{std::to_string(32 * literal), "0 .. " + std::to_string(literal), literal};
  const std::string krange = triangular ? (chance(0.7) ? "0 .. i + 1" : "0 .. i") : K.range;
  const int steps = K.max_tiles;
  p_.parallel = "i in " + R.range;
  Ctx out;
  scalars(out);

  // o[d in C] = a constant, or an expression of tile (i, d) of an input.
  Val init = constant_tile();
  if (chance(0.5)) {
    Ctx c;
    c.full.push_back(load(input(R.dim, C.dim) + "[i, d]"));
    init = scaled(full(c, 1), 4.0);
  }
  p_.body.push_back(assign("o[d in " + C.range + "]", init.e));

  // A kept row of A's tiles, read back at the top of the loop (rectangular loops only: on TT a
  // row is read in a loop over its whole extent).
  const std::string a_tensor = product ? input(R.dim, K.dim) : "";
  const bool kept = product && !triangular && chance(0.4);
  if (kept)
    p_.body.push_back(assign("q[e in " + K.range + "]", Expr::leaf(a_tensor + "[i, e]")));

  Stmt loop{Stmt::Kind::loop, "k in " + krange, {}, {}};
  Ctx a;
  if (kept) {
    loop.body.push_back(assign("a", Expr::leaf("q[k]")));
    a.full.push_back(load("a"));
  } else if (product) {
    a.full.push_back(load(a_tensor + "[i, k]"));
  }
  // The update multiplies o[d] by a decay in (0, 1] (a column vector, a literal or nothing):
  // |o| stays within |init| + steps * |increment|.
  std::optional<Expr> decay;
  switch (pick(3)) {
  case 0: {
    Ctx x = a;
    if (x.full.empty())
      x.full.push_back(load(input(R.dim, K.dim) + "[i, k]"));
    Val m = full(x, 1);
    loop.body.push_back(
        assign("c", Expr::call("recip",
                               {Expr::binary("+", Expr::call("abs", {Expr::call("rowmax", {m.e})}),
                                             Expr::leaf("1.0"))})));
    decay = Expr::call("bcast_col", {Expr::leaf("c")});
    break;
  }
  case 1:
    decay = Expr::leaf(chance(0.5) ? "0.5" : "0.75");
    break;
  default:
    break;
  }
  Val inc;
  if (product) {
    Ctx b;
    b.full.push_back(load(input(K.dim, C.dim) + "[k, d]"));
    Val ea = scaled(full(a, 1), 2.0), eb = scaled(full(b, 1), 2.0);
    const double m = 32 * ea.iv.mag() * eb.iv.mag();
    inc = {Expr::binary("@", ea.e, eb.e), {-m, m}};
  } else { // tile (i, d) of an input, whose rows agree with o's
    Ctx x;
    x.full.push_back(load(input(R.dim, C.dim) + "[i, d]"));
    inc = scaled(full(x, 2), 4.0);
  }
  Expr old = Expr::leaf("o[d]");
  if (decay)
    old = Expr::binary("*", std::move(old), std::move(*decay));
  Stmt update{Stmt::Kind::loop, "d in " + C.range, {}, {}};
  update.body.push_back(
      assign("o[d]", chance(0.8) ? Expr::binary("+", old, inc.e) : Expr::binary("-", old, inc.e)));
  loop.body.push_back(std::move(update));
  p_.body.push_back(std::move(loop));

  const double m = init.iv.mag() + steps * inc.iv.mag();
  out.full.push_back(scaled({Expr::leaf("o[d]"), {-m, m}}, kMaxMag));
  if (chance(0.4))
    out.full.push_back(load(input(R.dim, C.dim) + "[i, d]"));
  Stmt store_loop{Stmt::Kind::loop, "d in " + C.range, {}, {}};
  store_loop.body.push_back(store(output(R.dim, C.dim) + "[i, d]", full(out, depth() - 1)));
  p_.body.push_back(std::move(store_loop));
}

// parallel h, i, j over H heads: inputs shared by groups of `ratio` heads, read as x[h / ratio].
void Gen::grouped_kernel() {
  p_.shape = "grouped";
  const int ratio = chance(0.2) ? 1 : 2 + static_cast<int>(pick(3));
  const std::int64_t groups = 1 + static_cast<std::int64_t>(pick(3));
  p_.dims["G"] = groups;
  p_.dims["H"] = groups * ratio;
  const std::string shared = "h / " + std::to_string(ratio);
  const Axis R = axis("M"), C = axis("N");
  p_.parallel = "h in 0 .. H, i in " + R.range + ", j in " + C.range;
  Ctx out;
  out.ij = true;
  scalars(out);
  // Each input of a head (x[h, ...]) or of its group (x[h / ratio, ...]); at least one grouped.
  bool grouped = false;
  auto batch_input = [&](const std::string& rows, const std::string& cols, const std::string& at,
                         bool must) {
    const bool g = must || chance(0.5);
    grouped = grouped || g;
    return input(g ? "G" : "H", rows, cols) + "[" + (g ? shared : std::string("h")) + ", " + at +
           "]";
  };
  if (chance(0.6)) {
    const Axis K = axis("K");
    Ctx a, b;
    a.full.push_back(load(batch_input(R.dim, K.dim, "i, k", false)));
    if (chance(0.3)) { // B stored [N, K] per matrix, read as transpose(B[g, j, k])
      Val bt = load(batch_input(C.dim, K.dim, "j, k", !grouped));
      bt.e = Expr::call("transpose", {bt.e});
      b.full.push_back(bt);
    } else {
      b.full.push_back(load(batch_input(K.dim, C.dim, "k, j", !grouped)));
    }
    Val init = chance(0.7) ? Val{Expr::call("zeros", {}), {0, 0}} : constant_tile();
    p_.body.push_back(assign("acc", init.e));
    Val ea = scaled(full(a, 1), 2.0), eb = scaled(full(b, 1), 2.0);
    Stmt loop{Stmt::Kind::loop, "k in " + K.range, {}, {}};
    loop.body.push_back({Stmt::Kind::accumulate, "acc", Expr::binary("@", ea.e, eb.e), {}});
    p_.body.push_back(std::move(loop));
    const double m = init.iv.mag() + K.max_tiles * 32 * ea.iv.mag() * eb.iv.mag();
    out.full.push_back(scaled({Expr::leaf("acc"), {-m, m}}, kMaxMag));
    if (chance(0.4))
      out.full.push_back(load(batch_input(R.dim, C.dim, "i, j", false)));
  } else {
    for (std::size_t n = 1 + pick(3); n > 0; --n)
      out.full.push_back(load(batch_input(R.dim, C.dim, "i, j", n == 1 && !grouped)));
  }
  for (std::size_t n = 1 + pick(2); n > 0; --n)
    p_.body.push_back(store(output("H", R.dim, C.dim) + "[h, i, j]", full(out, depth())));
}

} // namespace tk::difftest::gen
