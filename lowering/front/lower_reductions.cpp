#include "lowering/front/lower_reductions.hpp"

#include "lowering/ir/util.hpp"
#include "lowering/tt/target.hpp"

#include <cmath>
#include <limits>
#include <optional>
#include <set>
#include <vector>

namespace tk::lower {

namespace {

using namespace ir;

enum class Combine { sum, max, min };

struct Reduction {
  std::string var;
  Expr init;            // the user's initial value: the combine program starts from it
  Combine combine;      // how the parallel space updates it
  std::string partials; // the tensor of per-core partial results, one tile per page
};

const Type kTileVar = Type::tile(DType::f32);

// The combine the parallel space applies to `var` (the checker allows one: docs/language.md).
std::optional<Combine> combine_of(const Stmt& s, const std::string& var) {
  struct Find : Visitor {
    const std::string& var;
    std::optional<Combine> found;
    explicit Find(const std::string& v) : var(v) {}
    void visit_node(const Assign& a) override {
      if (a.name != var)
        return;
      if (const Call* c = as<Call>(a.value)) {
        if (c->fn == Intrinsic::tile_add || c->fn == Intrinsic::tile_add_scalar ||
            c->fn == Intrinsic::tile_matmul_acc)
          found = Combine::sum;
        else if (c->fn == Intrinsic::tile_max)
          found = Combine::max;
        else if (c->fn == Intrinsic::tile_min)
          found = Combine::min;
      }
    }
  } f(var);
  f.visit(s);
  return f.found;
}

Expr identity(Combine c) {
  if (c == Combine::sum)
    return call(Intrinsic::tile_zeros, {});
  const double inf = std::numeric_limits<double>::infinity();
  return call(Intrinsic::tile_fill, {float_imm(c == Combine::max ? -inf : inf)});
}

Expr combine(Combine c, Expr acc, Expr v) {
  Intrinsic fn = c == Combine::sum   ? Intrinsic::tile_add
                 : c == Combine::max ? Intrinsic::tile_max
                                     : Intrinsic::tile_min;
  return call(fn, {std::move(acc), std::move(v)});
}

std::set<std::string> stored_tensors(const std::vector<Stmt>& ss) {
  struct Stores : Visitor {
    std::set<std::string> names;
    void visit_node(const Store& s) override { names.insert(s.tensor); }
  } st;
  for (const Stmt& s : ss)
    st.visit(s);
  return st.names;
}

bool is_zero(const Expr& e) {
  const IntImm* i = as<IntImm>(e);
  return i && i->value == 0;
}

class Split {
public:
  Split(const Program& p, const Function& f, const Block& b, std::size_t at, NameSet& programs)
      : p_(p), f_(f), b_(b), at_(at), programs_(programs), names_(p), combine_names_(p) {}

  // The partial results program (the kernel's own) and the combine program.
  std::pair<Program, Program> run() {
    for (std::size_t i = 0; i < at_; ++i) {
      const Decl* d = as<Decl>(b_.stmts[i]);
      if (d && !d->type.is_tile())
        outer_.push_back(b_.stmts[i]);
      else if (d)
        prologue_.push_back(d);
      else
        throw InternalError("internal error: lower-reductions: a statement before the parallel "
                            "loops of '" +
                            f_.name + "' binds no reduction variable");
    }
    for (std::size_t i = at_ + 1; i < b_.stmts.size(); ++i)
      epilogue_.push_back(b_.stmts[i]);
    const Grid grid = tt::option_grid(p_);
    chunks_ = grid.x * grid.y;
    for (const Decl* d : prologue_) {
      std::optional<Combine> c = combine_of(b_.stmts[at_], d->name);
      if (!c)
        throw InternalError("internal error: lower-reductions: reduction variable '" + d->name +
                            "' of '" + f_.name + "' is never combined");
      reductions_.push_back({d->name, d->value, *c, names_.fresh(p_.name + "_" + d->name)});
    }
    combine_name_ = programs_.fresh(p_.name + "_combine");
    return {partials_program(), combine_program()};
  }

private:
  const Program& p_;
  const Function& f_;
  const Block& b_;
  std::size_t at_;
  NameSet& programs_;
  NameSet names_, combine_names_; // fresh names of the two programs' new variables
  std::vector<Stmt> outer_, epilogue_;
  std::vector<const Decl*> prologue_;
  std::vector<Reduction> reductions_;
  std::int64_t chunks_ = 0;
  // Partial results are f32 whatever the tensors hold: a chunk's sum rounded to bf16 would lose
  // 2^-9 of itself before the combine (docs/language.md, "Whole-tensor reductions").
  static constexpr DType kPartials = DType::f32;
  std::string combine_name_;

