// Python's printf-style string formatting ('%08x' % n, "%s=%d" | format(a, b)), the form
// templates use to spell hex constants and padded numbers.
#pragma once

#include "jinja/value.hpp"

#include <string>

namespace tk::jinja {

/// fmt % args with Python's rules for the conversions d i u o x X e E f F g G c s r a %.
/// Throws OpError (Python's TypeError/ValueError wording) on a mismatch.
std::string percent_format(const std::string& fmt, const List& args);

} // namespace tk::jinja
