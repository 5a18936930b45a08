// The stable interface every generated TileKit kernel is written against: bf16 storage, matrix
// views, the error type and the shape checks. Included by every generated file, so kept light.
#pragma once

#include <bit>
#include <cstdint>
#include <stdexcept>
#include <type_traits>

// Generated headers declare `run_tt(tt::tt_metal::distributed::MeshDevice&, ...)`; a forward
// declaration lets them do so without pulling in the TT-Metalium (or emulator) headers.
namespace tt::tt_metal::distributed {
class MeshDevice;
} // namespace tt::tt_metal::distributed

namespace tk {

/// The tile edge: every tensor dimension is a multiple of it, except a vector dimension of 1.
inline constexpr std::int64_t kTileSize = 32;

/// Brain float 16: the upper half of an IEEE binary32. Storage only: arithmetic happens in float.
/// Conversion from float rounds to nearest, ties to even (as the Tenstorrent packer does); a NaN
/// stays a (quiet) NaN with its sign. `==` compares values (NaN != NaN, -0 == +0); compare bits()
/// for identity.
class bf16 {
public:
  bf16() = default;
  constexpr bf16(float f) : bits_(round_from(f)) {} // NOLINT: implicit, like float -> double
  constexpr explicit operator float() const {
    return std::bit_cast<float>(static_cast<std::uint32_t>(bits_) << 16);
  }
  static constexpr bf16 from_bits(std::uint16_t b) {
    bf16 r;
    r.bits_ = b;
    return r;
  }
  constexpr std::uint16_t bits() const { return bits_; }
  friend constexpr bool operator==(bf16 a, bf16 b) {
    return static_cast<float>(a) == static_cast<float>(b);
  }

private:
  static constexpr std::uint16_t round_from(float f) {
    const std::uint32_t u = std::bit_cast<std::uint32_t>(f);
    if ((u & 0x7fffffffu) > 0x7f800000u) // NaN: truncating could turn it into inf; keep it quiet
      return static_cast<std::uint16_t>((u >> 16) | 0x0040u);
    // Adding 0x7fff plus the lowest kept bit rounds half to even; a carry into the exponent is
    // exactly right (including the overflow of the largest finite values to inf).
    const std::uint32_t lsb = (u >> 16) & 1u;
    return static_cast<std::uint16_t>((u + 0x7fffu + lsb) >> 16);
  }
  std::uint16_t bits_ = 0;
};
static_assert(sizeof(bf16) == 2 && std::is_trivially_copyable_v<bf16>);

/// A row-major, contiguous rows x cols matrix that the caller owns. A view of T converts
/// implicitly to a view of const T, so outputs can be passed where inputs are expected.
template <class T>
struct MatrixView {
  T* data = nullptr;
  std::int64_t rows = 0;
  std::int64_t cols = 0;

  constexpr T& operator()(std::int64_t r, std::int64_t c) const { return data[r * cols + c]; }
  constexpr std::int64_t size() const { return rows * cols; }

  // A template only so that the requires-clause can drop it for const T. U must be T: a
  // conversion template deduces U from the target type, which would accept any MatrixView.
  template <class U = T>
    requires(std::is_same_v<U, T> && !std::is_const_v<U>)
  constexpr operator MatrixView<const U>() const {
    return {data, rows, cols};
  }
};

/// A batch of `batch` row-major rows x cols matrices, one after the other (batch-major,
/// contiguous), that the caller owns: what a kernel takes for a tensor of rank 3 (`x: bf16[B, M,
/// N]`). Element (b, r, c) is data[(b * rows + r) * cols + c]. A view of T converts to a view of
/// const T.
template <class T>
struct TensorView {
  T* data = nullptr;
  std::int64_t batch = 0;
  std::int64_t rows = 0;
  std::int64_t cols = 0;

  constexpr T& operator()(std::int64_t b, std::int64_t r, std::int64_t c) const {
    return data[(b * rows + r) * cols + c];
  }
  constexpr std::int64_t size() const { return batch * rows * cols; }
  /// Matrix `b` of the batch.
  constexpr MatrixView<T> matrix(std::int64_t b) const {
    return {data + b * rows * cols, rows, cols};
  }

