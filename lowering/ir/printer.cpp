#include "lowering/ir/printer.hpp"

#include <charconv>
#include <cmath>
#include <sstream>

namespace tk::ir {

std::string format_float(double v) {
  if (std::isnan(v))
    return "nan";
  if (std::isinf(v))
    return v < 0 ? "-inf" : "inf";
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  std::string s(buf, r.ptr);
  if (s.find_first_of(".e") == std::string::npos)
    s += ".0";
  return s;
}

namespace {

std::string quote(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\')
      out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out + '"';
}

class Printer {
public:
  std::ostringstream os;

  void expr(const Expr& e, int parent_prec = 0) {
    switch (e->kind) {
#define TK_X(n)                                                                                    \
  case ExprKind::n:                                                                                \
    print_node(static_cast<const n&>(*e), parent_prec);                                            \
    return;
      TK_IR_EXPR_NODES(TK_X)
#undef TK_X
    }
  }

  void stmt(const Stmt& s, int indent) {
    switch (s->kind) {
#define TK_X(n)                                                                                    \
  case StmtKind::n:                                                                                \
    print_node(static_cast<const n&>(*s), indent);                                                 \
    return;
      TK_IR_STMT_NODES(TK_X)
#undef TK_X
    }
  }

  void list(const std::vector<Expr>& xs) {
    for (std::size_t i = 0; i < xs.size(); ++i) {
      if (i)
        os << ", ";
      expr(xs[i]);
    }
  }

  void print_node(const IntImm& n, int) {
    os << n.value;
    if (n.type.kind == Type::Kind::u32)
      os << 'u';
  }
  void print_node(const FloatImm& n, int) { os << format_float(n.value); }
  void print_node(const EnumImm& n, int) { os << to_string(n.value); }
  void print_node(const Var& n, int) { os << n.name; }
  void print_node(const Ref& n, int) { os << n.name; }
  void print_node(const Binary& n, int parent_prec) {
    int p = precedence(n.op);
    if (p == 0) {
      os << to_string(n.op) << '(';
      expr(n.a);
      os << ", ";
      expr(n.b);
      os << ')';
      return;
    }
    // Left-associative: the right operand needs a strictly tighter binding to go unparenthesised.
    bool paren = p < parent_prec;
    if (paren)
      os << '(';
    expr(n.a, p);
    os << ' ' << to_string(n.op) << ' ';
    expr(n.b, p + 1);
    if (paren)
      os << ')';
  }
  void print_node(const Load& n, int) {
    os << "load " << n.tensor << '[';
    list(n.indices);
    os << ']';
  }
  void print_node(const Call& n, int) {
    os << to_string(n.fn) << '(';
    list(n.args);
    os << ')';
  }

  void line(int indent) { os << std::string(static_cast<std::size_t>(indent), ' '); }
  void body(const Stmt& s, int indent) {
    os << " {\n";
    if (s)
      stmt(s, indent + 2);
    line(indent);
    os << '}';
  }

  void print_node(const Block& n, int indent) {
    for (const Stmt& s : n.stmts)
      stmt(s, indent);
  }
  void print_node(const Decl& n, int indent) {
    line(indent);
    os << "let " << n.name << ": " << to_string(n.type) << " = ";
    expr(n.value);
    os << '\n';
  }
  void print_node(const Assign& n, int indent) {
    line(indent);
    os << n.name << " = ";
    expr(n.value);
    os << '\n';
  }
  void print_node(const Store& n, int indent) {
    line(indent);
    os << "store " << n.tensor << '[';
    list(n.indices);
    os << "] = ";
    expr(n.value);
    os << '\n';
  }
  void print_node(const Evaluate& n, int indent) {
    line(indent);
    expr(n.call);
    os << '\n';
  }
  void print_node(const For& n, int indent) {
    line(indent);
    os << "for " << n.var << " in ";
    const IntImm* zero = as<IntImm>(n.min);
    if (zero && zero->value == 0 && zero->type == Type::i32()) {
      os << "0 .. ";
    } else {
      expr(n.min);
      os << " .. +";
    }
    expr(n.extent);
    os << ' ' << to_string(n.role);
    body(n.body, indent);
    os << '\n';
  }
  void print_node(const IfThenElse& n, int indent) {
    line(indent);
    os << "if ";
    expr(n.cond);
    body(n.then_case, indent);
    if (n.else_case) {
      os << " else";
      body(n.else_case, indent);
    }
    os << '\n';
  }

