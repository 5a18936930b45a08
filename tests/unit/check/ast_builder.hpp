// Terse builders for checker tests: ASTs written in C++ without the parser. Every node gets a
// distinct source range (a running counter) so that notes and errors point somewhere.
#pragma once

#include "dsl/ast.hpp"

#include <cctype>
#include <string>
#include <vector>

namespace tk::dsl::build {

inline std::uint32_t next_pos() {
  static std::uint32_t pos = 0;
  pos += 2;
  return pos;
}
inline Loc loc() {
  std::uint32_t p = next_pos();
  return Loc{{p, p + 1}};
}
inline Ident id(const std::string& n) {
  return Ident{n, loc()};
}

/// "i", "i+1", "j-1" or "0".
inline TensorIndex ix(const std::string& s) {
  TensorIndex t;
  t.loc = loc();
  if (std::isdigit(static_cast<unsigned char>(s[0]))) {
    t.offset = std::stoll(s);
    return t;
  }
  auto k = s.find_first_of("+-");
  t.var = id(s.substr(0, k));
  if (k != std::string::npos)
    t.offset = (s[k] == '-' ? -1 : 1) * std::stoll(s.substr(k + 1));
  return t;
}

inline Expr mk(decltype(Expr::node) n) {
  return Expr{std::move(n), loc(), Type::unknown};
}
inline Expr num(double v, bool integer = false) {
  return mk(Number{v, integer});
}
inline Expr name(const std::string& n) {
  return mk(Name{id(n)});
}
inline Expr at(const std::string& t, std::vector<std::string> idx) {
  Access a{id(t), {}};
  for (auto& s : idx)
    a.indices.push_back(ix(s));
  return mk(std::move(a));
}
inline Expr call(const std::string& f, std::vector<Expr> args = {}) {
  return mk(Call{id(f), std::move(args), Builtin::unknown});
}
inline Expr bin(BinOp op, Expr a, Expr b) {
  return mk(Binary{op, std::move(a), std::move(b)});
}
inline Expr mm(Expr a, Expr b) {
  return bin(BinOp::matmul, std::move(a), std::move(b));
}
inline Expr add(Expr a, Expr b) {
  return bin(BinOp::add, std::move(a), std::move(b));
}
inline Expr sub(Expr a, Expr b) {
  return bin(BinOp::sub, std::move(a), std::move(b));
}
inline Expr mul(Expr a, Expr b) {
  return bin(BinOp::mul, std::move(a), std::move(b));
}

inline Stmt st(decltype(Stmt::node) n) {
  return Stmt{std::move(n), loc()};
}
inline Stmt assign(const std::string& n, Expr v) {
  return st(Assign{id(n), std::move(v)});
}
inline Stmt accum(const std::string& n, Expr v) {
  return st(Accumulate{id(n), std::move(v)});
}
inline Stmt store(const std::string& t, std::vector<std::string> idx, Expr v) {
  Expr target = at(t, std::move(idx));
  return st(Store{std::get<Access>(target.node), target.loc, std::move(v)});
}
/// "tiles(N)", "1..tiles(N)", "0..4".
inline Range range(const std::string& s) {
  auto bound = [](const std::string& b) {
    Bound r;
    r.loc = loc();
    if (b.rfind("tiles(", 0) == 0)
      r.tiles_of = id(b.substr(6, b.size() - 7));
    else if (!b.empty() && std::isalpha(static_cast<unsigned char>(b[0])))
      r.size_of = id(b); // a batch dimension: `0..B`
    else
      r.value = std::stoll(b);
    return r;
  };
  Range r;
  r.loc = loc();
  auto k = s.find("..");
  if (k == std::string::npos) {
    r.hi = bound(s);
  } else {
    r.lo = bound(s.substr(0, k));
    r.hi = bound(s.substr(k + 2));
  }
  return r;
}
inline LoopVar lv(const std::string& v, const std::string& r) {
  return LoopVar{id(v), range(r)};
}
inline Stmt for_(const std::string& v, const std::string& r, std::vector<Stmt> body) {
  return st(For{lv(v, r), std::move(body)});
}
inline Stmt par(std::vector<LoopVar> loops, std::vector<Stmt> body) {
  return st(Parallel{std::move(loops), std::move(body)});
}

/// tensor("A", {"M", "K"}), tensor("bias", {"1", "N"}, DType::f32)
inline Param tensor(const std::string& n, std::vector<std::string> dims, DType t = DType::bf16) {
  Param p{id(n), t, loc(), true, {}, loc()};
  for (auto& d : dims) {
    Dim dim;
    dim.loc = loc();
    if (std::isdigit(static_cast<unsigned char>(d[0])))
      dim.size = std::stoll(d);
    else
      dim.name = Ident{d, dim.loc};
    p.dims.push_back(dim);
  }
  return p;
}
inline Param scalar(const std::string& n, DType t = DType::f32) {
  return Param{id(n), t, loc(), false, {}, loc()};
}

inline Kernel kernel(const std::string& n, std::vector<Param> in, std::vector<Param> out,
                     std::vector<Stmt> body, std::vector<Option> options = {}) {
  return Kernel{std::move(options), id(n), std::move(in), std::move(out), std::move(body), loc()};
}
inline Option opt(const std::string& key, decltype(Option::value) v) {
  return Option{id(key), std::move(v), loc()};
}

} // namespace tk::dsl::build
