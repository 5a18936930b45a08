// The AST of the tile language (.tk), as parsed: plain structs and std::variant, no Spirit.
// Every node records where it came from; the checker (dsl/check.hpp) fills in the semantic
// fields marked "set by check". See docs/language.md for the language itself.
#pragma once

#include "ops/ops.hpp"
#include "support/box.hpp"
#include "support/source.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace tk::dsl {

/// Where a node came from. Locations never take part in AST equality: a module printed and
/// parsed again equals the original although every offset moved.
struct Loc {
  SourceRange range;
  friend bool operator==(const Loc&, const Loc&) { return true; }
};

struct Ident {
  std::string name;
  Loc loc;
  friend bool operator==(const Ident&, const Ident&) = default;
};

/// Element types: bf16, f32, and bfp8 (Bfp8_b block floats, an input format: see check_decl.cpp).
enum class DType : std::uint8_t { bf16, f32, bfp8 };
std::string_view to_string(DType);
std::optional<DType> dtype_from_string(std::string_view);

// ---- builtin functions --------------------------------------------------------------------------
// The builtin functions are the rows of the op table (ops/ops.hpp) whose surface is `call`; the
// checker resolves Call::callee to one of them.
enum class Builtin : std::uint8_t {
#define TK_X(op, surface, args, kind, call, init, header, fn, body) TK_OPS_CALL(surface, op, )
  TK_TILE_OPS(TK_X)
#undef TK_X
      unknown
};
std::string_view to_string(Builtin);
int arity(Builtin);
Builtin builtin_from_string(std::string_view); // Builtin::unknown if none
/// The op table row of a builtin (not Builtin::unknown).
ops::Op to_op(Builtin);

// ---- expressions --------------------------------------------------------------------------------
/// What an expression denotes; set by check.
enum class Type : std::uint8_t { unknown, index, scalar, tile };
std::string_view to_string(Type);

/// One index of a tensor access: a loop index, an integer literal, `index + literal` /
/// `index - literal` (offset negative), or `index / literal` (a grouped index: floor division,
/// offset 0). The parser also takes `index / name` (divisor_name) so that the checker can say why
/// it is wrong.
struct TensorIndex {
  std::optional<Ident> var;
  std::int64_t offset = 0;
  Loc loc;
  bool divided = false;              // `h / 2`, `h / j`: a grouped index
  std::int64_t divisor = 1;          // `h / 2`: 2 (the checker requires a positive integer)
  std::optional<Ident> divisor_name; // `h / j`: j (an error)
  Loc divisor_loc;                   // the divisor as written, for diagnostics
  friend bool operator==(const TensorIndex&, const TensorIndex&) = default;
};

struct Expr;

/// A numeric literal: `32`, `0.5`, `1e-5`, `inf`, `-inf`, `-2`.
struct Number {
  double value = 0;
  bool is_integer = false; // written without '.', exponent or inf
  friend bool operator==(const Number&, const Number&) = default;
};

/// A bare name: a tile value bound by `=`, a scalar parameter, or a loop index.
struct Name {
  Ident id;
  friend bool operator==(const Name&, const Name&) = default;
};

/// `T[i, j]`: one tile of a tensor; or `o[d]`: one tile of a row of tiles (RowInit).
struct Access {
  Ident tensor;
  std::vector<TensorIndex> indices;
  bool row = false; // set by check: `tensor` names a row of tiles, not a tensor
  friend bool operator==(const Access&, const Access&) = default;
};

struct Call {
  Ident callee;
  std::vector<Expr> args;
  Builtin fn = Builtin::unknown; // set by check
  /// A position builtin (tril, triu; op table kind `position`): its arguments as the tile indices
  /// they denote, one per argument (set by check).
  std::vector<TensorIndex> indices;
  friend bool operator==(const Call&, const Call&) = default;
};

enum class BinOp : std::uint8_t { add, sub, mul, matmul, div, lt, le, gt, ge, eq, ne };
std::string_view to_string(BinOp); // "+", "-", "*", "@", "/", "<", "<=", ">", ">=", "==", "!="
/// @, * and / bind tighter (2) than + and - (1), which bind tighter than the comparisons (0).
int precedence(BinOp);
bool is_comparison(BinOp);

struct Binary {
  BinOp op = BinOp::add;
  Box<Expr> lhs;
  Box<Expr> rhs;
  friend bool operator==(const Binary&, const Binary&) = default;
};

struct Expr {
  std::variant<Number, Name, Access, Call, Binary> node;
  Loc loc;
  Type type = Type::unknown; // set by check
  friend bool operator==(const Expr&, const Expr&) = default;
};