  void attr(const AttrValue& v) {
    std::visit(
        [&](const auto& x) {
          using T = std::decay_t<decltype(x)>;
          if constexpr (std::is_same_v<T, std::int64_t>)
            os << x;
          else if constexpr (std::is_same_v<T, bool>)
            os << (x ? "true" : "false");
          else if constexpr (std::is_same_v<T, std::string>)
            os << quote(x);
          else if constexpr (std::is_same_v<T, Grid>)
            os << x.x << 'x' << x.y;
          else {
            os << '[';
            for (std::size_t i = 0; i < x.size(); ++i) {
              if (i)
                os << ", ";
              attr(x[i]);
            }
            os << ']';
          }
        },
        v.value);
  }
  void attrs(const Attrs& a) {
    os << '{';
    bool first = true;
    for (const auto& [k, v] : a) {
      if (!first)
        os << ", ";
      first = false;
      os << k << " = ";
      attr(v);
    }
    os << '}';
  }
  // The program's attributes with its typed header fields among them, in key order, as one
  // clause (docs/ir.md, "Programs"); the reader takes the typed ones back out.
  static Attrs program_attrs(const Program& p) {
    Attrs a = p.attrs;
    if (!p.signature.empty()) {
      std::vector<AttrValue> names;
      for (const std::string& n : p.signature)
        names.push_back({n});
      a["signature"] = {std::move(names)};
    }
    if (!p.combine.empty())
      a["combine"] = {p.combine};
    if (p.dst_fp32)
      a["dst_fp32"] = {*p.dst_fp32};
    if (!p.cpu_packed_a.empty())
      a["cpu_packed_a"] = {p.cpu_packed_a};
    if (!p.grouped_dims.empty()) {
      std::vector<AttrValue> groups;
      for (const GroupedDim& g : p.grouped_dims)
        groups.push_back({std::vector<AttrValue>{{g.outer}, {g.ratio}, {g.inner}}});
      a["grouped_dims"] = {std::move(groups)};
    }
    if (!p.rows.empty()) {
      std::vector<AttrValue> rows;
      for (const RowOfTiles& r : p.rows)
        rows.push_back({std::vector<AttrValue>{{r.name}, {r.dim}, {r.capacity}, {r.tiles}}});
      a["rows"] = {std::move(rows)};
    }
    return a;
  }
  void attrs_clause(const Attrs& a) {
    if (a.empty())
      return;
    os << " attributes ";
    attrs(a);
  }

  void tensor(const Tensor& t) {
    os << "  tensor " << t.name << ": " << to_string(t.dtype) << '[';
    for (std::size_t i = 0; i < t.dims.size(); ++i) {
      if (i)
        os << ", ";
      if (t.dims[i].name.empty())
        os << t.dims[i].size;
      else
        os << t.dims[i].name;
    }
    os << "] " << to_string(t.role);
    if (t.layout)
      os << " layout " << to_string(t.layout->memory) << ' ' << to_string(t.layout->kind)
         << " tile " << t.layout->tile_h << 'x' << t.layout->tile_w << " page "
         << t.layout->page_size;
    os << '\n';
  }
  void cb(const CircularBuffer& c) {
    os << "  cb " << c.name << " index " << c.index << " format " << to_string(c.format) << " page "
       << c.page_size << " depth " << c.depth << " role " << to_string(c.role);
    if (c.read_by_writer)
      os << " read_by writer";
    if (!c.reader_writes_for.empty())
      os << " written_by reader for " << c.reader_writes_for;
    if (!c.tensor.empty())
      os << " tensor " << c.tensor;
    os << '\n';
  }
  void names(const std::vector<std::string>& xs) {
    os << '[';
    for (std::size_t i = 0; i < xs.size(); ++i)
      os << (i ? ", " : "") << xs[i];
    os << ']';
  }
  static const char* boolean(bool b) { return b ? "true" : "false"; }

