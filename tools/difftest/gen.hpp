// The random kernel generator's state and its expression builders (generate.hpp,
// docs/difftest.md): generate_classic.cpp builds the classic kernel shapes with them,
// generate_sums.cpp the kinds that look where sums drift (long carried sums, whole-tensor
// reductions, data far from zero mean), generate_rows.cpp rows of tiles and grouped indices.
// Internal to tools/difftest.
//
// Each expression carries an interval that holds all its values. The element-wise functions are
// not special-cased: the interval of f over [lo, hi] is sampled through the reference
// interpreter's own definition (interp::unary); where f is not finite on it (log, sqrt, rsqrt,
// recip near or below 0) the operand becomes abs(E) + 0.5, and where it grows too large (exp,
// square) the operand is scaled by a power of two first. So a new unary op in the op table is
// generated, guarded and tested without a change here (log1p, below -1 undefined, gets
// abs(E) + 0.5 like log). elu(E, alpha), the one builtin with a scalar parameter, is generated
// here with a positive scalar leaf for alpha.
#pragma once

#include "tools/difftest/generate.hpp"

#include "arch/arch.hpp"
#include "dsl/ast.hpp"
#include "interp/tile.hpp"
#include "ops/ops.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <random>

namespace tk::difftest::gen {

/// An interval holding every value of an expression.
struct Iv {
  double lo = 0, hi = 0;
  double mag() const { return std::max(std::abs(lo), std::abs(hi)); }
};
inline Iv hull(Iv a, Iv b) {
  return {std::min(a.lo, b.lo), std::max(a.hi, b.hi)};
}

/// Values stay below this magnitude; larger ones are scaled down by a power of two.
constexpr double kMaxMag = 64;

struct Val {
  Expr e;
  Iv iv;
};

/// What an expression can read where it is generated: full tiles of one shape (loads and
/// names), column and row vectors, the scalars, and a square tile that may multiply from the
/// right (`w[j, j]`) or none.
struct Ctx {
  std::vector<Val> full, col, row;
  std::vector<std::string> scalars;
  std::optional<Val> square;
  bool ij = false; // the full tiles are tile (i, j) of their tensors: tril(i, j) fits them
};

inline std::string number(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  std::string s = buf;
  if (s.find_first_of(".en") == std::string::npos)
    s += ".0";
  return s;
}

class Gen {
public:
  explicit Gen(std::uint64_t seed) : rng_(seed), format_rng_(seed ^ 0xb8f8b8f8b8f8b8f8ull) {}
  /// A generator for the kinds after the classic shapes, on streams of their own (`salt`).
  Gen(std::uint64_t seed, std::uint64_t salt)
      : rng_(seed ^ salt), format_rng_(seed ^ salt ^ 0xb8f8b8f8b8f8b8f8ull), sums_(true) {}

  /// A kernel of one of the kinds that look where sums drift (generate_sums.cpp).
  Program run_kind(std::uint64_t seed, Kind kind);

  Program run(std::uint64_t seed) {
    p_.name = "k" + std::to_string(seed);
    p_.input_seed = seed;
    options();
    static const char* shapes[] = {"map", "row", "matmul", "col"};
    p_.shape = shapes[pick(4)];
    if (p_.shape == "map")
      map_kernel();
    else if (p_.shape == "row")
      row_kernel();
    else if (p_.shape == "matmul")
      matmul_kernel();
    else
      col_kernel();
    return std::move(p_);
  }

private:
  // ---- randomness -------------------------------------------------------------------------------
  std::size_t pick(std::size_t n) { return static_cast<std::size_t>(rng_() % n); }
  bool chance(double p) { return static_cast<double>(rng_() >> 11) * 0x1.0p-53 < p; }
  template <class T>
  const T& one_of(const std::vector<T>& v) {
    return v[pick(v.size())];
  }

  /// A small constant, exact in bf16.
  double constant() {
    static const double values[] = {0.5, -0.5, 1.0, -1.0, 0.25, 2.0, -1.5, 0.125, 3.0, -0.75};
    return values[pick(std::size(values))];
  }

