// Python str methods the filters need (splitlines, strip, replace, split), on UTF-8 strings.
// Case mapping is ASCII-only: TileKit's templates spell C++ identifiers.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tk::jinja {

/// str.splitlines(): "\n", "\r\n", "\r", "\v", "\f", "\x1c".."\x1e" end a line; no trailing "".
std::vector<std::string> split_lines(std::string_view s);
/// str.strip() (ASCII whitespace) and str.strip(chars).
std::string strip(std::string_view s);
std::string strip(std::string_view s, std::string_view chars);
std::string lstrip(std::string_view s);
std::string rstrip(std::string_view s);
/// str.replace(old, new, count); count < 0 replaces all.
std::string replace_all(std::string_view s, std::string_view old_s, std::string_view new_s,
                        std::int64_t count);
/// str.split() (runs of whitespace) and str.split(sep).
std::vector<std::string> split(std::string_view s);
std::vector<std::string> split(std::string_view s, std::string_view sep);
std::string ascii_upper(std::string s);
/// Python/jinja2 string-literal escapes (\n, \t, \xNN, \uNNNN, ...) decoded to UTF-8.
std::string decode_string_literal(std::string_view body);
std::string ascii_lower(std::string s);

} // namespace tk::jinja