  // ---- the host plan (host_plan.hpp) ----
  void accessor(const Accessor& a) {
    os << "  accessor " << a.tensor << " args [";
    for (std::size_t i = 0; i < a.args.size(); ++i)
      os << (i ? ", " : "") << a.args[i];
    os << "]\n";
  }
  void config(const KernelConfig& c) {
    os << " runtime_args ";
    names(c.runtime_args);
    os << " compile_args [";
    for (std::size_t i = 0; i < c.compile_args.size(); ++i)
      os << (i ? ", " : "") << c.compile_args[i].tensor << " at " << c.compile_args[i].offset;
    os << ']';
    if (!c.compile_values.empty()) {
      os << " compile_values ";
      names(c.compile_values);
    }
    if (c.data_movement)
      os << " processor " << to_string(c.data_movement->processor) << " noc "
         << to_string(c.data_movement->noc);
    if (c.compute)
      os << " math_fidelity " << to_string(c.compute->math_fidelity) << " fp32_dest_acc_en "
         << boolean(c.compute->fp32_dest_acc_en) << " math_approx_mode "
         << boolean(c.compute->math_approx_mode);
    if (c.compute && !c.compute->unpack_to_dest_fp32.empty()) {
      os << " unpack_to_dest_fp32 ";
      names(c.compute->unpack_to_dest_fp32);
    }
    if (c.compute && c.compute->bfp8_pack_precise)
      os << " bfp8_pack_precise";
  }
  void options(const Options& o) {
    os << "  options";
    if (!o.arch.empty())
      os << " arch " << quote(o.arch);
    if (o.grid)
      os << " grid " << o.grid->x << 'x' << o.grid->y;
    os << " cb_depth " << o.cb_depth << " fp32_acc " << boolean(o.fp32_acc) << " math_fidelity "
       << quote(o.math_fidelity);
    if (o.matmul_rows > 0)
      os << " matmul_block " << o.matmul_rows << 'x' << o.matmul_cols;
    if (o.q_chunk != 0)
      os << " q_chunk " << o.q_chunk;
    if (o.exp_approx_mode)
      os << " exp_approx_mode";
    os << '\n';
  }
  void blocking(const Blocking& b) {
    const Blocking::Costs& c = b.costs;
    os << "  blocking sub_block " << b.sub_rows << 'x' << b.sub_cols << " caps " << b.cap_a << ' '
       << b.cap_b << ' ' << b.cap_partials << " costs " << c.product << ' ' << c.round_trip << ' '
       << c.multicast << ' ' << c.dram << ' ' << c.page_a << ' ' << c.page_b << ' ' << c.read << ' '
       << c.step_latency << ' ' << c.page_c << ' ' << c.write << " why " << quote(b.why) << '\n';
  }
  void materialise(const Materialise& m) {
    os << "  materialise " << to_string(m.choice) << " value " << quote(m.value);
    if (!m.tensor.empty())
      os << " tensor " << quote(m.tensor);
    os << " by " << to_string(m.basis) << " why " << quote(m.why) << '\n';
  }
  void host_plan(const HostPlan& h) {
    os << "  host_plan {\n    split " << to_string(h.split) << " items " << h.work_items << " grid "
       << h.grid.x << 'x' << h.grid.y << " row_wise " << boolean(h.row_wise) << '\n';
    if (h.per_core)
      os << "    per_core " << h.per_core->start << ' ' << h.per_core->count << '\n';
    if (const auto& g = h.core_grid)
      os << "    core_grid " << g->x << ' ' << g->y << " cols " << g->cols << " rows " << g->rows
         << " across " << g->across << " down " << g->down << '\n';
    if (!h.semaphores.empty()) {
      os << "    semaphores ";
      names(h.semaphores);
      os << '\n';
    }
    for (const HostBuffer& b : h.buffers) {
      os << "    buffer " << b.tensor << " address " << b.address;
      if (!b.size.empty())
        os << " size " << b.size;
      if (b.page_size)
        os << " page " << b.page_size;
      os << '\n';
    }
    if (!h.kernels.empty()) {
      os << "    kernels ";
      names(h.kernels);
      os << '\n';
    }
    os << "  }\n";
  }

  void function(const Function& f) {
    os << "  func " << to_string(f.kind) << ' ' << f.name << '(';
    for (std::size_t i = 0; i < f.params.size(); ++i) {
      if (i)
        os << ", ";
      os << f.params[i].name << ": " << to_string(f.params[i].type);
    }
    os << ')';
    attrs_clause(f.attrs);
    if (f.config)
      config(*f.config);
    body(f.body, 2);
    os << '\n';
  }
  void module(const Module& m) {
    if (!m.attrs.empty()) {
      os << "module";
      attrs_clause(m.attrs);
      os << "\n\n";
    }
    for (std::size_t i = 0; i < m.programs.size(); ++i) {
      const Program& p = m.programs[i];
      if (i)
        os << '\n';
      os << "program " << p.name;
      attrs_clause(program_attrs(p));
      os << " {\n";
      if (p.options)
        options(*p.options);
      if (p.blocking)
        blocking(*p.blocking);
      if (p.materialise)
        materialise(*p.materialise);
      for (const Tensor& t : p.tensors)
        tensor(t);
      for (const Accessor& a : p.accessors)
        accessor(a);
      for (const CircularBuffer& c : p.cbs)
        cb(c);
      for (const Function& f : p.functions) {
        os << '\n';
        function(f);
      }
      if (p.host_plan) {
        os << '\n';
        host_plan(*p.host_plan);
      }
      os << "}\n";
    }
  }
};

} // namespace

std::string print(const Module& m) {
  Printer p;
  p.module(m);
  return p.os.str();
}
std::string print(const Expr& e) {
  Printer p;
  p.expr(e);
  return p.os.str();
}
std::string print(const Stmt& s, int indent) {
  Printer p;
  p.stmt(s, indent);
  return p.os.str();
}
std::string print(const AttrValue& v) {
  Printer p;
  p.attr(v);
  return p.os.str();
}
std::string print(const Attrs& a) {
  Printer p;
  p.attrs(a);
  return p.os.str();
}

} // namespace tk::ir
