// Construction of values, Python-compatible printing (str/repr, float repr), truth and equality.
#include "jinja/value.hpp"

#include "jinja/ast.hpp"

#include <nlohmann/json.hpp>

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

namespace tk::jinja {

namespace {
Value integer(std::int64_t i) {
  return Value::integer(i);
}
Value boolean(bool b) {
  return Value::boolean(b);
}
Value string(std::string s) {
  return Value::string(std::move(s));
}
} // namespace

Value Value::undefined(std::string message, const Template* t, std::uint32_t offset) {
  return boxed(Kind::undefined, Undefined{std::move(message), t, offset});
}
Value Value::boolean(bool b) {
  Value v;
  v.kind_ = Kind::boolean;
  v.num_.i = b ? 1 : 0;
  return v;
}
Value Value::integer(std::int64_t i) {
  Value v;
  v.kind_ = Kind::integer;
  v.num_.i = i;
  return v;
}
Value Value::floating(double d) {
  Value v;
  v.kind_ = Kind::floating;
  v.num_.d = d;
  return v;
}
Value Value::string(std::string s) {
  return boxed(Kind::string, std::move(s));
}
Value Value::list(List items, bool tuple) {
  Value v = boxed(Kind::list, std::move(items));
  v.tuple_ = tuple;
  return v;
}
Value Value::dict(Dict items) {
  return boxed(Kind::dict, std::move(items));
}
Value Value::macro(Macro m) {
  return boxed(Kind::macro, m);
}
Value Value::loop(LoopInfo info) {
  return boxed(Kind::loop, info);
}

Value Value::from_json(const nlohmann::json& j) {
  using T = nlohmann::json::value_t;
  switch (j.type()) {
  case T::null:
    return Value();
  case T::boolean:
    return boolean(j.get<bool>());
  case T::number_integer:
    return integer(j.get<std::int64_t>());
  case T::number_unsigned: {
    auto u = j.get<std::uint64_t>();
    // Python ints are unbounded; ours are 64-bit, so the top half of uint64 becomes a float.
    return u > static_cast<std::uint64_t>(INT64_MAX) ? floating(static_cast<double>(u))
                                                     : integer(static_cast<std::int64_t>(u));
  }
  case T::number_float:
    return floating(j.get<double>());
  case T::string:
    return string(j.get<std::string>());
  case T::array: {
    List items;
    items.reserve(j.size());
    for (const auto& e : j)
      items.push_back(from_json(e));
    return list(std::move(items));
  }
  case T::object: {
    Dict items;
    items.reserve(j.size());
    for (auto it = j.begin(); it != j.end(); ++it)
      items.emplace_back(it.key(), from_json(it.value()));
    return dict(std::move(items));
  }
  default:
    return Value(); // binary and discarded values do not occur in parsed JSON
  }
}

nlohmann::json Value::to_json() const {
  switch (kind_) {
  case Kind::none:
    return nullptr;
  case Kind::boolean:
    return as_bool();
  case Kind::integer:
    return as_int();
  case Kind::floating:
    return num_.d;
  case Kind::string:
    return as_string();
  case Kind::list: {
    nlohmann::json out = nlohmann::json::array();
    for (const Value& v : as_list())
      out.push_back(v.to_json());
    return out;
  }
  case Kind::dict: {
    nlohmann::json out = nlohmann::json::object();
    for (const auto& [k, v] : as_dict())
      out[k] = v.to_json();
    return out;
  }
  default:
    throw std::logic_error(std::string("a ") + type_name() + " value has no JSON form");
  }
}

const Value* Value::find(std::string_view key) const {
  if (kind_ != Kind::dict)
    return nullptr;
  for (const auto& [k, v] : as_dict())
    if (k == key)
      return &v;
  return nullptr;
}

const char* Value::type_name() const {
  switch (kind_) {
  case Kind::undefined:
    return "Undefined";
  case Kind::none:
    return "NoneType";
  case Kind::boolean:
    return "bool";
  case Kind::integer:
    return "int";
  case Kind::floating:
    return "float";
  case Kind::string:
    return "str";
  case Kind::list:
    return tuple_ ? "tuple" : "list";
  case Kind::dict:
    return "dict";
  case Kind::macro:
    return "Macro";
  case Kind::loop:
    return "LoopContext";
  }
  return "object";
}

std::string float_repr(double d) {
  if (std::isnan(d))
    return "nan";
  if (std::isinf(d))
    return d < 0 ? "-inf" : "inf";
  if (d == 0)
    return std::signbit(d) ? "-0.0" : "0.0";
  // Shortest round-trip digits, as Python's repr; then Python's layout: fixed notation while the
  // decimal exponent is in [-4, 16), scientific (at least two exponent digits) outside it.
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, d, std::chars_format::scientific);
  std::string sci(buf, res.ptr);
  std::string sign;
  if (sci[0] == '-') {
    sign = "-";
    sci.erase(0, 1);
  }
  auto epos = sci.find('e');
  int exp10 = std::atoi(sci.c_str() + epos + 1);
  std::string digits;
  for (std::size_t i = 0; i < epos; ++i)
    if (sci[i] != '.')
      digits += sci[i];
  int decpt = exp10 + 1; // position of the decimal point relative to the digits
  std::string out;
  if (decpt > -4 && decpt <= 16) {
    if (decpt <= 0) {
      out = "0." + std::string(static_cast<std::size_t>(-decpt), '0') + digits;
    } else if (static_cast<std::size_t>(decpt) >= digits.size()) {
      out = digits + std::string(static_cast<std::size_t>(decpt) - digits.size(), '0') + ".0";
    } else {
      out = digits.substr(0, static_cast<std::size_t>(decpt)) + "." +
            digits.substr(static_cast<std::size_t>(decpt));
    }
  } else {
    out = digits.substr(0, 1);
    if (digits.size() > 1)
      out += "." + digits.substr(1);
    char e[16];
    std::snprintf(e, sizeof e, "e%c%02d", exp10 < 0 ? '-' : '+', std::abs(exp10));
    out += e;
  }
  return sign + out;
}

