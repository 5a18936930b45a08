#include "lowering/front/materialise.hpp"

#include "lowering/ir/util.hpp"
#include "lowering/tt/target.hpp"

#include <tk_emulator/timing_params.hpp>

#include <algorithm>
#include <cmath>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace tk::lower {

namespace {

using namespace ir;

bool is_zeros(const Expr& e) {
  const Call* c = as<Call>(e);
  return c && c->fn == Intrinsic::tile_zeros;
}

bool is_var(const Expr& e, const std::string& name) {
  const Var* v = as<Var>(e);
  return v && v->name == name;
}

std::set<std::string> tensors_used(const std::vector<Stmt>& ss) {
  struct Uses : Visitor {
    std::set<std::string> names;
    void visit_node(const Load& l) override {
      names.insert(l.tensor);
      Visitor::visit_node(l);
    }
    void visit_node(const Store& s) override {
      names.insert(s.tensor);
      Visitor::visit_node(s);
    }
  } u;
  for (const Stmt& s : ss)
    u.visit(s);
  return u.names;
}

/// The kernel's shape, taken apart: lets, the parallel i and j, the accumulator, the reduction
/// over f, the hidden value h (its zeros, its accumulation over d, the operand E(h) of `@`), the
/// other operand W[f, j], and the store.
struct Match {
  std::vector<Stmt> lets;
  const For* loop_i = nullptr;
  const For* loop_j = nullptr;
  const Decl* acc = nullptr;
  const For* loop_f = nullptr;
  const Decl* h = nullptr;
  const For* loop_d = nullptr;
  Stmt h_stmt, d_stmt; // the two statements that compute h
  Expr operand;        // E(h)
  Expr other;          // W[f, j]
  const Store* out = nullptr;
};

std::optional<Match> match(const Function& f) {
  const Block* b = as<Block>(f.body);
  if (!b)
    return std::nullopt;
  Match m;
  std::size_t at = 0;
  for (; at < b->stmts.size(); ++at) {
    const Decl* d = as<Decl>(b->stmts[at]);
    if (!d || !d->type.is_int())
      break;
    m.lets.push_back(b->stmts[at]);
  }
  if (at + 1 != b->stmts.size())
    return std::nullopt;
  Stmt inner;
  std::vector<const For*> nest = parallel_nest(b->stmts[at], inner);
  if (nest.size() != 2)
    return std::nullopt;
  m.loop_i = nest[0];
  m.loop_j = nest[1];
  const Block* body = as<Block>(inner);
  if (!body || body->stmts.size() != 3)
    return std::nullopt;
  m.acc = as<Decl>(body->stmts[0]);
  m.loop_f = as<For>(body->stmts[1]);
  m.out = as<Store>(body->stmts[2]);
  if (!m.acc || !is_zeros(m.acc->value) || !m.loop_f || m.loop_f->role != ForRole::reduction ||
      !m.out)
    return std::nullopt;
  const Block* fb = as<Block>(m.loop_f->body);
  if (!fb || fb->stmts.size() != 3)
    return std::nullopt;
  m.h_stmt = fb->stmts[0];
  m.d_stmt = fb->stmts[1];
  m.h = as<Decl>(m.h_stmt);
  m.loop_d = as<For>(m.d_stmt);
  const Assign* step = as<Assign>(fb->stmts[2]);
  if (!m.h || !is_zeros(m.h->value) || !m.loop_d || m.loop_d->role != ForRole::reduction || !step ||
      step->name != m.acc->name)
    return std::nullopt;
  // h += A @ B over d, nothing else in the loop.
  const Block* db = as<Block>(m.loop_d->body);
  const Assign* hs = db && db->stmts.size() == 1 ? as<Assign>(db->stmts[0]) : nullptr;
  const Call* hc = hs ? as<Call>(hs->value) : nullptr;
  if (!hs || hs->name != m.h->name || !hc || hc->fn != Intrinsic::tile_matmul_acc ||
      !is_var(hc->args[0], m.h->name) || mentions(hc->args[1], m.h->name) ||
      mentions(hc->args[2], m.h->name))
    return std::nullopt;
  // acc += E(h) @ W[f, j]
  const Call* ac = as<Call>(step->value);
  if (!ac || ac->fn != Intrinsic::tile_matmul_acc || !is_var(ac->args[0], m.acc->name))
    return std::nullopt;
  m.operand = ac->args[1];
  m.other = ac->args[2];
  if (!mentions(m.operand, m.h->name) || mentions(m.operand, m.acc->name) ||
      mentions(m.other, m.h->name) || mentions(m.other, m.acc->name))
    return std::nullopt;
  // Invariant in j: neither h's sum nor E reads it (the point of the stage).
  const std::string& j = m.loop_j->var;
  if (mentions(fb->stmts[1], j) || mentions(m.operand, j))
    return std::nullopt;
  // The scratch tensor's dimensions are those of i's and f's extents, and its page is (i, f).
  if (!as<IntImm>(m.loop_i->min) || as<IntImm>(m.loop_i->min)->value != 0 ||
      !as<IntImm>(m.loop_f->min) || as<IntImm>(m.loop_f->min)->value != 0)
    return std::nullopt;
  return m;
}

/// The dimension whose tile count to-tile-ir bound to `tile_var`.
std::optional<Dim> dim_of(const Function& f, const Expr& extent) {
  if (const IntImm* k = as<IntImm>(extent)) // a literal size (bf16[64, ...]): its tile count
    return Dim{"", k->value * 32};
  const Var* v = as<Var>(extent);
  for (const auto& [dim, tv] : tile_count_vars(f))
    if (v && tv == v->name)
      return Dim{dim, 0};
  return std::nullopt;
}

std::string why_materialise(const Match& m) {
  const std::string& j = m.loop_j->var;
  return "'" + m.h->name + "' is invariant in the parallel index '" + j +
         "': recomputing it (the kernel as written) repeats its " + m.loop_d->var +
         "-sum and every read it makes once per '" + j +
         "' of the output; materialising computes each tile once (one plain matmul with its "
         "element-wise epilogue), writes it to a scratch tensor and reads it back in the second "
         "matmul: one tile written and read per hidden tile against (tiles of '" +
         j + "' - 1) x (tiles of '" + m.loop_d->var +
         "') tile products and their reads, so it costs more only when '" + j +
         "' spans one tile; keeping a row of h in L1 needs every hidden tile of a row (the "
         "extent of '" +
         m.loop_f->var +
         "', bound at run time, not bounded by the L1 budget) and gives up the blocked, "
         "multicast matmul: materialise";
}

std::optional<std::int64_t> literal(const Expr& e) {
  const IntImm* k = as<IntImm>(e);
  return k ? std::optional<std::int64_t>(k->value) : std::nullopt;
}

/// The choice and its reasoning (ir::Materialise without the scratch tensor's name).
struct Decision {
  Materialise::Choice choice = Materialise::Choice::dram;
  Materialise::Basis basis = Materialise::Basis::rule;
  std::string why;
};

/// By the timing model's table (the program's architecture), when every extent of the kernel is a
/// literal tile count: both alternatives in the per-tile form each program has before the TT
/// chain blocks it, its work items shared by the grid's cores, each program bound by its compute
/// (tile products) or its DRAM reads (2 operand pages a product, plus each item's other loads),
/// the programs in turn, and materialising pays one more launch (host_dispatch_us). Blocking only
/// makes the materialised matmuls cheaper, so a `dram` choice here stands after it.
Decision by_model(const Program& p, const Match& m, std::int64_t mt, std::int64_t jt,
                  std::int64_t ft, std::int64_t dt, std::int64_t page) {
  namespace timing = rt::emu::timing;
  const timing::Arch& arch = tt::arch_of(p);
  const int phases =
      static_cast<int>(tt::math_fidelity_option(p).value_or(MathFidelity::hifi4)) + 1;
  const double product = timing::matmul_call_cycles(arch, phases, 1, 1, static_cast<double>(page),
                                                    static_cast<double>(page));
  const ir::Grid g = tt::option_grid(p);
  const std::int64_t cores = g.x * g.y;
  const double rate = arch.dram_read_total_bytes_per_cycle.value;
  // One program: `items` work items of `products` tile products and `pages` pages read each.
  auto program = [&](std::int64_t items, std::int64_t products, std::int64_t pages) {
    const double compute = static_cast<double>((items + cores - 1) / cores * products) * product;
    const double dram = static_cast<double>(items * pages * page) / rate;
    return std::max(compute, dram);
  };
  // Recompute: per output tile, f x (d-sum + one product), reading 2 pages a product, b1's tile
  // per f and the output's two other loads. Materialise: per hidden tile the d-sum (2 pages a
  // product and b1's tile); per output tile f products of 2 pages and the same two loads.
  const double re = program(mt * jt, ft * (dt + 1), ft * (2 * dt + 3) + 2);
  const double dispatch = arch.host_dispatch_us.value * arch.clock_ghz.value * 1e3;
  const double ma = program(mt * ft, dt, 2 * dt + 1) + program(mt * jt, ft, 2 * ft + 2) + dispatch;
  Decision d;
  d.basis = Materialise::Basis::model;
  d.choice = ma < re ? Materialise::Choice::dram : Materialise::Choice::recompute;
  auto n = [](std::int64_t v) { return std::to_string(v); };
  auto c = [](double v) { return std::to_string(std::llround(v)); };
  d.why = "every extent is known (" + m.loop_i->var + " " + n(mt) + ", " + m.loop_j->var + " " +
          n(jt) + ", " + m.loop_f->var + " " + n(ft) + ", " + m.loop_d->var + " " + n(dt) +
          " tiles): by the timing model of " + std::string(arch.name) + " (" + n(cores) +
          " cores, per-tile form), recomputing '" + m.h->name + "' takes " + c(re) +
          " cycles, materialising it " + c(ma) + " (its two programs and a second launch of " +
          c(dispatch) + "): " + (ma < re ? "materialise" : "recompute");
  return d;
}

/// Asked for (a program attribute `materialise`, ttgen report's other alternative), by the model
/// when every extent is a literal tile count, otherwise by the structure: a j of one tile shares
/// nothing, anything wider repeats the d-sum once per j. Both chains decide alike (the CPU chain
/// by the TT table too): one generated entry point launches the same programs on either target.
Decision decide(const Program& p, const Match& m, std::int64_t page) {
  Decision d;
  if (auto it = p.attrs.find("materialise"); it != p.attrs.end()) {
    const auto* s = std::get_if<std::string>(&it->second.value);
    if (s && (*s == "recompute" || *s == "dram")) {
      d.basis = Materialise::Basis::request;
      d.choice = *s == "dram" ? Materialise::Choice::dram : Materialise::Choice::recompute;
      d.why = "requested (materialise = \"" + *s + "\"; ttgen report prices the alternatives so)";
      return d;
    }
  }
  const auto mt = literal(m.loop_i->extent), jt = literal(m.loop_j->extent),
             ft = literal(m.loop_f->extent), dt = literal(m.loop_d->extent);
  if (mt && jt && ft && dt && *mt > 0 && *jt > 0 && *ft > 0 && *dt > 0)
    return by_model(p, m, *mt, *jt, *ft, *dt, page);
  if (jt && *jt == 1) {
    d.choice = Materialise::Choice::recompute;
    d.why = "'" + m.h->name + "' is invariant in '" + m.loop_j->var +
            "', which spans one tile: nothing to share, materialising would only add the "
            "round trip: recompute";
    return d;
  }
  d.why = why_materialise(m);
  return d;
}

class Rewrite {
public:
  Rewrite(const Program& p, const Function& f, const Match& m, NameSet& programs, DType scratch,
          Decision decision)
      : p_(p), f_(f), m_(m), programs_(programs), names_(p), dtype_(scratch),
        decision_(std::move(decision)) {
    scratch_ = names_.fresh(p.name + "_" + m.h->name);
    second_ = programs_.fresh(p.name + "_after_" + m.h->name);
  }

