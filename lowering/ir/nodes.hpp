// The expression and statement nodes of the tile IR. Node kinds are listed once (the X-macros
// below) and generate the kind enums, the Visitor/Mutator dispatch and the printer's dispatch.
// Nodes are immutable and shared (shared_ptr<const ...>); build them with the factory functions.
#pragma once

#include "lowering/ir/intrinsics.hpp"
#include "lowering/ir/types.hpp"
#include "support/source.hpp"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace tk::ir {

#define TK_IR_EXPR_NODES(X) X(IntImm) X(FloatImm) X(EnumImm) X(Var) X(Ref) X(Binary) X(Load) X(Call)
#define TK_IR_STMT_NODES(X) X(Block) X(Decl) X(Assign) X(Store) X(Evaluate) X(For) X(IfThenElse)

enum class ExprKind : std::uint8_t {
#define TK_X(n) n,
  TK_IR_EXPR_NODES(TK_X)
#undef TK_X
};
enum class StmtKind : std::uint8_t {
#define TK_X(n) n,
  TK_IR_STMT_NODES(TK_X)
#undef TK_X
};

/// Where a node came from in the .tk file (empty when built by a stage). Never printed and never
/// part of equality, so a module read back from text equals the original.
struct Loc {
  SourceRange range;
  friend bool operator==(const Loc&, const Loc&) { return true; }
};

struct ExprNode {
  ExprKind kind;
  Type type;
};
struct StmtNode {
  StmtKind kind;
  Loc loc;
};
using Expr = std::shared_ptr<const ExprNode>;
using Stmt = std::shared_ptr<const StmtNode>;

// ---- binary operators on integers, scalars and booleans -----------------------------------------
// X(enumerator, spelling, precedence); precedence 0 means printed as a call: `min(a, b)`.
#define TK_IR_BINARY_OPS(X)                                                                        \
  X(add, "+", 5)                                                                                   \
  X(sub, "-", 5)                                                                                   \
  X(mul, "*", 6)                                                                                   \
  X(div, "/", 6)                                                                                   \
  X(mod, "%", 6)                                                                                   \
  X(min, "min", 0)                                                                                 \
  X(max, "max", 0)                                                                                 \
  X(lt, "<", 4)                                                                                    \
  X(le, "<=", 4)                                                                                   \
  X(gt, ">", 4)                                                                                    \
  X(ge, ">=", 4)                                                                                   \
  X(eq, "==", 3)                                                                                   \
  X(ne, "!=", 3)                                                                                   \
  X(logical_and, "&&", 2)                                                                          \
  X(logical_or, "||", 1)

enum class BinaryOp : std::uint8_t {
#define TK_X(e, s, p) e,
  TK_IR_BINARY_OPS(TK_X)
#undef TK_X
};
std::string_view to_string(BinaryOp);
int precedence(BinaryOp);
bool is_comparison(BinaryOp);
bool is_logical(BinaryOp);

// ---- expressions --------------------------------------------------------------------------------
/// An integer immediate, typed i32 (printed `5`) or u32 (printed `5u`).
struct IntImm : ExprNode {
  std::int64_t value;
};
/// An f32 immediate, printed with a '.' or exponent so it never reads back as an integer.
struct FloatImm : ExprNode {
  double value;
};
/// A symbolic constant such as `PoolType::SUM`.
struct EnumImm : ExprNode {
  EnumConst value;
};
/// A use of a variable (loop index, `let`-bound local, or function parameter). Identity is the
/// name.
struct Var : ExprNode {
  std::string name;
};
/// A reference to a circular buffer (type cb) or a tensor (type tensor) of the enclosing program.
struct Ref : ExprNode {
  std::string name;
};
struct Binary : ExprNode {
  BinaryOp op;
  Expr a, b;
};
/// `load A[i, k]`: one tile of a tensor at tile coordinates.
struct Load : ExprNode {
  std::string tensor;
  std::vector<Expr> indices;
  Loc loc;
};
/// `fn(args...)`; its type follows from the intrinsic's signature.
struct Call : ExprNode {
  Intrinsic fn;
  std::vector<Expr> args;
  Loc loc;
};

