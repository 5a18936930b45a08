// Semantic actions of the expression grammar: they build Expr nodes from what the rules matched
// (left-associative folds, postfix steps, literals). Included only by expr_grammar.cpp.
#pragma once

#include "jinja/expr_tokens.hpp"

#include <utility>
#include <vector>

namespace tk::jinja::expr_parser {

// ---- semantic actions ----------------------------------------------------------------------

struct Args {
  std::vector<ExprPtr> positional;
  KwArgs kw;
};

// One postfix step applied to the expression on its left.
struct Step {
  ExprKind kind = ExprKind::attr;
  std::uint32_t pos = 0;
  std::string name;
  bool negated = false;
  ExprPtr index;
  std::vector<ExprPtr> bounds; // slice: start, stop, step (null when left out)
  Args args;
};

inline ExprPtr apply(ExprPtr left, Step& s) {
  // A call is reported at its callee ("m" of m(1)), everything else at its own token.
  auto n = node(s.kind, s.kind == ExprKind::call ? left->pos : s.pos);
  n->operands.push_back(std::move(left));
  n->name = std::move(s.name);
  n->negated = s.negated;
  if (s.index)
    n->operands.push_back(s.index);
  for (auto& b : s.bounds)
    n->operands.push_back(b);
  for (auto& a : s.args.positional)
    n->operands.push_back(a);
  n->kwargs = std::move(s.args.kw);
  return n;
}

auto const assign = [](auto& ctx) { x3::_val(ctx) = x3::_attr(ctx); };

auto const apply_steps = [](auto& ctx) {
  ExprPtr e = at_c<0>(x3::_attr(ctx));
  for (auto& s : at_c<1>(x3::_attr(ctx)))
    e = apply(std::move(e), s);
  x3::_val(ctx) = e;
};

template <ExprKind K>
auto const fold_logic = [](auto& ctx) {
  ExprPtr e = at_c<0>(x3::_attr(ctx));
  for (auto& step : at_c<1>(x3::_attr(ctx))) {
    auto n = node(K, offset_of(ctx, at_c<0>(step)));
    n->operands = {e, at_c<1>(step)};
    e = n;
  }
  x3::_val(ctx) = e;
};

auto const fold_binary = [](auto& ctx) {
  ExprPtr e = at_c<0>(x3::_attr(ctx));
  for (auto& step : at_c<1>(x3::_attr(ctx))) {
    auto n = node(ExprKind::binary, offset_of(ctx, at_c<0>(step)));
    n->bin_op = at_c<1>(step);
    n->operands = {e, at_c<2>(step)};
    e = n;
  }
  x3::_val(ctx) = e;
};

auto const fold_pow = [](auto& ctx) {
  ExprPtr e = at_c<0>(x3::_attr(ctx));
  for (auto& step : at_c<1>(x3::_attr(ctx))) {
    auto n = node(ExprKind::binary, offset_of(ctx, at_c<0>(step)));
    n->bin_op = BinOp::pow;
    n->operands = {e, at_c<1>(step)};
    e = n;
  }
  x3::_val(ctx) = e;
};

auto const fold_compare = [](auto& ctx) {
  ExprPtr e = at_c<0>(x3::_attr(ctx));
  auto& steps = at_c<1>(x3::_attr(ctx));
  if (!steps.empty()) {
    auto n = node(ExprKind::compare, offset_of(ctx, at_c<0>(steps.front())));
    n->operands.push_back(e);
    for (auto& step : steps) {
      n->cmp_ops.push_back(at_c<1>(step));
      n->operands.push_back(at_c<2>(step));
    }
    e = n;
  }
  x3::_val(ctx) = e;
};

auto const fold_concat = [](auto& ctx) {
  ExprPtr e = at_c<0>(x3::_attr(ctx));
  auto& steps = at_c<1>(x3::_attr(ctx));
  if (!steps.empty()) {
    auto n = node(ExprKind::concat, offset_of(ctx, at_c<0>(steps.front())));
    n->operands.push_back(e);
    for (auto& step : steps)
      n->operands.push_back(at_c<1>(step));
    e = n;
  }
  x3::_val(ctx) = e;
};

auto const make_cond = [](auto& ctx) {
  auto& a = x3::_attr(ctx); // then, optional<(pos, cond, optional<else>)>
  ExprPtr e = at_c<0>(a);
  if (auto& tail = at_c<1>(a)) {
    auto n = node(ExprKind::cond, offset_of(ctx, at_c<0>(*tail)));
    n->operands = {e, at_c<1>(*tail)};
    if (at_c<2>(*tail))
      n->operands.push_back(*at_c<2>(*tail));
    e = n;
  }
  x3::_val(ctx) = e;
};

template <ExprKind K>
auto const make_unary = [](auto& ctx) {
  auto n = node(K, offset_of(ctx, at_c<0>(x3::_attr(ctx))));
  n->operands = {at_c<1>(x3::_attr(ctx))};
  x3::_val(ctx) = n;
};

auto const make_literal = [](auto& ctx) {
  auto n = node(ExprKind::literal, offset_of(ctx, at_c<0>(x3::_attr(ctx))));
  n->literal = at_c<1>(x3::_attr(ctx));
  x3::_val(ctx) = n;
};

auto const make_const = [](auto& ctx) {
  auto n = node(ExprKind::literal, offset_of(ctx, at_c<0>(x3::_attr(ctx))));
  int c = at_c<1>(x3::_attr(ctx));
  n->literal = c == 2 ? Value() : Value::boolean(c == 1);
  x3::_val(ctx) = n;
};

auto const make_string = [](auto& ctx) { // adjacent literals concatenate, as in Python
  auto n = node(ExprKind::literal, offset_of(ctx, at_c<0>(x3::_attr(ctx))));
  std::string s;
  for (auto& part : at_c<1>(x3::_attr(ctx)))
    s += part;
  n->literal = Value::string(std::move(s));
  x3::_val(ctx) = n;
};

auto const make_name = [](auto& ctx) {
  auto n = node(ExprKind::name, offset_of(ctx, at_c<0>(x3::_attr(ctx))));
  n->name = at_c<1>(x3::_attr(ctx));
  x3::_val(ctx) = n;
};

auto const make_list = [](auto& ctx) {
  auto n = node(ExprKind::list, offset_of(ctx, at_c<0>(x3::_attr(ctx))));
  if (auto& items = at_c<1>(x3::_attr(ctx)))
    n->operands = *items;
  x3::_val(ctx) = n;
};

auto const make_dict = [](auto& ctx) {
  auto n = node(ExprKind::dict, offset_of(ctx, at_c<0>(x3::_attr(ctx))));
  if (auto& items = at_c<1>(x3::_attr(ctx)))
    for (auto& kv : *items) {
      n->operands.push_back(at_c<0>(kv));
      n->operands.push_back(at_c<1>(kv));
    }
  x3::_val(ctx) = n;
};

auto const make_paren = [](auto& ctx) { // (a) is a; (), (a,) and (a, b) are tuples
  auto& a = x3::_attr(ctx);
  auto& items = at_c<1>(a);
  bool trailing_comma = static_cast<bool>(at_c<2>(a));
  if (items && items->size() == 1 && !trailing_comma) {
    x3::_val(ctx) = items->front();
    return;
  }
  auto n = node(ExprKind::tuple, offset_of(ctx, at_c<0>(a)));
  if (items)
    n->operands = *items;
  x3::_val(ctx) = n;
};

auto const push_kwarg = [](auto& ctx) {
  x3::_val(ctx).kw.emplace_back(at_c<0>(x3::_attr(ctx)), at_c<1>(x3::_attr(ctx)));
};
auto const push_arg = [](auto& ctx) { x3::_val(ctx).positional.push_back(x3::_attr(ctx)); };

template <ExprKind K, bool Negated = false>
auto const make_step = [](auto& ctx) { // (pos, name, optional<Args>)
  auto& a = x3::_attr(ctx);
  Step s;
  s.kind = K;
  s.pos = offset_of(ctx, at_c<0>(a));
  s.name = at_c<1>(a);
  s.negated = Negated;
  if (at_c<2>(a))
    s.args = std::move(*at_c<2>(a));
  x3::_val(ctx) = std::move(s);
};

auto const make_attr_step = [](auto& ctx) { // x.name, and x.0 meaning x[0]
  auto& a = x3::_attr(ctx);
  Step s;
  s.pos = offset_of(ctx, at_c<0>(a));
  s.kind = ExprKind::attr;
  s.name = at_c<1>(a);
  x3::_val(ctx) = std::move(s);
};
auto const make_index_attr_step = [](auto& ctx) {
  auto& a = x3::_attr(ctx);
  Step s;
  s.pos = offset_of(ctx, at_c<0>(a));
  s.kind = ExprKind::item;
  s.index = node(ExprKind::literal, s.pos);
  s.index->literal = at_c<1>(a);
  x3::_val(ctx) = std::move(s);
};
auto const make_item_step = [](auto& ctx) {
  Step s;
  s.pos = offset_of(ctx, at_c<0>(x3::_attr(ctx)));
  s.kind = ExprKind::item;
  s.index = at_c<1>(x3::_attr(ctx));
  x3::_val(ctx) = std::move(s);
};
auto const make_slice_step = [](auto& ctx) { // (pos, start?, stop?, optional<step?>)
  auto& a = x3::_attr(ctx);
  Step s;
  s.pos = offset_of(ctx, at_c<0>(a));
  s.kind = ExprKind::slice;
  s.bounds = {at_c<1>(a) ? *at_c<1>(a) : nullptr, at_c<2>(a) ? *at_c<2>(a) : nullptr,
              at_c<3>(a) ? *at_c<3>(a) : nullptr};
  x3::_val(ctx) = std::move(s);
};

// `x is divisibleby 3`: jinja2 takes one primary (with its postfix) as the test's argument.
auto const make_test_arg = [](auto& ctx) {
  ExprPtr e = at_c<0>(x3::_attr(ctx));
  for (auto& s : at_c<1>(x3::_attr(ctx)))
    e = apply(std::move(e), s);
  x3::_val(ctx).positional.push_back(e);
};

auto const make_call_step = [](auto& ctx) {
  Step s;
  s.pos = offset_of(ctx, at_c<0>(x3::_attr(ctx)));
  s.kind = ExprKind::call;
  s.args = std::move(at_c<1>(x3::_attr(ctx)));
  x3::_val(ctx) = std::move(s);
};

} // namespace tk::jinja::expr_parser
