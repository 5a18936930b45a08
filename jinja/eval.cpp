// Expression evaluation: jinja2's semantics on Values, with located errors.
#include "jinja/error.hpp"
#include "jinja/operators.hpp"
#include "jinja/render_state.hpp"

#include <algorithm>
#include <iterator>
#include <string_view>

namespace tk::jinja {

namespace {

// Every `obj.name` asks this: string_views, so a name of another length costs no comparison.
bool is_dict_method(std::string_view n) {
  static constexpr std::string_view kMethods[] = {"clear",      "copy",   "fromkeys", "get",
                                                  "items",      "keys",   "pop",      "popitem",
                                                  "setdefault", "update", "values"};
  return std::find(std::begin(kMethods), std::end(kMethods), n) != std::end(kMethods);
}

} // namespace

Value Renderer::eval_node(const Expr& e, Scope& scope) {
  try {
    switch (e.kind) {
    case ExprKind::literal:
      return e.literal;
    case ExprKind::name:
      if (const Value* v = scope.lookup(e.name)) {
        if (v->is_undefined() && !v->as_undefined().tmpl) // hidden, see Renderer::include
          return Value::undefined(v->as_undefined().message, tmpl_, e.pos);
        return *v;
      }
      return Value::undefined("'" + e.name + "' is undefined", tmpl_, e.pos);
    case ExprKind::list:
    case ExprKind::tuple: {
      List items;
      for (const auto& op : e.operands)
        items.push_back(need(eval(*op, scope)));
      return Value::list(std::move(items), e.kind == ExprKind::tuple);
    }
    case ExprKind::dict: {
      Dict items;
      for (std::size_t i = 0; i + 1 < e.operands.size(); i += 2) {
        Value k = need(eval(*e.operands[i], scope));
        if (k.kind() != Value::Kind::string)
          error(e.operands[i]->pos, "dict keys must be strings in TileKit templates");
        Value v = need(eval(*e.operands[i + 1], scope));
        auto it = std::find_if(items.begin(), items.end(),
                               [&](const auto& kv) { return kv.first == k.as_string(); });
        if (it != items.end())
          it->second = std::move(v);
        else
          items.emplace_back(k.as_string(), std::move(v));
      }
      return Value::dict(std::move(items));
    }
    case ExprKind::attr: {
      Value obj = need(eval(*e.operands[0], scope));
      // jinja2 looks up Python attributes before keys: `d.items` is the dict method even when
      // d has a key "items". Refuse instead of silently rendering something else.
      if (obj.kind() == Value::Kind::dict && is_dict_method(e.name))
        error(e.pos, "'" + e.name + "' is a dict method in jinja2; write ['" + e.name +
                         "'] to read the key");
      return locate(get_attr(obj, e.name), e.pos);
    }
    case ExprKind::item: {
      Value obj = need(eval(*e.operands[0], scope));
      return locate(get_item(obj, need(eval(*e.operands[1], scope))), e.pos);
    }
    case ExprKind::slice:
      return slice(e, scope);
    case ExprKind::call:
      return call(e, scope);
    case ExprKind::filter: {
      Value subject = eval(*e.operands[0], scope);
      if (e.name != "default" && e.name != "d")
        need(subject);
      return locate(apply_filter(e.name, subject, arguments(e, scope)), e.pos);
    }
    case ExprKind::test: {
      Value subject = eval(*e.operands[0], scope);
      bool r;
      if (e.name == "defined" || e.name == "undefined")
        r = subject.is_undefined() == (e.name == "undefined");
      else
        r = apply_test(e.name, need(subject), arguments(e, scope));
      return Value::boolean(r != e.negated);
    }
    case ExprKind::neg:
      return negate(need(eval(*e.operands[0], scope)));
    case ExprKind::pos:
      return unary_plus(need(eval(*e.operands[0], scope)));
    case ExprKind::binary: {
      Value a = need(eval(*e.operands[0], scope));
      return binary_op(e.bin_op, a, need(eval(*e.operands[1], scope)));
    }
    case ExprKind::compare:
      return eval_compare(e, scope);
    case ExprKind::concat: {
      std::string out;
      for (const auto& op : e.operands)
        out += to_str(need(eval(*op, scope)));
      return Value::string(std::move(out));
    }
    case ExprKind::cond:
      if (truthy(need(eval(*e.operands[1], scope))))
        return eval(*e.operands[0], scope);
      if (e.operands.size() == 3)
        return eval(*e.operands[2], scope);
      // jinja2 yields its lenient Undefined here even under StrictUndefined: it prints as "".
      return Value::string("");
    case ExprKind::and_op: {
      Value a = eval(*e.operands[0], scope);
      return truthy(need(a)) ? eval(*e.operands[1], scope) : a;
    }
    case ExprKind::or_op: {
      Value a = eval(*e.operands[0], scope);
      return truthy(need(a)) ? a : eval(*e.operands[1], scope);
    }
    case ExprKind::not_op:
      return Value::boolean(!truthy(need(eval(*e.operands[0], scope))));
    }
  } catch (const OpError& err) {
    error(e.pos, err.what());
  }
  error(e.pos, "internal error: unknown expression kind");
}

// Python's obj[start:stop:step] on lists, tuples and strings.
Value Renderer::slice(const Expr& e, Scope& scope) {
  Value obj = need(eval(*e.operands[0], scope));
  std::int64_t b[3] = {0, 0, 1};
  bool given[3] = {false, false, false};
  for (int i = 0; i < 3; ++i) {
    if (!e.operands[static_cast<std::size_t>(i) + 1])
      continue;
    Value v = need(eval(*e.operands[static_cast<std::size_t>(i) + 1], scope));
    if (v.kind() == Value::Kind::none)
      continue;
    if (v.kind() != Value::Kind::integer && v.kind() != Value::Kind::boolean)
      error(e.pos, "slice indices must be integers or None");
    b[i] = v.as_int();
    given[i] = true;
  }
  if (b[2] == 0)
    error(e.pos, "slice step cannot be zero");
  List items;
  bool is_string = obj.kind() == Value::Kind::string;
  if (is_string) {
    for (auto& c : utf8_chars(obj.as_string()))
      items.push_back(Value::string(std::move(c)));
  } else if (obj.kind() == Value::Kind::list) {
    items = obj.as_list();
  } else {
    error(e.pos, std::string("'") + obj.type_name() + "' object is not subscriptable");
  }
  auto n = static_cast<std::int64_t>(items.size());
  std::int64_t step = b[2];
  auto adjust = [&](std::int64_t i) { // CPython's PySlice_AdjustIndices
    if (i < 0)
      i += n;
    if (i < 0)
      return step < 0 ? std::int64_t{-1} : std::int64_t{0};
    if (i >= n)
      return step < 0 ? n - 1 : n;
    return i;
  };
  std::int64_t start = given[0] ? adjust(b[0]) : (step < 0 ? n - 1 : 0);
  std::int64_t stop = given[1] ? adjust(b[1]) : (step < 0 ? -1 : n);
  List out;
  for (std::int64_t i = start; step > 0 ? i < stop : i > stop; i += step)
    out.push_back(items[static_cast<std::size_t>(i)]);
  if (!is_string)
    return Value::list(std::move(out), obj.is_tuple());
  std::string s;
  for (const auto& c : out)
    s += c.as_string();
  return Value::string(std::move(s));
}

// a < b < c means a < b and b < c, each operand evaluated once, stopping at the first false.
Value Renderer::eval_compare(const Expr& e, Scope& scope) {
  Value left = need(eval(*e.operands[0], scope));
  for (std::size_t i = 0; i < e.cmp_ops.size(); ++i) {
    Value right = need(eval(*e.operands[i + 1], scope));
    if (!compare_op(e.cmp_ops[i], left, right))
      return Value::boolean(false);
    left = std::move(right);
  }
  return Value::boolean(true);
}

} // namespace tk::jinja
