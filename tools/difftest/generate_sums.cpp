// The kernels that look where sums drift (docs/difftest.md, "Sums, reductions, offsets"): long
// carried sums (up to 256 tiles: `acc += E`, `s += rowsum(E)`, `s += colsum(E)`, products and
// decays carried, a long `@`), whole-tensor reductions (reduction variables combined with +=,
// max and min, finished after the `parallel`), and row statistics (mean, variance, centred
// values) of data far from zero mean, with bfp8 inputs among them. Their increments are shallow
// expressions, so that the bounds stay tight enough for a drift of a fraction of a percent to be
// a failure. Drawn from streams of their own (Gen(seed, salt)): the classic kernels do not move.
#include "tools/difftest/gen.hpp"

namespace tk::difftest::gen {

Program Gen::run_kind(std::uint64_t seed, Kind kind) {
  p_.name = "k" + std::to_string(seed);
  p_.input_seed = seed;
  sums_options();
  if (kind == Kind::sums)
    sum_kernel();
  else if (kind == Kind::reductions)
    reduction_kernel();
  else if (kind == Kind::offsets)
    offset_kernel();
  else if (kind == Kind::triangular)
    triangular_kernel();
  else if (kind == Kind::rows)
    rows_kernel();
  else
    grouped_kernel();
  return std::move(p_);
}

void Gen::sums_options() {
  static const char* fidelities[] = {"LoFi", "HiFi2", "HiFi3", "HiFi4"};
  if (chance(0.4)) // 1x1 often: one core carries a reduction's whole chunk
    p_.options.push_back(chance(0.4) ? std::string("grid = 1x1") : random_grid());
  if (chance(0.15))
    p_.options.push_back("cb_depth = " + std::to_string(1 + pick(4)));
  if (chance(0.1))
    p_.options.push_back(std::string("fp32_acc = ") + (chance(0.5) ? "true" : "false"));
  if (chance(0.1))
    p_.options.push_back(std::string("math_fidelity = ") + fidelities[pick(4)]);
  const double d = static_cast<double>(rng_() >> 11) * 0x1.0p-53;
  dtype_mode_ = d < 0.5 ? 0 : d < 0.8 ? 1 : 2; // all bf16, all f32, mixed
}

double Gen::data_offset() {
  if (chance(0.5))
    return 0; // zero mean: uniform in [-2, 2]
  const double o = chance(0.5) ? 8 : 64;
  return chance(0.25) ? -o : o;
}

std::string Gen::offset_input(const std::string& rows, const std::string& cols, double offset) {
  const std::string name = input(rows, cols);
  if (offset != 0)
    p_.offsets[name] = offset;
  return name;
}

/// A load of an input with `offset`: rows at offset (1 +- 1/4) +- 1, or [-2, 2].
static Val offset_load(const std::string& access, double offset) {
  if (offset == 0)
    return {Expr::leaf(access), {kInputMin, kInputMax}};
  const double a = 0.75 * offset, b = 1.25 * offset;
  return {Expr::leaf(access), {std::min(a, b) - 2, std::max(a, b) + 2}};
}

Gen::Axis Gen::long_axis(const std::string& name, int max_tiles) {
  const int t = chance(0.5) ? 1 + static_cast<int>(pick(static_cast<std::size_t>(max_tiles)))
                            : max_tiles >> pick(3);
  p_.dims[name] = 32 * static_cast<std::int64_t>(t);
  return {name, "tiles(" + name + ")", t};
}

/// A shallow expression (depth 0 to 2, mostly a plain load) scaled to at most `limit`.
Val Gen::increment(const Ctx& c, int depth, double limit) {
  Val v = depth <= 0 ? c.full[pick(c.full.size())] : full(c, depth);
  return scaled(std::move(v), limit);
}

// parallel i (or j): a value carried over a long loop.
void Gen::sum_kernel() {
  p_.shape = "sum";
  const double off = data_offset();
  const int depth = chance(0.5) ? 0 : 1 + static_cast<int>(pick(2));
  switch (pick(6)) {
  case 0:   // acc += E over j: a full tile carried
  case 1: { // s += rowsum(E) over j, then the mean, perhaps broadcast
    const bool rows = pick(2) == 1;
    const Axis C = long_axis("N", 256);
    p_.dims["M"] = 32 * static_cast<std::int64_t>(C.max_tiles > 128 ? 1 : 1 + pick(2));
    Ctx c;
    c.ij = true;
    const std::string x = offset_input("M", "N", off);
    c.full.push_back(offset_load(x + "[i, j]", off));
    if (chance(0.3))
      c.full.push_back(offset_load(offset_input("M", "N", off) + "[i, j]", off));
    p_.parallel = "i in tiles(M)";
    const Val init = chance(0.6) ? Val{Expr::call("zeros", {}), {0, 0}} : constant_tile();
    p_.body.push_back(assign("s", init.e));
    Val v = increment(c, depth, 4.0);
    Expr inc = rows ? Expr::call("rowsum", {v.e}) : v.e;
    Stmt loop{Stmt::Kind::loop, "j in " + C.range, {}, {}};
    const std::size_t form = pick(4);
    if (form < 2)
      loop.body.push_back({Stmt::Kind::accumulate, "s", std::move(inc), {}});
    else if (form == 2)
      loop.body.push_back(assign("s", Expr::binary("+", Expr::leaf("s"), std::move(inc))));
    else
      loop.body.push_back(assign("s", Expr::binary("-", Expr::leaf("s"), std::move(inc))));
    p_.body.push_back(std::move(loop));
    p_.body.push_back(store(output("M", rows ? "1" : "32") + "[i, 0]", {Expr::leaf("s"), {}}));
    if (rows && chance(0.5)) { // the mean, subtracted from the row: a broadcast of a sum
      p_.body.push_back(
          assign("mean", Expr::binary("*", Expr::leaf("s"),
                                      Expr::binary("/", Expr::leaf("1.0"), Expr::leaf("N")))));
      Stmt map{Stmt::Kind::loop, "j in " + C.range, {}, {}};
      Expr centred = Expr::binary("-", c.full[0].e, Expr::call("bcast_col", {Expr::leaf("mean")}));
      map.body.push_back(store(output("M", "N") + "[i, j]", {std::move(centred), {}}));
      p_.body.push_back(std::move(map));
    }
    return;
  }
  case 2: { // s += colsum(E) over a long i
    const Axis R = long_axis("M", 256);
    p_.dims["N"] = 32 * static_cast<std::int64_t>(R.max_tiles > 128 ? 1 : 1 + pick(2));
    Ctx c;
    c.ij = true;
    c.full.push_back(offset_load(offset_input("M", "N", off) + "[i, j]", off));
    p_.parallel = "j in tiles(N)";
    p_.body.push_back(assign("s", Expr::call("zeros", {})));
    Stmt loop{Stmt::Kind::loop, "i in " + R.range, {}, {}};
    loop.body.push_back(
        {Stmt::Kind::accumulate, "s", Expr::call("colsum", {increment(c, depth, 4.0).e}), {}});
    p_.body.push_back(std::move(loop));
    p_.body.push_back(store(output("1", "N") + "[0, j]", {Expr::leaf("s"), {}}));
    return;
  }
  case 3:   // a product carried: p = p * (1 + E / 64)
  case 4: { // a decay carried: o = o * c + E
    const bool product = pick(2) == 0;
    const Axis C = long_axis("N", 256);
    p_.dims["M"] = 32 * static_cast<std::int64_t>(C.max_tiles > 128 ? 1 : 1 + pick(2));
    Ctx c;
    c.ij = true;
    c.full.push_back(offset_load(offset_input("M", "N", off) + "[i, j]", off));
    p_.parallel = "i in tiles(M)";
    Stmt loop{Stmt::Kind::loop, "j in " + C.range, {}, {}};
    if (product) {
      p_.body.push_back(assign("s", Expr::call("fill", {Expr::leaf("1.0")})));
      Val v = increment(c, depth, 1.0 / 64);
      loop.body.push_back(assign(
          "s", Expr::binary("*", Expr::leaf("s"), Expr::binary("+", v.e, Expr::leaf("1.0")))));
    } else {
      static const double decays[] = {0.5, 0.75, 0.875, 0.9375};
      Expr decay;
      if (chance(0.5)) {
        decay = Expr::leaf(number(decays[pick(4)]));
      } else {
        p_.scalars.push_back("alpha");
        p_.scalar_values["alpha"] = decays[pick(4)];
        decay = Expr::leaf("alpha");
      }
      p_.body.push_back(assign("s", Expr::call("zeros", {})));
      Val v = increment(c, depth, 2.0);
      loop.body.push_back(assign(
          "s", Expr::binary("+", Expr::binary("*", Expr::leaf("s"), std::move(decay)), v.e)));
    }
    p_.body.push_back(std::move(loop));
    p_.body.push_back(store(output("M", "32") + "[i, 0]", {Expr::leaf("s"), {}}));
    return;
  }
  default: { // acc += A @ B over a long k
    p_.dims["M"] = 32 * static_cast<std::int64_t>(1 + pick(2));
    p_.dims["N"] = 32 * static_cast<std::int64_t>(1 + pick(2));
    const Axis K = long_axis("K", 64);
    Ctx a, b;
    a.full.push_back(offset_load(offset_input("M", "K", off) + "[i, k]", off));
    b.full.push_back(offset_load(offset_input("K", "N", 0) + "[k, j]", 0));
    p_.parallel = "i in tiles(M), j in tiles(N)";
    p_.body.push_back(assign("acc", Expr::call("zeros", {})));
    Stmt loop{Stmt::Kind::loop, "k in " + K.range, {}, {}};
    Expr prod = Expr::binary("@", increment(a, 0, 2.0).e, increment(b, 0, 2.0).e);
    if (chance(0.7))
      loop.body.push_back({Stmt::Kind::accumulate, "acc", std::move(prod), {}});
    else
      loop.body.push_back(assign("acc", Expr::binary("+", Expr::leaf("acc"), std::move(prod))));
    p_.body.push_back(std::move(loop));
    p_.body.push_back(store(output("M", "N") + "[i, j]", {Expr::leaf("acc"), {}}));
    return;
  }
  }
}

// Reduction variables bound before the parallel, combined inside (+=, max, min), finished after.
void Gen::reduction_kernel() {
  p_.shape = "reduction";
  const double off = data_offset();
  const int tm = 1 + static_cast<int>(pick(8));
  const int tn = 1 + static_cast<int>(pick(static_cast<std::size_t>(std::min(64, 192 / tm))));
  p_.dims["M"] = 32 * static_cast<std::int64_t>(tm);
  p_.dims["N"] = 32 * static_cast<std::int64_t>(tn);
  Ctx c;
  c.ij = true;
  c.full.push_back(offset_load(offset_input("M", "N", off) + "[i, j]", off));
  if (chance(0.3)) {
    const double off2 = data_offset();
    c.full.push_back(offset_load(offset_input("M", "N", off2) + "[i, j]", off2));
  }
  const bool nested = chance(0.5); // parallel i { for j { ... } } instead of parallel i, j
  p_.parallel = nested ? "i in tiles(M)" : "i in tiles(M), j in tiles(N)";
  std::vector<Stmt> updates;
  const int depth = chance(0.5) ? 0 : 1 + static_cast<int>(pick(2));
  bool sum = chance(0.7), mx = chance(0.4), mn = chance(0.3);
  if (!sum && !mx && !mn)
    sum = true;
  if (sum) {
    const Val init = chance(0.7) ? Val{Expr::call("zeros", {}), {0, 0}} : constant_tile();
    p_.before.push_back(assign("s", init.e));
    Val v = increment(c, depth, 4.0);
    updates.push_back({Stmt::Kind::accumulate,
                       "s",
                       chance(0.25) ? Expr::call(chance(0.5) ? "rowsum" : "colsum", {v.e}) : v.e,
                       {}});
    if (chance(0.5)) { // the mean of every element
      const std::string y = output("1", "32");
      p_.after.push_back(
          store(y + "[0, 0]",
                {Expr::binary("*", Expr::call("rowsum", {Expr::call("colsum", {Expr::leaf("s")})}),
                              Expr::binary("/", Expr::leaf("1.0"),
                                           Expr::binary("*", Expr::leaf("M"), Expr::leaf("N")))),
                 {}}));
    } else {
      p_.after.push_back(store(output("32", "32") + "[0, 0]", {Expr::leaf("s"), {}}));
    }
  }
  for (int k = 0; k < 2; ++k) {
    if (!(k == 0 ? mx : mn))
      continue;
    const std::string name = k == 0 ? "m" : "n", fn = k == 0 ? "max" : "min";
    p_.before.push_back(assign(name, Expr::call("fill", {Expr::leaf(k == 0 ? "-inf" : "inf")})));
    Val v = increment(c, depth, 64.0);
    updates.push_back(assign(name, chance(0.5) ? Expr::call(fn, {Expr::leaf(name), v.e})
                                               : Expr::call(fn, {v.e, Expr::leaf(name)})));
    if (k == 0 && chance(0.5))
      p_.after.push_back(
          store(output("1", "32") + "[0, 0]",
                {Expr::call("rowmax", {Expr::call("colmax", {Expr::leaf(name)})}), {}}));
    else
      p_.after.push_back(store(output("32", "32") + "[0, 0]", {Expr::leaf(name), {}}));
  }
  if (chance(0.4)) // an ordinary output stored while reducing
    updates.push_back(store(output("M", "N") + "[i, j]", increment(c, depth, 64.0)));
  if (nested) {
    Stmt loop{Stmt::Kind::loop, "j in tiles(N)", {}, {}};
    loop.body = std::move(updates);
    p_.body.push_back(std::move(loop));
  } else {
    p_.body = std::move(updates);
  }
}

// parallel i: the mean of each row, perhaps its variance, and the centred (normalised) row, on
// rows far from zero mean (x - mean cancels most of x).
void Gen::offset_kernel() {
  p_.shape = "offset";
  double off = data_offset();
  if (off == 0 && chance(0.5))
    off = 64;
  const Axis C = long_axis("N", 128);
  p_.dims["M"] = 32 * static_cast<std::int64_t>(C.max_tiles > 64 ? 1 : 1 + pick(2));
  p_.parallel = "i in tiles(M)";
  Expr x = Expr::leaf(offset_input("M", "N", off) + "[i, j]");
  if (chance(0.3)) // a residual added first
    x = Expr::binary("+", std::move(x),
                     Expr::leaf(offset_input("M", "N", chance(0.5) ? 0 : off) + "[i, j]"));
  const auto per_n = [] { return Expr::binary("/", Expr::leaf("1.0"), Expr::leaf("N")); };
  const auto centred = [&] {
    return Expr::binary("-", x, Expr::call("bcast_col", {Expr::leaf("mean")}));
  };
  p_.body.push_back(assign("s", Expr::call("zeros", {})));
  Stmt sums{Stmt::Kind::loop, "j in " + C.range, {}, {}};
  sums.body.push_back({Stmt::Kind::accumulate, "s", Expr::call("rowsum", {x}), {}});
  p_.body.push_back(std::move(sums));
  p_.body.push_back(assign("mean", Expr::binary("*", Expr::leaf("s"), per_n())));
  const bool variance = chance(0.7);
  if (variance) {
    p_.body.push_back(assign("v", Expr::call("zeros", {})));
    Stmt loop{Stmt::Kind::loop, "j in " + C.range, {}, {}};
    loop.body.push_back(assign("d", centred()));
    loop.body.push_back(
        {Stmt::Kind::accumulate,
         "v",
         Expr::call("rowsum", {chance(0.5) ? Expr::call("square", {Expr::leaf("d")})
                                           : Expr::binary("*", Expr::leaf("d"), Expr::leaf("d"))}),
         {}});
    p_.body.push_back(std::move(loop));
    p_.body.push_back(assign(
        "rstd", Expr::call("rsqrt", {Expr::binary("+", Expr::binary("*", Expr::leaf("v"), per_n()),
                                                  Expr::leaf("1e-5"))})));
  }
  Expr y = centred();
  if (variance)
    y = Expr::binary("*", std::move(y), Expr::call("bcast_col", {Expr::leaf("rstd")}));
  if (variance && chance(0.4)) { // gamma and beta
    const std::string g = input("1", "N"), b = input("1", "N");
    y = Expr::binary(
        "+", Expr::binary("*", std::move(y), Expr::call("bcast_row", {Expr::leaf(g + "[0, j]")})),
        Expr::call("bcast_row", {Expr::leaf(b + "[0, j]")}));
  }
  Stmt map{Stmt::Kind::loop, "j in " + C.range, {}, {}};
  map.body.push_back(store(output("M", "N") + "[i, j]", {std::move(y), {}}));
  p_.body.push_back(std::move(map));
  if (chance(0.5))
    p_.body.push_back(store(output("M", "1") + "[i, 0]", {Expr::leaf("mean"), {}}));
  if (variance && chance(0.3))
    p_.body.push_back(store(output("M", "1") + "[i, 0]", {Expr::leaf("rstd"), {}}));
}

} // namespace tk::difftest::gen