// ---- statements ---------------------------------------------------------------------------------
/// A sequence; factories flatten nested blocks so the structure matches the printed text.
struct Block : StmtNode {
  std::vector<Stmt> stmts;
};
/// `let x: T = value`: declares a mutable local (tile values are rebound with Assign).
struct Decl : StmtNode {
  std::string name;
  Type type;
  Expr value;
};
/// `x = value`: rebinds a local declared by an enclosing Decl.
struct Assign : StmtNode {
  std::string name;
  Expr value;
};
/// `store C[i, j] = value`
struct Store : StmtNode {
  std::string tensor;
  std::vector<Expr> indices;
  Expr value;
};
/// A call evaluated for its side effect: `cb_reserve_back(cb_in0, 1)`.
struct Evaluate : StmtNode {
  Expr call;
};
/// `for var in min .. min+extent role { body }`; the loop variable is an i32. The factory wraps
/// a body that is not a Block into one (so does if_then_else), matching what the reader builds.
struct For : StmtNode {
  std::string var;
  Expr min, extent;
  ForRole role;
  Stmt body;
};
struct IfThenElse : StmtNode {
  Expr cond;
  Stmt then_case;
  Stmt else_case; // may be null
};

// ---- downcasts ----------------------------------------------------------------------------------
template <class T>
struct NodeKindOf;
#define TK_X(n)                                                                                    \
  template <>                                                                                      \
  struct NodeKindOf<n> {                                                                           \
    static constexpr auto value = ExprKind::n;                                                     \
  };
TK_IR_EXPR_NODES(TK_X)
#undef TK_X
#define TK_X(n)                                                                                    \
  template <>                                                                                      \
  struct NodeKindOf<n> {                                                                           \
    static constexpr auto value = StmtKind::n;                                                     \
  };
TK_IR_STMT_NODES(TK_X)
#undef TK_X

/// The node as a T, or null when it is of another kind.
template <class T>
const T* as(const Expr& e) {
  return e && e->kind == NodeKindOf<T>::value ? static_cast<const T*>(e.get()) : nullptr;
}
template <class T>
const T* as(const Stmt& s) {
  return s && s->kind == NodeKindOf<T>::value ? static_cast<const T*>(s.get()) : nullptr;
}

// ---- factories ----------------------------------------------------------------------------------
Expr int_imm(std::int64_t v, Type t = Type::i32());
Expr float_imm(double v);
Expr enum_imm(EnumConst v);
Expr var(std::string name, Type t);
Expr cb_ref(std::string name);
Expr tensor_ref(std::string name);
/// Result type: comparisons and logical ops give bool; integer math gives u32 if either side is
/// u32, else i32; f32 math gives f32.
Expr binary(BinaryOp op, Expr a, Expr b);
Expr load(std::string tensor, DType dtype, std::vector<Expr> indices, SourceRange loc = {});
Expr call(Intrinsic fn, std::vector<Expr> args, SourceRange loc = {});
/// The type a call to `fn` with these arguments has (see intrinsics.hpp for the tile rule).
Type call_type(Intrinsic fn, const std::vector<Expr>& args);

Stmt block(std::vector<Stmt> stmts);
Stmt decl(std::string name, Type t, Expr value, SourceRange loc = {});
Stmt assign(std::string name, Expr value, SourceRange loc = {});
Stmt store(std::string tensor, std::vector<Expr> indices, Expr value, SourceRange loc = {});
Stmt evaluate(Expr call, SourceRange loc = {});
Stmt for_loop(std::string var, Expr min, Expr extent, ForRole role, Stmt body,
              SourceRange loc = {});
Stmt if_then_else(Expr cond, Stmt then_case, Stmt else_case = nullptr, SourceRange loc = {});

// Shorthands for index math in stages and tests.
inline Expr operator+(Expr a, Expr b) {
  return binary(BinaryOp::add, std::move(a), std::move(b));
}
inline Expr operator-(Expr a, Expr b) {
  return binary(BinaryOp::sub, std::move(a), std::move(b));
}
inline Expr operator*(Expr a, Expr b) {
  return binary(BinaryOp::mul, std::move(a), std::move(b));
}
inline Expr operator/(Expr a, Expr b) {
  return binary(BinaryOp::div, std::move(a), std::move(b));
}
inline Expr operator%(Expr a, Expr b) {
  return binary(BinaryOp::mod, std::move(a), std::move(b));
}

} // namespace tk::ir