  std::pair<Program, Program> run() {
    std::optional<Dim> rows = dim_of(f_, m_.loop_i->extent), cols = dim_of(f_, m_.loop_f->extent);
    if (!rows || !cols)
      throw InternalError("internal error: materialise: the extents of '" + m_.loop_i->var +
                          "' and '" + m_.loop_f->var + "' are no dimensions' tile counts");
    Layout layout{MemoryKind::dram, LayoutKind::interleaved, 32, 32, tile_bytes(dtype_)};
    scratch_tensor_ = Tensor{scratch_, dtype_, {*rows, *cols}, TensorRole::output, layout, p_.loc};
    return {first(), second()};
  }

private:
  const Program& p_;
  const Function& f_;
  const Match& m_;
  NameSet& programs_;
  NameSet names_;
  DType dtype_;
  Decision decision_;
  std::string scratch_, second_;
  Tensor scratch_tensor_;

  Expr index(const For* loop) const { return var(loop->var, Type::i32()); }

  // The function's parameters: the program's tensors (in its order), then the scalars the body
  // reads and every size (the host binds each from a tensor's axis).
  Function function(const std::string& name, const std::vector<Tensor>& tensors, Stmt body) const {
    Function f;
    f.name = name;
    f.kind = FuncKind::kernel;
    f.loc = f_.loc;
    const std::set<std::string> read = vars_read(body);
    for (const Tensor& t : tensors)
      f.params.push_back({t.name, Type::tensor()});
    for (const Param& q : f_.params)
      if (q.type.kind != Type::Kind::tensor && (q.type.is_int() || read.count(q.name)))
        f.params.push_back(q);
    f.body = body;
    return f;
  }

