// The reducer (reduce.hpp): greedy, one candidate change at a time, each kept when the kernel
// still fails the same way; candidates are enumerated afresh after every accepted change and a
// program already tried is never run twice.
#include "tools/difftest/reduce.hpp"

#include <cstdint>
#include <set>
#include <utility>

namespace tk::difftest {
namespace {

/// The n-th statement of `body` in pre-order (counting down n), or nullptr. `list` and `index`
/// say where it sits.
Stmt* nth_stmt(std::vector<Stmt>& body, int& n, std::vector<Stmt>** list, std::size_t* index) {
  for (std::size_t i = 0; i < body.size(); ++i) {
    if (n-- == 0) {
      *list = &body;
      *index = i;
      return &body[i];
    }
    if (Stmt* s = nth_stmt(body[i].body, n, list, index))
      return s;
  }
  return nullptr;
}

Expr* nth_expr(Expr& e, int& n) {
  if (n-- == 0)
    return &e;
  for (Expr& a : e.args)
    if (Expr* x = nth_expr(a, n))
      return x;
  return nullptr;
}

Expr* nth_expr(std::vector<Stmt>& body, int& n) {
  for (Stmt& s : body) {
    if (s.kind != Stmt::Kind::loop)
      if (Expr* x = nth_expr(s.value, n))
        return x;
    if (Expr* x = nth_expr(s.body, n))
      return x;
  }
  return nullptr;
}

bool mentions(const std::vector<Stmt>& body, const std::string& name) {
  auto in_expr = [&](auto&& self, const Expr& e) -> bool {
    if (e.kind == Expr::Kind::leaf && (e.text == name || e.text.rfind(name + "[", 0) == 0))
      return true;
    for (const Expr& a : e.args)
      if (self(self, a))
        return true;
    return false;
  };
  for (const Stmt& s : body)
    if (in_expr(in_expr, s.value) || mentions(s.body, name))
      return true;
  return false;
}

/// Every one-step simplification of p, roughly the biggest first.
std::vector<Program> candidates(const Program& p) {
  std::vector<Program> out;
  for (const auto& [d, size] : p.dims)
    if (size > 32) {
      Program c = p;
      c.dims[d] = 32;
      out.push_back(std::move(c));
    }
  for (int n = 0;; ++n) { // remove the n-th statement (a store takes its output with it)
    Program c = p;
    int k = n;
    std::vector<Stmt>* list = nullptr;
    std::size_t index = 0;
    Stmt* s = nth_stmt(c.body, k, &list, &index);
    if (s == nullptr)
      break;
    if (s->kind == Stmt::Kind::store) {
      const std::string output = s->target.substr(0, s->target.find('['));
      std::erase_if(c.outputs, [&](const Tensor& t) { return t.name == output; });
    }
    list->erase(list->begin() + static_cast<std::ptrdiff_t>(index));
    out.push_back(std::move(c));
  }
  for (int n = 0;; ++n) { // replace the n-th expression by an operand or a constant tile
    Program probe = p;
    int k = n;
    Expr* e = nth_expr(probe.body, k);
    if (e == nullptr)
      break;
    std::vector<Expr> replacements = e->args;
    if (e->kind != Expr::Kind::leaf && !(e->kind == Expr::Kind::call && e->text == "fill"))
      replacements.push_back(Expr::call("fill", {Expr::leaf("1.0")}));
    for (Expr& r : replacements) {
      Program c = p;
      int m = n;
      *nth_expr(c.body, m) = r;
      out.push_back(std::move(c));
    }
  }
  for (std::size_t i = 0; i < p.options.size(); ++i) {
    Program c = p;
    c.options.erase(c.options.begin() + static_cast<std::ptrdiff_t>(i));
    out.push_back(std::move(c));
  }
  Program unused = p; // inputs nothing reads any more
  std::erase_if(unused.inputs, [&](const Tensor& t) { return !mentions(p.body, t.name); });
  std::erase_if(unused.scalars, [&](const std::string& s) {
    return !mentions(p.body, s) && unused.scalar_values.erase(s) > 0;
  });
  if (unused.inputs.size() != p.inputs.size() || unused.scalars.size() != p.scalars.size())
    out.push_back(std::move(unused));
  return out;
}

} // namespace

Program reduce(Program p, const std::function<bool(const Program&)>& fails, std::ostream* log) {
  // Only strictly smaller programs are kept (shorter text, or as long with smaller sizes), so the
  // reduction ends.
  auto cost = [](const Program& q) {
    std::int64_t elements = 0;
    for (const auto& [d, n] : q.dims)
      elements += n;
    return std::pair(print(q).size(), elements);
  };
  std::set<std::string> tried{print(p)};
  for (bool progress = true; progress;) {
    progress = false;
    for (Program& c : candidates(p)) {
      if (!(cost(c) < cost(p)) || !tried.insert(print(c)).second || !fails(c))
        continue;
      p = std::move(c);
      progress = true;
      if (log)
        *log << "reduce: " << print(p).size() << " bytes\n";
      break;
    }
  }
  return p;
}

} // namespace tk::difftest
