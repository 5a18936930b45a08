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
  case BinOp::matmul:
    break;
  }
  throw InternalError("interp: '@' is not an element-wise operation");
}

Tile apply(Builtin f, const Tile& a) {
  Tile out;
  for (std::size_t i = 0; i < Tile::size(); ++i)
    out[i] = unary(f, a[i]);
  return out;
}

Tile apply(Builtin f, const Tile& a, const Tile& b) {
  if (f != Builtin::max && f != Builtin::min)
    not_an("max or min", f);
  Tile out;
  for (std::size_t i = 0; i < Tile::size(); ++i)
    out[i] = f == Builtin::max ? max_nan(a[i], b[i]) : min_nan(a[i], b[i]);
  return out;
}

Tile apply(BinOp op, const Tile& a, const Tile& b) {
  Tile out;
  if (op == BinOp::matmul) {
    // out(r, c) = sum over k of a(r, k) * b(k, c), k in increasing order.
    for (int r = 0; r < kTile; ++r)
      for (int k = 0; k < kTile; ++k) {
        const double ark = a(r, k);
        for (int c = 0; c < kTile; ++c)
          out(r, c) += ark * b(k, c);
      }
    return out;
  }
  for (std::size_t i = 0; i < Tile::size(); ++i)
    out[i] = binary(op, a[i], b[i]);
  return out;
}

Tile apply(BinOp op, const Tile& a, double s, bool scalar_left) {
  Tile out;
  for (std::size_t i = 0; i < Tile::size(); ++i)
    out[i] = scalar_left ? binary(op, s, a[i]) : binary(op, a[i], s);
  return out;
}

Tile reduce(Builtin f, const Tile& a) {
  const bool rows = f == Builtin::rowsum || f == Builtin::rowmax;
  const bool sum = f == Builtin::rowsum || f == Builtin::colsum;
  if (!rows && f != Builtin::colsum && f != Builtin::colmax)
    not_an("a reduction", f);
  Tile out; // zero outside the row or column that holds the result
  for (int i = 0; i < kTile; ++i) {
    double acc = sum ? 0.0 : -std::numeric_limits<double>::infinity();
    for (int j = 0; j < kTile; ++j) {
      const double x = rows ? a(i, j) : a(j, i);
      acc = sum ? acc + x : max_nan(acc, x);
    }
    (rows ? out(i, 0) : out(0, i)) = acc;
  }
  return out;
}

Tile broadcast(Builtin f, const Tile& a) {
  if (f != Builtin::bcast_row && f != Builtin::bcast_col)
    not_an("a broadcast", f);
  Tile out;
  for (int r = 0; r < kTile; ++r)
    for (int c = 0; c < kTile; ++c)
      out(r, c) = f == Builtin::bcast_row ? a(0, c) : a(r, 0);
  return out;
}

} // namespace tk::interp