namespace {

std::string string_repr(const std::string& s) {
  char quote = (s.find('\'') != std::string::npos && s.find('"') == std::string::npos) ? '"' : '\'';
  std::string out(1, quote);
  for (unsigned char c : s) {
    if (c == '\\' || c == static_cast<unsigned char>(quote)) {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c < 0x20 || c == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  out += quote;
  return out;
}

} // namespace

std::string to_repr(const Value& v) {
  switch (v.kind()) {
  case Value::Kind::string:
    return string_repr(v.as_string());
  case Value::Kind::list: {
    std::string out = v.is_tuple() ? "(" : "[";
    const auto& items = v.as_list();
    for (std::size_t i = 0; i < items.size(); ++i)
      out += (i ? ", " : "") + to_repr(items[i]);
    if (v.is_tuple() && items.size() == 1)
      out += ",";
    return out + (v.is_tuple() ? ")" : "]");
  }
  case Value::Kind::dict: {
    std::string out = "{";
    bool first = true;
    for (const auto& [k, e] : v.as_dict()) {
      out += (first ? "" : ", ") + string_repr(k) + ": " + to_repr(e);
      first = false;
    }
    return out + "}";
  }
  default:
    return to_str(v);
  }
}

std::string to_str(const Value& v) {
  switch (v.kind()) {
  case Value::Kind::undefined:
    return "";
  case Value::Kind::none:
    return "None";
  case Value::Kind::boolean:
    return v.as_bool() ? "True" : "False";
  case Value::Kind::integer:
    return std::to_string(v.as_int());
  case Value::Kind::floating:
    return float_repr(v.as_float());
  case Value::Kind::string:
    return v.as_string();
  case Value::Kind::list:
  case Value::Kind::dict:
    return to_repr(v);
  case Value::Kind::macro:
    return "<Macro '" + v.as_macro().def->name + "'>";
  case Value::Kind::loop:
    return "<LoopContext " + std::to_string(v.as_loop().index0 + 1) + "/" +
           std::to_string(v.as_loop().length) + ">";
  }
  return "";
}

bool truthy(const Value& v) {
  switch (v.kind()) {
  case Value::Kind::none:
  case Value::Kind::undefined:
    return false;
  case Value::Kind::boolean:
  case Value::Kind::integer:
    return v.as_int() != 0;
  case Value::Kind::floating:
    return v.as_float() != 0;
  case Value::Kind::string:
    return !v.as_string().empty();
  case Value::Kind::list:
    return !v.as_list().empty();
  case Value::Kind::dict:
    return !v.as_dict().empty();
  default:
    return true;
  }
}

bool equal(const Value& a, const Value& b) {
  using K = Value::Kind;
  if (a.is_number() && b.is_number()) {
    if (a.kind() == K::floating || b.kind() == K::floating)
      return a.as_float() == b.as_float();
    return a.as_int() == b.as_int();
  }
  if (a.kind() != b.kind())
    return false;
  switch (a.kind()) {
  case K::none:
    return true;
  case K::string:
    return a.as_string() == b.as_string();
  case K::list: {
    const auto &x = a.as_list(), &y = b.as_list();
    if (a.is_tuple() != b.is_tuple() || x.size() != y.size())
      return false;
    for (std::size_t i = 0; i < x.size(); ++i)
      if (!equal(x[i], y[i]))
        return false;
    return true;
  }
  case K::dict: {
    if (a.as_dict().size() != b.as_dict().size())
      return false;
    for (const auto& [k, e] : a.as_dict()) {
      const Value* o = b.find(k);
      if (!o || !equal(e, *o))
        return false;
    }
    return true;
  }
  case K::macro:
    return a.as_macro().def == b.as_macro().def;
  default:
    return false;
  }
}

std::string object_type_repr(const Value& v) {
  if (v.kind() == Value::Kind::none)
    return "None";
  return std::string(v.type_name()) + " object";
}

Value get_attr(const Value& obj, std::string_view name) {
  if (const Value* e = obj.find(name))
    return *e;
  if (obj.kind() == Value::Kind::loop) {
    const LoopInfo& l = obj.as_loop();
    if (name == "index")
      return integer(l.index0 + 1);
    if (name == "index0")
      return integer(l.index0);
    if (name == "revindex")
      return integer(l.length - l.index0);
    if (name == "revindex0")
      return integer(l.length - l.index0 - 1);
    if (name == "first")
      return boolean(l.index0 == 0);
    if (name == "last")
      return boolean(l.index0 + 1 == l.length);
    if (name == "length")
      return integer(l.length);
    if (name == "depth")
      return integer(l.depth0 + 1);
    if (name == "depth0")
      return integer(l.depth0);
  }
  return Value::undefined(
      "'" + object_type_repr(obj) + "' has no attribute '" + std::string(name) + "'", nullptr, 0);
}

Value get_item(const Value& obj, const Value& key) {
  bool int_key = key.kind() == Value::Kind::integer || key.kind() == Value::Kind::boolean;
  if (int_key && (obj.kind() == Value::Kind::list || obj.kind() == Value::Kind::string)) {
    std::int64_t i = key.as_int();
    if (obj.kind() == Value::Kind::list) {
      auto n = static_cast<std::int64_t>(obj.as_list().size());
      if (i < 0)
        i += n;
      if (i >= 0 && i < n)
        return obj.as_list()[static_cast<std::size_t>(i)];
    } else {
      auto chars = utf8_chars(obj.as_string());
      auto n = static_cast<std::int64_t>(chars.size());
      if (i < 0)
        i += n;
      if (i >= 0 && i < n)
        return string(chars[static_cast<std::size_t>(i)]);
    }
  }
  if (key.kind() == Value::Kind::string)
    return get_attr(obj, key.as_string());
  return Value::undefined("'" + object_type_repr(obj) + "' has no element " + to_repr(key), nullptr,
                          0);
}

std::size_t utf8_length(std::string_view s) {
  std::size_t n = 0;
  for (unsigned char c : s)
    n += (c & 0xC0) != 0x80;
  return n;
}

std::vector<std::string> utf8_chars(std::string_view s) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < s.size();) {
    std::size_t j = i + 1;
    while (j < s.size() && (static_cast<unsigned char>(s[j]) & 0xC0) == 0x80)
      ++j;
    out.emplace_back(s.substr(i, j - i));
    i = j;
  }
  return out;
}

} // namespace tk::jinja