  // ---- signature --------------------------------------------------------------------------------
  /// "grid = XxY", each side random within the default architecture's grid (the one the
  /// generated programs run on).
  std::string random_grid() {
    const arch::ArchSpec& a = arch::default_arch();
    return "grid = " + std::to_string(1 + pick(a.grid_x)) + "x" +
           std::to_string(1 + pick(a.grid_y));
  }
  void options() {
    static const char* fidelities[] = {"LoFi", "HiFi2", "HiFi3", "HiFi4"};
    if (chance(0.3))
      p_.options.push_back(random_grid());
    if (chance(0.25))
      p_.options.push_back("cb_depth = " + std::to_string(1 + pick(4)));
    if (chance(0.2))
      p_.options.push_back(std::string("fp32_acc = ") + (chance(0.5) ? "true" : "false"));
    if (chance(0.25))
      p_.options.push_back(std::string("math_fidelity = ") + fidelities[pick(4)]);
    const double d = static_cast<double>(rng_() >> 11) * 0x1.0p-53;
    dtype_mode_ = d < 0.75 ? 0 : d < 0.95 ? 1 : 2; // all bf16, all f32, mixed
  }

  /// A tensor's dtype: bf16 or f32 by the kernel's mode, and in a kernel that is not all f32
  /// sometimes bfp8 instead (an input 15% of the time, an output 10%). bfp8 is drawn from its own
  /// generator, so that a seed's kernel is otherwise what it was before bfp8 was added.
  std::string dtype(bool output) {
    std::string d = dtype_mode_ == 0   ? "bf16"
                    : dtype_mode_ == 1 ? "f32"
                                       : (chance(0.5) ? "bf16" : "f32");
    const double u = static_cast<double>(format_rng_() >> 11) * 0x1.0p-53;
    if (dtype_mode_ != 1 && u < (output ? 0.10 : sums_ ? 0.25 : 0.15))
      d = "bfp8";
    return d;
  }

  /// A dimension: the name `name` (its size chosen for the run) or a literal multiple of 32.
  struct Axis {
    std::string dim;   // "M" or "64"
    std::string range; // "tiles(M)" or "0 .. 2"
    int max_tiles = 4;
  };
  Axis axis(const std::string& name) {
    if (chance(0.7)) {
      p_.dims[name] = 32 * static_cast<std::int64_t>(1 + pick(4));
      return {name, "tiles(" + name + ")", 4};
    }
    const int t = 1 + static_cast<int>(pick(3));
    return {std::to_string(32 * t), "0 .. " + std::to_string(t), t};
  }

  std::string input(const std::string& rows, const std::string& cols) {
    const std::string name = "x" + std::to_string(p_.inputs.size());
    p_.inputs.push_back({name, dtype(false), rows, cols});
    return name;
  }
  std::string output(const std::string& rows, const std::string& cols) {
    const std::string name = "y" + std::to_string(p_.outputs.size());
    p_.outputs.push_back({name, dtype(true), rows, cols});
    return name;
  }
  /// Rank-3 tensors: a batch of matrices.
  std::string input(const std::string& batch, const std::string& rows, const std::string& cols) {
    const std::string name = input(rows, cols);
    p_.inputs.back().batch = batch;
    return name;
  }
  std::string output(const std::string& batch, const std::string& rows, const std::string& cols) {
    const std::string name = output(rows, cols);
    p_.outputs.back().batch = batch;
    return name;
  }
  void scalars(Ctx& c) {
    static const double values[] = {0.5, -1.25, 2.0, 0.75, -0.5, 1.5};
    for (std::size_t n = pick(3); n > 0; --n) {
      const std::string name = n == 1 ? "alpha" : "beta";
      p_.scalars.insert(p_.scalars.begin(), name);
      p_.scalar_values[name] = values[pick(std::size(values))];
      c.scalars.push_back(name);
    }
  }
  static Val load(const std::string& access) {
    return {Expr::leaf(access), {kInputMin, kInputMax}};
  }

  // ---- expressions ------------------------------------------------------------------------------
  /// `v` scaled by a power of two so that its magnitude is at most `limit`.
  static Val scaled(Val v, double limit) {
    if (v.iv.mag() <= limit)
      return v;
    const int k = static_cast<int>(std::ceil(std::log2(v.iv.mag() / limit)));
    const double s = std::ldexp(1.0, -k);
    return {Expr::binary("*", std::move(v.e), Expr::leaf(number(s))), {v.iv.lo * s, v.iv.hi * s}};
  }

  /// The interval of builtin f over [lo, hi] (sampled, with a margin), or nothing where f is not
  /// finite there or leaves kMaxMag.
  static std::optional<Iv> image(dsl::Builtin f, Iv x) {
    Iv out{INFINITY, -INFINITY};
    constexpr int kSamples = 256;
    for (int s = 0; s <= kSamples; ++s) {
      const double v = interp::unary(f, x.lo + (x.hi - x.lo) * s / kSamples);
      if (!std::isfinite(v))
        return std::nullopt;
      out = hull(out, {v, v});
    }
    const double margin = 0.01 * (out.hi - out.lo) + 1e-3;
    out = {out.lo - margin, out.hi + margin};
    if (out.mag() > kMaxMag)
      return std::nullopt;
    return out;
  }

