// Python string helpers (see string_util.hpp).
#include "jinja/string_util.hpp"

#include "jinja/operators.hpp"

#include "jinja/value.hpp"

namespace tk::jinja {

namespace {

bool py_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f' || c == '\x1c' ||
         c == '\x1d' || c == '\x1e' || c == '\x1f';
}

} // namespace

std::vector<std::string> split_lines(std::string_view s) {
  std::vector<std::string> out;
  std::size_t start = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c == '\n' || c == '\r' || c == '\v' || c == '\f' || c == '\x1c' || c == '\x1d' ||
        c == '\x1e') {
      out.emplace_back(s.substr(start, i - start));
      if (c == '\r' && i + 1 < s.size() && s[i + 1] == '\n')
        ++i;
      start = i + 1;
    }
  }
  if (start < s.size())
    out.emplace_back(s.substr(start));
  return out;
}

std::string lstrip(std::string_view s) {
  std::size_t b = 0;
  while (b < s.size() && py_space(s[b]))
    ++b;
  return std::string(s.substr(b));
}

std::string rstrip(std::string_view s) {
  std::size_t e = s.size();
  while (e > 0 && py_space(s[e - 1]))
    --e;
  return std::string(s.substr(0, e));
}

std::string strip(std::string_view s) {
  return lstrip(rstrip(s));
}

std::string strip(std::string_view s, std::string_view chars) {
  auto set = utf8_chars(chars);
  auto cs = utf8_chars(s);
  auto in_set = [&](const std::string& c) {
    for (const auto& x : set)
      if (x == c)
        return true;
    return false;
  };
  std::size_t b = 0, e = cs.size();
  while (b < e && in_set(cs[b]))
    ++b;
  while (e > b && in_set(cs[e - 1]))
    --e;
  std::string out;
  for (std::size_t i = b; i < e; ++i)
    out += cs[i];
  return out;
}

std::string replace_all(std::string_view s, std::string_view old_s, std::string_view new_s,
                        std::int64_t count) {
  std::string out;
  if (old_s.empty()) { // Python inserts `new` before every character and at the end
    auto chars = utf8_chars(s);
    std::int64_t done = 0;
    for (const auto& c : chars) {
      if (count < 0 || done < count) {
        out += new_s;
        ++done;
      }
      out += c;
      check_result_size(out.size());
    }
    if (count < 0 || done < count)
      out += new_s;
    return out;
  }
  std::size_t pos = 0;
  std::int64_t done = 0;
  while (count < 0 || done < count) {
    std::size_t hit = s.find(old_s, pos);
    if (hit == std::string_view::npos)
      break;
    out.append(s.substr(pos, hit - pos)).append(new_s);
    check_result_size(out.size());
    pos = hit + old_s.size();
    ++done;
  }
  out.append(s.substr(pos));
  return out;
}

std::vector<std::string> split(std::string_view s) {
  std::vector<std::string> out;
  std::size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && py_space(s[i]))
      ++i;
    std::size_t b = i;
    while (i < s.size() && !py_space(s[i]))
      ++i;
    if (i > b)
      out.emplace_back(s.substr(b, i - b));
  }
  return out;
}

std::vector<std::string> split(std::string_view s, std::string_view sep) {
  std::vector<std::string> out;
  std::size_t pos = 0;
  while (true) {
    std::size_t hit = s.find(sep, pos);
    if (hit == std::string_view::npos || sep.empty())
      break;
    out.emplace_back(s.substr(pos, hit - pos));
    pos = hit + sep.size();
  }
  out.emplace_back(s.substr(pos));
  return out;
}

std::string ascii_upper(std::string s) {
  for (auto& c : s)
    if (c >= 'a' && c <= 'z')
      c = static_cast<char>(c - 'a' + 'A');
  return s;
}

std::string ascii_lower(std::string s) {
  for (auto& c : s)
    if (c >= 'A' && c <= 'Z')
      c = static_cast<char>(c - 'A' + 'a');
  return s;
}

std::string decode_string_literal(std::string_view body) {
  std::string out;
  auto put_utf8 = [&out](std::uint32_t cp) {
    if (cp < 0x80) {
      out += static_cast<char>(cp);
    } else if (cp < 0x800) {
      out += static_cast<char>(0xC0 | (cp >> 6));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      out += static_cast<char>(0xE0 | (cp >> 12));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (cp >> 18));
      out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    }
  };
  for (std::size_t i = 0; i < body.size(); ++i) {
    char c = body[i];
    if (c != '\\' || i + 1 == body.size()) {
      out += c;
      continue;
    }
    char e = body[++i];
    auto hex = [&](std::size_t n) -> bool {
      std::uint32_t cp = 0;
      for (std::size_t k = 1; k <= n; ++k) {
        if (i + k >= body.size() || !std::isxdigit(static_cast<unsigned char>(body[i + k])))
          return false;
        char d = static_cast<char>(std::tolower(static_cast<unsigned char>(body[i + k])));
        cp = cp * 16 + static_cast<std::uint32_t>(d <= '9' ? d - '0' : d - 'a' + 10);
      }
      put_utf8(cp);
      i += n;
      return true;
    };
    switch (e) {
    case 'n':
      out += '\n';
      break;
    case 't':
      out += '\t';
      break;
    case 'r':
      out += '\r';
      break;
    case '\\':
      out += '\\';
      break;
    case '\'':
      out += '\'';
      break;
    case '"':
      out += '"';
      break;
    case 'a':
      out += '\a';
      break;
    case 'b':
      out += '\b';
      break;
    case 'f':
      out += '\f';
      break;
    case 'v':
      out += '\v';
      break;
    case '\n':
      break; // a backslash-newline continues the line
    case 'x':
      if (!hex(2))
        out += "\\x";
      break;
    case 'u':
      if (!hex(4))
        out += "\\u";
      break;
    case 'U':
      if (!hex(8))
        out += "\\U";
      break;
    default:
      if (e >= '0' && e <= '7') { // octal, up to three digits
        std::uint32_t cp = static_cast<std::uint32_t>(e - '0');
        for (int k = 0; k < 2 && i + 1 < body.size() && body[i + 1] >= '0' && body[i + 1] <= '7';
             ++k)
          cp = cp * 8 + static_cast<std::uint32_t>(body[++i] - '0');
        put_utf8(cp);
      } else {
        out += '\\'; // unknown escapes stay as written, as in Python
        out += e;
      }
    }
  }
  return out;
}

} // namespace tk::jinja
