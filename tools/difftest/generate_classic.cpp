// The classic kernels (gen.hpp, docs/difftest.md): a kernel is one of four shapes that between them
// use every statement and expression form of docs/language.md — an element-wise map, a row-wise
// reduction then map (softmax-like), an accumulating matmul, a column-wise reduction — filled with
// random expression trees over every op of the op table, scalars and scalar expressions (of
// parameters, literals and sizes: `(alpha * 0.5)`, `(1.0 / M)`), `/` by and of scalars,
// transposes, masks (comparisons, tril and triu of the tile's indices) and where(), constants,
// broadcasts and reductions, on named and literal dimensions, vectors in and out, with random
// @options.
#include "tools/difftest/gen.hpp"

namespace tk::difftest::gen {

void Gen::extras(Ctx& c, const Axis& R, const Axis& C, const std::string& i, const std::string& j) {
  if (chance(0.4))
    c.row.push_back(load(input("1", C.dim) + "[0, " + j + "]"));
  if (chance(0.4))
    c.col.push_back(load(input(R.dim, "1") + "[" + i + ", 0]"));
  scalars(c);
}

Stmt Gen::store(const std::string& access, Val v) {
  return {Stmt::Kind::store, access, std::move(v.e), {}};
}
Stmt Gen::assign(const std::string& name, Expr e) {
  return {Stmt::Kind::assign, name, std::move(e), {}};
}

// parallel i, j: outputs y[i, j] = E, with temporaries and a carried literal loop.
void Gen::map_kernel() {
  const Axis R = axis("M"), C = axis("N");
  Ctx c;
  c.ij = true;
  for (std::size_t n = 1 + pick(3); n > 0; --n)
    c.full.push_back(load(input(R.dim, C.dim) + "[i, j]"));
  if (chance(0.3))
    c.square = load(input(C.dim, C.dim) + "[j, j]");
  extras(c, R, C, "i", "j");
  p_.parallel = "i in " + R.range + ", j in " + C.range;
  for (std::size_t n = pick(4); n > 0; --n) { // temporaries, each usable by the next
    const std::string name = "t" + std::to_string(n);
    Val t = full(c, depth());
    p_.body.push_back(assign(name, t.e));
    c.full.push_back({Expr::leaf(name), t.iv});
  }
  if (chance(0.3)) { // a value carried through a literal loop its index does not use
    const int n = 1 + static_cast<int>(pick(3));
    Val init = constant_tile();
    Stmt loop{Stmt::Kind::loop, "q in 0 .. " + std::to_string(n), {}, {}};
    Val step = scaled(full(c, depth()), 4.0);
    loop.body.push_back({Stmt::Kind::accumulate, "acc", step.e, {}});
    p_.body.push_back(assign("acc", init.e));
    p_.body.push_back(std::move(loop));
    const double m = init.iv.mag() + n * step.iv.mag();
    c.full.push_back({Expr::leaf("acc"), {-m, m}});
  }
  for (std::size_t n = 1 + pick(3); n > 0; --n)
    p_.body.push_back(store(output(R.dim, C.dim) + "[i, j]", full(c, depth())));
}

// parallel i: carried row reductions over j, vector outputs, then a map over j using them.
void Gen::row_kernel() {
  const Axis R = axis("M"), C = axis("N");
  Ctx c;
  c.ij = true; // inside the loops over j
  const std::string x = input(R.dim, C.dim);
  c.full.push_back(load(x + "[i, j]"));
  if (chance(0.4))
    c.full.push_back(load(input(R.dim, C.dim) + "[i, j]"));
  extras(c, R, C, "i", "j");
  p_.parallel = "i in " + R.range;
  // An offset read needs the loop to start at 1; such a loop may run zero times.
  const bool offset = chance(0.25) && C.max_tiles >= 2;
  Ctx in = c;
  if (offset)
    in.full.push_back(load(x + "[i, j - 1]"));
  Stmt loop{Stmt::Kind::loop, offset ? "j in 1 .. " + upper(C.range) : "j in " + C.range, {}, {}};
  Ctx after = c;
  Ctx vec; // after the loop, outside any j: the column vectors and the scalars (no tril)
  vec.col = c.col;
  vec.scalars = c.scalars;
  for (std::size_t n = 1 + pick(3); n > 0; --n) {
    const std::string name = std::string(n == 1 ? "s" : "m") + std::to_string(n);
    Val v = full(in, depth());
    v = scaled(std::move(v), 4.0);
    if (chance(0.5) || offset) { // a sum; starts from a constant, so it is finite after 0 trips
      Val init = constant_tile();
      p_.body.push_back(assign(name, init.e));
      loop.body.push_back({Stmt::Kind::accumulate, name, Expr::call("rowsum", {v.e}), {}});
      const double m = init.iv.mag() + C.max_tiles * 32 * v.iv.mag();
      after.col.push_back(scaled({Expr::leaf(name), {-m, m}}, kMaxMag));
      vec.col.push_back(after.col.back());
    } else {
      p_.body.push_back(assign(name, Expr::call("fill", {Expr::leaf("-inf")})));
      loop.body.push_back(
          assign(name, Expr::call("max", {Expr::leaf(name), Expr::call("rowmax", {v.e})})));
      after.col.push_back({Expr::leaf(name), {std::min(v.iv.lo, 0.0), std::max(v.iv.hi, 0.0)}});
      vec.col.push_back(after.col.back());
    }
  }
  p_.body.push_back(std::move(loop));
  bool stored = false;
  if (chance(0.6)) {
    p_.body.push_back(store(output(R.dim, "1") + "[i, 0]", col(vec, depth() - 1)));
    stored = true;
  }
  if (!stored || chance(0.6)) {
    Stmt map{Stmt::Kind::loop, "j in " + C.range, {}, {}};
    map.body.push_back(store(output(R.dim, C.dim) + "[i, j]", full(after, depth())));
    p_.body.push_back(std::move(map));
  }
}

std::string Gen::upper(const std::string& range) {
  auto dots = range.find(".. ");
  return dots == std::string::npos ? range : range.substr(dots + 3);
}

// parallel i, j: acc (+)= E(A[i, k]) @ E(B[k, j]) over k, then y[i, j] = E(acc, ...).
void Gen::matmul_kernel() {
  const Axis R = axis("M"), C = axis("N"), K = axis("K");
  Ctx a, b, out;
  a.full.push_back(load(input(R.dim, K.dim) + "[i, k]"));
  if (chance(0.3)) { // B stored [N, K], read as transpose(B[j, k]) (attention's Q @ K^T)
    Val bt = load(input(C.dim, K.dim) + "[j, k]");
    bt.e = Expr::call("transpose", {bt.e});
    b.full.push_back(bt);
  } else {
    b.full.push_back(load(input(K.dim, C.dim) + "[k, j]"));
  }
  extras(out, R, C, "i", "j");
  out.ij = true;
  a.scalars = b.scalars = out.scalars;
  p_.parallel = "i in " + R.range + ", j in " + C.range;
  Val init = chance(0.6) ? Val{Expr::call("zeros", {}), {0, 0}}
             : out.row.empty() || chance(0.5)
                 ? constant_tile()
                 : Val{Expr::call("bcast_row", {out.row[0].e}), out.row[0].iv};
  p_.body.push_back(assign("acc", init.e));
  Val ea = scaled(full(a, depth() - 1), 2.0), eb = scaled(full(b, depth() - 1), 2.0);
  Expr prod = Expr::binary("@", ea.e, eb.e);
  Stmt loop{Stmt::Kind::loop, "k in " + K.range, {}, {}};
  if (chance(0.7))
    loop.body.push_back({Stmt::Kind::accumulate, "acc", std::move(prod), {}});
  else
    loop.body.push_back(assign("acc", Expr::binary("+", Expr::leaf("acc"), std::move(prod))));
  p_.body.push_back(std::move(loop));
  const double m = init.iv.mag() + K.max_tiles * 32 * ea.iv.mag() * eb.iv.mag();
  out.full.push_back(scaled({Expr::leaf("acc"), {-m, m}}, kMaxMag));
  if (chance(0.4))
    out.full.push_back(load(input(R.dim, C.dim) + "[i, j]"));
  p_.body.push_back(store(output(R.dim, C.dim) + "[i, j]", full(out, depth() - 1)));
}

// parallel j: column reductions over i into a row-vector output, then a map over i.
void Gen::col_kernel() {
  const Axis R = axis("M"), C = axis("N");
  Ctx c;
  c.ij = true; // inside the loops over i
  c.full.push_back(load(input(R.dim, C.dim) + "[i, j]"));
  extras(c, R, C, "i", "j");
  p_.parallel = "j in " + C.range;
  Val v = scaled(full(c, depth()), 4.0);
  Val init = constant_tile();
  const bool sum = chance(0.6);
  p_.body.push_back(assign("s", sum ? init.e : Expr::call("fill", {Expr::leaf("-inf")})));
  Stmt loop{Stmt::Kind::loop, "i in " + R.range, {}, {}};
  if (sum)
    loop.body.push_back({Stmt::Kind::accumulate, "s", Expr::call("colsum", {v.e}), {}});
  else
    loop.body.push_back(
        assign("s", Expr::call("max", {Expr::leaf("s"), Expr::call("colmax", {v.e})})));
  p_.body.push_back(std::move(loop));
  const double m = sum ? init.iv.mag() + R.max_tiles * 32 * v.iv.mag() : v.iv.mag();
  Ctx after = c;
  after.row.push_back(scaled({Expr::leaf("s"), {-m, m}}, kMaxMag));
  Ctx vec; // outside the loop over i: the row vectors and the scalars
  vec.row = after.row;
  vec.scalars = c.scalars;
  p_.body.push_back(store(output("1", C.dim) + "[0, j]", row(vec, depth() - 1)));
  if (chance(0.5)) {
    Stmt map{Stmt::Kind::loop, "i in " + R.range, {}, {}};
    map.body.push_back(store(output(R.dim, C.dim) + "[i, j]", full(after, depth())));
    p_.body.push_back(std::move(map));
  }
}

} // namespace tk::difftest::gen