  /// f(v) with v guarded into f's domain, or nothing if no guard helps.
  static std::optional<Val> unary(const std::string& f, Val v) {
    const dsl::Builtin b = dsl::builtin_from_string(f);
    for (int attempt = 0; attempt < 3; ++attempt) {
      // The values a target computes may be a little off v's interval: widen it.
      const double w = 0.01 * v.iv.mag() + 1e-3;
      if (auto iv = image(b, {v.iv.lo - w, v.iv.hi + w}))
        return Val{Expr::call(f, {std::move(v.e)}), *iv};
      if (attempt == 0 && !image(b, {-4, 4}) && image(b, {0.5, 4})) // a pole or a domain edge
        v = {Expr::binary("+", Expr::call("abs", {std::move(v.e)}), Expr::leaf("0.5")),
             {0.5, v.iv.mag() + 0.5}};
      else // growing too fast: exp, square
        v = scaled(std::move(v), attempt == 0 ? 4.0 : 1.0);
    }
    return std::nullopt;
  }

  Val full(const Ctx& c, int depth) {
    if (depth <= 0 || chance(0.2))
      return full_leaf(c);
    switch (pick(12)) {
    case 10: { // a mask (1.0 where a comparison holds, or tril/triu), or where() choosing by one
      Expr m;
      if (c.ij && chance(0.3)) {
        m = position_mask();
      } else {
        static const char* cmp[] = {"<", "<=", ">", ">=", "==", "!="};
        Val a = full(c, depth - 1), b = chance(0.5) ? full(c, depth - 1) : constant_tile();
        m = Expr::binary(cmp[pick(6)], std::move(a.e), std::move(b.e));
      }
      if (chance(0.4))
        return {std::move(m), {0, 1}};
      Val x = full(c, depth - 1), y = full(c, depth - 1);
      return {Expr::call("where", {std::move(m), std::move(x.e), std::move(y.e)}),
              hull(x.iv, y.iv)};
    }
    case 9: { // a transposed tile transposed back: TT transposes a computed tile from a CB
      Val v = full(c, depth - 1);
      return {Expr::call("transpose", {Expr::call("transpose", {std::move(v.e)})}), v.iv};
    }
    case 0:
    case 1:
    case 2: { // an element-wise function: a unary one of the op table, or elu(E, alpha)
      const std::size_t k = pick(unary_ops().size() + 1);
      if (k == unary_ops().size())
        return elu(c, full(c, depth - 1));
      const std::string& f = unary_ops()[k];
      if (auto v = unary(f, full(c, depth - 1)))
        return *v;
      return full_leaf(c);
    }
    case 3:
    case 4:
      return arith(full(c, depth - 1), full(c, depth - 1));
    case 5:
      return with_scalar(c, full(c, depth - 1));
    case 6: {
      Val a = full(c, depth - 1), b = full(c, depth - 1);
      const bool mx = chance(0.5);
      return {Expr::call(mx ? "max" : "min", {std::move(a.e), std::move(b.e)}),
              {mx ? std::max(a.iv.lo, b.iv.lo) : std::min(a.iv.lo, b.iv.lo),
               mx ? std::max(a.iv.hi, b.iv.hi) : std::min(a.iv.hi, b.iv.hi)}};
    }
    case 7: {
      Val v = col(c, depth - 1);
      return {Expr::call("bcast_col", {std::move(v.e)}), v.iv};
    }
    case 8: {
      Val v = row(c, depth - 1);
      return {Expr::call("bcast_row", {std::move(v.e)}), v.iv};
    }
    default: { // a product with a constant tile or the square tile
      Val a = scaled(full(c, depth - 1), 2.0);
      Val b = c.square && chance(0.6) ? *c.square : constant_tile();
      if (chance(0.3)) // A @ transpose(B): on TT the unpacker transposes B
        b.e = Expr::call("transpose", {std::move(b.e)});
      const double m = 32 * a.iv.mag() * b.iv.mag();
      return scaled({Expr::binary("@", std::move(a.e), std::move(b.e)), {-m, m}}, kMaxMag);
    }
    }
  }

  /// tril or triu of tile (i, j), an index sometimes offset by 1 or a literal 0.
  Expr position_mask() {
    static const char* rows[] = {"i", "i", "i + 1", "i - 1", "0"};
    static const char* cols[] = {"j", "j", "j + 1", "j - 1", "0"};
    const char* f = chance(0.5) ? "tril" : "triu";
    const char* r = rows[pick(5)];
    return Expr::call(f, {Expr::leaf(r), Expr::leaf(cols[pick(5)])});
  }