  Tensor partials_tensor(const Reduction& r, TensorRole role) const {
    Tensor t;
    t.name = r.partials;
    t.dtype = kPartials;
    t.dims = {Dim{"", chunks_ * 32}, Dim{"", 32}};
    t.role = role;
    t.loc = p_.loc;
    return t;
  }

  // for c in 0 .. C parallel { identities; for t in its share of the work items { the body };
  // one partial tile per variable at page c }.
  Program partials_program() {
    Stmt inner;
    std::vector<const For*> nest = parallel_nest(b_.stmts[at_], inner);
    const std::string c = names_.fresh("c"), lo = names_.fresh("lo"), hi = names_.fresh("hi"),
                      t = names_.fresh("t"), items = names_.fresh("items");
    Expr total = nest[0]->extent;
    for (std::size_t k = 1; k < nest.size(); ++k)
      total = total * nest[k]->extent;
    // The work item, inline in each index (a let of its own would outlive the indices in a
    // kernel that needs none of them, such as the compute kernel).
    Expr cv = var(c, Type::i32()), n = var(items, Type::i32());
    Expr wv = var(lo, Type::i32()) + var(t, Type::i32());
    Expr chunks = int_imm(chunks_);
    // Chunk c holds the work items [c * items / C, (c + 1) * items / C), row-major: as even as
    // split_work_to_cores (sizes differ by at most one), in the order of the parallel space.
    std::vector<Stmt> decode;
    for (std::size_t k = 0; k < nest.size(); ++k) {
      Expr stride;
      for (std::size_t m = k + 1; m < nest.size(); ++m)
        stride = stride ? stride * nest[m]->extent : nest[m]->extent;
      Expr v = stride ? wv / stride : wv;
      if (k > 0)
        v = v % nest[k]->extent;
      if (!is_zero(nest[k]->min))
        v = nest[k]->min + v;
      decode.push_back(decl(nest[k]->var, Type::i32(), v));
    }
    decode.push_back(inner);
    std::vector<Stmt> chunk;
    for (const Reduction& r : reductions_)
      chunk.push_back(decl(r.var, kTileVar, identity(r.combine)));
    // Signed bounds: after to-core-loop c is the core's u32 work item.
    chunk.push_back(decl(lo, Type::i32(), cv * n / chunks));
    chunk.push_back(decl(hi, Type::i32(), (cv + int_imm(1)) * n / chunks));
    chunk.push_back(for_loop(t, int_imm(0), var(hi, Type::i32()) - var(lo, Type::i32()),
                             ForRole::reduction, block(std::move(decode)), nest[0]->loc.range));
    for (const Reduction& r : reductions_)
      chunk.push_back(store(r.partials, {cv, int_imm(0)}, var(r.var, kTileVar)));
    std::vector<Stmt> body = outer_;
    body.push_back(decl(items, Type::i32(), total));
    body.push_back(for_loop(c, int_imm(0), chunks, ForRole::parallel, block(std::move(chunk)),
                            nest[0]->loc.range));

    Program out = p_;
    const std::set<std::string> after = stored_tensors(epilogue_);
    out.tensors.clear();
    for (const Tensor& x : p_.tensors)
      if (!after.count(x.name))
        out.tensors.push_back(x);
    for (const Reduction& r : reductions_)
      out.tensors.push_back(partials_tensor(r, TensorRole::output));
    Function& f = *find_function(out, FuncKind::kernel);
    std::vector<Param> params;
    bool placed = false;
    for (const Param& q : f_.params) {
      if (after.count(q.name))
        continue;
      if (!placed && q.type.is_int()) { // the sizes follow the tensors and scalars
        for (const Reduction& r : reductions_)
          params.push_back({r.partials, Type::tensor()});
        placed = true;
      }
      params.push_back(q);
    }
    if (!placed)
      for (const Reduction& r : reductions_)
        params.push_back({r.partials, Type::tensor()});
    f.params = std::move(params);
    f.body = block(std::move(body));
    out.combine = combine_name_;
    return out;
  }

