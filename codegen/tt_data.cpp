#include "codegen/tt_data.hpp"

#include "codegen/ir_json.hpp"
#include "support/diagnostics.hpp"

#include <algorithm>
#include <future>
#include <set>
#include <string>

namespace tk::codegen {

namespace {

using nlohmann::json;
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

// Every name a body refers to (`ref` nodes: CBs, tensors) and every intrinsic it calls.
void collect(const json& j, std::set<std::string>& refs, std::set<std::string>& calls) {
  if (j.is_object()) {
    if (j.contains("kind") && j["kind"] == "ref")
      refs.insert(j["name"].get<std::string>());
    if (j.contains("kind") && j["kind"] == "call")
      calls.insert(j["fn"].get<std::string>());
    if (j.contains("kind") && j["kind"] == "binary" && j.value("call", false))
      calls.insert(j["op"].get<std::string>()); // min, max: <algorithm>
    for (const auto& [k, v] : j.items())
      collect(v, refs, calls);
  } else if (j.is_array()) {
    for (const json& v : j)
      collect(v, refs, calls);
  }
}

// The blocked matmul's rule: tt.matmul_block's compile-time inputs (its arguments after field,
// Mt, Kt and Nt; constants, the same in every call). The host sets them once, field by field
// (the template names the fields), and each call passes them as one struct: a call of 21 numbers
// is a statement clang-format has to break, at 4 M instructions each (docs/ttgen.md, "Start-up").
// The Q chunk rule's likewise: tt.q_chunk's arguments after H, St and Dt.
void block_limits(const Program& p, const json& j, json& limits,
                  const std::string& fn = "tt.matmul_block", std::size_t first = 4) {
  if (j.is_object()) {
    if (j.contains("kind") && j["kind"] == "call" && j["fn"] == fn) {
      json these = json::array();
      for (std::size_t i = first; i < j["args"].size(); ++i) {
        if (j["args"][i]["kind"] != "int")
          fail(p, fn + "'s argument " + std::to_string(i) + " is no constant");
        these.push_back(j["args"][i]["value"]);
      }
      if (!limits.is_null() && limits != these)
        fail(p, "the " + fn + " calls differ in their compile-time inputs");
      limits = these;
    }
    for (const auto& [k, v] : j.items())
      block_limits(p, v, limits, fn, first);
  } else if (j.is_array()) {
    for (const json& v : j)
      block_limits(p, v, limits, fn, first);
  }
}

// A kernel: its body as IR JSON (the accessor chain is already in it), the CBs it names (its
// constexpr ids), the intrinsics it calls (compute headers, the scaler helper) and its config.
json kernel_data(const Program& p, const Function& f) {
  if (!f.config)
    fail(p, "'" + f.name + "' has no kernel config; run the tt chain to its end");
  const KernelConfig& c = *f.config;
  json k;
  k["kind"] = str(f.kind);
  k["file"] = str(f.kind) + ".cpp";
  k["body"] = to_json(f.body);
  std::set<std::string> refs, calls;
  collect(k["body"], refs, calls);
  k["calls"] = calls;             // sorted: whether the reader fills a scaler
  std::set<std::string> includes; // the SDK headers of the compute calls (intrinsic table)
  for (const std::string& name : calls)
    if (std::optional<Intrinsic> fn = intrinsic_from_string(name); fn && !info(*fn).header.empty())
      includes.insert(std::string(info(*fn).header));
  k["includes"] = includes;
  std::vector<const CircularBuffer*> cbs;
  for (const CircularBuffer& cb : p.cbs)
    if (refs.count(cb.name))
      cbs.push_back(&cb);
  std::sort(cbs.begin(), cbs.end(),
            [](const CircularBuffer* a, const CircularBuffer* b) { return a->index < b->index; });
  k["cbs"] = json::array();
  for (const CircularBuffer* cb : cbs)
    k["cbs"].push_back({{"name", cb->name}, {"index", cb->index}});
  k["runtime_args"] = c.runtime_args;
  k["compile_args"] = json::array();
  for (const CompileArg& a : c.compile_args)
    k["compile_args"].push_back(a.tensor);
  if (c.data_movement) {
    k["processor"] = str(c.data_movement->processor);
    k["noc"] = str(c.data_movement->noc);
  }
  if (c.compute) {
    k["math_fidelity"] = str(c.compute->math_fidelity);
    k["fp32_dest_acc_en"] = c.compute->fp32_dest_acc_en;
    k["math_approx_mode"] = c.compute->math_approx_mode;
    k["bfp8_pack_precise"] = c.compute->bfp8_pack_precise;
    k["unpack_to_dest_fp32"] = json::array();
    for (const std::string& name : c.compute->unpack_to_dest_fp32) {
      const CircularBuffer* cb = p.find_cb(name);
      if (!cb)
        fail(p, "unpack_to_dest_fp32 names '" + name + "', which is not a CB");
      k["unpack_to_dest_fp32"].push_back(cb->index);
    }
  }
  return k;
}

// The host: its function's parameters (a size bound from the first tensor axis that names it, or
// a scalar) and lets, then the plan field by field, with each buffer's tensor role and dtype and
// the CBs.
json host_data(const Program& p, const Function& h, const HostPlan& plan,
               const std::set<std::string>& partials, const Program* outer) {
  json host;
  host["params"] = json::array();
  host["param_names"] = json::array(); // a scalar of the kernel not among them is unused
  for (const Param& q : h.params) {
    host["param_names"].push_back(q.name);
    if (q.type.kind == Type::Kind::f32) {
      host["params"].push_back({{"name", q.name}, {"type", "f32"}});
      continue;
    }
    json bound;
    for (const Program* from : {&p, outer})
      for (const Tensor& t : from ? from->tensors : std::vector<Tensor>{})
        for (std::size_t a = 0; a < t.dims.size() && bound.is_null(); ++a)
          if (t.dims[a].name == q.name) {
            // A rank-3 tensor's axes are batch, rows, cols (the TensorView's fields).
            const std::size_t axis = t.dims.size() == 3 ? a : a + 1;
            bound = {{"name", q.name},
                     {"type", "u32"},
                     {"tensor", t.name},
                     {"axis", axis == 0   ? "batch"
                              : axis == 1 ? "rows"
                                          : "cols"}};
          }
    if (bound.is_null())
      fail(p, "host parameter '" + q.name + "' is no tensor dimension");
    host["params"].push_back(bound);
  }
  host["body"] = to_json(h.body);
  host["split"] = str(plan.split);
  host["work_items"] = plan.work_items;
  host["grid"] = {{"x", plan.grid.x}, {"y", plan.grid.y}};
  host["row_wise"] = plan.row_wise;
  if (plan.per_core)
    host["per_core"] = {{"start", plan.per_core->start}, {"count", plan.per_core->count}};
  if (const auto& g = plan.core_grid)
    host["core_grid"] = {{"x", g->x},       {"y", g->y},           {"cols", g->cols},
                         {"rows", g->rows}, {"across", g->across}, {"down", g->down}};
  host["semaphores"] = plan.semaphores;
  host["core_body"] = nullptr;
  host["core_params"] = json::array();
  for (const Function& f : p.functions)
    if (f.kind == FuncKind::host_core) {
      host["core_body"] = to_json(f.body);
      for (const Param& q : f.params)
        host["core_params"].push_back(q.name);
    }
  // The intrinsics the host calls (whether it needs its NoC-coordinate helpers) and the block
  // rule's inputs (null without a blocked matmul).
  std::set<std::string> refs, calls;
  collect(host["body"], refs, calls);
  collect(host["core_body"], refs, calls);
  host["calls"] = calls;
  json limits;
  block_limits(p, host["body"], limits);
  block_limits(p, host["core_body"], limits);
  host["block_limits"] = limits;
  json q_limits;
  block_limits(p, host["body"], q_limits, "tt.q_chunk", 3);
  host["q_chunk_limits"] = q_limits;
  host["buffers"] = json::array();
  for (const HostBuffer& b : plan.buffers) {
    const Tensor* t = p.find_tensor(b.tensor);
    if (!t)
      fail(p, "a buffer of unknown tensor '" + b.tensor + "'");
    host["buffers"].push_back({{"tensor", b.tensor},
                               {"role", partials.count(b.tensor) ? "partials" : str(t->role)},
                               {"dtype", str(t->dtype)},
                               {"addr", b.address},
                               {"size", b.size},
                               {"page", b.page_size}});
  }
  // The kernels in launch order, by role: the template finds each under kernel.tt[role].
  host["kernels"] = json::array();
  for (const std::string& name : plan.kernels) {
    auto f = std::find_if(p.functions.begin(), p.functions.end(),
                          [&](const Function& g) { return g.name == name; });
    if (f == p.functions.end())
      fail(p, "the host plan launches an unknown function '" + name + "'");
    host["kernels"].push_back(str(f->kind));
  }
  host["cbs"] = json::array();
  for (const CircularBuffer& cb : p.cbs)
    host["cbs"].push_back({{"name", cb.name},
                           {"index", cb.index},
                           {"format", str(cb.format)},
                           {"page", cb.page_size},
                           {"total", cb.page_size * cb.depth}});
  return host;
}

} // namespace

json tt_template_data(const Program& p, const std::set<std::string>& partials,
                      const Program* outer) {
  json tt;
  // The reader's data (the longest body, with the page reads and multicasts) is built on a thread
  // of its own while this one builds the others': the template data is on ttgen's longest path
  // (docs/ttgen.md, "Start-up"). kernel_data only reads `p`.
  std::future<json> reader = std::async(
      std::launch::async, [&p] { return kernel_data(p, function(p, FuncKind::reader)); });
  for (FuncKind k : {FuncKind::compute, FuncKind::writer})
    tt[str(k)] = kernel_data(p, function(p, k));
  if (!p.host_plan)
    fail(p, "no host plan; run the tt chain to its end");
  tt["host"] = host_data(p, function(p, FuncKind::host), *p.host_plan, partials, outer);
  tt[str(FuncKind::reader)] = reader.get();
  return tt;
}

} // namespace tk::codegen