  Val full_leaf(const Ctx& c) {
    const std::size_t n = c.full.size();
    const std::size_t k = pick(n + 3);
    if (k < n)
      return c.full[k];
    if (k == n && !c.col.empty()) {
      const Val& v = one_of(c.col);
      return {Expr::call("bcast_col", {v.e}), v.iv};
    }
    if (k == n + 1 && !c.row.empty()) {
      const Val& v = one_of(c.row);
      return {Expr::call("bcast_row", {v.e}), v.iv};
    }
    return n ? c.full[pick(n)] : constant_tile();
  }

  Val constant_tile() {
    if (chance(0.15))
      return {Expr::call("zeros", {}), {0, 0}};
    const double v = constant();
    return {Expr::call("fill", {Expr::leaf(number(v))}), {v, v}};
  }

  Val arith(Val a, Val b) {
    static const char* ops[] = {"+", "-", "*"};
    const std::string op = ops[pick(3)];
    Iv iv;
    if (op == "+")
      iv = {a.iv.lo + b.iv.lo, a.iv.hi + b.iv.hi};
    else if (op == "-")
      iv = {a.iv.lo - b.iv.hi, a.iv.hi - b.iv.lo};
    else {
      const double p[] = {a.iv.lo * b.iv.lo, a.iv.lo * b.iv.hi, a.iv.hi * b.iv.lo,
                          a.iv.hi * b.iv.hi};
      iv = {*std::min_element(p, p + 4), *std::max_element(p, p + 4)};
    }
    return scaled({Expr::binary(op, std::move(a.e), std::move(b.e)), iv}, kMaxMag);
  }

  /// elu(v, alpha) with alpha a positive scalar leaf (the SDK's elu_tile documents alpha > 0):
  /// monotone, alpha * (e^lo - 1) .. hi.
  Val elu(const Ctx& c, Val v) {
    Val a = scalar_leaf(c);
    if (a.iv.lo <= 0)
      a = {Expr::leaf(number(-a.iv.lo)), {-a.iv.lo, -a.iv.lo}};
    const double s = a.iv.lo;
    const auto f = [s](double x) { return x < 0 ? s * std::expm1(x) : x; };
    return {Expr::call("elu", {std::move(v.e), std::move(a.e)}), {f(v.iv.lo), f(v.iv.hi)}};
  }

  /// A scalar parameter or a literal.
  Val scalar_leaf(const Ctx& c) {
    if (!c.scalars.empty() && chance(0.6)) {
      const std::string& s = one_of(c.scalars);
      const double sv = p_.scalar_values.at(s);
      return {Expr::leaf(s), {sv, sv}};
    }
    const double sv = constant();
    return {Expr::leaf(number(sv)), {sv, sv}};
  }

  /// A scalar, never 0: a leaf, or a scalar expression computed on the host: a product of two
  /// leaves, the reciprocal of a size (1.0 / M) or a size over a literal (M / 64.0).
  Val scalar(const Ctx& c) {
    const double d = static_cast<double>(rng_() >> 11) * 0x1.0p-53;
    if (d < 0.6 || (d >= 0.8 && p_.dims.empty()))
      return scalar_leaf(c);
    if (d < 0.8) {
      Val a = scalar_leaf(c), b = scalar_leaf(c);
      const double v = a.iv.lo * b.iv.lo;
      return {Expr::binary("*", std::move(a.e), std::move(b.e)), {v, v}};
    }
    auto dim = p_.dims.begin();
    std::advance(dim, static_cast<std::ptrdiff_t>(pick(p_.dims.size())));
    const double size = static_cast<double>(dim->second);
    if (chance(0.5))
      return {Expr::binary("/", Expr::leaf("1.0"), Expr::leaf(dim->first)), {1 / size, 1 / size}};
    return {Expr::binary("/", Expr::leaf(dim->first), Expr::leaf("64.0")), {size / 64, size / 64}};
  }

