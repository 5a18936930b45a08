// Runtime values of the Jinja engine: Python's data model reduced to what templates use (None,
// bool, int, float, str, list/tuple, dict, macros, the loop object, undefined), with Python's
// str()/repr() spelling so output matches jinja2 byte for byte.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tk::jinja {

struct Template;
struct MacroDef;
class Scope;
class Value;

using List = std::vector<Value>;
/// Insertion-ordered like a Python dict; data dicts arrive sorted by key from nlohmann::json.
using Dict = std::vector<std::pair<std::string, Value>>;

/// A macro together with the scope it was defined in (its closure).
struct Macro {
  const MacroDef* def = nullptr;
  const Template* tmpl = nullptr; // where the body's source offsets point
  Scope* scope = nullptr;
};

/// What `loop` means inside one iteration of a for loop.
struct LoopInfo {
  std::int64_t index0 = 0;
  std::int64_t length = 0;
  std::int64_t depth0 = 0;
};

/// Where an undefined value came from, reported when it is used.
struct Undefined {
  std::string message; // "'foo' is undefined"
  const Template* tmpl = nullptr;
  std::uint32_t offset = 0;
};

class Value {
public:
  enum class Kind : std::uint8_t {
    undefined,
    none,
    boolean,
    integer,
    floating,
    string,
    list,
    dict,
    macro,
    loop
  };

  Value() : kind_(Kind::none) {}
  static Value undefined(std::string message, const Template* t, std::uint32_t offset);
  static Value boolean(bool b);
  static Value integer(std::int64_t i);
  static Value floating(double d);
  static Value string(std::string s);
  static Value list(List items, bool tuple = false);
  static Value dict(Dict items);
  static Value macro(Macro m);
  static Value loop(LoopInfo info);
  static Value from_json(const nlohmann::json& j);
  /// The inverse of from_json for data values (none, bool, int, float, str, list, tuple as an
  /// array, dict as an object): how data built as values prints as JSON. Throws std::logic_error
  /// on undefined, macros and loops.
  nlohmann::json to_json() const;

  Kind kind() const { return kind_; }
  bool is_undefined() const { return kind_ == Kind::undefined; }
  bool is_number() const {
    return kind_ == Kind::integer || kind_ == Kind::floating || kind_ == Kind::boolean;
  }
  bool is_tuple() const { return tuple_; }

  bool as_bool() const { return num_.i != 0; }
  std::int64_t as_int() const { return num_.i; } // also for booleans (Python: bool is an int)
  double as_float() const { return kind_ == Kind::floating ? num_.d : static_cast<double>(num_.i); }
  const std::string& as_string() const { return get<std::string>(); }
  const List& as_list() const { return get<List>(); }
  const Dict& as_dict() const { return get<Dict>(); }
  const Macro& as_macro() const { return get<Macro>(); }
  const LoopInfo& as_loop() const { return get<LoopInfo>(); }
  const Undefined& as_undefined() const { return get<Undefined>(); }

  /// The entry for `key`, or nullptr.
  const Value* find(std::string_view key) const;

  /// Python's type name, as used in jinja2's messages ("int", "str", "dict", ...).
  const char* type_name() const;

private:
  template <class T>
  const T& get() const {
    return *static_cast<const T*>(ptr_.get());
  }
  template <class T>
  static Value boxed(Kind k, T payload) {
    Value v;
    v.kind_ = k;
    v.ptr_ = std::make_shared<const T>(std::move(payload));
    return v;
  }

  // Kept small (32 bytes) because values are copied on every variable lookup; the payload of
  // strings and containers is shared and immutable, like Python objects.
  Kind kind_;
  bool tuple_ = false;
  union {
    std::int64_t i;
    double d;
  } num_{0};
  std::shared_ptr<const void> ptr_;
};

/// Python's repr() of a float: shortest round-trip digits, "1.0", "1e-05", "1e+16", "inf".
std::string float_repr(double d);
/// Python's str(): what `{{ v }}` prints. Must not be called on undefined or macros.
std::string to_str(const Value& v);
/// Python's repr(): how values print inside lists and dicts.
std::string to_repr(const Value& v);
/// Python's truth value (undefined is the caller's business).
bool truthy(const Value& v);
/// Python's ==.
bool equal(const Value& a, const Value& b);

/// jinja2's getattr for `obj.name`: a dict entry or a loop attribute; otherwise an undefined
/// value (without location) saying what was missing.
Value get_attr(const Value& obj, std::string_view name);
/// jinja2's getitem for `obj[key]`: list/tuple/str index (negative from the end), dict key.
Value get_item(const Value& obj, const Value& key);
/// jinja2's spelling of a value's type in messages: "dict object", "None".
std::string object_type_repr(const Value& v);

/// Number of code points in a UTF-8 string, and the string split into code points.
std::size_t utf8_length(std::string_view s);
std::vector<std::string> utf8_chars(std::string_view s);

} // namespace tk::jinja
