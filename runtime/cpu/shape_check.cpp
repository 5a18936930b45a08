// The shape checks of <tilekit/runtime.hpp>: out of line so that the header every generated file
// includes stays free of string formatting.
#include <tilekit/runtime.hpp>

#include <string>

namespace tk {
namespace {

std::string where(const char* kernel, const char* param, const char* axis, std::int64_t value) {
  return std::string(kernel) + ": " + param + "." + axis + " = " + std::to_string(value);
}

} // namespace

void check_tile_multiple(const char* kernel, const char* param, const char* axis,
                         std::int64_t value, const char* dim) {
  if (value < 0)
    throw Error(where(kernel, param, axis, value) + " is negative");
  if (value % kTileSize != 0)
    throw Error(where(kernel, param, axis, value) + " is not a multiple of " +
                std::to_string(kTileSize));
  if (value == 0) // docs/language.md: a named dimension holds at least one tile
    throw Error(where(kernel, param, axis, value) + " but " +
                (dim && *dim ? "dimension " + std::string(dim) : std::string("a named dimension")) +
                " holds at least one tile (a positive multiple of " + std::to_string(kTileSize) +
                ")");
}

void check_batch(const char* kernel, const char* param, std::int64_t value, std::int64_t expected,
                 const char* dim) {
  if (expected == kAnyBatch) {
    if (value < 0)
      throw Error(where(kernel, param, "batch", value) + " is negative");
    if (value == 0) // docs/language.md: a batch holds at least one matrix
      throw Error(where(kernel, param, "batch", value) + " but " +
                  (dim && *dim ? "dimension " + std::string(dim) : std::string("a batch")) +
                  " holds at least one matrix");
    return;
  }
  if (value != expected)
    throw Error(where(kernel, param, "batch", value) + " but must be exactly " +
                std::to_string(expected) +
                (expected == 1 ? " (one matrix shared by every batch)" : ""));
}

void check_dim_equals(const char* kernel, const char* param, const char* axis, std::int64_t value,
                      std::int64_t expected) {
  if (value == expected)
    return;
  std::string msg =
      where(kernel, param, axis, value) + " but must be exactly " + std::to_string(expected);
  if (expected == 1)
    msg += std::string(axis) == "rows" ? " (a row vector)" : " (a column vector)";
  throw Error(msg);
}

void check_same_dim(const char* kernel, const char* dim, const char* param_a, const char* axis_a,
                    std::int64_t a, const char* param_b, const char* axis_b, std::int64_t b) {
  if (a == b)
    return;
  throw Error(std::string(kernel) + ": dimension " + dim + " mismatch: " + param_a + "." + axis_a +
              " = " + std::to_string(a) + " but " + param_b + "." + axis_b + " = " +
              std::to_string(b));
}

void check_grouped_dim(const char* kernel, const char* outer, const char* param_a,
                       const char* axis_a, std::int64_t a, std::int64_t ratio, const char* inner,
                       const char* param_b, const char* axis_b, std::int64_t b) {
  if (a == ratio * b)
    return;
  throw Error(std::string(kernel) + ": dimension " + outer + " must be " + std::to_string(ratio) +
              " times dimension " + inner + " (a grouped index divides by " +
              std::to_string(ratio) + "): " + param_a + "." + axis_a + " = " + std::to_string(a) +
              " but " + param_b + "." + axis_b + " = " + std::to_string(b));
}

void check_row_fits(const char* kernel, const char* row, const char* dim, const char* param,
                    const char* axis, std::int64_t value, std::int64_t tile,
                    std::int64_t capacity) {
  const std::int64_t tiles = (value + tile - 1) / tile;
  if (tiles <= capacity)
    return;
  const std::string over = tile == 1 ? "" : " / " + std::to_string(tile);
  throw Error(std::string(kernel) + ": row of tiles '" + row + "' needs " + dim + over + " = " +
              std::to_string(tiles) + " tiles (" + param + "." + axis + " = " +
              std::to_string(value) + "), but its circular buffer holds " +
              std::to_string(capacity) + " (" + dim + " at most " +
              std::to_string(capacity * tile) + ")");
}

void check_data(const char* kernel, const char* param, const void* data, std::int64_t rows,
                std::int64_t cols) {
  if (data == nullptr && rows > 0 && cols > 0)
    throw Error(std::string(kernel) + ": " + param + ".data is null but " + param + " is " +
                std::to_string(rows) + "x" + std::to_string(cols));
}

void check_data(const char* kernel, const char* param, const void* data, std::int64_t batch,
                std::int64_t rows, std::int64_t cols) {
  if (data == nullptr && batch > 0 && rows > 0 && cols > 0)
    throw Error(std::string(kernel) + ": " + param + ".data is null but " + param + " is " +
                std::to_string(batch) + "x" + std::to_string(rows) + "x" + std::to_string(cols));
}

} // namespace tk