  /// v op s or s op v with a scalar (+ - *), v / s, or s / v with v kept away from 0.
  Val with_scalar(const Ctx& c, Val v) {
    const Val sc = scalar(c);
    const double s = sc.iv.lo;
    switch (pick(6)) {
    case 0: { // v / s = v * (1 / s)
      const Iv iv{std::min(v.iv.lo / s, v.iv.hi / s), std::max(v.iv.lo / s, v.iv.hi / s)};
      return scaled({Expr::binary("/", std::move(v.e), sc.e), iv}, kMaxMag);
    }
    case 1: { // s / (abs(v) + 0.5) = s * recip(...)
      const double hi = v.iv.mag() + 0.5;
      Expr den = Expr::binary("+", Expr::call("abs", {std::move(v.e)}), Expr::leaf("0.5"));
      const Iv iv{std::min(s / 0.5, s / hi), std::max(s / 0.5, s / hi)};
      return scaled({Expr::binary("/", sc.e, std::move(den)), iv}, kMaxMag);
    }
    default:
      return chance(0.5) ? arith(std::move(v), sc) : arith(sc, std::move(v));
    }
  }

  /// A column vector (`column`: its values in column 0) or a row vector (row 0), zeros or what
  /// f(0) gives elsewhere: a vector input or carried value, a reduction of a full tile, or a
  /// function or scalar operation of a vector.
  Val vec(const Ctx& c, int depth, bool column) {
    const std::vector<Val>& have = column ? c.col : c.row;
    const std::string dir = column ? "row" : "col"; // rowsum makes a column vector
    if (depth <= 0 || (!have.empty() && chance(0.3)))
      return have.empty() ? reduce(c, dir, 0) : one_of(have);
    switch (pick(4)) {
    case 0:
    case 1:
      return reduce(c, dir, depth - 1);
    case 2:
      if (auto v = unary(one_of(unary_ops()), vec(c, depth - 1, column)))
        return *v;
      return reduce(c, dir, depth - 1);
    default:
      return with_scalar(c, vec(c, depth - 1, column));
    }
  }
  Val col(const Ctx& c, int depth) { return vec(c, depth, true); }
  Val row(const Ctx& c, int depth) { return vec(c, depth, false); }

  /// rowsum / rowmax (dir "row") or colsum / colmax (dir "col") of a full tile.
  Val reduce(const Ctx& c, const std::string& dir, int depth) {
    Val v = full(c, depth);
    const bool sum = chance(0.5);
    const Iv iv = sum ? Iv{std::min(32 * v.iv.lo, 0.0), std::max(32 * v.iv.hi, 0.0)}
                      : Iv{std::min(v.iv.lo, 0.0), std::max(v.iv.hi, 0.0)};
    return scaled({Expr::call(dir + (sum ? "sum" : "max"), {std::move(v.e)}), iv}, kMaxMag);
  }

  static const std::vector<std::string>& unary_ops() {
    static const std::vector<std::string> names = [] {
      std::vector<std::string> v;
      for (ops::Op op : ops::all_ops())
        if (ops::info(op).kind == ops::Kind::unary && ops::info(op).surface == ops::Surface::call)
          v.emplace_back(ops::info(op).name);
      return v;
    }();
    return names;
  }

  /// Expression depth: 1 to 3 mostly, sometimes 4 or 5 (more values live in DST at once).
  int depth() { return 1 + static_cast<int>(pick(chance(0.2) ? 5 : 3)); }

  // ---- the classic kernels (generate_classic.cpp)
  // ------------------------------------------------
  /// Optional vector and scalar inputs of a kernel over rows R and columns C.
  void extras(Ctx& c, const Axis& R, const Axis& C, const std::string& i, const std::string& j);
  static Stmt store(const std::string& access, Val v);
  static Stmt assign(const std::string& name, Expr e);
  /// The upper bound of a range: "0 .. 2" -> "2"; "tiles(N)" stays.
  static std::string upper(const std::string& range);
  void map_kernel();    // parallel i, j: y[i, j] = E, temporaries, a carried literal loop
  void row_kernel();    // parallel i: carried row reductions over j, then a map over j
  void matmul_kernel(); // parallel i, j: acc (+)= E(A[i, k]) @ E(B[k, j]) over k, then a map
  void col_kernel();    // parallel j: column reductions over i, then a map over i

  // ---- the kinds of generate_sums.cpp
  // ------------------------------------------------------------
  void sums_options();
  std::string offset_input(const std::string& rows, const std::string& cols, double offset);
  double data_offset();
  Axis long_axis(const std::string& name, int max_tiles);
  Val increment(const Ctx& c, int depth, double limit);
  void sum_kernel();
  void reduction_kernel();
  void offset_kernel();
  void triangular_kernel();
  void rows_kernel();    // generate_rows.cpp
  void grouped_kernel(); // generate_rows.cpp

  std::mt19937_64 rng_;
  std::mt19937_64 format_rng_; // only for bfp8 (dtype)
  Program p_;
  int dtype_mode_ = 0;
  bool sums_ = false; // a kind of generate_sums.cpp: bfp8 inputs more often
};

} // namespace tk::difftest::gen
