#include "codegen/template_data.hpp"

#include "codegen/ir_json.hpp"
#include "codegen/tt_data.hpp"
#include "lowering/ir/visitor.hpp"
#include "support/diagnostics.hpp"

#include <set>

namespace tk::codegen {

namespace {

using nlohmann::json;
using namespace ir;

const char* kAxis[] = {"rows", "cols"};

std::set<std::string> used_vars(const Stmt& s) {
  struct Uses : Visitor {
    std::set<std::string> names;
    void visit_node(const Var& v) override { names.insert(v.name); }
  } u;
  u.visit(s);
  return u.names;
}

/// The kernel's parameters in declaration order: the program's `signature` attribute.
std::vector<std::string> signature(const Program& p) {
  auto it = p.attrs.find("signature");
  const auto* names =
      it == p.attrs.end() ? nullptr : std::get_if<std::vector<AttrValue>>(&it->second.value);
  if (!names)
    throw InternalError("internal error: render: program '" + p.name +
                        "' has no signature attribute (to-tile-ir sets it)");
  std::vector<std::string> out;
  for (const AttrValue& v : *names) {
    const std::string* n = std::get_if<std::string>(&v.value);
    if (!n)
      throw InternalError("internal error: render: program '" + p.name +
                          "': the signature lists a non-name");
    out.push_back(*n);
  }
  return out;
}

const Function* find_function(const Program& p, FuncKind k) {
  for (const Function& f : p.functions)
    if (f.kind == k)
      return &f;
  return nullptr;
}

// The kernel signature as the header declares it: tensors and scalars in declaration order
// (inputs, then outputs). A name the program declares no tensor for is an f32 scalar; `used` says
// whether the generated code reads it.
json params(const Program& p, const std::vector<std::string>& sig,
            const std::set<std::string>& used) {
  json out = json::array();
  for (const std::string& name : sig) {
    if (const Tensor* t = p.find_tensor(name)) {
      out.push_back({{"name", name},
                     {"kind", "tensor"},
                     {"role", std::string(to_string(t->role))},
                     {"dtype", std::string(to_string(t->dtype))},
                     {"batched", t->dims.size() == 3}});
    } else {
      // An unused scalar is named as used in the body, so -Wunused-parameter stays quiet.
      out.push_back(
          {{"name", name}, {"kind", "scalar"}, {"dtype", "f32"}, {"used", used.count(name) > 0}});
    }
  }
  return out;
}

// Shape checks: one per tensor (a literal dimension must match exactly; a named one must be a
// multiple of 32), then one agreement check per later use of a dimension name; and where each
// named dimension the body uses is bound from (its first use).
void shapes(const Program& p, const std::vector<std::string>& sig,
            const std::set<std::string>& used, json& k) {
  json checks = json::array(), same = json::array(), dims = json::array();
  std::map<std::string, std::pair<std::string, std::string>> first; // dim -> (tensor, axis)
  for (const std::string& name : sig) {
    const Tensor* t = p.find_tensor(name);
    if (!t)
      continue;
    // A rank-3 tensor is a batch of matrices: its axes are batch, rows, cols (the view's fields).
    const bool batched = t->dims.size() == 3;
    json c = {{"param", t->name}, {"batched", batched}};
    for (std::size_t a = 0; a < t->dims.size(); ++a) {
      const Dim& d = t->dims[a];
      const std::string axis = batched ? (a == 0 ? "batch" : kAxis[a - 1]) : kAxis[a];
      c[axis + "_any"] = !d.name.empty();
      c[axis] = d.name.empty() ? json(d.size) : json(d.name);
      if (d.name.empty())
        continue;
      auto [it, fresh] = first.insert({d.name, {t->name, axis}});
      if (fresh) {
        if (used.count(d.name))
          dims.push_back({{"name", d.name}, {"tensor", t->name}, {"axis", axis}});
      } else {
        same.push_back({{"dim", d.name},
                        {"a", it->second.first},
                        {"axis_a", it->second.second},
                        {"b", t->name},
                        {"axis_b", axis}});
      }
    }
    checks.push_back(c);
  }
  k["shape_checks"] = checks;
  k["same_dim_checks"] = same;
  k["dims"] = dims;
}

// The CPU spelling of the op table's element functions: `f32.<op>` -> the call, and the helpers
// `float tk_<op>(float x)` that the file calls (ops with a body rather than a library function).
json cpu_element_functions(const Module& cpu) {
  struct Calls : Visitor {
    std::set<Intrinsic> fns;
    void visit_node(const Call& c) override {
      fns.insert(c.fn);
      Visitor::visit_node(c);
    }
  } used;
  for (const Program& p : cpu.programs)
    for (const Function& f : p.functions)
      used.visit(f.body);
  json calls = json::object();
  json helpers = json::array();
  for (ops::Op op : ops::all_ops()) {
    std::optional<Intrinsic> f = f32_intrinsic(op);
    if (!f)
      continue;
    const ops::OpInfo& in = ops::info(op);
    std::string fn = in.cpu_fn.empty() ? "tk_" + std::string(in.name) : std::string(in.cpu_fn);
    calls[std::string(to_string(*f))] = fn + "($0)";
    if (in.cpu_fn.empty() && used.fns.count(*f))
      helpers.push_back({{"name", fn}, {"body", std::string(in.cpu_body)}});
  }
  return {{"calls", calls}, {"helpers", helpers}};
}

} // namespace

json template_data(const Lowered& lowered, const std::string& file_stem) {
  const Module* any = lowered.cpu ? &*lowered.cpu : lowered.tt ? &*lowered.tt : nullptr;
  if (!any)
    throw InternalError("internal error: render: no target to generate");
  json data;
  data["file_stem"] = file_stem;
  data["targets"] = {{"cpu", lowered.cpu.has_value()}, {"tt", lowered.tt.has_value()}};
  if (lowered.cpu)
    data["ops"] = cpu_element_functions(*lowered.cpu);
  data["kernels"] = json::array();
  for (std::size_t i = 0; i < any->programs.size(); ++i) {
    const Program& p = any->programs[i];
    json k;
    k["name"] = p.name;
    // The names the generated code reads: the cpu function's, else those of the TT functions
    // (the host plan takes the scalars and sizes the kernels use).
    std::set<std::string> used;
    if (lowered.cpu) {
      const Function* f = find_function(p, FuncKind::cpu);
      used = f ? used_vars(f->body) : used;
    } else {
      for (const Function& f : p.functions) {
        for (const Param& q : f.params)
          used.insert(q.name);
        std::set<std::string> body = used_vars(f.body);
        used.insert(body.begin(), body.end());
      }
    }
    std::vector<std::string> sig = signature(p);
    k["params"] = params(p, sig, used);
    shapes(p, sig, used, k);
    if (lowered.cpu) {
      const Function* f = find_function(lowered.cpu->programs.at(i), FuncKind::cpu);
      if (!f)
        throw InternalError("internal error: render: program '" + p.name +
                            "' has no cpu function; run the cpu chain to its end");
      k["cpu"] = {{"body", to_json(f->body)}};
    }
    if (lowered.tt)
      k["tt"] = tt_template_data(lowered.tt->programs.at(i));
    data["kernels"].push_back(std::move(k));
  }
  return data;
}

} // namespace tk::codegen
