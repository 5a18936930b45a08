// Evaluation of expressions and execution of statements (see renderer.hpp). Undefined values
// travel as values until something uses them; then the error points at where they arose.
#include "jinja/renderer.hpp"

#include "jinja/render_state.hpp"

#include "jinja/environment.hpp"
#include "jinja/error.hpp"
#include "jinja/filters.hpp"
#include "jinja/operators.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>

#include <pthread.h>

namespace tk::jinja {

const Value* Scope::lookup(std::string_view name) const {
  for (const Scope* s = this; s; s = s->parent_)
    for (auto it = s->vars_.rbegin(); it != s->vars_.rend(); ++it)
      if (it->first == name)
        return &it->second;
  return nullptr;
}

void Scope::set(std::string_view name, Value v) {
  for (auto& [k, old] : vars_)
    if (k == name) {
      old = std::move(v);
      return;
    }
  vars_.emplace_back(std::string(name), std::move(v));
}

namespace {

// The lowest address of the calling thread's stack, found once per thread (for the main thread
// glibc reads /proc/self/maps). Without it: 4 MiB below the first frame that asked.
std::uintptr_t stack_low_end() {
  thread_local const std::uintptr_t low = [] {
    auto here = reinterpret_cast<std::uintptr_t>(__builtin_frame_address(0));
    std::uintptr_t fallback = here - (std::size_t{4} << 20);
    pthread_attr_t attr;
    if (pthread_getattr_np(pthread_self(), &attr) != 0)
      return fallback;
    void* addr = nullptr;
    std::size_t size = 0;
    int rc = pthread_attr_getstack(&attr, &addr, &size);
    pthread_attr_destroy(&attr);
    return rc == 0 ? reinterpret_cast<std::uintptr_t>(addr) : fallback;
  }();
  return low;
}

// The size a value's production is charged for: its characters or items.
std::uint64_t size_of(const Value& v) {
  switch (v.kind()) {
  case Value::Kind::string:
    return v.as_string().size();
  case Value::Kind::list:
    return v.as_list().size();
  case Value::Kind::dict:
    return v.as_dict().size();
  default:
    return 0;
  }
}

} // namespace

Renderer::Renderer(const Environment& env)
    : env_(env), max_work_(env.options().max_work), stack_floor_(stack_low_end() + min_stack_left) {
}

void Renderer::over_budget(std::uint32_t pos) {
  error(pos, "render budget exceeded (" + std::to_string(max_work_) + " units of work)");
}

Value Renderer::eval(const Expr& e, Scope& scope) {
  check_stack(e.pos);
  if (max_work_ == 0) // no budget (TileKit's own templates): nothing to count
    return eval_node(e, scope);
  charge(1, e.pos);
  Value v = eval_node(e, scope);
  charge(size_of(v), e.pos);
  return v;
}

void Renderer::run(const Template& t, Scope& scope, std::string& out) {
  const Template* saved = tmpl_;
  tmpl_ = &t;
  body(t.body, scope, out);
  tmpl_ = saved;
}

void Renderer::error(std::uint32_t pos, const std::string& msg) {
  fail(*tmpl_, pos, msg);
}

void Renderer::undefined_used(const Value& v) {
  const Undefined& u = v.as_undefined();
  fail(u.tmpl ? *u.tmpl : *tmpl_, u.offset, u.message);
}

void Renderer::body(const Body& stmts, Scope& scope, std::string& out) {
  for (const auto& s : stmts)
    statement(*s, scope, out);
}

void Renderer::statement(const Stmt& s, Scope& scope, std::string& out) {
  charge(1, s.pos);
  switch (s.kind) {
  case StmtKind::text:
    charge(s.text.size(), s.pos);
    out += s.text;
    return;
  case StmtKind::output: {
    Value v = eval(*s.expr, scope);
    if (v.kind() == Value::Kind::string)
      out += v.as_string();
    else
      out += to_str(need(v));
    return;
  }
  case StmtKind::if_stmt:
    for (const auto& [cond, b] : s.branches)
      if (truthy(need(eval(*cond, scope)))) {
        body(b, scope, out);
        return;
      }
    body(s.else_body, scope, out);
    return;
  case StmtKind::for_stmt:
    for_loop(s, scope, out);
    return;
  case StmtKind::set:
    assign(s.targets, eval(*s.expr, scope), s.pos, scope);
    return;
  case StmtKind::set_block: {
    std::string text;
    Scope inner(&scope);
    body(s.body, inner, text);
    scope.set(s.targets[0], Value::string(std::move(text)));
    return;
  }
  case StmtKind::macro:
    scope.set(s.macro->name, Value::macro({s.macro.get(), tmpl_, &scope}));
    return;
  case StmtKind::call_block: {
    Value caller = Value::macro({s.macro.get(), tmpl_, &scope});
    out += need(call(*s.expr, scope, &caller)).as_string();
    return;
  }
  case StmtKind::include:
    include(s, scope, out);
    return;
  }
}

void Renderer::assign(const std::vector<std::string>& targets, Value v, std::uint32_t pos,
                      Scope& scope) {
  if (targets.size() == 1) {
    scope.set(targets[0], std::move(v));
    return;
  }
  need(v);
  if (v.kind() != Value::Kind::list)
    error(pos, std::string("cannot unpack non-iterable ") + v.type_name() + " object");
  const List& items = v.as_list();
  if (items.size() < targets.size())
    error(pos, "not enough values to unpack (expected " + std::to_string(targets.size()) +
                   ", got " + std::to_string(items.size()) + ")");
  if (items.size() > targets.size())
    error(pos, "too many values to unpack (expected " + std::to_string(targets.size()) + ")");
  for (std::size_t i = 0; i < targets.size(); ++i)
    scope.set(targets[i], items[i]);
}

void Renderer::for_loop(const Stmt& s, Scope& scope, std::string& out) {
  Value seq = need(eval(*s.expr, scope));
  List items;
  switch (seq.kind()) {
  case Value::Kind::list:
    items = seq.as_list();
    break; // a copy of shared handles, not data
  case Value::Kind::dict:
    for (const auto& kv : seq.as_dict())
      items.push_back(Value::string(kv.first));
    break;
  case Value::Kind::string:
    for (auto& c : utf8_chars(seq.as_string()))
      items.push_back(Value::string(std::move(c)));
    break;
  default:
    error(s.expr->pos, std::string("'") + seq.type_name() + "' object is not iterable");
  }
  if (s.filter) { // `for x in xs if cond`: loop.* counts only the kept items
    List kept;
    for (auto& item : items) {
      Scope probe(&scope);
      assign(s.targets, item, s.pos, probe);
      if (truthy(need(eval(*s.filter, probe))))
        kept.push_back(std::move(item));
    }
    items = std::move(kept);
  }
  auto n = static_cast<std::int64_t>(items.size());
  for (std::int64_t i = 0; i < n; ++i) {
    charge(1, s.pos);
    Scope inner(&scope);
    assign(s.targets, items[static_cast<std::size_t>(i)], s.pos, inner);
    inner.set("loop", Value::loop({i, n, 0}));
    body(s.body, inner, out);
  }
  if (n == 0)
    body(s.else_body, scope, out);
}

void Renderer::include(const Stmt& s, Scope& scope, std::string& out) {
  Value name = need(eval(*s.expr, scope));
  if (name.kind() != Value::Kind::string)
    error(s.expr->pos, "include expects a template name, got " + std::string(name.type_name()));
  auto t = env_.find(name.as_string());
  if (!t)
    error(s.expr->pos, "template '" + name.as_string() + "' not found");
  if (++depth_ > max_call_depth)
    error(s.pos, "maximum recursion depth exceeded");
  check_stack(s.pos);
  Scope inner(&scope);
  // jinja2 passes the includer's variables to the included template, but not its `loop`.
  if (scope.lookup("loop"))
    inner.set("loop", Value::undefined("'loop' is undefined", nullptr, 0));
  run(*t, inner, out);
  --depth_;
}

CallArgs Renderer::arguments(const Expr& e, Scope& scope) {
  CallArgs a;
  for (std::size_t i = 1; i < e.operands.size(); ++i)
    a.positional.push_back(need(eval(*e.operands[i], scope)));
  for (const auto& [k, v] : e.kwargs)
    a.keyword.emplace_back(k, need(eval(*v, scope)));
  return a;
}

Value Renderer::call(const Expr& e, Scope& scope, const Value* caller) {
  const Expr& callee = *e.operands[0];
  CallArgs a = arguments(e, scope);
  if (callee.kind == ExprKind::attr) {
    // Methods first, as jinja2's getattr finds d.items before a key "items".
    Value obj = need(eval(*callee.operands[0], scope));
    try {
      if (auto r = call_method(obj, callee.name, a))
        return *r;
    } catch (const OpError& err) {
      error(e.pos, err.what());
    }
  }
  if (callee.kind == ExprKind::name && callee.name == "range" && !scope.lookup("range"))
    return range(e, a);
  Value f = need(eval(callee, scope));
  if (f.kind() != Value::Kind::macro)
    error(e.pos, std::string("'") + f.type_name() + "' object is not callable");
  return call_macro(f.as_macro(), a, e.pos, caller);
}

Value Renderer::range(const Expr& e, const CallArgs& a) {
  if (a.positional.empty() || a.positional.size() > 3 || !a.keyword.empty())
    error(e.pos, "range expected 1 to 3 integer arguments");
  std::int64_t v[3] = {0, 0, 1};
  for (std::size_t i = 0; i < a.positional.size(); ++i) {
    const Value& x = a.positional[i];
    if (x.kind() != Value::Kind::integer && x.kind() != Value::Kind::boolean)
      error(e.pos,
            std::string("'") + x.type_name() + "' object cannot be interpreted as an integer");
    v[a.positional.size() == 1 ? 1 : i] = x.as_int();
  }
  if (v[2] == 0)
    error(e.pos, "range() arg 3 must not be zero");
  List out;
  for (std::int64_t i = v[0]; v[2] > 0 ? i < v[1] : i > v[1]; i += v[2]) {
    if (out.size() >= 1000000)
      error(e.pos, "range too large (limit 1000000 items)");
    out.push_back(Value::integer(i));
  }
  return Value::list(std::move(out));
}

Value Renderer::call_macro(const Macro& m, const CallArgs& a, std::uint32_t pos,
                           const Value* caller) {
  const MacroDef& def = *m.def;
  if (a.positional.size() > def.params.size())
    error(pos, "macro '" + def.name + "' takes not more than " + std::to_string(def.params.size()) +
                   " argument(s)");
  for (const auto& [k, v] : a.keyword)
    if (std::find(def.params.begin(), def.params.end(), k) == def.params.end())
      error(pos, "macro '" + def.name + "' takes no keyword argument '" + k + "'");
  if (++depth_ > max_call_depth)
    error(pos, "maximum recursion depth exceeded");
  check_stack(pos);
  const Template* call_site = tmpl_;
  Scope local(m.scope);
  tmpl_ = m.tmpl;
  for (std::size_t i = 0; i < def.params.size(); ++i) {
    const std::string& p = def.params[i];
    const Value* given = i < a.positional.size() ? &a.positional[i] : nullptr;
    for (const auto& [k, v] : a.keyword)
      if (k == p)
        given = &v;
    if (given)
      local.set(p, *given);
    else if (def.defaults[i])
      local.set(p, eval(*def.defaults[i], local));
    else
      local.set(p, Value::undefined("parameter '" + p + "' was not provided", call_site, pos));
  }
  if (caller)
    local.set("caller", *caller);
  std::string out;
  body(def.body, local, out);
  tmpl_ = call_site;
  --depth_;
  return Value::string(std::move(out));
}

std::string render_template(const Environment& env, const std::shared_ptr<const Template>& t,
                            const nlohmann::json& data) {
  Scope globals;
  if (data.is_object()) {
    for (auto it = data.begin(); it != data.end(); ++it)
      globals.set(it.key(), Value::from_json(it.value()));
  } else if (!data.is_null()) {
    fail(*t, 0, "template data must be a JSON object");
  }
  Scope top(&globals);
  std::string out;
  Renderer(env).run(*t, top, out);
  return out;
}

std::string render_template_value(const Environment& env, const std::shared_ptr<const Template>& t,
                                  const Value& data) {
  Scope globals;
  if (data.kind() == Value::Kind::dict) {
    for (const auto& [key, value] : data.as_dict())
      globals.set(key, value);
  } else if (data.kind() != Value::Kind::none) {
    fail(*t, 0, "template data must be a JSON object");
  }
  Scope top(&globals);
  std::string out;
  Renderer(env).run(*t, top, out);
  return out;
}

} // namespace tk::jinja
