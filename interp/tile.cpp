// The builtins of the language on interpreter tiles (tile.hpp), written as the definitions in
// docs/language.md: plain double arithmetic, NaN propagating through every operation.
#include "interp/tile.hpp"

#include "support/diagnostics.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

namespace tk::interp {
namespace {

using dsl::BinOp;
using dsl::Builtin;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// std::max/std::min drop a NaN in one of their arguments; the language propagates it.
double max_nan(double a, double b) {
  return std::isnan(a) || std::isnan(b) ? kNaN : (a < b ? b : a);
}
double min_nan(double a, double b) {
  return std::isnan(a) || std::isnan(b) ? kNaN : (b < a ? b : a);
}

[[noreturn]] void not_an(const char* what, Builtin f) {
  throw InternalError("interp: '" + std::string(dsl::to_string(f)) + "' is not " + what);
}

} // namespace

double unary(Builtin f, double x) {
  switch (f) {
  case Builtin::exp:
    return std::exp(x);
  case Builtin::log:
    return std::log(x);
  case Builtin::sqrt:
    return std::sqrt(x);
  case Builtin::rsqrt:
    return 1.0 / std::sqrt(x);
  case Builtin::recip:
    return 1.0 / x;
  case Builtin::relu:
    return max_nan(x, 0.0);
  case Builtin::gelu:
    return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0)));
  case Builtin::sigmoid:
    return 1.0 / (1.0 + std::exp(-x));
  case Builtin::tanh:
    return std::tanh(x);
  case Builtin::abs:
    return std::abs(x);
  case Builtin::neg:
    return -x;
  case Builtin::square:
    return x * x;
  case Builtin::silu:
    return x / (1.0 + std::exp(-x));
  case Builtin::erf:
    return std::erf(x);
  case Builtin::hardsigmoid:
    return std::isnan(x) ? x : std::clamp(x / 6.0 + 0.5, 0.0, 1.0);
  case Builtin::exp2:
    return std::exp2(x);
  case Builtin::log1p:
    return std::log1p(x);
  case Builtin::sin:
    return std::sin(x);
  case Builtin::cos:
    return std::cos(x);
  case Builtin::sign: // the SFPU's: a NaN gives -1 or 1 by its sign bit (docs/language.md)
    return x == 0 ? 0.0 : (std::signbit(x) ? -1.0 : 1.0);
  case Builtin::floor:
    return std::floor(x);
  case Builtin::softplus: // log(1 + exp(x)), and x itself from the threshold 20 on
    return x < 20 ? std::max(x, 0.0) + std::log1p(std::exp(-std::abs(x))) : x;
  default:
    not_an("a unary element-wise function", f);
  }
}

double binary(BinOp op, double a, double b) {
  switch (op) {
  case BinOp::add:
    return a + b;
  case BinOp::sub:
    return a - b;
  case BinOp::mul:
    return a * b;
  case BinOp::div:
    return a / b;
  case BinOp::lt:
    return a < b ? 1.0 : 0.0;
  case BinOp::le:
    return a <= b ? 1.0 : 0.0;
  case BinOp::gt:
    return a > b ? 1.0 : 0.0;
  case BinOp::ge:
    return a >= b ? 1.0 : 0.0;
  case BinOp::eq:
    return a == b ? 1.0 : 0.0;
  case BinOp::ne:
    return a != b ? 1.0 : 0.0;
  case BinOp::matmul:
    break;
  }
  throw InternalError("interp: '@' is not an element-wise operation");
}

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

/// The bound of a result whose exact value is `v` after the target rounds it (relative `u`),
/// given the bound `e` it had before: e + u * |computed| + tiny. Infinite once anything is.
double rounded(double v, double e, double u, const Precision& p) {
  const double r = e + u * (std::abs(v) + e) + (u > 0 ? p.tiny : 0.0);
  return std::isfinite(v) && std::isfinite(r) ? r : kInf;
}

