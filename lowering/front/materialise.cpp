#include "lowering/front/materialise.hpp"

#include "lowering/ir/util.hpp"

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
  if (!as<Var>(m.loop_i->extent) || !as<Var>(m.loop_f->extent) || !as<IntImm>(m.loop_i->min) ||
      as<IntImm>(m.loop_i->min)->value != 0 || !as<IntImm>(m.loop_f->min) ||
      as<IntImm>(m.loop_f->min)->value != 0)
    return std::nullopt;
  return m;
}

/// The dimension whose tile count to-tile-ir bound to `tile_var`.
std::optional<Dim> dim_of(const Function& f, const Expr& extent) {
  const Var* v = as<Var>(extent);
  for (const auto& [dim, tv] : tile_count_vars(f))
    if (v && tv == v->name)
      return Dim{dim, 0};
  return std::nullopt;
}

std::string why_text(const Match& m, const std::string& scratch) {
  const std::string& j = m.loop_j->var;
  return "'" + m.h->name + "' is invariant in the parallel index '" + j +
         "': recomputing it (the kernel as written) repeats its " + m.loop_d->var +
         "-sum and every read it makes once per '" + j +
         "' of the output; materialising computes each tile once (one plain matmul with its "
         "element-wise epilogue), writes it to '" +
         scratch +
         "' and reads it back in the second matmul: one tile written and read per hidden "
         "tile against (tiles of '" +
         j + "' - 1) x (tiles of '" + m.loop_d->var +
         "') tile products and their reads, so it costs more only when '" + j +
         "' spans one tile; keeping a row of h in L1 needs every hidden tile of a row (the "
         "extent of '" +
         m.loop_f->var +
         "', bound at run time, not bounded by the L1 budget) and gives up the blocked, "
         "multicast matmul: materialise";
}

class Rewrite {
public:
  Rewrite(const Program& p, const Function& f, const Match& m, NameSet& programs, DType scratch)
      : p_(p), f_(f), m_(m), programs_(programs), names_(p), dtype_(scratch) {
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
    out.attrs["materialise"] = {std::string("dram")};
    out.attrs["materialise_value"] = {m_.h->name};
    out.attrs["materialise_tensor"] = {scratch_};
    out.attrs["materialise_why"] = {why_text(m_, scratch_)};
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
    std::optional<Match> mt = f && p.combine.empty() ? match(*f) : std::nullopt;
    // A program attribute `materialise = "recompute"` keeps the kernel as written.
    auto forced = p.attrs.find("materialise");
    const bool recompute = forced != p.attrs.end() &&
                           std::get_if<std::string>(&forced->second.value) &&
                           std::get<std::string>(forced->second.value) == "recompute";
    // A j of one tile shares nothing: recomputing is the materialised form minus the round trip.
    const IntImm* one = mt ? as<IntImm>(mt->loop_j->extent) : nullptr;
    if (!mt || recompute || (one && one->value == 1)) {
      out.programs.push_back(p);
      continue;
    }
    // The scratch tensor's format: f32 if the kernel has an f32 tensor, else what the caller says.
    DType dtype = scratch_of_bf16;
    for (const Tensor& t : p.tensors)
      if (t.dtype == DType::f32)
        dtype = DType::f32;
    auto [first, second] = Rewrite(p, *f, *mt, programs, dtype).run();
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
