// jinja2 3.1's built-in filters, for the subset TileKit supports. Each follows the Python
// source's behaviour (argument names, str() conversion of the subject, empty-sequence results).
#include "jinja/filters.hpp"

#include "jinja/filter_detail.hpp"

#include "jinja/operators.hpp"
#include "jinja/percent_format.hpp"
#include "jinja/string_util.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <initializer_list>

namespace tk::jinja {

namespace {

using namespace filter_detail;

Value do_indent(const Value& s, const Params& p) {
  if (s.kind() != K::string)
    throw OpError(std::string("unsupported operand type(s) for +=: '") + s.type_name() +
                  "' and 'str'");
  Value width = p.get_or(0, Value::integer(4));
  std::size_t spaces = 0;
  if (width.kind() != K::string) {
    spaces = static_cast<std::size_t>(std::clamp<std::int64_t>(
        width.as_int(), 0, static_cast<std::int64_t>(max_result_size) + 1));
    check_result_size(spaces);
  }
  std::string indention = width.kind() == K::string ? width.as_string() : std::string(spaces, ' ');
  auto lines = split_lines(s.as_string() + "\n");
  // Every line may get the indention: bound the result before building it.
  std::size_t total = 0;
  if (__builtin_mul_overflow(indention.size(), lines.size() + 1, &total))
    total = max_result_size + 1;
  check_result_size(total + s.as_string().size());
  std::string rv;
  if (p.flag(2)) { // blank: indent every line, empty ones too
    for (std::size_t i = 0; i < lines.size(); ++i)
      rv += (i ? "\n" + indention : "") + lines[i];
  } else {
    rv = lines.front();
    for (std::size_t i = 1; i < lines.size(); ++i)
      rv += "\n" + (lines[i].empty() ? "" : indention + lines[i]);
  }
  return Value::string(p.flag(1) ? indention + rv : rv);
}

Value do_int(const Value& v, const Params& p) {
  Value fallback = p.get_or(0, Value::integer(0));
  if (v.kind() == K::integer || v.kind() == K::boolean)
    return Value::integer(v.as_int());
  if (v.kind() == K::floating) {
    return Value::integer(float_to_int(v.as_float()));
  }
  if (v.kind() == K::string) {
    std::string s = strip(v.as_string());
    s.erase(std::remove(s.begin(), s.end(), '_'), s.end());
    char* end = nullptr;
    errno = 0;
    long long i = std::strtoll(s.c_str(), &end, 10);
    if (!s.empty() && end == s.c_str() + s.size() && errno == 0)
      return Value::integer(i);
    double d = std::strtod(s.c_str(), &end);
    if (!s.empty() && end == s.c_str() + s.size() && std::isfinite(d))
      return Value::integer(float_to_int(d));
  }
  return fallback;
}

Value do_float(const Value& v, const Params& p) {
  Value fallback = p.get_or(0, Value::floating(0.0));
  if (v.is_number())
    return Value::floating(v.as_float());
  if (v.kind() == K::string) {
    std::string s = strip(v.as_string());
    char* end = nullptr;
    double d = std::strtod(s.c_str(), &end);
    if (!s.empty() && end == s.c_str() + s.size())
      return Value::floating(d);
  }
  return fallback;
}

const char* const filter_names[] = {
    "abs",    "capitalize", "count",  "d",          "default", "first",   "float",  "format",
    "indent", "int",        "join",   "last",       "length",  "list",    "lower",  "map",
    "max",    "min",        "reject", "rejectattr", "replace", "reverse", "select", "selectattr",
    "sort",   "string",     "sum",    "trim",       "unique",  "upper"};

} // namespace

bool is_filter(std::string_view name) {
  return std::find(std::begin(filter_names), std::end(filter_names), name) !=
         std::end(filter_names);
}

Value apply_filter(std::string_view name, const Value& v, const CallArgs& a) {
  if (name == "default" || name == "d") {
    Params p(name, a, {"default_value", "boolean"});
    bool use = v.is_undefined() || (p.flag(1) && !truthy(v));
    return use ? p.get_or(0, Value::string("")) : v;
  }
  if (name == "indent")
    return do_indent(v, Params(name, a, {"width", "first", "blank"}));
  if (name == "int")
    return do_int(v, Params(name, a, {"default", "base"}));
  if (name == "float")
    return do_float(v, Params(name, a, {"default"}));
  if (name == "sort")
    return do_sort(v, Params(name, a, {"reverse", "case_sensitive", "attribute"}));
  if (name == "map")
    return do_map(v, a);
  if (name == "min" || name == "max")
    return do_min_max(name, v, Params(name, a, {"case_sensitive", "attribute"}));
  if (name == "unique")
    return do_unique(v, Params(name, a, {"case_sensitive", "attribute"}));
  if (name == "format") {
    if (!a.keyword.empty())
      throw OpError("filter 'format' with keyword arguments is not supported");
    return Value::string(percent_format(to_str(v), a.positional));
  }
  if (name == "select" || name == "reject" || name == "selectattr" || name == "rejectattr")
    return do_select(name, v, a);
  if (name == "join") {
    Params p(name, a, {"d", "attribute"});
    std::string sep = to_str(p.get_or(0, Value::string(""))), attr = attribute_arg(p.get(1)), out;
    bool first = true;
    for (const auto& x : iterate(v)) {
      out += (first ? "" : sep) + to_str(attr.empty() ? x : attr_path(x, attr));
      first = false;
    }
    return Value::string(std::move(out));
  }
  if (name == "replace") {
    Params p(name, a, {"old", "new", "count"});
    if (!p.get(0) || !p.get(1))
      throw OpError("filter 'replace' needs the old and new strings");
    std::int64_t count = p.get(2) && p.get(2)->kind() != K::none ? p.get(2)->as_int() : -1;
    return Value::string(replace_all(to_str(v), to_str(*p.get(0)), to_str(*p.get(1)), count));
  }
  if (name == "sum") {
    Params p(name, a, {"attribute", "start"});
    std::string attr = attribute_arg(p.get(0));
    Value total = p.get_or(1, Value::integer(0));
    for (const auto& x : iterate(v))
      total = binary_op(BinOp::add, total, attr.empty() ? x : attr_path(x, attr));
    return total;
  }
  if (name == "trim") {
    Params p(name, a, {"chars"});
    const Value* chars = p.get(0);
    return Value::string(chars && chars->kind() != K::none ? strip(to_str(v), to_str(*chars))
                                                           : strip(to_str(v)));
  }
  Params none(name, a, {});
  if (name == "length" || name == "count") {
    if (v.kind() == K::string)
      return Value::integer(static_cast<std::int64_t>(utf8_length(v.as_string())));
    if (v.kind() == K::list)
      return Value::integer(static_cast<std::int64_t>(v.as_list().size()));
    if (v.kind() == K::dict)
      return Value::integer(static_cast<std::int64_t>(v.as_dict().size()));
    throw OpError(std::string("object of type '") + v.type_name() + "' has no len()");
  }
  if (name == "first" || name == "last") {
    List items = iterate(v);
    if (items.empty())
      return Value::undefined(std::string("No ") + std::string(name) + " item, sequence was empty.",
                              nullptr, 0);
    return name == "first" ? items.front() : items.back();
  }
  if (name == "upper")
    return Value::string(ascii_upper(to_str(v)));
  if (name == "lower")
    return Value::string(ascii_lower(to_str(v)));
  if (name == "capitalize") {
    auto chars = utf8_chars(to_str(v));
    std::string out;
    for (std::size_t i = 0; i < chars.size(); ++i)
      out += i == 0 ? ascii_upper(chars[i]) : ascii_lower(chars[i]);
    return Value::string(std::move(out));
  }
  if (name == "string")
    return Value::string(to_str(v));
  if (name == "list")
    return Value::list(iterate(v));
  if (name == "abs") {
    if (v.kind() == K::floating)
      return Value::floating(std::fabs(v.as_float()));
    if (v.is_number())
      return v.as_int() < 0 ? negate(v) : Value::integer(v.as_int());
    throw OpError(std::string("bad operand type for abs(): '") + v.type_name() + "'");
  }
  if (name == "reverse") {
    List items = iterate(v);
    std::reverse(items.begin(), items.end());
    if (v.kind() != K::string)
      return Value::list(std::move(items));
    std::string out;
    for (const auto& c : items)
      out += c.as_string();
    return Value::string(std::move(out));
  }
  throw OpError("no filter named '" + std::string(name) + "'");
}

} // namespace tk::jinja