/// v rounded to bf16 (8 significant bits, to nearest even), as a double.
double to_bf16(double v) {
  int ex = 0;
  const double m = std::frexp(v, &ex); // v = m 2^ex, 0.5 <= |m| < 1
  return std::ldexp(std::nearbyint(std::ldexp(m, 8)), ex - 8);
}

/// Whether element i of `t` may reach the FPU exactly from a CB: a load of bf16 data, or a named
/// value whose element bf16 holds.
bool src_exact(const Tile& t, std::size_t i) {
  return t.kept == Kept::exact || (t.kept == Kept::carried && to_bf16(t[i]) == t[i]);
}

/// The bound of an operand read with relative error `rel` (TT: an f32 tile through the unpacker).
double read_rel(double v, double e, double rel) {
  return rel == 0 || (std::isinf(v) && e == 0) ? e : e + rel * (std::abs(v) + e);
}
double read(const Tile& t, std::size_t i, const Precision& p, bool fpu) {
  return operand(t, i, p, fpu);
}
double read(const Tile& t, int r, int c, const Precision& p, bool fpu) {
  return operand(t, static_cast<std::size_t>(r * kTile + c), p, fpu);
}

/// How far f(x~) can be from f(x) for |x~ - x| <= e: the interval's end points for the monotone
/// functions (infinite when it leaves their domain; sign and floor are monotone steps, so a step
/// inside the interval is its whole height), a Lipschitz constant for the others.
double propagate(Builtin f, double x, double e) {
  if (e == 0)
    return 0;
  if (std::isnan(x)) // sign gives +-1 by a NaN's sign bit, which a computed NaN does not fix
    return kInf;
  switch (f) {
  case Builtin::abs:
  case Builtin::neg:
  case Builtin::relu:
    return e;
  case Builtin::square:
    return 2 * std::abs(x) * e + e * e;
  case Builtin::gelu: // max |gelu'| = 1.1289 (at x = 2.43)
    return 1.13 * e;
  case Builtin::silu: // max |silu'| = 1.0998 (at x = 2.40)
    return 1.1 * e;
  case Builtin::hardsigmoid:
    return e / 6;
  case Builtin::softplus: // 0 < softplus' < 1, and a step down of log1p(exp(-20)) at 20
    return e + (x - e < 20 && x + e >= 20 ? std::log1p(std::exp(-20.0)) : 0.0);
  case Builtin::sin: // |sin'| <= 1, and two values of sin are at most 2 apart
  case Builtin::cos:
    return std::min(e, 2.0);
  default: {
    const double fx = unary(f, x), lo = unary(f, x - e), hi = unary(f, x + e);
    // recip and rsqrt are monotone only on one side of their pole.
    const bool pole = (f == Builtin::recip || f == Builtin::rsqrt) && x - e <= 0 && x + e >= 0;
    if (pole || !std::isfinite(lo) || !std::isfinite(hi))
      return kInf;
    return std::max(std::abs(lo - fx), std::abs(hi - fx));
  }
  }
}

} // namespace

Tile apply(Builtin f, const Tile& a, const Precision& p) {
  Tile out;
  for (std::size_t i = 0; i < Tile::size(); ++i) {
    out[i] = unary(f, a[i]);
    // At an infinite argument the functions take their limits (exp(-inf) = 0): no argument term.
    const double arg_term = std::isinf(a[i]) ? 0.0 : p.fn_arg * std::abs(a[i]);
    double e = propagate(f, a[i], read(a, i, p, false)) + p.fn * std::abs(out[i]) + arg_term;
    if (!p.fp32_names && (f == Builtin::exp || f == Builtin::sigmoid || f == Builtin::silu))
      e += (p.exp21f + (f == Builtin::exp ? 0.0 : p.exp21f_recip)) * std::abs(out[i]); // exp_21f
    out.err(i) = rounded(out[i], e, p.op, p);
  }
  return out;
}

