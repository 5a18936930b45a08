#include "codegen/template_data.hpp"

#include "codegen/data_value.hpp"
#include "codegen/ir_value.hpp"
#include "codegen/tt_data.hpp"
#include "lowering/ir/visitor.hpp"
#include "support/diagnostics.hpp"

#include <algorithm>
#include <optional>
#include <set>

namespace tk::codegen {

namespace {

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

/// The kernel's parameters in declaration order: the program's `signature`.
const std::vector<std::string>& signature(const Program& p) {
  if (p.signature.empty())
    throw InternalError("internal error: render: program '" + p.name +
                        "' has no signature (to-tile-ir sets it)");
  return p.signature;
}

// A tensor of the kernel: of its program, or, for a reduction kernel, of its combine program
// (the outputs stored after the parallel space).
const Tensor* find_tensor(const Program& p, const Program* combine, const std::string& name) {
  const Tensor* t = p.find_tensor(name);
  return t || !combine ? t : combine->find_tensor(name);
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
Value params(const Program& p, const Program* combine, const std::vector<std::string>& sig,
             const std::set<std::string>& used) {
  jinja::List out;
  for (const std::string& name : sig) {
    if (const Tensor* t = find_tensor(p, combine, name)) {
      out.push_back(dict({{"name", val(name)},
                          {"kind", val("tensor")},
                          {"role", val(to_string(t->role))},
                          {"dtype", val(to_string(t->dtype))},
                          {"batched", val(t->dims.size() == 3)}}));
    } else {
      // An unused scalar is named as used in the body, so -Wunused-parameter stays quiet.
      out.push_back(dict({{"name", val(name)},
                          {"kind", val("scalar")},
                          {"dtype", val("f32")},
                          {"used", val(used.count(name) > 0)}}));
    }
  }
  return Value::list(std::move(out));
}

// Shape checks: one per tensor (a literal dimension must match exactly; a named one must be a
// multiple of 32), then one agreement check per later use of a dimension name; and where each
// named dimension the body uses is bound from (its first use).
void shapes(const Program& p, const Program* combine, const std::vector<std::string>& sig,
            const std::set<std::string>& used, const Program* tt, DictBuilder& k) {
  jinja::List checks, same, dims;
  std::map<std::string, std::pair<std::string, std::string>> first; // dim -> (tensor, axis)
  for (const std::string& name : sig) {
    const Tensor* t = find_tensor(p, combine, name);
    if (!t)
      continue;
    // A rank-3 tensor is a batch of matrices: its axes are batch, rows, cols (the view's fields).
    const bool batched = t->dims.size() == 3;
    DictBuilder c{{"param", val(t->name)}, {"batched", val(batched)}};
    for (std::size_t a = 0; a < t->dims.size(); ++a) {
      const Dim& d = t->dims[a];
      const std::string axis = batched ? (a == 0 ? "batch" : kAxis[a - 1]) : kAxis[a];
      c.set(axis + "_any", !d.name.empty());
      c.put(axis, d.name.empty() ? val(d.size) : val(d.name));
      if (d.name.empty())
        continue;
      auto [it, fresh] = first.insert({d.name, {t->name, axis}});
      if (fresh) {
        if (used.count(d.name))
          dims.push_back(
              dict({{"name", val(d.name)}, {"tensor", val(t->name)}, {"axis", val(axis)}}));
      } else {
        same.push_back(dict({{"dim", val(d.name)},
                             {"a", val(it->second.first)},
                             {"axis_a", val(it->second.second)},
                             {"b", val(t->name)},
                             {"axis_b", val(axis)}}));
      }
    }
    checks.push_back(std::move(c).value());
  }
  // Grouped indices (to-tile-ir's grouped_dims: [outer, ratio, inner]): outer = ratio * inner.
  jinja::List grouped;
  for (const GroupedDim& g : p.grouped_dims)
    grouped.push_back(dict({{"outer", val(g.outer)},
                            {"a", val(first.at(g.outer).first)},
                            {"axis_a", val(first.at(g.outer).second)},
                            {"ratio", val(g.ratio)},
                            {"inner", val(g.inner)},
                            {"b", val(first.at(g.inner).first)},
                            {"axis_b", val(first.at(g.inner).second)}}));
  // Rows of tiles on TT (select-tile-ops' rows: [name, dim, capacity, tiles]): the row's tiles fit
  // the row's CB. Only a kernel with rows has the key.
  if (tt && !tt->rows.empty()) {
    jinja::List rows;
    for (const RowOfTiles& r : tt->rows)
      rows.push_back(dict({{"row", val(r.name)},
                           {"dim", val(r.dim)},
                           {"a", val(first.at(r.dim).first)},
                           {"axis_a", val(first.at(r.dim).second)},
                           {"capacity", val(r.capacity)},
                           {"tile", val(r.tiles ? 32 : 1)}}));
    k.put("row_checks", Value::list(std::move(rows)));
  }
  k.put("shape_checks", Value::list(std::move(checks)));
  k.put("same_dim_checks", Value::list(std::move(same)));
  k.put("grouped_dim_checks", Value::list(std::move(grouped)));
  k.put("dims", Value::list(std::move(dims)));
}

// The CPU spelling of the op table's element functions: `f32.<op>` -> the call, and the helpers
// `float tk_<op>(float x)` that the file calls (ops with a body rather than a library function).
Value cpu_element_functions(const Module& cpu) {
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
  DictBuilder calls;
  jinja::List helpers;
  for (ops::Op op : ops::all_ops()) {
    std::optional<Intrinsic> f = f32_intrinsic(op);
    if (!f)
      continue;
    const ops::OpInfo& in = ops::info(op);
    std::string fn = in.cpu_fn.empty() ? "tk_" + std::string(in.name) : std::string(in.cpu_fn);
    calls.set(to_string(*f), fn + "($0)");
    if (in.cpu_fn.empty() && used.fns.count(*f))
      helpers.push_back(dict({{"name", val(fn)}, {"body", val(in.cpu_body)}}));
  }
  return dict({{"calls", std::move(calls).value()}, {"helpers", Value::list(std::move(helpers))}});
}

} // namespace

Value template_data(const Lowered& lowered, const std::string& file_stem) {
  const Module* any = lowered.cpu ? &*lowered.cpu : lowered.tt ? &*lowered.tt : nullptr;
  if (!any)
    throw InternalError("internal error: render: no target to generate");
  DictBuilder data;
  data.set("file_stem", file_stem);
  data.put("targets",
           dict({{"cpu", val(lowered.cpu.has_value())}, {"tt", val(lowered.tt.has_value())}}));
  if (lowered.cpu)
    data.put("ops", cpu_element_functions(*lowered.cpu));
  // A reduction kernel is two programs (lower-reductions): the second, named by the first's
  // `combine` attribute, is generated inside the first's run_cpu / run_tt, after it.
  auto combine_of = [&](const Program& p) -> std::optional<std::size_t> {
    if (p.combine.empty())
      return std::nullopt;
    for (std::size_t j = 0; j < any->programs.size(); ++j)
      if (any->programs[j].name == p.combine)
        return j;
    throw InternalError("internal error: render: program '" + p.name + "' names combine program '" +
                        p.combine + "', which the module does not hold");
  };
  std::set<std::size_t> combines;
  for (const Program& p : any->programs)
    if (std::optional<std::size_t> j = combine_of(p))
      combines.insert(*j);
  // The names the generated code reads: the cpu function's, else those of the TT functions
  // (the host plan takes the scalars and sizes the kernels use).
  auto used_by = [&](std::size_t i, std::set<std::string>& used) {
    if (lowered.cpu) {
      const Function* f = find_function(lowered.cpu->programs.at(i), FuncKind::cpu);
      if (f) {
        std::set<std::string> body = used_vars(f->body);
        used.insert(body.begin(), body.end());
      }
      return;
    }
    for (const Function& f : any->programs[i].functions) {
      for (const Param& q : f.params)
        used.insert(q.name);
      std::set<std::string> body = used_vars(f.body);
      used.insert(body.begin(), body.end());
    }
  };
  auto cpu_body = [&](std::size_t i) {
    const Function* f = find_function(lowered.cpu->programs.at(i), FuncKind::cpu);
    if (!f)
      throw InternalError("internal error: render: program '" + any->programs[i].name +
                          "' has no cpu function; run the cpu chain to its end");
    return dict({{"body", to_value(f->body)}});
  };
  jinja::List kernels;
  bool any_partials = false;
  for (std::size_t i = 0; i < any->programs.size(); ++i) {
    if (combines.count(i))
      continue;
    const Program& p = any->programs[i];
    const std::optional<std::size_t> ci = combine_of(p);
    const Program* combine = ci ? &any->programs[*ci] : nullptr;
    DictBuilder k;
    k.set("name", p.name);
    std::set<std::string> used;
    used_by(i, used);
    if (ci)
      used_by(*ci, used);
    std::vector<std::string> sig = signature(p);
    k.put("params", params(p, combine, sig, used));
    shapes(p, combine, sig, used, lowered.tt ? &lowered.tt->programs.at(i) : nullptr, k);
    // The partial results the first program stores and the combine reads: storage the generated
    // function holds (CPU) or a DRAM buffer it creates for both programs (TT).
    std::set<std::string> partials;
    // Whether the first program stores a materialised value (materialise's decision) rather than
    // partial results: then its one partial is that value's scratch tensor. The one flag of that
    // decision; the templates read it for the kernel and for its partial.
    k.set("scratch", p.materialise && p.materialise->choice == Materialise::Choice::dram);
    jinja::List partial_list;
    if (combine)
      for (const Tensor& t : combine->tensors)
        // Stored by the first program, read by the second (an input both read is no partial).
        if (const Tensor* first = p.find_tensor(t.name);
            first && first->role == TensorRole::output && t.role == TensorRole::input) {
          partials.insert(t.name);
          // A materialised value's scratch tensor (materialise's decision names it) may have
          // named dimensions, which the generated function binds from the kernel's tensors.
          const Dim &r = t.dims.at(0), &c = t.dims.at(1);
          const bool named = !r.name.empty() || !c.name.empty();
          auto side = [](const Dim& d) { return d.name.empty() ? val(d.size) : val(d.name); };
          auto text = [](const Dim& d) { return d.name.empty() ? std::to_string(d.size) : d.name; };
          // On the CPU, a materialised value lower-gemm reads packed is held packed (PackedA).
          const bool packed = lowered.cpu && lowered.cpu->programs.at(i).cpu_packed_a == t.name;
          partial_list.push_back(
              dict({{"name", val(t.name)},
                    {"dtype", val(to_string(t.dtype))},
                    {"packed", val(packed)},
                    {"rows", side(r)},
                    {"cols", side(c)},
                    {"elements",
                     val(named ? "static_cast<std::size_t>(" + text(r) + " * " + text(c) + ")"
                               : std::to_string(r.size * c.size))}}));
        }
    any_partials = any_partials || !partial_list.empty();
    k.put("partials", Value::list(std::move(partial_list)));
    if (lowered.cpu)
      k.put("cpu", cpu_body(i));
    Value tt;
    if (lowered.tt) {
      tt = tt_template_data(lowered.tt->programs.at(i), partials);
      k.put("tt", tt);
    }
    // The programs run_tt launches in order, each with its kernels' folder under kernels/.
    jinja::List launches;
    if (lowered.tt)
      launches.push_back(dict({{"name", val(p.name)}, {"tt", tt}}));
    Value combine_value;
    if (combine) {
      DictBuilder c;
      c.set("name", combine->name);
      if (lowered.cpu)
        c.put("cpu", cpu_body(*ci));
      if (lowered.tt) {
        // The sizes the first program's host already bound are not bound again (tt_data.hpp).
        Value ctt =
            tt_template_data(lowered.tt->programs.at(*ci), partials, &lowered.tt->programs.at(i));
        c.put("tt", ctt);
        launches.push_back(dict({{"name", val(combine->name)}, {"tt", ctt}}));
      }
      combine_value = std::move(c).value();
    }
    k.put("combine", combine_value);
    k.put("launches", Value::list(std::move(launches)));
    kernels.push_back(std::move(k).value());
  }
  data.put("kernels", Value::list(std::move(kernels)));
  data.set("any_partials", any_partials);
  return std::move(data).value();
}

} // namespace tk::codegen
