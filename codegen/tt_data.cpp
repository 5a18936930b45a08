#include "codegen/tt_data.hpp"

#include "codegen/ir_json.hpp"
#include "support/diagnostics.hpp"

#include <algorithm>
#include <set>
#include <string>

namespace tk::codegen {

namespace {

using nlohmann::json;
using namespace ir;

[[noreturn]] void fail(const Program& p, const std::string& what) {
  throw InternalError("internal error: render tt: program '" + p.name + "': " + what);
}

const AttrValue& attr(const Program& p, const Attrs& a, const std::string& key) {
  auto it = a.find(key);
  if (it == a.end())
    fail(p, "missing attribute '" + key + "'");
  return it->second;
}

template <class T>
const T& attr_as(const Program& p, const Attrs& a, const std::string& key) {
  const T* v = std::get_if<T>(&attr(p, a, key).value);
  if (!v)
    fail(p, "attribute '" + key + "' has the wrong kind");
  return *v;
}

template <class T>
const T& item_as(const Program& p, const AttrValue& v, const std::string& what) {
  const T* x = std::get_if<T>(&v.value);
  if (!x)
    fail(p, what + " has the wrong kind");
  return *x;
}

json string_list(const Program& p, const Attrs& a, const std::string& key) {
  json out = json::array();
  for (const AttrValue& v : attr_as<std::vector<AttrValue>>(p, a, key))
    out.push_back(item_as<std::string>(p, v, "an item of '" + key + "'"));
  return out;
}

const Function& function(const Program& p, FuncKind k) {
  for (const Function& f : p.functions)
    if (f.kind == k)
      return f;
  fail(p, "no " + std::string(to_string(k)) + " function; run the tt chain to its end");
}

// Every name a body refers to (`ref` nodes: CBs, tensors) and every intrinsic it calls.
void collect(const json& j, std::set<std::string>& refs, std::set<std::string>& calls) {
  if (j.is_object()) {
    if (j.contains("kind") && j["kind"] == "ref")
      refs.insert(j["name"].get<std::string>());
    if (j.contains("kind") && j["kind"] == "call")
      calls.insert(j["fn"].get<std::string>());
    for (const auto& [k, v] : j.items())
      collect(v, refs, calls);
  } else if (j.is_array()) {
    for (const json& v : j)
      collect(v, refs, calls);
  }
}

json kernel_data(const Program& p, const Function& f) {
  json k;
  k["kind"] = std::string(to_string(f.kind));
  k["file"] = std::string(to_string(f.kind)) + ".cpp";
  json body = to_json(f.body); // the accessor chain is the IR's (bind-runtime-args)
  std::set<std::string> refs, calls;
  collect(body, refs, calls);
  k["body"] = std::move(body);
  k["calls"] = calls; // sorted: which headers compute includes, whether the reader fills a scaler
  std::vector<const CircularBuffer*> cbs;
  for (const CircularBuffer& cb : p.cbs)
    if (refs.count(cb.name))
      cbs.push_back(&cb);
  std::sort(cbs.begin(), cbs.end(),
            [](const CircularBuffer* a, const CircularBuffer* b) { return a->index < b->index; });
  k["cbs"] = json::array();
  for (const CircularBuffer* cb : cbs)
    k["cbs"].push_back({{"name", cb->name}, {"index", cb->index}});
  k["compile_args"] = string_list(p, f.attrs, "compile_args");
  k["runtime_args"] = string_list(p, f.attrs, "runtime_args");
  if (f.kind == FuncKind::compute) {
    k["math_fidelity"] = attr_as<std::string>(p, f.attrs, "math_fidelity");
    k["fp32_dest_acc_en"] = attr_as<bool>(p, f.attrs, "fp32_dest_acc_en");
    k["math_approx_mode"] = attr_as<bool>(p, f.attrs, "math_approx_mode");
  } else {
    k["processor"] = attr_as<std::string>(p, f.attrs, "processor");
    k["noc"] = attr_as<std::string>(p, f.attrs, "noc");
  }
  return k;
}

// The host plan: its parameters (sizes bound from the first tensor axis that names them, and
// scalars), lets, buffers, CBs, kernels and the work split.
json host_data(const Program& p, const Function& h) {
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
    for (const Tensor& t : p.tensors)
      for (std::size_t a = 0; a < t.dims.size() && a < 2 && bound.is_null(); ++a)
        if (t.dims[a].name == q.name)
          bound = {{"name", q.name},
                   {"type", "u32"},
                   {"tensor", t.name},
                   {"axis", a == 0 ? "rows" : "cols"}};
    if (bound.is_null())
      fail(p, "host parameter '" + q.name + "' is no tensor dimension");
    host["params"].push_back(bound);
  }
  host["body"] = to_json(h.body);
  host["buffers"] = json::array();
  for (const AttrValue& b : attr_as<std::vector<AttrValue>>(p, h.attrs, "buffers")) {
    const auto& v = item_as<std::vector<AttrValue>>(p, b, "a buffer");
    if (v.size() != 4)
      fail(p, "a buffer is not [tensor, address, size, page]");
    const std::string name = item_as<std::string>(p, v[0], "a buffer's tensor");
    const Tensor* t = p.find_tensor(name);
    if (!t)
      fail(p, "buffer of an unknown tensor '" + name + "'");
    host["buffers"].push_back({{"tensor", name},
                               {"role", std::string(to_string(t->role))},
                               {"dtype", std::string(to_string(t->dtype))},
                               {"addr", item_as<std::string>(p, v[1], "a buffer's address")},
                               {"size", item_as<std::string>(p, v[2], "a buffer's size")},
                               {"page", item_as<std::int64_t>(p, v[3], "a buffer's page")}});
  }
  host["cbs"] = json::array();
  for (const CircularBuffer& cb : p.cbs)
    host["cbs"].push_back({{"name", cb.name},
                           {"index", cb.index},
                           {"format", std::string(to_string(cb.format))},
                           {"page", cb.page_size},
                           {"total", cb.page_size * cb.depth}});
  const Grid& grid = attr_as<Grid>(p, h.attrs, "grid");
  host["grid"] = {{"x", grid.x}, {"y", grid.y}};
  host["row_wise"] = attr_as<bool>(p, h.attrs, "row_wise");
  if (attr_as<std::string>(p, h.attrs, "split") != "split_work_to_cores")
    fail(p, "the host plan names an unknown work split");
  host["work_items"] = attr_as<std::string>(p, h.attrs, "work_items");
  json per_core = string_list(p, h.attrs, "per_core");
  if (per_core.size() != 2)
    fail(p, "per_core is not [start, count]");
  host["per_core"] = {{"start", per_core[0]}, {"count", per_core[1]}};
  return host;
}

} // namespace

json tt_template_data(const Program& p) {
  json tt;
  tt["reader"] = kernel_data(p, function(p, FuncKind::reader));
  tt["compute"] = kernel_data(p, function(p, FuncKind::compute));
  tt["writer"] = kernel_data(p, function(p, FuncKind::writer));
  const Function& h = function(p, FuncKind::host);
  // The plan lists the kernels by function name, in launch order: reader, compute, writer.
  json names = string_list(p, h.attrs, "kernels");
  json expected = {function(p, FuncKind::reader).name, function(p, FuncKind::compute).name,
                   function(p, FuncKind::writer).name};
  if (names != expected)
    fail(p, "the host plan's kernels are not [reader, compute, writer]");
  tt["host"] = host_data(p, h);
  return tt;
}

} // namespace tk::codegen