  template <class U = T>
    requires(std::is_same_v<U, T> && !std::is_const_v<U>)
  constexpr operator TensorView<const U>() const {
    return {data, batch, rows, cols};
  }
};

/// What a generated kernel throws when it is called with arguments it cannot run on.
class Error : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

/// Pass for a dimension that the kernel declares by name: any multiple of kTileSize is accepted.
inline constexpr std::int64_t kAnyTiles = -1;

/// Checks one dimension declared by name, `dim`: a positive multiple of 32
/// ("matmul: A.cols = 70 is not a multiple of 32", "axpby: x.rows = 0 but dimension M holds at
/// least one tile (a positive multiple of 32)"). `axis` is "rows" or "cols".
void check_tile_multiple(const char* kernel, const char* param, const char* axis,
                         std::int64_t value, const char* dim = "");

/// Pass for a batch dimension that the kernel declares by name: any positive count is accepted.
inline constexpr std::int64_t kAnyBatch = -1;

/// Checks the batch count of a rank-3 tensor: positive when the kernel names it (`dim`), else
/// exactly `expected` ("bmm: A.batch = 0 but dimension B holds at least one matrix",
/// "bmm: W.batch = 3 but must be exactly 1 (one matrix shared by every batch)").
void check_batch(const char* kernel, const char* param, std::int64_t value, std::int64_t expected,
                 const char* dim = "");

/// Checks one dimension declared as a literal, e.g. 1 for a vector
/// ("k: bias.rows = 32 but must be exactly 1 (a row vector)").
void check_dim_equals(const char* kernel, const char* param, const char* axis, std::int64_t value,
                      std::int64_t expected);

/// Checks that two uses of the dimension name `dim` agree
/// ("matmul: dimension K mismatch: A.cols = 64 but B.rows = 96").
void check_same_dim(const char* kernel, const char* dim, const char* param_a, const char* axis_a,
                    std::int64_t a, const char* param_b, const char* axis_b, std::int64_t b);

/// Checks a grouped index's dimensions: `outer` (its variable's range) is `ratio` times `inner`
/// (the batch it indexes), as K[h / 2, j, e] needs with h over 0 .. H and K: [HK, S, D]
/// ("gqa: dimension H must be 2 times dimension HK (a grouped index divides by 2): Q.batch = 4
/// but K.batch = 3").
void check_grouped_dim(const char* kernel, const char* outer, const char* param_a,
                       const char* axis_a, std::int64_t a, std::int64_t ratio, const char* inner,
                       const char* param_b, const char* axis_b, std::int64_t b);

/// A row of tiles on TT (docs/lowering.md, "Rows of tiles") lives in a circular buffer of
/// `capacity` tiles: its dimension `dim` (`value`, from `param`.`axis`) over `tile` (32 for a row
/// over tiles(D), 1 for one over 0 .. B) must not need more ("attention_flash: row of tiles 'o'
/// needs D / 32 = 80 tiles (Q.cols = 2560), but its circular buffer holds 64 (D at most 2048)").
void check_row_fits(const char* kernel, const char* row, const char* dim, const char* param,
                    const char* axis, std::int64_t value, std::int64_t tile, std::int64_t capacity);

/// Checks that a non-empty view has data ("matmul: A.data is null but A is 64x32").
void check_data(const char* kernel, const char* param, const void* data, std::int64_t rows,
                std::int64_t cols);
/// The same for a batch ("bmm: A.data is null but A is 3x64x32").
void check_data(const char* kernel, const char* param, const void* data, std::int64_t batch,
                std::int64_t rows, std::int64_t cols);

/// One call per tensor parameter: `rows`/`cols` are kAnyTiles for a named dimension (named by
/// `rows_dim`/`cols_dim`) or the literal the kernel declares. Cross-parameter agreement is
/// check_same_dim's job.
template <class T>
void check_shape(const char* kernel, const char* param, const MatrixView<T>& v, std::int64_t rows,
                 std::int64_t cols, const char* rows_dim = "", const char* cols_dim = "") {
  if (rows == kAnyTiles)
    check_tile_multiple(kernel, param, "rows", v.rows, rows_dim);
  else
    check_dim_equals(kernel, param, "rows", v.rows, rows);
  if (cols == kAnyTiles)
    check_tile_multiple(kernel, param, "cols", v.cols, cols_dim);
  else
    check_dim_equals(kernel, param, "cols", v.cols, cols);
  check_data(kernel, param, v.data, v.rows, v.cols);
}

/// One call per rank-3 tensor parameter: the batch count (kAnyBatch for a named one), then rows
/// and columns as for a matrix.
template <class T>
void check_shape(const char* kernel, const char* param, const TensorView<T>& v, std::int64_t batch,
                 std::int64_t rows, std::int64_t cols, const char* batch_dim, const char* rows_dim,
                 const char* cols_dim) {
  check_batch(kernel, param, v.batch, batch, batch_dim);
  if (rows == kAnyTiles)
    check_tile_multiple(kernel, param, "rows", v.rows, rows_dim);
  else
    check_dim_equals(kernel, param, "rows", v.rows, rows);
  if (cols == kAnyTiles)
    check_tile_multiple(kernel, param, "cols", v.cols, cols_dim);
  else
    check_dim_equals(kernel, param, "cols", v.cols, cols);
  check_data(kernel, param, v.data, v.batch, v.rows, v.cols);
}

} // namespace tk