Tile elu(const Tile& a, Scalar alpha, const Precision& p) {
  Tile out;
  const double s = alpha.v, es = alpha.err;
  for (std::size_t i = 0; i < Tile::size(); ++i) {
    const double x = a[i], ex = read(a, i, p, false);
    const double em1 = x < 0 ? std::expm1(x) : 0.0; // e^x - 1 below 0, in (-1, 0)
    out[i] = x < 0 ? s * em1 : x;
    // The argument's error through the slope (1 from 0 on, alpha * e^x <= |alpha| below), and
    // alpha's own error on the negative side. Then the function's error: relative, per unit of
    // |x|, and, below 0, the absolute error of e^x - 1 computed in float (the SFPU's exp then
    // minus 1; near 0 the difference cancels), per unit of |alpha|.
    const double slope = x - ex < 0 ? std::max(1.0, std::abs(s)) : 1.0;
    const double arg_term = std::isinf(x) ? 0.0 : p.fn_arg * std::abs(x);
    double e = slope * ex + p.fn * std::abs(out[i]) + arg_term;
    if (x - ex < 0)
      e += es * (std::abs(em1) + ex) + p.fn * std::abs(s);
    if (x <
        0) // TT's e^x is exp_21f's at either DST width, before the - 1 (no cancellation saves it)
      e += p.exp21f * std::abs(s) * (em1 + 1.0);
    if (std::isnan(x) || std::isnan(ex))
      e = kInf;
    out.err(i) = rounded(out[i], e, p.op, p);
  }
  return out;
}

Tile apply(Builtin f, const Tile& a, const Tile& b, const Precision& p) {
  if (f != Builtin::max && f != Builtin::min)
    not_an("max or min", f);
  Tile out;
  for (std::size_t i = 0; i < Tile::size(); ++i) {
    out[i] = f == Builtin::max ? max_nan(a[i], b[i]) : min_nan(a[i], b[i]);
    out.err(i) = rounded(out[i], std::max(read(a, i, p, false), read(b, i, p, false)), p.op, p);
  }
  return out;
}

Tile apply(BinOp op, const Tile& a, const Tile& b, const Precision& p) {
  Tile out;
  if (op == BinOp::matmul) {
    // out(r, c) = sum over k of a(r, k) * b(k, c), k in increasing order. The bound: the
    // operands' errors through the products, each product's fidelity error, and the rounding of
    // the 32 partial sums in any order (32 * acc * sum |a * b|).
    std::vector<double> mass(Tile::size(), 0.0);
    for (int r = 0; r < kTile; ++r)
      for (int k = 0; k < kTile; ++k) {
        const double ark = a(r, k), ea = read(a, r, k, p, true);
        for (int c = 0; c < kTile; ++c) {
          const double bkc = b(k, c), eb = read(b, k, c, p, true);
          out(r, c) += ark * bkc;
          out.err(r, c) += std::abs(ark) * eb + std::abs(bkc) * ea + ea * eb;
          mass[static_cast<std::size_t>(r * kTile + c)] +=
              (std::abs(ark) + ea) * (std::abs(bkc) + eb);
        }
      }
    for (std::size_t i = 0; i < Tile::size(); ++i)
      out.err(i) = rounded(out[i], out.err(i) + (p.product + kTile * p.acc) * mass[i], p.op, p);
    return out;
  }
  const bool fpu = !p.sfpu_arith; // else on the SFPU, in fp32, with no fidelity loss
  for (std::size_t i = 0; i < Tile::size(); ++i) {
    out[i] = binary(op, a[i], b[i]);
    const double ea = read(a, i, p, fpu), eb = read(b, i, p, fpu);
    // In a bf16 kernel with an fp32 DST, two operands bf16 holds may stay on the FPU (loads,
    // variables such as a row maximum): read exactly either way, but at the kernel's fidelity.
    const bool product = fpu || (p.fpu_inter > 0 && src_exact(a, i) && src_exact(b, i));
    if (dsl::is_comparison(op)) { // exact, unless the operands' errors could reorder them
      out.err(i) = ea + eb > 0 && std::abs(a[i] - b[i]) <= ea + eb ? 1.0 : 0.0;
      continue;
    }
    const double e = op == BinOp::mul ? std::abs(a[i]) * eb + std::abs(b[i]) * ea + ea * eb +
                                            (product ? p.product : 0.0) * (std::abs(a[i]) + ea) *
                                                (std::abs(b[i]) + eb)
                                      : ea + eb;
    out.err(i) = rounded(out[i], e, p.op, p);
  }
  out.terms = op == BinOp::add || op == BinOp::sub;
  return out;
}