  // One core: the user's initial values, the partials combined in chunk order, then the
  // statements after the parallel space.
  Program combine_program() {
    const std::string c = combine_names_.fresh("c"), z = combine_names_.fresh("z");
    Expr cv = var(c, Type::i32());
    std::vector<Stmt> steps, body;
    for (const Reduction& r : reductions_) {
      body.push_back(decl(r.var, kTileVar, r.init));
      steps.push_back(assign(r.var, combine(r.combine, var(r.var, kTileVar),
                                            load(r.partials, kPartials, {cv, int_imm(0)}))));
    }
    body.push_back(
        for_loop(c, int_imm(0), int_imm(chunks_), ForRole::reduction, block(std::move(steps))));
    body.insert(body.end(), epilogue_.begin(), epilogue_.end());
    Stmt whole = for_loop(z, int_imm(0), int_imm(1), ForRole::parallel, block(std::move(body)),
                          b_.stmts[at_]->loc.range);

    Program out;
    out.name = combine_name_;
    out.loc = p_.loc;
    out.attrs = p_.attrs;
    out.grouped_dims = p_.grouped_dims;
    out.options = p_.options; // the same chip, grid and options as the program it finishes
    const std::set<std::string> after = stored_tensors(epilogue_);
    for (const Reduction& r : reductions_)
      out.tensors.push_back(partials_tensor(r, TensorRole::input));
    for (const Tensor& x : p_.tensors)
      if (after.count(x.name))
        out.tensors.push_back(x);
    // Parameters: the tensors, then the scalars and sizes the combine reads, in the kernel's order.
    std::set<std::string> read = vars_read(whole);
    Function f;
    f.name = combine_name_;
    f.kind = FuncKind::kernel;
    f.loc = f_.loc;
    for (const Tensor& x : out.tensors) {
      f.params.push_back({x.name, Type::tensor()});
      out.signature.push_back(x.name);
    }
    for (const Param& q : f_.params)
      if (!(q.type.kind == Type::Kind::tensor) && read.count(q.name)) {
        f.params.push_back(q);
        if (!q.type.is_int())
          out.signature.push_back(q.name);
      }
    f.body = block({whole});
    out.functions.push_back(std::move(f));
    return out;
  }
};

} // namespace

ir::Module lower_reductions(const ir::Module& m, Diagnostics&) {
  Module out = m;
  out.programs.clear();
  NameSet programs;
  for (const Program& p : m.programs)
    programs.add(p.name);
  for (const Program& p : m.programs) {
    const Function* f = find_function(p, FuncKind::kernel);
    const Block* b = f ? as<Block>(f->body) : nullptr;
    std::size_t at = 0;
    while (b && at < b->stmts.size() &&
           !(as<For>(b->stmts[at]) && as<For>(b->stmts[at])->role == ForRole::parallel))
      ++at;
    bool reduces = b && at < b->stmts.size();
    if (reduces) {
      bool prologue = false;
      for (std::size_t i = 0; i < at; ++i)
        if (const Decl* d = as<Decl>(b->stmts[i]); !d || d->type.is_tile())
          prologue = true;
      reduces = prologue || at + 1 < b->stmts.size();
    }
    if (!reduces || !p.combine.empty()) {
      out.programs.push_back(p);
      continue;
    }
    auto [partials, combine] = Split(p, *f, *b, at, programs).run();
    out.programs.push_back(std::move(partials));
    out.programs.push_back(std::move(combine));
  }
  return out;
}

} // namespace tk::lower
