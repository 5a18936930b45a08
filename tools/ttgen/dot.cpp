// --emit=dot (see dot.hpp). What flows where is read off the kernels' bodies: a function that
// calls cb_push_back on a CB produces it, one that calls cb_wait_front or cb_pop_front consumes
// it; noc_async_read_* names the DRAM tensors a reader reads, noc_async_write_* those a writer
// writes. Tiles per core are the pushes, each multiplied by the extents of the loops around it.
#include "tools/ttgen/dot.hpp"

#include "lowering/ir/nodes.hpp"
#include "lowering/ir/printer.hpp"

#include <map>
#include <set>
#include <sstream>
#include <vector>

namespace tk::ttgen {

namespace {

/// A sum of products of loop extents: {"count", "Nt"} -> 3 is 3*count*Nt.
using Terms = std::map<std::vector<std::string>, std::int64_t>;

std::string terms_str(const Terms& t) {
  std::string s;
  for (const auto& [product, coefficient] : t) {
    if (coefficient == 0)
      continue;
    std::string term = coefficient == 1 && !product.empty() ? "" : std::to_string(coefficient);
    for (const std::string& f : product)
      term += (term.empty() ? "" : "*") + f;
    s += (s.empty() ? "" : " + ") + term;
  }
  return s.empty() ? "0" : s;
}

/// What one function does with CBs and tensors.
struct Flow {
  std::map<std::string, Terms> pushed; // CB -> tiles pushed per core
  std::set<std::string> consumed;      // CBs waited on or popped
  std::set<std::string> reads, writes; // DRAM tensors
  bool conditional = false;            // a push under an `if`: the count is an upper bound
  std::set<std::string> per_core;      // extents of per_core loops: a core's work items
};

class FlowScan {
public:
  explicit FlowScan(Flow& f) : f_(f) {}

  void stmt(const ir::Stmt& s) {
    if (!s)
      return;
    if (const auto* b = ir::as<ir::Block>(s)) {
      for (const ir::Stmt& x : b->stmts)
        stmt(x);
    } else if (const auto* l = ir::as<ir::For>(s)) {
      std::string e = ir::print(l->extent);
      loops_.push_back(e.find(' ') == std::string::npos ? e : "(" + e + ")");
      if (l->role == ir::ForRole::per_core)
        f_.per_core.insert(loops_.back());
      stmt(l->body);
      loops_.pop_back();
    } else if (const auto* i = ir::as<ir::IfThenElse>(s)) {
      ++ifs_;
      stmt(i->then_case);
      stmt(i->else_case);
      --ifs_;
    } else if (const auto* ev = ir::as<ir::Evaluate>(s)) {
      call(ev->call);
    }
  }

private:
  static std::string ref(const ir::Expr& e) {
    const auto* r = ir::as<ir::Ref>(e);
    return r ? r->name : std::string();
  }

  void call(const ir::Expr& e) {
    const auto* c = ir::as<ir::Call>(e);
    if (!c || c->args.empty())
      return;
    const std::string_view fn = ir::to_string(c->fn);
    if (fn == "cb_push_back") {
      std::int64_t n = 1;
      std::vector<std::string> product = loops_;
      if (c->args.size() > 1) {
        if (const auto* imm = ir::as<ir::IntImm>(c->args[1])) {
          n = imm->value;
        } else { // a count of the rule's (chunk-keys' pad, q * 7): a factor like a loop's
          std::string count = ir::print(c->args[1]);
          product.push_back(count.find(' ') == std::string::npos ? count : "(" + count + ")");
        }
      }
      f_.pushed[ref(c->args[0])][product] += n;
      f_.conditional = f_.conditional || ifs_ > 0;
    } else if (fn == "cb_wait_front" || fn == "cb_pop_front") {
      f_.consumed.insert(ref(c->args[0]));
    } else if (fn.starts_with("noc_async_read_") || fn.starts_with("noc_async_write_")) {
      const bool read = fn.starts_with("noc_async_read_");
      for (const ir::Expr& a : c->args)
        if (const auto* r = ir::as<ir::Ref>(a))
          (read ? f_.reads : f_.writes).insert(r->name);
    }
  }