namespace tk::difftest::gen {

// parallel i, j: acc (+)= E(A[i, k]) @ E(B[k, j]) over a triangular k (0 .. i + 1, or 0 .. i:
// no trip at i = 0), or a plain sum of E(A[k, j]) down the rows up to i; then y[i, j] = E(acc).
// A is [M, M] (its columns index the same tiles as its rows, as a causal P @ V's scores do).
void Gen::triangular_kernel() {
  const Axis R = axis("M"), C = axis("N");
  const std::string bound = chance(0.7) ? "i + 1" : "i";
  Ctx out;
  out.scalars.clear();
  p_.parallel = "i in " + R.range + ", j in " + C.range;
  Val init = chance(0.6) ? Val{Expr::call("zeros", {}), {0, 0}} : constant_tile();
  p_.body.push_back(assign("acc", init.e));
  Stmt loop{Stmt::Kind::loop, "k in 0 .. " + bound, {}, {}};
  double m = init.iv.mag();
  if (chance(0.6)) {
    Ctx a, b;
    a.full.push_back(load(input(R.dim, R.dim) + "[i, k]"));
    b.full.push_back(load(input(R.dim, C.dim) + "[k, j]"));
    Val ea = scaled(full(a, 1), 2.0), eb = scaled(full(b, 1), 2.0);
    loop.body.push_back({Stmt::Kind::accumulate, "acc", Expr::binary("@", ea.e, eb.e), {}});
    m += R.max_tiles * 32 * ea.iv.mag() * eb.iv.mag();
  } else {
    Ctx a;
    a.full.push_back(load(input(R.dim, C.dim) + "[k, j]"));
    Val ea = scaled(full(a, 1), 2.0);
    loop.body.push_back({Stmt::Kind::accumulate, "acc", ea.e, {}});
    m += R.max_tiles * ea.iv.mag();
  }
  p_.body.push_back(std::move(loop));
  out.full.push_back(scaled({Expr::leaf("acc"), {-m, m}}, kMaxMag));
  p_.body.push_back(store(output(R.dim, C.dim) + "[i, j]", full(out, 1)));
}

} // namespace tk::difftest::gen
