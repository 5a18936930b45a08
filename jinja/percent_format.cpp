// printf-style formatting with Python semantics (see percent_format.hpp). Floats go through C's
// snprintf, whose output Python's %-formatting shares; integers are spelled here because Python
// writes negative hex as "-ff" and knows "#o" as "0o".
#include "jinja/percent_format.hpp"

#include "jinja/operators.hpp"

#include <cmath>
#include <cstdio>

namespace tk::jinja {

namespace {

struct Spec {
  bool left = false, plus = false, space = false, zero = false, alt = false;
  int width = -1, precision = -1;
  char type = 's';
};

std::string pad(std::string body, const Spec& s, bool numeric) {
  auto w = static_cast<std::size_t>(s.width < 0 ? 0 : s.width);
  if (body.size() >= w)
    return body;
  std::size_t fill = w - body.size();
  if (s.left)
    return body + std::string(fill, ' ');
  if (s.zero && numeric) { // zeros go after the sign and the 0x prefix
    std::size_t at = 0;
    if (!body.empty() && (body[0] == '-' || body[0] == '+' || body[0] == ' '))
      at = 1;
    if (body.size() > at + 1 && body[at] == '0' &&
        (body[at + 1] == 'x' || body[at + 1] == 'X' || body[at + 1] == 'o'))
      at += 2;
    return body.insert(at, fill, '0');
  }
  return std::string(fill, ' ') + body;
}

std::string format_int(std::int64_t v, const Spec& s) {
  bool neg = v < 0;
  auto u = neg ? 0 - static_cast<std::uint64_t>(v) : static_cast<std::uint64_t>(v);
  unsigned base = s.type == 'o' ? 8 : (s.type == 'x' || s.type == 'X') ? 16 : 10;
  const char* digits = s.type == 'X' ? "0123456789ABCDEF" : "0123456789abcdef";
  std::string d;
  do {
    d.insert(d.begin(), digits[u % base]);
    u /= base;
  } while (u);
  if (s.precision > 0 && d.size() < static_cast<std::size_t>(s.precision))
    d.insert(0, static_cast<std::size_t>(s.precision) - d.size(), '0');
  if (s.alt && base == 16)
    d.insert(0, s.type == 'X' ? "0X" : "0x");
  if (s.alt && base == 8)
    d.insert(0, "0o");
  std::string sign = neg ? "-" : s.plus ? "+" : s.space ? " " : "";
  return pad(sign + d, s, true);
}

std::string format_float(double v, const Spec& s) {
  std::string f = "%";
  if (s.plus)
    f += '+';
  if (s.space)
    f += ' ';
  if (s.alt)
    f += '#';
  f += "." + std::to_string(s.precision < 0 ? 6 : s.precision) + s.type;
  // Sized by a first call: '%.600f' % 1e300 needs 902 characters.
  std::string out(static_cast<std::size_t>(std::snprintf(nullptr, 0, f.c_str(), v)), '\0');
  std::snprintf(out.data(), out.size() + 1, f.c_str(), v);
  return pad(std::move(out), s, std::isfinite(v));
}

std::string convert(const Value& v, const Spec& s) {
  auto is_int = v.kind() == Value::Kind::integer || v.kind() == Value::Kind::boolean;
  switch (s.type) {
  case 's':
  case 'r':
  case 'a': {
    std::string t = s.type == 's' ? to_str(v) : to_repr(v);
    if (s.precision >= 0 && t.size() > static_cast<std::size_t>(s.precision))
      t.resize(static_cast<std::size_t>(s.precision));
    return pad(t, s, false);
  }
  case 'd':
  case 'i':
  case 'u':
    if (v.kind() == Value::Kind::floating)
      return format_int(float_to_int(v.as_float()), s);
    if (!is_int)
      throw OpError(std::string("%") + s.type + " format: a real number is required, not " +
                    v.type_name());
    return format_int(v.as_int(), s);
  case 'o':
  case 'x':
  case 'X':
    if (!is_int)
      throw OpError(std::string("%") + s.type + " format: an integer is required, not " +
                    v.type_name());
    return format_int(v.as_int(), s);
  case 'c':
    if (v.kind() == Value::Kind::string && utf8_length(v.as_string()) == 1)
      return pad(v.as_string(), s, false);
    if (is_int && v.as_int() >= 0 && v.as_int() < 128)
      return pad(std::string(1, static_cast<char>(v.as_int())), s, false);
    throw OpError("%c requires int or char");
  default: // e E f F g G
    if (!v.is_number())
      throw OpError(std::string("must be real number, not ") + v.type_name());
    return format_float(v.as_float(), s);
  }
}

} // namespace

std::string percent_format(const std::string& fmt, const List& args) {
  std::string out;
  std::size_t next = 0;
  for (std::size_t i = 0; i < fmt.size(); ++i) {
    if (fmt[i] != '%') {
      out += fmt[i];
      continue;
    }
    if (++i == fmt.size())
      throw OpError("incomplete format");
    Spec s;
    for (; i < fmt.size(); ++i) {
      char c = fmt[i];
      if (c == '-')
        s.left = true;
      else if (c == '+')
        s.plus = true;
      else if (c == ' ')
        s.space = true;
      else if (c == '0')
        s.zero = true;
      else if (c == '#')
        s.alt = true;
      else
        break;
    }
    // Python's messages for a width or precision past its limit (ours is max_result_size).
    auto number = [&](const char* too_big) {
      int n = -1;
      while (i < fmt.size() && fmt[i] >= '0' && fmt[i] <= '9') {
        n = (n < 0 ? 0 : n * 10) + (fmt[i++] - '0');
        if (static_cast<std::size_t>(n) > max_result_size)
          throw OpError(too_big);
      }
      return n;
    };
    s.width = number("width too big");
    if (i < fmt.size() && fmt[i] == '.') {
      ++i;
      s.precision = std::max(0, number("precision too big"));
    }
    if (i == fmt.size())
      throw OpError("incomplete format");
    s.type = fmt[i];
    if (s.type == '%') {
      out += '%';
      continue;
    }
    if (std::string("diuoxXeEfFgGcsra").find(s.type) == std::string::npos)
      throw OpError(std::string("unsupported format character '") + s.type + "'");
    if (next >= args.size())
      throw OpError("not enough arguments for format string");
    out += convert(args[next++], s);
  }
  if (next < args.size())
    throw OpError("not all arguments converted during string formatting");
  return out;
}

} // namespace tk::jinja
