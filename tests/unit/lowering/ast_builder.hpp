// Small builders for checked DSL ASTs in C++ (types and resolved builtins set as dsl::check
// would), so to-tile-ir is tested without the parser.
#pragma once

#include "dsl/ast.hpp"

#include <cctype>
#include <string>

namespace tk::lower::test {

inline dsl::Ident id(std::string n) {
  return {std::move(n), {}};
}

inline dsl::Param tensor(std::string n, std::vector<std::string> dims,
                         dsl::DType t = dsl::DType::bf16) {
  dsl::Param p;
  p.name = id(std::move(n));
  p.dtype = t;
  p.is_tensor = true;
  for (std::string& d : dims)
    p.dims.push_back(std::isdigit(static_cast<unsigned char>(d[0]))
                         ? dsl::Dim{std::nullopt, std::stoll(d), {}}
                         : dsl::Dim{id(d), 0, {}});
  return p;
}
inline dsl::Param scalar(std::string n) {
  dsl::Param p;
  p.name = id(std::move(n));
  p.dtype = dsl::DType::f32;
  return p;
}

inline dsl::Expr num(double v) {
  return {dsl::Number{v, false}, {}, dsl::Type::scalar};
}
inline dsl::Expr name(std::string n, dsl::Type t = dsl::Type::tile) {
  return {dsl::Name{id(std::move(n))}, {}, t};
}
inline dsl::TensorIndex idx(std::string v, std::int64_t off = 0) {
  return {id(std::move(v)), off, {}};
}
inline dsl::TensorIndex lit(std::int64_t v) {
  return {std::nullopt, v, {}};
}
inline dsl::Expr access(std::string t, std::vector<dsl::TensorIndex> ix) {
  return {dsl::Access{id(std::move(t)), std::move(ix)}, {}, dsl::Type::tile};
}
inline dsl::Expr call(std::string f, std::vector<dsl::Expr> args) {
  dsl::Builtin b = dsl::builtin_from_string(f);
  return {dsl::Call{id(std::move(f)), std::move(args), b}, {}, dsl::Type::tile};
}
inline dsl::Expr bin(dsl::BinOp op, dsl::Expr a, dsl::Expr b) {
  dsl::Type t = a.type == dsl::Type::scalar && b.type == dsl::Type::scalar ? dsl::Type::scalar
                                                                           : dsl::Type::tile;
  return {dsl::Binary{op, std::move(a), std::move(b)}, {}, t};
}
inline dsl::Range tiles(std::string d) {
  return {std::nullopt, {id(std::move(d)), 0, {}}, {}};
}
inline dsl::Range range(std::int64_t lo, std::int64_t hi) {
  return {dsl::Bound{std::nullopt, lo, {}}, {std::nullopt, hi, {}}, {}};
}

inline dsl::Stmt assign(std::string n, dsl::Expr e) {
  return {dsl::Assign{id(std::move(n)), std::move(e)}, {}};
}
inline dsl::Stmt accumulate(std::string n, dsl::Expr e) {
  return {dsl::Accumulate{id(std::move(n)), std::move(e)}, {}};
}
inline dsl::Stmt store(std::string t, std::vector<dsl::TensorIndex> ix, dsl::Expr e) {
  return {dsl::Store{dsl::Access{id(std::move(t)), std::move(ix)}, {}, std::move(e)}, {}};
}
inline dsl::Stmt for_(std::string v, dsl::Range r, std::vector<dsl::Stmt> body) {
  return {dsl::For{{id(std::move(v)), std::move(r)}, std::move(body)}, {}};
}
inline dsl::Stmt parallel(std::vector<std::pair<std::string, dsl::Range>> loops,
                          std::vector<dsl::Stmt> body) {
  dsl::Parallel p;
  for (auto& [v, r] : loops)
    p.loops.push_back({id(v), r});
  p.body = std::move(body);
  return {std::move(p), {}};
}

/// C = A @ B (dsl.md's first kernel).
inline dsl::Module matmul_ast() {
  dsl::Kernel k;
  k.name = id("matmul");
  k.inputs = {tensor("A", {"M", "K"}), tensor("B", {"K", "N"})};
  k.outputs = {tensor("C", {"M", "N"})};
  k.body = {
      parallel({{"i", tiles("M")}, {"j", tiles("N")}},
               {assign("acc", call("zeros", {})),
                for_("k", tiles("K"),
                     {accumulate("acc", bin(dsl::BinOp::matmul, access("A", {idx("i"), idx("k")}),
                                            access("B", {idx("k"), idx("j")})))}),
                store("C", {idx("i"), idx("j")}, name("acc"))})};
  dsl::Module m;
  m.kernels.push_back(std::move(k));
  return m;
}

} // namespace tk::lower::test
