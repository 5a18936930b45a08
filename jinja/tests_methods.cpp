// jinja2's tests (`x is even`) and the methods templates call on values (d.items(),
// s.startswith('x'), loop.cycle(...)).
#include "jinja/filters.hpp"
#include "jinja/operators.hpp"
#include "jinja/string_util.hpp"

#include <algorithm>

namespace tk::jinja {

namespace {

using K = Value::Kind;

const char* const test_names[] = {
    "defined",  "undefined", "none",   "boolean", "true",        "false",
    "integer",  "float",     "number", "string",  "mapping",     "iterable",
    "sequence", "callable",  "even",   "odd",     "divisibleby", "eq",
    "equalto",  "==",        "ne",     "!=",      "lt",          "lessthan",
    "<",        "le",        "<=",     "gt",      "greaterthan", ">",
    "ge",       ">=",        "in",     "lower",   "upper",       "sameas"};

const Value& arg(std::string_view test, const CallArgs& a) {
  if (a.positional.size() != 1)
    throw OpError("test '" + std::string(test) + "' takes exactly one argument");
  return a.positional[0];
}

Value strings(const std::vector<std::string>& parts) {
  List out;
  for (const auto& s : parts)
    out.push_back(Value::string(s));
  return Value::list(std::move(out));
}

} // namespace

bool is_test(std::string_view name) {
  return std::find(std::begin(test_names), std::end(test_names), name) != std::end(test_names);
}

bool apply_test(std::string_view t, const Value& v, const CallArgs& a) {
  if (t == "defined")
    return !v.is_undefined();
  if (t == "undefined")
    return v.is_undefined();
  if (t == "none")
    return v.kind() == K::none;
  if (t == "boolean")
    return v.kind() == K::boolean;
  if (t == "true" || t == "false")
    return v.kind() == K::boolean && v.as_bool() == (t == "true");
  if (t == "integer")
    return v.kind() == K::integer;
  if (t == "float")
    return v.kind() == K::floating;
  if (t == "number")
    return v.is_number();
  if (t == "string")
    return v.kind() == K::string;
  if (t == "mapping")
    return v.kind() == K::dict;
  if (t == "iterable" || t == "sequence")
    return v.kind() == K::string || v.kind() == K::list || v.kind() == K::dict;
  if (t == "callable")
    return v.kind() == K::macro;
  if (t == "even" || t == "odd") {
    Value m = binary_op(BinOp::mod, v, Value::integer(2));
    return equal(m, Value::integer(t == "even" ? 0 : 1));
  }
  if (t == "divisibleby")
    return equal(binary_op(BinOp::mod, v, arg(t, a)), Value::integer(0));
  if (t == "eq" || t == "equalto" || t == "==")
    return compare_op(CmpOp::eq, v, arg(t, a));
  if (t == "ne" || t == "!=")
    return compare_op(CmpOp::ne, v, arg(t, a));
  if (t == "lt" || t == "lessthan" || t == "<")
    return compare_op(CmpOp::lt, v, arg(t, a));
  if (t == "le" || t == "<=")
    return compare_op(CmpOp::le, v, arg(t, a));
  if (t == "gt" || t == "greaterthan" || t == ">")
    return compare_op(CmpOp::gt, v, arg(t, a));
  if (t == "ge" || t == ">=")
    return compare_op(CmpOp::ge, v, arg(t, a));
  if (t == "in")
    return compare_op(CmpOp::in, v, arg(t, a));
  if (t == "sameas") { // Python's `is`: meaningful for none, true and false
    const Value& o = arg(t, a);
    if (v.kind() != o.kind())
      return false;
    if (v.kind() == K::none)
      return true;
    if (v.kind() == K::boolean)
      return v.as_bool() == o.as_bool();
    // CPython caches the ints -5..256, so `is` holds for equal ones; other objects are distinct.
    return v.kind() == K::integer && v.as_int() == o.as_int() && v.as_int() >= -5 &&
           v.as_int() <= 256;
  }
  if (t == "lower" || t == "upper") {
    std::string s = to_str(v);
    return s == (t == "lower" ? ascii_lower(s) : ascii_upper(s));
  }
  throw OpError("no test named '" + std::string(t) + "'");
}

std::optional<Value> call_method(const Value& obj, std::string_view m, const CallArgs& a) {
  auto nargs = a.positional.size();
  auto need = [&](std::size_t lo, std::size_t hi) {
    if (nargs < lo || nargs > hi || !a.keyword.empty())
      throw OpError(std::string(obj.type_name()) + "." + std::string(m) +
                    "() got the wrong number of arguments");
  };
  auto str_arg = [&](std::size_t i) {
    if (a.positional[i].kind() != K::string)
      throw OpError(std::string("must be str, not ") + a.positional[i].type_name());
    return a.positional[i].as_string();
  };
  if (obj.kind() == K::dict) {
    if (m == "items" || m == "keys" || m == "values") {
      need(0, 0);
      List out;
      for (const auto& [k, v] : obj.as_dict()) {
        if (m == "items")
          out.push_back(Value::list({Value::string(k), v}, true));
        else
          out.push_back(m == "keys" ? Value::string(k) : v);
      }
      return Value::list(std::move(out));
    }
    if (m == "get") {
      need(1, 2);
      const Value* e =
          a.positional[0].kind() == K::string ? obj.find(a.positional[0].as_string()) : nullptr;
      return e ? *e : (nargs == 2 ? a.positional[1] : Value());
    }
  }
  if (obj.kind() == K::string) {
    const std::string& s = obj.as_string();
    if (m == "upper" || m == "lower") {
      need(0, 0);
      return Value::string(m == "upper" ? ascii_upper(s) : ascii_lower(s));
    }
    if (m == "strip" || m == "lstrip" || m == "rstrip") {
      need(0, 1);
      if (nargs == 1)
        return Value::string(strip(s, str_arg(0)));
      return Value::string(m == "strip" ? strip(s) : m == "lstrip" ? lstrip(s) : rstrip(s));
    }
    if (m == "startswith" || m == "endswith") {
      need(1, 1);
      std::string x = str_arg(0);
      return Value::boolean(m == "startswith" ? s.starts_with(x) : s.ends_with(x));
    }
    if (m == "replace") {
      need(2, 3);
      return Value::string(
          replace_all(s, str_arg(0), str_arg(1), nargs == 3 ? a.positional[2].as_int() : -1));
    }
    if (m == "split") {
      need(0, 1);
      if (nargs == 1 && a.positional[0].kind() != K::none) {
        if (str_arg(0).empty())
          throw OpError("empty separator");
        return strings(split(s, str_arg(0)));
      }
      return strings(split(s));
    }
    if (m == "join") {
      need(1, 1);
      std::string out;
      const Value& items = a.positional[0];
      if (items.kind() != K::list)
        throw OpError("can only join a list here");
      for (std::size_t i = 0; i < items.as_list().size(); ++i) {
        const Value& e = items.as_list()[i];
        if (e.kind() != K::string)
          throw OpError("sequence item " + std::to_string(i) + ": expected str instance, " +
                        e.type_name() + " found");
        out += (i ? s : "") + e.as_string();
      }
      return Value::string(std::move(out));
    }
  }
  if (obj.kind() == K::loop && m == "cycle") {
    if (nargs == 0)
      throw OpError("no items for cycling given");
    return a.positional[static_cast<std::size_t>(obj.as_loop().index0) % nargs];
  }
  return std::nullopt;
}

} // namespace tk::jinja
