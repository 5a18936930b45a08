// The filters over sequences: sort, unique, min/max, select/reject(attr), map; and the
// iteration and attribute-path helpers they share with filters.cpp.
#include "jinja/filter_detail.hpp"

#include "jinja/string_util.hpp"

#include <cstdlib>

namespace tk::jinja::filter_detail {

List iterate(const Value& v) {
  switch (v.kind()) {
  case K::list:
    return v.as_list();
  case K::dict: {
    List keys;
    for (const auto& kv : v.as_dict())
      keys.push_back(Value::string(kv.first));
    return keys;
  }
  case K::string: {
    List chars;
    for (auto& c : utf8_chars(v.as_string()))
      chars.push_back(Value::string(std::move(c)));
    return chars;
  }
  default:
    throw OpError(std::string("'") + v.type_name() + "' object is not iterable");
  }
}

Value attr_path(const Value& v, const std::string& path, const Value* fallback) {
  Value cur = v;
  std::size_t start = 0;
  while (true) {
    std::size_t dot = path.find('.', start);
    std::string part = path.substr(start, dot == std::string::npos ? dot : dot - start);
    bool digits = !part.empty() && std::all_of(part.begin(), part.end(),
                                               [](char c) { return c >= '0' && c <= '9'; });
    cur = get_item(cur, digits ? Value::integer(std::atoll(part.c_str())) : Value::string(part));
    if (cur.is_undefined()) {
      if (fallback)
        return *fallback;
      throw OpError(cur.as_undefined().message);
    }
    if (dot == std::string::npos)
      return cur;
    start = dot + 1;
  }
}

std::string attribute_arg(const Value* v) {
  if (!v)
    return {};
  return v->kind() == K::integer ? std::to_string(v->as_int()) : to_str(*v);
}

Value do_sort(const Value& v, const Params& p) {
  List items = iterate(v);
  bool case_sensitive = p.flag(1);
  std::string attr = attribute_arg(p.get(2));
  auto key = [&](const Value& x) {
    Value k = attr.empty() ? x : attr_path(x, attr);
    return (!case_sensitive && k.kind() == K::string) ? Value::string(ascii_lower(k.as_string()))
                                                      : k;
  };
  std::vector<std::pair<Value, Value>> keyed;
  for (auto& x : items)
    keyed.emplace_back(key(x), x);
  bool reverse = p.flag(0);
  std::stable_sort(keyed.begin(), keyed.end(), [&](const auto& a, const auto& b) {
    return reverse ? less_than(b.first, a.first) : less_than(a.first, b.first);
  });
  List out;
  for (auto& kv : keyed)
    out.push_back(kv.second);
  return Value::list(std::move(out));
}

namespace {

// The key sort, unique, min and max compare by: the attribute, lowercased unless case_sensitive.
Value sort_key(const Value& x, const std::string& attr, bool case_sensitive) {
  Value k = attr.empty() ? x : attr_path(x, attr);
  return (!case_sensitive && k.kind() == K::string) ? Value::string(ascii_lower(k.as_string())) : k;
}

} // namespace

Value do_min_max(std::string_view name, const Value& v, const Params& p) {
  List items = iterate(v);
  if (items.empty())
    return Value::undefined("No aggregated item, sequence was empty.", nullptr, 0);
  bool case_sensitive = p.flag(0);
  std::string attr = attribute_arg(p.get(1));
  std::size_t best = 0;
  Value best_key = sort_key(items[0], attr, case_sensitive);
  for (std::size_t i = 1; i < items.size(); ++i) {
    Value k = sort_key(items[i], attr, case_sensitive);
    if (name == "min" ? less_than(k, best_key) : less_than(best_key, k)) {
      best = i;
      best_key = k;
    }
  }
  return items[best];
}

Value do_unique(const Value& v, const Params& p) {
  bool case_sensitive = p.flag(0);
  std::string attr = attribute_arg(p.get(1));
  List out, seen;
  for (const auto& x : iterate(v)) {
    Value k = sort_key(x, attr, case_sensitive);
    if (std::none_of(seen.begin(), seen.end(), [&](const Value& s) { return equal(s, k); })) {
      seen.push_back(k);
      out.push_back(x);
    }
  }
  return Value::list(std::move(out));
}

// select/reject/selectattr/rejectattr: args are [attr,] test, test args...
Value do_select(std::string_view name, const Value& v, const CallArgs& a) {
  bool by_attr = name.ends_with("attr");
  bool keep = name.starts_with("select");
  std::size_t first_test_arg = by_attr ? 1 : 0;
  if (by_attr && a.positional.empty())
    throw OpError("filter '" + std::string(name) + "' needs an attribute name");
  std::string attr = by_attr ? attribute_arg(&a.positional[0]) : "";
  CallArgs test_args;
  std::string test;
  if (a.positional.size() > first_test_arg) {
    test = to_str(a.positional[first_test_arg]);
    test_args.positional.assign(a.positional.begin() + static_cast<long>(first_test_arg) + 1,
                                a.positional.end());
    if (!is_test(test))
      throw OpError("no test named '" + test + "'");
  }
  List out;
  for (const auto& x : iterate(v)) {
    Value subject = by_attr ? attr_path(x, attr) : x;
    bool ok = test.empty() ? truthy(subject) : apply_test(test, subject, test_args);
    if (ok == keep)
      out.push_back(x);
  }
  return Value::list(std::move(out));
}

Value do_map(const Value& v, const CallArgs& a) {
  List out;
  for (const auto& [k, val] : a.keyword)
    if (k != "attribute" && k != "default" && a.positional.empty())
      throw OpError("filter 'map' got an unexpected keyword argument '" + k + "'");
  if (a.positional.empty()) {
    const Value* attr = nullptr;
    const Value* fallback = nullptr;
    for (const auto& [k, val] : a.keyword)
      (k == "attribute" ? attr : fallback) = &val;
    if (!attr)
      throw OpError("filter 'map' needs a filter name or attribute=");
    for (const auto& x : iterate(v))
      out.push_back(attr_path(x, attribute_arg(attr), fallback));
    return Value::list(std::move(out));
  }
  std::string filter = to_str(a.positional[0]);
  if (!is_filter(filter))
    throw OpError("no filter named '" + filter + "'");
  CallArgs rest{{a.positional.begin() + 1, a.positional.end()}, a.keyword};
  for (const auto& x : iterate(v))
    out.push_back(apply_filter(filter, x, rest));
  return Value::list(std::move(out));
}

} // namespace tk::jinja::filter_detail
