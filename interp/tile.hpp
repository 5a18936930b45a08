// Tile values of the interpreter and the operations of the language on them, in double precision:
// element-wise functions, + - * with tiles or scalars, @, the reductions and the broadcasts
// (docs/language.md, "Expressions"). Each element also carries a bound on how far a target of
// the given Precision may be from it (precision.hpp; 0 everywhere for exact arithmetic).
#pragma once

#include "dsl/ast.hpp"
#include "interp/precision.hpp"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace tk::interp {

inline constexpr int kTile = 32;

/// Where a target keeps a named tile, as far as reading it is concerned (docs/difftest.md):
/// `value` an ordinary value or intermediate; `carried` a carried sum in a Float32 CB that only
/// copy_tile reads (exact) and the FPU reads through a copy; `exact` the carried operand inside its
/// own combine, or a tile SrcA/SrcB hold exactly (a load of bf16 data).
/// `through_src`: a tile of an f32 tensor that the FPU reads too, so that its CB cannot be unpacked
/// straight to DST: every read is TF32 (Precision::sfpu_arith).
enum class Kept : std::uint8_t { value, carried, exact, through_src };

/// A 32x32 tile of doubles, row-major, and the error bound of each element. Held on the heap so
/// that moving a value is cheap.
class Tile {
public:
  Kept kept = Kept::value;
  /// The result of `+` or `-` of two tiles: a sum's operand TT splits (Precision::split_sum).
  bool terms = false;
  explicit Tile(double value = 0.0) : v_(kTile * kTile, value), e_(kTile * kTile, 0.0) {}
  double& operator()(int r, int c) { return v_[static_cast<std::size_t>(r * kTile + c)]; }
  double operator()(int r, int c) const { return v_[static_cast<std::size_t>(r * kTile + c)]; }
  double& operator[](std::size_t i) { return v_[i]; }
  double operator[](std::size_t i) const { return v_[i]; }
  /// The bound on |computed - exact| of element i (or (r, c)); infinite when none holds.
  double& err(std::size_t i) { return e_[i]; }
  double err(std::size_t i) const { return e_[i]; }
  double& err(int r, int c) { return e_[static_cast<std::size_t>(r * kTile + c)]; }
  double err(int r, int c) const { return e_[static_cast<std::size_t>(r * kTile + c)]; }
  static constexpr std::size_t size() { return kTile * kTile; }

private:
  std::vector<double> v_;
  std::vector<double> e_;
};

/// One element of a unary element-wise builtin (exp ... square); gelu is the exact erf form.
double unary(dsl::Builtin f, double x);
/// One element of + - * / (not @).
double binary(dsl::BinOp op, double a, double b);

/// A scalar value and the bound on |computed - exact| of it: scalar expressions are computed
/// once, in f32, on the target's host (docs/language.md).
struct Scalar {
  double v = 0;
  double err = 0;
};
/// `a op b` on two scalars, with the bound (the operands' errors, then the f32 rounding).
Scalar apply(dsl::BinOp op, Scalar a, Scalar b, const Precision& p);

/// A unary element-wise builtin on every element.
Tile apply(dsl::Builtin f, const Tile& a, const Precision& p);
/// elu(a, alpha) on every element: alpha * (e^x - 1) below 0, x from 0 on.
Tile elu(const Tile& a, Scalar alpha, const Precision& p);
/// max or min, element by element.
Tile apply(dsl::Builtin f, const Tile& a, const Tile& b, const Precision& p);
/// `a op b` for + - * (element-wise) and @ (the 32x32 matrix product).
Tile apply(dsl::BinOp op, const Tile& a, const Tile& b, const Precision& p);
/// `a op s` (scalar on the right) or `s op a` (scalar_left), element-wise; op is + - * or /.
/// A division is computed as the targets do: a / s as a * (1 / s), s / a as s * recip(a).
Tile apply(dsl::BinOp op, const Tile& a, Scalar s, bool scalar_left, const Precision& p);
/// rowsum, rowmax (column 0 holds one value per row), colsum, colmax (row 0 holds one value per
/// column); every other element is 0.
Tile reduce(dsl::Builtin f, const Tile& a, const Precision& p);
/// bcast_row (row 0 repeated down every row) or bcast_col (column 0 repeated across every column).
Tile broadcast(dsl::Builtin f, const Tile& a, const Precision& p);
/// where(m, a, b): a's element where m's is not 0, else b's (moved, not computed: no rounding).
Tile where(const Tile& m, const Tile& a, const Tile& b, const Precision& p);
/// The 32x32 transpose: element (r, c) is a's (c, r), read and kept like a broadcast's.
Tile transpose(const Tile& a, const Precision& p);
/// tril(i, j) (element (r, c) is 1 where 32 i + r >= 32 j + c, else 0) or triu(i, j) (1 where
/// 32 i + r <= 32 j + c): exact, every bound 0.
Tile position(dsl::Builtin f, std::int64_t i, std::int64_t j);
/// fill(value) (zeros() is fill(0)): the constant as the target keeps it.
Tile constant(double value, const Precision& p, double err = 0);

/// The bound of element i of `t` as an operand: read by the FPU (through SrcA/SrcB) or not
/// (copy_tile to DST, then the SFPU or the packer).
double operand(const Tile& t, std::size_t i, const Precision& p, bool fpu);

} // namespace tk::interp
