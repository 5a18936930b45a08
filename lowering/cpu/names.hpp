// Names for the CPU stages: fresh names that avoid every name a function already uses
// (parameters, locals, loop variables, the program's tensors), so a stage-made name never shadows
// one (the verifier forbids shadowing, and the generated C++ would silently read the wrong
// variable); and whether a node reads a variable.
#pragma once

#include "lowering/ir/module.hpp"
#include "lowering/ir/visitor.hpp"

#include <set>
#include <string>

namespace tk::lower::cpu {

/// True when `node` (an expression or statement) reads the variable `name`.
template <class Node>
bool mentions(const Node& node, const std::string& name) {
  struct Finder : ir::Visitor {
    const std::string& n;
    bool found = false;
    explicit Finder(const std::string& x) : n(x) {}
    void visit_node(const ir::Var& v) override { found = found || v.name == n; }
  } f{name};
  f.visit(node);
  return f.found;
}

class NameSet {
public:
  NameSet(const ir::Program& p, const ir::Function& f) {
    for (const ir::Tensor& t : p.tensors)
      used_.insert(t.name);
    for (const ir::CircularBuffer& c : p.cbs)
      used_.insert(c.name);
    for (const ir::Param& q : f.params)
      used_.insert(q.name);
    Collector c{used_};
    c.visit(f.body);
  }
  /// `base` if unused, else base1, base2, ...; the result is marked used.
  std::string fresh(const std::string& base) {
    std::string n = base;
    for (int i = 1; used_.count(n); ++i)
      n = base + std::to_string(i);
    used_.insert(n);
    return n;
  }
  /// base0, base1, ... skipping used names; for numbered temporaries.
  std::string numbered(const std::string& base) {
    std::string n;
    do
      n = base + std::to_string(next_++);
    while (used_.count(n));
    used_.insert(n);
    return n;
  }

private:
  struct Collector : ir::Visitor {
    std::set<std::string>& names;
    explicit Collector(std::set<std::string>& n) : names(n) {}
    void visit_node(const ir::Decl& d) override {
      names.insert(d.name);
      ir::Visitor::visit_node(d);
    }
    void visit_node(const ir::For& f) override {
      names.insert(f.var);
      ir::Visitor::visit_node(f);
    }
    void visit_node(const ir::Var& v) override { names.insert(v.name); }
  };
  std::set<std::string> used_;
  int next_ = 0;
};

} // namespace tk::lower::cpu
