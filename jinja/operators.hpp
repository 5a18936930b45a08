// Python semantics of jinja2's operators on Values: arithmetic (int stays int, / is always float,
// // and % floor like Python), comparisons and `in`. Failures throw OpError with Python's wording;
// the renderer adds the location.
#pragma once

#include "jinja/ast.hpp"
#include "jinja/value.hpp"

#include <stdexcept>

namespace tk::jinja {

/// An operation that Python would reject (TypeError, ZeroDivisionError, ...), not yet located.
struct OpError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// The most characters or items one operation builds where its result can be far larger than its
/// operands (`*`, `indent`, `replace`, `%` widths and precisions), so a short hostile template
/// cannot ask for gigabytes (Python would try); like range()'s limit.
constexpr std::size_t max_result_size = 10'000'000;
/// Throws OpError when an operation would build more than max_result_size characters or items.
void check_result_size(std::size_t n);
/// Python's int(float): truncates toward zero; OpError for nan and inf, and for a value outside
/// TileKit's 64-bit template integers (Python's are unbounded).
std::int64_t float_to_int(double d);

Value binary_op(BinOp op, const Value& a, const Value& b);
Value negate(const Value& v);
Value unary_plus(const Value& v);
/// One link of a comparison chain.
bool compare_op(CmpOp op, const Value& a, const Value& b);
/// Python's <, used by comparisons and the sort filter; throws OpError for unorderable types.
bool less_than(const Value& a, const Value& b, const char* op_spelling = "<");

} // namespace tk::jinja