  Flow& f_;
  std::vector<std::string> loops_;
  int ifs_ = 0;
};

/// A DOT string literal.
std::string quoted(const std::string& s) {
  std::string q = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\')
      q += '\\';
    q += c == '\n' ? std::string("\\n") : std::string(1, c);
  }
  return q + "\"";
}

std::string dims_str(const ir::Tensor& t) {
  std::string s = std::string(ir::to_string(t.dtype)) + "[";
  for (std::size_t i = 0; i < t.dims.size(); ++i)
    s += (i ? ", " : "") +
         (t.dims[i].name.empty() ? std::to_string(t.dims[i].size) : t.dims[i].name);
  return s + "]";
}

void program_graph(const ir::Program& p, std::ostream& os) {
  const std::string id = p.name + "/";
  auto node = [&](const std::string& n) { return quoted(id + n); };
  os << "  subgraph " << quoted("cluster_" + p.name) << " {\n";
  std::string label = "kernel " + p.name;
  if (const std::optional<ir::Grid>& grid = p.options ? p.options->grid : std::nullopt)
    label += " (grid " + std::to_string(grid->x) + "x" + std::to_string(grid->y) + ")";
  std::map<std::string, Flow> flows; // function name -> flow
  std::vector<const ir::Function*> kernels;
  std::set<std::string> per_core;
  for (const ir::Function& f : p.functions)
    if (f.kind == ir::FuncKind::reader || f.kind == ir::FuncKind::compute ||
        f.kind == ir::FuncKind::writer) {
      kernels.push_back(&f);
      Flow& flow = flows[f.name];
      FlowScan(flow).stmt(f.body);
      per_core.insert(flow.per_core.begin(), flow.per_core.end());
    }
  for (const std::string& n : per_core)
    label += "\n" + n + " = the work items of a core";
  os << "    label=" << quoted(label) << ";\n";

  for (const ir::Tensor& t : p.tensors)
    os << "    " << node(t.name) << " [shape=cylinder, style=filled, fillcolor=\"#e8e8e8\", label="
       << quoted(t.name + "\n" + dims_str(t) + "\nDRAM") << "];\n";
  for (const ir::Function* f : kernels) {
    const char* color = f->kind == ir::FuncKind::compute ? "#fde2c8" : "#cfe3f7";
    os << "    " << node(f->name) << " [shape=box, style=\"rounded,filled\", fillcolor=\"" << color
       << "\", label=" << quoted(std::string(ir::to_string(f->kind)) + "\n" + f->name) << "];\n";
  }
  for (const ir::CircularBuffer& cb : p.cbs) {
    Terms tiles;
    bool conditional = false;
    for (const auto& [fn, flow] : flows)
      if (auto it = flow.pushed.find(cb.name); it != flow.pushed.end()) {
        for (const auto& [product, n] : it->second)
          tiles[product] += n;
        conditional = conditional || flow.conditional;
      }
    os << "    " << node(cb.name) << " [shape=record, style=filled, fillcolor=\"#fff7c8\", label="
       << quoted("{" + cb.name + "|index " + std::to_string(cb.index) + ", depth " +
                 std::to_string(cb.depth) + (cb.depth == 1 ? " page" : " pages") + "|" +
                 (conditional ? "at most " : "") + terms_str(tiles) +
                 (terms_str(tiles) == "1" ? " tile" : " tiles") + "/core}")
       << "];\n";
  }
  for (const ir::Function* f : kernels) {
    const Flow& flow = flows[f->name];
    for (const std::string& t : flow.reads)
      os << "    " << node(t) << " -> " << node(f->name) << ";\n";
    for (const auto& [cb, terms] : flow.pushed)
      os << "    " << node(f->name) << " -> " << node(cb) << ";\n";
    for (const std::string& cb : flow.consumed)
      os << "    " << node(cb) << " -> " << node(f->name) << ";\n";
    for (const std::string& t : flow.writes)
      os << "    " << node(f->name) << " -> " << node(t) << ";\n";
  }
  os << "  }\n";
}

} // namespace

std::string dot_graph(const ir::Module& m) {
  std::ostringstream os;
  os << "// ttgen --emit=dot: reader -> compute -> writer through circular buffers, per kernel\n";
  os << "digraph tilekit {\n";
  os << "  rankdir=LR;\n";
  os << "  graph [fontname=\"Helvetica\", fontsize=11];\n";
  os << "  node [fontname=\"Helvetica\", fontsize=10];\n";
  os << "  edge [fontname=\"Helvetica\", fontsize=9];\n";
  for (const ir::Program& p : m.programs)
    program_graph(p, os);
  os << "}\n";
  return os.str();
}

} // namespace tk::ttgen