  std::vector<Tensor> tensors_of(const std::vector<Stmt>& body) const {
    const std::set<std::string> used = tensors_used(body);
    std::vector<Tensor> out;
    for (const Tensor& t : p_.tensors)
      if (used.count(t.name))
        out.push_back(t);
    return out;
  }

  Stmt nest(const For* inner_loop, Stmt inner) const {
    Stmt j = for_loop(inner_loop->var, inner_loop->min, inner_loop->extent, ForRole::parallel,
                      std::move(inner), m_.loop_j->loc.range);
    Stmt i = for_loop(m_.loop_i->var, m_.loop_i->min, m_.loop_i->extent, ForRole::parallel,
                      block({std::move(j)}), m_.loop_i->loc.range);
    std::vector<Stmt> body = m_.lets;
    body.push_back(std::move(i));
    return drop_dead_code(block(std::move(body)));
  }

  // parallel i, f { h = 0; for d { h += A @ B }; scratch[i, f] = E(h) }
  Program first() const {
    Stmt body = nest(m_.loop_f, block({m_.h_stmt, m_.d_stmt,
                                       store(scratch_, {index(m_.loop_i), index(m_.loop_f)},
                                             m_.operand, m_.out->loc.range)}));
    Program out = p_;
    out.tensors = tensors_of({body});
    out.tensors.push_back(scratch_tensor_);
    out.functions = {function(f_.name, out.tensors, body)};
    out.combine = second_;
    out.attrs.erase("materialise");
    out.materialise =
        Materialise{decision_.choice, decision_.basis, m_.h->name, scratch_, decision_.why};
    return out;
  }

