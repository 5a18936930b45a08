// Arithmetic and comparison with Python's rules. TileKit's ints are 64-bit where Python's are
// unbounded, so an overflow is an error here instead of a big number.
#include "jinja/operators.hpp"

#include "jinja/percent_format.hpp"

#include <cmath>
#include <string>

namespace tk::jinja {

namespace {

using K = Value::Kind;

bool is_int(const Value& v) {
  return v.kind() == K::integer || v.kind() == K::boolean;
}

[[noreturn]] void unsupported(const char* op, const Value& a, const Value& b) {
  throw OpError(std::string("unsupported operand type(s) for ") + op + ": '" + a.type_name() +
                "' and '" + b.type_name() + "'");
}

[[noreturn]] void overflow() {
  throw OpError("integer overflow (TileKit's template integers are 64-bit)");
}
} // namespace

std::int64_t float_to_int(double d) {
  if (!std::isfinite(d))
    throw OpError("cannot convert float " + float_repr(d) + " to integer");
  // [-2^63, 2^63): every double in it truncates to an int64_t.
  if (!(d >= -9223372036854775808.0 && d < 9223372036854775808.0))
    overflow();
  return static_cast<std::int64_t>(d);
}

namespace {

template <class F>
Value checked(F op, std::int64_t a, std::int64_t b) {
  std::int64_t r = 0;
  if (op(a, b, &r))
    overflow();
  return Value::integer(r);
}
auto const add = [](std::int64_t a, std::int64_t b, std::int64_t* r) {
  return __builtin_add_overflow(a, b, r);
};
auto const sub = [](std::int64_t a, std::int64_t b, std::int64_t* r) {
  return __builtin_sub_overflow(a, b, r);
};
auto const mul = [](std::int64_t a, std::int64_t b, std::int64_t* r) {
  return __builtin_mul_overflow(a, b, r);
};

Value repeat(const Value& seq, std::int64_t n) {
  std::size_t each = seq.kind() == K::string ? seq.as_string().size() : seq.as_list().size();
  if (each == 0) // empty whatever n is: no loop of n rounds that add nothing
    n = 0;
  std::size_t total = 0;
  if (n > 0 && __builtin_mul_overflow(each, static_cast<std::uint64_t>(n), &total))
    total = max_result_size + 1;
  check_result_size(total);
  if (seq.kind() == K::string) {
    std::string out;
    for (std::int64_t i = 0; i < n; ++i)
      out += seq.as_string();
    return Value::string(std::move(out));
  }
  List out;
  for (std::int64_t i = 0; i < n; ++i)
    out.insert(out.end(), seq.as_list().begin(), seq.as_list().end());
  return Value::list(std::move(out), seq.is_tuple());
}

// CPython's float_divmod, so that // and % agree with Python to the last bit.
void float_divmod(double a, double b, double& div_out, double& mod_out) {
  double mod = std::fmod(a, b);
  double div = (a - mod) / b;
  if (mod != 0) {
    if ((b < 0) != (mod < 0)) {
      mod += b;
      div -= 1.0;
    }
  } else {
    mod = std::copysign(0.0, b);
  }
  double floordiv;
  if (div != 0) {
    floordiv = std::floor(div);
    if (div - floordiv > 0.5)
      floordiv += 1.0;
  } else {
    floordiv = std::copysign(0.0, a / b);
  }
  div_out = floordiv;
  mod_out = mod;
}

Value power(const Value& a, const Value& b) {
  if (is_int(a) && is_int(b) && b.as_int() >= 0) {
    std::int64_t base = a.as_int(), exp = b.as_int(), r = 1;
    while (exp-- > 0)
      if (__builtin_mul_overflow(r, base, &r))
        overflow();
    return Value::integer(r);
  }
  double x = a.as_float(), y = b.as_float();
  if (x == 0 && y < 0)
    throw OpError("0.0 cannot be raised to a negative power");
  if (x < 0 && y != std::floor(y))
    throw OpError("a negative number to a fractional power is complex, which is not supported");
  double r = std::pow(x, y);
  if (std::isinf(r) && std::isfinite(x) && std::isfinite(y))
    throw OpError("(34, 'Numerical result out of range')"); // Python's OverflowError
  return Value::floating(r);
}

} // namespace

void check_result_size(std::size_t n) {
  if (n > max_result_size)
    throw OpError("result too large: " + std::to_string(n) +
                  " characters or items (TileKit's "
                  "limit is " +
                  std::to_string(max_result_size) + ")");
}

Value binary_op(BinOp op, const Value& a, const Value& b) {
  bool nums = a.is_number() && b.is_number();
  bool ints = is_int(a) && is_int(b);
  switch (op) {
  case BinOp::add:
    if (ints)
      return checked(add, a.as_int(), b.as_int());
    if (nums)
      return Value::floating(a.as_float() + b.as_float());
    if (a.kind() == K::string && b.kind() == K::string)
      return Value::string(a.as_string() + b.as_string());
    if (a.kind() == K::list && b.kind() == K::list && a.is_tuple() == b.is_tuple()) {
      List out = a.as_list();
      out.insert(out.end(), b.as_list().begin(), b.as_list().end());
      return Value::list(std::move(out), a.is_tuple());
    }
    if (a.kind() == K::string)
      throw OpError(std::string("can only concatenate str (not \"") + b.type_name() + "\") to str");
    unsupported("+", a, b);
  case BinOp::sub:
    if (ints)
      return checked(sub, a.as_int(), b.as_int());
    if (nums)
      return Value::floating(a.as_float() - b.as_float());
    unsupported("-", a, b);
  case BinOp::mul:
    if (ints)
      return checked(mul, a.as_int(), b.as_int());
    if (nums)
      return Value::floating(a.as_float() * b.as_float());
    if ((a.kind() == K::string || a.kind() == K::list) && is_int(b))
      return repeat(a, b.as_int());
    if (is_int(a) && (b.kind() == K::string || b.kind() == K::list))
      return repeat(b, a.as_int());
    unsupported("*", a, b);
  case BinOp::div:
    if (!nums)
      unsupported("/", a, b);
    if (b.as_float() == 0)
      throw OpError("division by zero");
    return Value::floating(a.as_float() / b.as_float());
  case BinOp::floordiv:
  case BinOp::mod: {
    const char* spelling = op == BinOp::mod ? "%" : "//";
    if (op == BinOp::mod && a.kind() == K::string) // '%08x' % n, '%s-%s' % (a, b)
      return Value::string(percent_format(
          a.as_string(), b.kind() == K::list && b.is_tuple() ? b.as_list() : List{b}));
    if (!nums)
      unsupported(spelling, a, b);
    if (ints) {
      std::int64_t x = a.as_int(), y = b.as_int();
      if (y == 0)
        throw OpError("integer division or modulo by zero");
      if (x == INT64_MIN && y == -1)
        overflow();
      std::int64_t q = x / y, m = x % y;
      if (m != 0 && ((m < 0) != (y < 0))) {
        q -= 1;
        m += y;
      }
      return Value::integer(op == BinOp::mod ? m : q);
    }
    if (b.as_float() == 0)
      throw OpError(op == BinOp::mod ? "float modulo" : "float floor division by zero");
    double d, m;
    float_divmod(a.as_float(), b.as_float(), d, m);
    return Value::floating(op == BinOp::mod ? m : d);
  }
  case BinOp::pow:
    if (!nums)
      unsupported("** or pow()", a, b);
    return power(a, b);
  }
  unsupported("?", a, b);
}

Value negate(const Value& v) {
  if (is_int(v)) {
    if (v.as_int() == INT64_MIN)
      overflow();
    return Value::integer(-v.as_int());
  }
  if (v.kind() == K::floating)
    return Value::floating(-v.as_float());
  throw OpError(std::string("bad operand type for unary -: '") + v.type_name() + "'");
}

Value unary_plus(const Value& v) {
  if (is_int(v))
    return Value::integer(v.as_int());
  if (v.kind() == K::floating)
    return v;
  throw OpError(std::string("bad operand type for unary +: '") + v.type_name() + "'");
}

bool less_than(const Value& a, const Value& b, const char* op_spelling) {
  if (is_int(a) && is_int(b))
    return a.as_int() < b.as_int();
  if (a.is_number() && b.is_number())
    return a.as_float() < b.as_float();
  if (a.kind() == K::string && b.kind() == K::string)
    return a.as_string() < b.as_string(); // UTF-8 byte order is code point order
  if (a.kind() == K::list && b.kind() == K::list && a.is_tuple() == b.is_tuple()) {
    const auto &x = a.as_list(), &y = b.as_list();
    for (std::size_t i = 0; i < x.size() && i < y.size(); ++i)
      if (!equal(x[i], y[i]))
        return less_than(x[i], y[i], op_spelling);
    return x.size() < y.size();
  }
  throw OpError(std::string("'") + op_spelling + "' not supported between instances of '" +
                a.type_name() + "' and '" + b.type_name() + "'");
}

bool compare_op(CmpOp op, const Value& a, const Value& b) {
  switch (op) {
  case CmpOp::eq:
    return equal(a, b);
  case CmpOp::ne:
    return !equal(a, b);
  case CmpOp::lt:
    return less_than(a, b, "<");
  case CmpOp::gt:
    return less_than(b, a, ">");
  case CmpOp::le:
    return !less_than(b, a, "<=");
  case CmpOp::ge:
    return !less_than(a, b, ">=");
  case CmpOp::in:
  case CmpOp::not_in: {
    bool found = false;
    if (b.kind() == K::list) {
      for (const auto& e : b.as_list())
        if (equal(a, e)) {
          found = true;
          break;
        }
    } else if (b.kind() == K::dict) {
      found = a.kind() == K::string && b.find(a.as_string()) != nullptr;
    } else if (b.kind() == K::string) {
      if (a.kind() != K::string)
        throw OpError(std::string("'in <string>' requires string as left operand, not ") +
                      a.type_name());
      found = b.as_string().find(a.as_string()) != std::string::npos;
    } else {
      throw OpError(std::string("argument of type '") + b.type_name() + "' is not iterable");
    }
    return op == CmpOp::in ? found : !found;
  }
  }
  return false;
}

} // namespace tk::jinja