// ---- statements ---------------------------------------------------------------------------------
/// A range bound: an integer literal, `tiles(D)`, a batch dimension `B` (its size, counted in
/// matrices), or an enclosing loop variable plus or minus an integer (`i + 1`: a triangular loop).
struct Bound {
  std::optional<Ident> tiles_of; // `tiles(D)`: D / 32
  std::int64_t value = 0;        // the literal, when tiles_of and size_of are empty
  Loc loc;
  /// A bare name: a batch dimension `B` (its count of matrices) or a loop variable `i`.
  std::optional<Ident> size_of;
  std::int64_t offset = 0; // `i + 1`, `i - 1` (a loop variable only)
  bool is_index = false;   // size_of names an enclosing loop variable (set by check)
  friend bool operator==(const Bound&, const Bound&) = default;
};

/// `tiles(D)` (lo empty: 0 .. D/32) or `lo .. hi`.
struct Range {
  std::optional<Bound> lo;
  Bound hi;
  Loc loc;
  friend bool operator==(const Range&, const Range&) = default;
};

struct LoopVar {
  Ident var;
  Range range;
  friend bool operator==(const LoopVar&, const LoopVar&) = default;
};

struct Stmt;

/// `x = EXPR`
struct Assign {
  Ident name;
  Expr value;
  friend bool operator==(const Assign&, const Assign&) = default;
};

/// `x += EXPR`
struct Accumulate {
  Ident name;
  Expr value;
  friend bool operator==(const Accumulate&, const Accumulate&) = default;
};

/// `o[d in tiles(D)] = EXPR`: binds `o` to a row of tiles, one per value of `d`, tile `d` the
/// value of EXPR for that `d`. `o[d] = EXPR` (a Store whose target is a row) updates one tile and
/// `o[d]` (an Access) reads one (docs/language.md, "Rows of tiles").
struct RowInit {
  Ident name;
  LoopVar loop;
  Expr value;
  friend bool operator==(const RowInit&, const RowInit&) = default;
};

/// `T[i, j] = EXPR`
struct Store {
  Access target;
  Loc target_loc;
  Expr value;
  friend bool operator==(const Store&, const Store&) = default;
};

/// `for k in R { ... }`
struct For {
  LoopVar loop;
  std::vector<Stmt> body;
  friend bool operator==(const For&, const For&) = default;
};

/// `parallel i in R1, j in R2 { ... }`
struct Parallel {
  std::vector<LoopVar> loops;
  std::vector<Stmt> body;
  friend bool operator==(const Parallel&, const Parallel&) = default;
};

struct Stmt {
  std::variant<Assign, Accumulate, Store, For, Parallel, RowInit> node;
  Loc loc;
  friend bool operator==(const Stmt&, const Stmt&) = default;
};

// ---- declarations -------------------------------------------------------------------------------
/// A tensor dimension: a name bound at run time, or an integer literal (1 for a broadcast vector).
struct Dim {
  std::optional<Ident> name;
  std::int64_t size = 0; // the literal, when name is empty
  Loc loc;
  friend bool operator==(const Dim&, const Dim&) = default;
};

/// `NAME: DTYPE[D0, D1]` or `NAME: DTYPE[B, D0, D1]` (tensor; B counts matrices) or `NAME: f32`
/// (scalar; dims empty).
struct Param {
  Ident name;
  DType dtype = DType::bf16;
  Loc dtype_loc;
  bool is_tensor = false;
  std::vector<Dim> dims;
  Loc loc;
  friend bool operator==(const Param&, const Param&) = default;
};

/// `8x8`
struct GridValue {
  std::int64_t x = 0;
  std::int64_t y = 0;
  friend bool operator==(const GridValue&, const GridValue&) = default;
};

/// One `key = value` of `@options(...)`. A bare word (`HiFi4`) is kept as a string.
struct Option {
  Ident key;
  std::variant<std::int64_t, bool, std::string, GridValue> value;
  Loc value_loc;
  friend bool operator==(const Option&, const Option&) = default;
};

/// A grouped index `x[v / r, ...]` where `v` ranges over `0 .. outer` and the batch dimension of
/// `x` is `inner`, another name: the host checks that `outer` is `r` times `inner`.
struct GroupedDim {
  std::string outer;
  std::int64_t ratio = 1;
  std::string inner;
  friend bool operator==(const GroupedDim&, const GroupedDim&) = default;
};

struct Kernel {
  std::vector<Option> options; // from `@options(...)` before `kernel`
  Ident name;
  std::vector<Param> inputs;
  std::vector<Param> outputs;
  std::vector<Stmt> body;
  Loc loc;
  std::vector<GroupedDim> grouped; // set by check, one per (outer, ratio, inner)
  friend bool operator==(const Kernel&, const Kernel&) = default;
};

struct Module {
  std::vector<Kernel> kernels;
  friend bool operator==(const Module&, const Module&) = default;
};

} // namespace tk::dsl
