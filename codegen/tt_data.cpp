#include "codegen/tt_data.hpp"

#include "codegen/data_value.hpp"
#include "codegen/ir_value.hpp"
#include "lowering/ir/visitor.hpp"
#include "support/diagnostics.hpp"

#include <algorithm>
#include <future>
#include <optional>
#include <set>
#include <string>

namespace tk::codegen {

namespace {

using namespace ir;

[[noreturn]] void fail(const Program& p, const std::string& what) {
  throw InternalError("internal error: render tt: program '" + p.name + "': " + what);
}

std::string str(auto e) {
  return std::string(to_string(e));
}

const Function& function(const Program& p, FuncKind k) {
  for (const Function& f : p.functions)
    if (f.kind == k)
      return f;
  fail(p, "no " + str(k) + " function; run the tt chain to its end");
}

// Every name a body refers to (`ref` nodes: CBs, tensors) and every intrinsic it calls (and the
// binary operators spelt as calls: min, max, from <algorithm>).
struct Uses : Visitor {
  std::set<std::string> refs, calls;
  void visit_node(const Ref& r) override { refs.insert(r.name); }
  void visit_node(const Call& c) override {
    calls.insert(std::string(to_string(c.fn)));
    Visitor::visit_node(c);
  }
  void visit_node(const Binary& b) override {
    if (precedence(b.op) == 0)
      calls.insert(std::string(to_string(b.op)));
    Visitor::visit_node(b);
  }
};

// The blocked matmul's rule: tt.matmul_block's compile-time inputs (its arguments after field,
// Mt, Kt and Nt; constants, the same in every call). The host sets them once, field by field
// (the template names the fields), and each call passes them as one struct: a call of 21 numbers
// is a statement clang-format has to break, at 4 M instructions each (docs/ttgen.md, "Start-up").
// The Q chunk rule's likewise: tt.q_chunk's arguments after H, St and Dt. `limits` stays empty
// without such a call.
struct BlockLimits : Visitor {
  BlockLimits(const Program& p, Intrinsic fn, std::size_t first) : p(p), fn(fn), first(first) {}
  const Program& p;
  Intrinsic fn;
  std::size_t first;
  std::optional<std::vector<std::int64_t>> limits;
  void visit_node(const Call& c) override {
    if (c.fn == fn) {
      std::vector<std::int64_t> these;
      for (std::size_t i = first; i < c.args.size(); ++i) {
        const IntImm* n = as<IntImm>(c.args[i]);
        if (!n)
          fail(p, str(fn) + "'s argument " + std::to_string(i) + " is no constant");
        these.push_back(n->value);
      }
      if (limits && *limits != these)
        fail(p, "the " + str(fn) + " calls differ in their compile-time inputs");
      limits = std::move(these);
    }
    Visitor::visit_node(c);
  }
  Value value() const { return limits ? val(*limits) : Value(); }
};

// A kernel: its body (the accessor chain is already in it), the CBs it names (its constexpr ids),
// the intrinsics it calls (compute headers, the scaler helper) and its config.
Value kernel_data(const Program& p, const Function& f) {
  if (!f.config)
    fail(p, "'" + f.name + "' has no kernel config; run the tt chain to its end");
  const KernelConfig& c = *f.config;
  DictBuilder k;
  k.set("kind", str(f.kind));
  k.set("file", str(f.kind) + ".cpp");
  k.put("body", to_value(f.body));
  Uses uses;
  uses.visit(f.body);
  k.set("calls", uses.calls);     // sorted: whether the reader fills a scaler
  std::set<std::string> includes; // the SDK headers of the compute calls (intrinsic table)
  for (const std::string& name : uses.calls)
    if (std::optional<Intrinsic> fn = intrinsic_from_string(name); fn && !info(*fn).header.empty())
      includes.insert(std::string(info(*fn).header));
  k.set("includes", includes);
  std::vector<const CircularBuffer*> cbs;
  for (const CircularBuffer& cb : p.cbs)
    if (uses.refs.count(cb.name))
      cbs.push_back(&cb);
  std::sort(cbs.begin(), cbs.end(),
            [](const CircularBuffer* a, const CircularBuffer* b) { return a->index < b->index; });
  jinja::List cb_list;
  for (const CircularBuffer* cb : cbs)
    cb_list.push_back(dict({{"name", val(cb->name)}, {"index", val(cb->index)}}));
  k.put("cbs", Value::list(std::move(cb_list)));
  k.set("runtime_args", c.runtime_args);
  jinja::List compile_args;
  for (const CompileArg& a : c.compile_args)
    compile_args.push_back(val(a.tensor));
  k.put("compile_args", Value::list(std::move(compile_args)));
  jinja::List compile_values;
  for (const std::string& v : c.compile_values)
    compile_values.push_back(val(v));
  k.put("compile_values", Value::list(std::move(compile_values)));
  if (c.data_movement) {
    k.set("processor", str(c.data_movement->processor));
    k.set("noc", str(c.data_movement->noc));
  }
  if (c.compute) {
    k.set("math_fidelity", str(c.compute->math_fidelity));
    k.set("fp32_dest_acc_en", c.compute->fp32_dest_acc_en);
    k.set("math_approx_mode", c.compute->math_approx_mode);
    k.set("bfp8_pack_precise", c.compute->bfp8_pack_precise);
    jinja::List unpack;
    for (const std::string& name : c.compute->unpack_to_dest_fp32) {
      const CircularBuffer* cb = p.find_cb(name);
      if (!cb)
        fail(p, "unpack_to_dest_fp32 names '" + name + "', which is not a CB");
      unpack.push_back(val(cb->index));
    }
    k.put("unpack_to_dest_fp32", Value::list(std::move(unpack)));
  }
  return std::move(k).value();
}

// The host: its function's parameters (a size bound from the first tensor axis that names it, or
// a scalar) and lets, then the plan field by field, with each buffer's tensor role and dtype and
// the CBs.
Value host_data(const Program& p, const Function& h, const HostPlan& plan,
                const std::set<std::string>& partials, const Program* outer) {
  DictBuilder host;
  jinja::List params;
  std::vector<std::string> param_names; // a scalar of the kernel not among them is unused
  // A combine program's host does not bind again the sizes its first program's host bound.
  std::set<std::string> bound_by_outer;
  if (outer)
    for (const Param& q : function(*outer, FuncKind::host).params)
      bound_by_outer.insert(q.name);
  for (const Param& q : h.params) {
    param_names.push_back(q.name);
    if (bound_by_outer.count(q.name))
      continue;
    if (q.type.kind == Type::Kind::f32) {
      params.push_back(dict({{"name", val(q.name)}, {"type", val("f32")}}));
      continue;
    }
    Value bound;
    for (const Program* from : {&p, outer})
      for (const Tensor& t : from ? from->tensors : std::vector<Tensor>{})
        for (std::size_t a = 0; a < t.dims.size() && bound.kind() == Value::Kind::none; ++a)
          if (t.dims[a].name == q.name) {
            // A rank-3 tensor's axes are batch, rows, cols (the TensorView's fields).
            const std::size_t axis = t.dims.size() == 3 ? a : a + 1;
            bound = dict({{"name", val(q.name)},
                          {"type", val("u32")},
                          {"tensor", val(t.name)},
                          {"axis", val(axis == 0   ? "batch"
                                       : axis == 1 ? "rows"
                                                   : "cols")}});
          }
    if (bound.kind() == Value::Kind::none)
      fail(p, "host parameter '" + q.name + "' is no tensor dimension");
    params.push_back(std::move(bound));
  }
  host.put("params", Value::list(std::move(params)));
  host.set("param_names", param_names);
  host.put("body", to_value(h.body));
  host.set("split", str(plan.split));
  host.set("work_items", plan.work_items);
  host.put("grid", dict({{"x", val(plan.grid.x)}, {"y", val(plan.grid.y)}}));
  host.set("row_wise", plan.row_wise);
  if (plan.per_core)
    host.put("per_core",
             dict({{"start", val(plan.per_core->start)}, {"count", val(plan.per_core->count)}}));
  if (const auto& g = plan.core_grid)
    host.put("core_grid", dict({{"x", val(g->x)},
                                {"y", val(g->y)},
                                {"cols", val(g->cols)},
                                {"rows", val(g->rows)},
                                {"across", val(g->across)},
                                {"down", val(g->down)}}));
  host.set("semaphores", plan.semaphores);
  // The intrinsics the host calls (whether it needs its NoC-coordinate helpers) and the block
  // rule's inputs (null without a blocked matmul).
  Uses uses;
  uses.visit(h.body);
  BlockLimits limits(p, Intrinsic::tt_matmul_block, 4), q_limits(p, Intrinsic::tt_q_chunk, 3);
  limits.visit(h.body);
  q_limits.visit(h.body);
  host.put("core_body", Value());
  std::vector<std::string> core_params;
  for (const Function& f : p.functions)
    if (f.kind == FuncKind::host_core) {
      host.put("core_body", to_value(f.body));
      for (const Param& q : f.params)
        core_params.push_back(q.name);
      uses.visit(f.body);
      limits.visit(f.body);
    }
  host.set("core_params", core_params);
  host.set("calls", uses.calls);
  host.put("block_limits", limits.value());
  host.put("q_chunk_limits", q_limits.value());
  jinja::List buffers;
  for (const HostBuffer& b : plan.buffers) {
    const Tensor* t = p.find_tensor(b.tensor);
    if (!t)
      fail(p, "a buffer of unknown tensor '" + b.tensor + "'");
    buffers.push_back(dict({{"tensor", val(b.tensor)},
                            {"role", val(partials.count(b.tensor) ? "partials" : str(t->role))},
                            {"dtype", val(str(t->dtype))},
                            {"addr", val(b.address)},
                            {"size", val(b.size)},
                            {"page", val(b.page_size)}}));
  }
  host.put("buffers", Value::list(std::move(buffers)));
  // The kernels in launch order, by role: the template finds each under kernel.tt[role].
  jinja::List kernels;
  for (const std::string& name : plan.kernels) {
    auto f = std::find_if(p.functions.begin(), p.functions.end(),
                          [&](const Function& g) { return g.name == name; });
    if (f == p.functions.end())
      fail(p, "the host plan launches an unknown function '" + name + "'");
    kernels.push_back(val(str(f->kind)));
  }
  host.put("kernels", Value::list(std::move(kernels)));
  jinja::List cbs;
  for (const CircularBuffer& cb : p.cbs)
    cbs.push_back(dict({{"name", val(cb.name)},
                        {"index", val(cb.index)},
                        {"format", val(str(cb.format))},
                        {"page", val(cb.page_size)},
                        {"total", val(cb.page_size * cb.depth)}}));
  host.put("cbs", Value::list(std::move(cbs)));
  return std::move(host).value();
}

} // namespace

Value tt_template_data(const Program& p, const std::set<std::string>& partials,
                       const Program* outer) {
  DictBuilder tt;
  // The reader's data (the longest body, with the page reads and multicasts) is built on a thread
  // of its own while this one builds the others': the template data is on ttgen's longest path
  // (docs/ttgen.md, "Start-up"). kernel_data only reads `p`.
  std::future<Value> reader = std::async(
      std::launch::async, [&p] { return kernel_data(p, function(p, FuncKind::reader)); });
  for (FuncKind k : {FuncKind::compute, FuncKind::writer})
    tt.put(str(k), kernel_data(p, function(p, k)));
  if (!p.host_plan)
    fail(p, "no host plan; run the tt chain to its end");
  tt.put("host", host_data(p, function(p, FuncKind::host), *p.host_plan, partials, outer));
  tt.put(str(FuncKind::reader), reader.get());
  return std::move(tt).value();
}

} // namespace tk::codegen