  // parallel i, j { acc = 0; for f { acc += scratch[i, f] @ W[f, j] }; C[i, j] = epilogue(acc) }
  Program second() const {
    const std::string& acc = m_.acc->name;
    const Type tile = Type::tile(DType::f32);
    Stmt step =
        assign(acc, call(Intrinsic::tile_matmul_acc,
                         {var(acc, tile),
                          load(scratch_, dtype_, {index(m_.loop_i), index(m_.loop_f)}), m_.other}));
    Stmt f = for_loop(m_.loop_f->var, m_.loop_f->min, m_.loop_f->extent, ForRole::reduction,
                      block({step}), m_.loop_f->loc.range);
    Stmt out_store = store(m_.out->tensor, m_.out->indices, m_.out->value, m_.out->loc.range);
    Stmt body =
        nest(m_.loop_j,
             block({decl(acc, m_.acc->type, m_.acc->value, m_.acc->loc.range), f, out_store}));
    Program out;
    out.name = second_;
    out.loc = p_.loc;
    out.options = p_.options; // the kernel's @options and ttgen's overrides hold for both
    out.attrs = p_.attrs;
    out.attrs.erase("materialise");
    out.grouped_dims = p_.grouped_dims;
    Tensor input = scratch_tensor_;
    input.role = TensorRole::input;
    out.tensors = {input};
    for (const Tensor& t : tensors_of({body}))
      if (t.name != scratch_)
        out.tensors.push_back(t);
    Function fn = function(second_, out.tensors, body);
    out.signature.clear();
    for (const Param& q : fn.params)
      if (!q.type.is_int())
        out.signature.push_back(q.name);
    out.functions = {std::move(fn)};
    return out;
  }
};

Module run(const Module& m, DType scratch_of_bf16) {
  Module out = m;
  out.programs.clear();
  NameSet programs;
  for (const Program& p : m.programs)
    programs.add(p.name);
  for (const Program& p : m.programs) {
    const Function* f = find_function(p, FuncKind::kernel);
    // A program decided on already (a dump past this stage) or linked to a next one keeps its form.
    std::optional<Match> mt = f && p.combine.empty() && !p.materialise ? match(*f) : std::nullopt;
    if (!mt) {
      out.programs.push_back(p);
      continue;
    }
    // The scratch tensor's format: f32 if the kernel has an f32 tensor, else what the caller says.
    // The model prices TT's pages on either chain (the tensors' format), so both decide alike.
    bool f32 = false;
    for (const Tensor& t : p.tensors)
      f32 = f32 || t.dtype == DType::f32;
    const DType dtype = f32 ? DType::f32 : scratch_of_bf16;
    Decision d = decide(p, *mt, tile_bytes(f32 ? DType::f32 : DType::bf16));
    if (d.choice == Materialise::Choice::recompute) {
      Program kept = p;
      kept.attrs.erase("materialise");
      kept.materialise = Materialise{d.choice, d.basis, mt->h->name, "", d.why};
      out.programs.push_back(std::move(kept));
      continue;
    }
    auto [first, second] = Rewrite(p, *f, *mt, programs, dtype, std::move(d)).run();
    out.programs.push_back(std::move(first));
    out.programs.push_back(std::move(second));
  }
  return out;
}

} // namespace

Module materialise_tt(const Module& m, Diagnostics&) {
  return run(m, DType::bf16);
}

Module materialise_cpu(const Module& m, Diagnostics&) {
  return run(m, DType::f32);
}

} // namespace tk::lower
