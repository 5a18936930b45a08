// The renderer's working state, shared by statement execution (renderer.cpp) and expression
// evaluation (eval.cpp). Private to the engine.
#pragma once

#include "jinja/ast.hpp"
#include "jinja/filters.hpp"
#include "jinja/renderer.hpp"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace tk::jinja {

// Python's recursion limit would stop jinja2 too; ours keeps the C++ stack safe.
constexpr int max_call_depth = 200;
// The call depth alone does not bound the stack: each call may sit inside expressions nested 64
// deep (lists, calls, operators), and frames differ widely between builds (sanitizers, -O0). So a
// render also stops, with the same error, when less than this much of its thread's stack is left:
// enough for the unchecked work that follows (printing nested values, building the error).
constexpr std::size_t min_stack_left = std::size_t{1} << 20;

class Renderer {
public:
  explicit Renderer(const Environment& env);
  void run(const Template& t, Scope& scope, std::string& out);

private:
  [[noreturn]] void error(std::uint32_t pos, const std::string& msg);
  // "maximum recursion depth exceeded" at `pos` when less than min_stack_left of stack is left.
  // Inline, as charge, need and locate: they run for every expression, their failures out of line.
  void check_stack(std::uint32_t pos) {
    // The frame address, not a local's: ASan may keep locals on a separate fake stack.
    if (reinterpret_cast<std::uintptr_t>(__builtin_frame_address(0)) < stack_floor_) [[unlikely]]
      error(pos, "maximum recursion depth exceeded");
  }
  // Any use of an undefined value other than `default` and `is defined` fails here, at the
  // place the undefined value came from.
  const Value& need(const Value& v) {
    if (v.is_undefined()) [[unlikely]]
      undefined_used(v);
    return v;
  }
  [[noreturn]] void undefined_used(const Value& v);
  // Undefined results of filters and lookups get the location of the expression that made them.
  Value locate(Value v, std::uint32_t pos) {
    if (v.is_undefined() && !v.as_undefined().tmpl) [[unlikely]]
      return Value::undefined(v.as_undefined().message, tmpl_, pos);
    return v;
  }

  void body(const Body& stmts, Scope& scope, std::string& out);
  void statement(const Stmt& s, Scope& scope, std::string& out);
  void assign(const std::vector<std::string>& targets, Value v, std::uint32_t pos, Scope& scope);
  void for_loop(const Stmt& s, Scope& scope, std::string& out);
  void include(const Stmt& s, Scope& scope, std::string& out);

  // Evaluates `e`, charging the work it does (Options::max_work) and checking the stack.
  Value eval(const Expr& e, Scope& scope);
  Value eval_node(const Expr& e, Scope& scope);
  // Adds `n` to the work done; "render budget exceeded" at `pos` past Options::max_work.
  void charge(std::uint64_t n, std::uint32_t pos) {
    if (max_work_ != 0 && (work_ += n) > max_work_) [[unlikely]]
      over_budget(pos);
  }
  [[noreturn]] void over_budget(std::uint32_t pos);
  Value eval_compare(const Expr& e, Scope& scope);
  Value slice(const Expr& e, Scope& scope);
  CallArgs arguments(const Expr& e, Scope& scope);
  Value call(const Expr& e, Scope& scope, const Value* caller = nullptr);
  Value range(const Expr& e, const CallArgs& a);
  Value call_macro(const Macro& m, const CallArgs& a, std::uint32_t pos, const Value* caller);

  const Environment& env_;
  const Template* tmpl_ = nullptr;
  int depth_ = 0; // macro calls and includes in progress
  std::uint64_t work_ = 0;
  std::uint64_t max_work_; // Options::max_work; 0: no budget
  // The lowest stack address a frame may reach (the stack grows down on every target we build for).
  std::uintptr_t stack_floor_;
};

} // namespace tk::jinja