Scalar apply(BinOp op, Scalar a, Scalar b, const Precision& p) {
  Scalar out{binary(op, a.v, b.v), 0};
  switch (op) {
  case BinOp::add:
  case BinOp::sub:
    out.err = a.err + b.err;
    break;
  case BinOp::mul:
    out.err = std::abs(a.v) * b.err + std::abs(b.v) * a.err + a.err * b.err;
    break;
  case BinOp::div: // first order, while the divisor's interval excludes 0
    out.err =
        std::abs(b.v) > b.err ? (a.err + std::abs(out.v) * b.err) / (std::abs(b.v) - b.err) : kInf;
    break;
  case BinOp::matmul:
    throw InternalError("interp: '@' of two scalars");
  default: // the checker rejects a comparison of two scalars
    throw InternalError("interp: a comparison of two scalars");
  }
  out.err += p.scalar * std::abs(out.v);
  return out;
}

Tile apply(BinOp op, const Tile& a, Scalar s, bool scalar_left, const Precision& p) {
  if (dsl::is_comparison(op)) { // against the constant tile of s, as the targets compute it
    const Tile t = constant(s.v, p, s.err);
    return scalar_left ? apply(op, t, a, p) : apply(op, a, t, p);
  }
  if (op == BinOp::div) {
    if (scalar_left) // s / a = s * recip(a)
      return apply(BinOp::mul, apply(Builtin::recip, a, p), s, false, p);
    return apply(BinOp::mul, a, apply(BinOp::div, Scalar{1.0, 0}, s, p), false, p);
  }
  Tile out;
  for (std::size_t i = 0; i < Tile::size(); ++i) {
    out[i] = scalar_left ? binary(op, s.v, a[i]) : binary(op, a[i], s.v);
    const double ea = read(a, i, p, false);
    const double e =
        op == BinOp::mul ? std::abs(s.v) * ea + std::abs(a[i]) * s.err + ea * s.err : ea + s.err;
    out.err(i) = rounded(out[i], e, p.op, p);
  }
  return out;
}

namespace {
/// An operand of a reduction: a sum of a sum or difference, or of a named fp32 value, split into
/// hi + lo reads it to 2^-16 (Precision::split_sum); otherwise the FPU reads it.
double sum_read(const Tile& a, int r, int c, const Precision& p, bool sum) {
  if (sum && p.split_sum > 0 && ((a.kept == Kept::value && a.terms) || a.kept == Kept::carried))
    return read_rel(a(r, c), a.err(r, c), p.split_sum);
  return read(a, r, c, p, true);
}
} // namespace

