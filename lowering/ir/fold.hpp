// `x op y` on host values known at compile time: one definition of the IR's binary operators for
// the evaluators that fold host expressions (ttgen report's estimate, price-q-chunk).
#pragma once

#include "lowering/ir/nodes.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <type_traits>

namespace tk::ir {

/// `x op y` for an integer or a real `T`: nullopt for a division or remainder by zero. `/` is
/// `T`'s (an integer's toward zero), `%` an integer's remainder or a real's `fmod`; comparisons
/// and logical operators give 0 or 1.
template <class T>
std::optional<T> fold_binary(BinaryOp op, T x, T y) {
  switch (op) {
  case BinaryOp::add:
    return x + y;
  case BinaryOp::sub:
    return x - y;
  case BinaryOp::mul:
    return x * y;
  case BinaryOp::div:
    if (y == 0)
      return std::nullopt;
    return x / y;
  case BinaryOp::mod:
    if (y == 0)
      return std::nullopt;
    if constexpr (std::is_integral_v<T>)
      return x % y;
    else
      return std::fmod(x, y);
  case BinaryOp::min:
    return std::min(x, y);
  case BinaryOp::max:
    return std::max(x, y);
  case BinaryOp::lt:
    return x < y;
  case BinaryOp::le:
    return x <= y;
  case BinaryOp::gt:
    return x > y;
  case BinaryOp::ge:
    return x >= y;
  case BinaryOp::eq:
    return x == y;
  case BinaryOp::ne:
    return x != y;
  case BinaryOp::logical_and:
    return x != 0 && y != 0;
  case BinaryOp::logical_or:
    return x != 0 || y != 0;
  }
  return std::nullopt;
}

/// An integer expression of literals and the names in `env`, folded; nullopt when it names
/// anything else (the occupancy walks' loop counts: a count the host's rule bounds, at its bound).
template <class Env>
std::optional<std::int64_t> fold_int(const Expr& e, const Env& env) {
  if (const IntImm* i = as<IntImm>(e))
    return i->value;
  if (const Var* v = as<Var>(e)) {
    auto it = env.find(v->name);
    if (it == env.end())
      return std::nullopt;
    return it->second;
  }
  if (const Binary* b = as<Binary>(e)) {
    const std::optional<std::int64_t> x = fold_int(b->a, env), y = fold_int(b->b, env);
    if (!x || !y)
      return std::nullopt;
    return fold_binary(b->op, *x, *y);
  }
  return std::nullopt;
}

} // namespace tk::ir