Tile reduce(Builtin f, const Tile& a, const Precision& p) {
  const bool rows = f == Builtin::rowsum || f == Builtin::rowmax;
  const bool sum = f == Builtin::rowsum || f == Builtin::colsum;
  if (!rows && f != Builtin::colsum && f != Builtin::colmax)
    not_an("a reduction", f);
  Tile out; // zero outside the row or column that holds the result
  for (int i = 0; i < kTile; ++i) {
    double acc = sum ? 0.0 : -std::numeric_limits<double>::infinity();
    double err = 0, mass = 0; // sum: the operands' errors and the rounding of 32 partial sums
    for (int j = 0; j < kTile; ++j) {
      const double x = rows ? a(i, j) : a(j, i);
      const double e = sum_read(a, rows ? i : j, rows ? j : i, p, sum);
      acc = sum ? acc + x : max_nan(acc, x);
      err = sum ? err + e : std::max(err, e);
      mass += std::abs(x) + e;
    }
    (rows ? out(i, 0) : out(0, i)) = acc;
    (rows ? out.err(i, 0) : out.err(0, i)) =
        rounded(acc, err + (sum ? kTile * p.acc * mass : 0.0), p.op, p);
  }
  return out;
}

Tile broadcast(Builtin f, const Tile& a, const Precision& p) {
  if (f != Builtin::bcast_row && f != Builtin::bcast_col)
    not_an("a broadcast", f);
  Tile out;
  for (int r = 0; r < kTile; ++r)
    for (int c = 0; c < kTile; ++c) {
      const int sr = f == Builtin::bcast_row ? 0 : r, sc = f == Builtin::bcast_row ? c : 0;
      out(r, c) = a(sr, sc);
      out.err(r, c) = rounded(out(r, c), read(a, sr, sc, p, !p.sfpu_arith), p.op, p);
    }
  return out;
}

Tile where(const Tile& m, const Tile& a, const Tile& b, const Precision& p) {
  Tile out;
  for (std::size_t i = 0; i < Tile::size(); ++i) {
    const bool pick_a = m[i] != 0.0;
    out[i] = pick_a ? a[i] : b[i];
    // Both sides reach DST as operands do (TT: an f32 tile the FPU also reads is TF32 there).
    const double ea = read(a, i, p, false), eb = read(b, i, p, false);
    // An uncertain mask (a comparison near its tie) may pick either side.
    out.err(i) = m.err(i) >= 0.5 ? std::abs(a[i] - b[i]) + std::max(ea, eb) : (pick_a ? ea : eb);
  }
  return out;
}

Tile transpose(const Tile& a, const Precision& p) {
  Tile out;
  for (int r = 0; r < kTile; ++r)
    for (int c = 0; c < kTile; ++c) {
      out(r, c) = a(c, r);
      out.err(r, c) = rounded(out(r, c), read(a, c, r, p, true), p.op, p);
    }
  return out;
}

Tile position(dsl::Builtin f, std::int64_t i, std::int64_t j) {
  Tile out;
  for (int r = 0; r < kTile; ++r)
    for (int c = 0; c < kTile; ++c) {
      const std::int64_t row = i * kTile + r, col = j * kTile + c;
      out(r, c) = (f == dsl::Builtin::tril ? row >= col : row <= col) ? 1.0 : 0.0;
    }
  return out;
}

Tile constant(double value, const Precision& p, double err) {
  Tile out(value);
  const double e = std::isinf(value) ? 0.0 : rounded(value, err, p.op, p); // inf stays inf
  for (std::size_t i = 0; i < Tile::size(); ++i)
    out.err(i) = e;
  return out;
}

double operand(const Tile& t, std::size_t i, const Precision& p, bool fpu) {
  double rel = p.operand;
  switch (t.kept) {
  case Kept::value: // a value in DST or a dest-only CB reaches the SFPU whole; the FPU reads a
                    // computed one through an intermediate CB (fpu_inter)
    rel = fpu ? std::max(p.operand, p.fpu_inter) : p.sfpu_arith ? 0.0 : p.operand;
    break;
  case Kept::through_src:
    break;
  case Kept::exact: // the carried sum in its own combine: already in DST
    rel = 0;
    break;
  case Kept::carried: // a dest-only Float32 CB: exact through copy_tile, a copy for the FPU
    rel = fpu ? std::max(p.operand, p.named_operand) : 0.0;
    break;
  }
  return read_rel(t[i], t.err(i), rel);
}

} // namespace tk::interp
