#include "lowering/tt/stream_rows.hpp"

#include "lowering/ir/printer.hpp"
#include "lowering/ir/util.hpp"
#include "lowering/ir/visitor.hpp"
#include "lowering/tt/row_cbs.hpp"
#include "lowering/tt/target.hpp"

#include <algorithm>
#include <map>

namespace tk::lower {

namespace {

using namespace tk::ir;

// The L1 share of the windows (two per streamed row), and what is left beside them, at least, to
// the rows of tiles (256 KiB, select_tile_ops_rows.cpp) and the intermediates.
constexpr std::int64_t kWindowShare = 384 * 1024;
constexpr std::int64_t kOtherShare = 512 * 1024;
// At most 64 tiles a window: a row of tiles holds at most 64 (D <= 2048), and attention's rows of
// K and V are as long as it.
constexpr std::int64_t kMaxWindow = 64;

// Every load of a tensor in a statement.
struct Loads : Visitor {
  std::string tensor;
  std::vector<const Load*> found;
  void visit_node(const Load& l) override {
    if (l.tensor == tensor)
      found.push_back(&l);
    Visitor::visit_node(l);
  }
};

// The names a statement binds (lets, assignments, loop variables) and its loops by variable.
struct Bound : Visitor {
  std::set<std::string> names;
  std::map<std::string, const For*> loops;
  void visit_node(const Decl& d) override {
    names.insert(d.name);
    Visitor::visit_node(d);
  }
  void visit_node(const Assign& a) override {
    names.insert(a.name);
    Visitor::visit_node(a);
  }
  void visit_node(const For& f) override {
    names.insert(f.var);
    loops[f.var] = &f;
    Visitor::visit_node(f);
  }
};

bool is_zero(const Expr& e) {
  const IntImm* i = as<IntImm>(e);
  return i && i->value == 0;
}

bool reads_any(const Expr& e, const std::set<std::string>& names) {
  std::set<std::string> r = ir::vars_read(e);
  return std::any_of(r.begin(), r.end(), [&](const std::string& v) { return names.count(v) > 0; });
}

struct Streamed {
  const Tensor* tensor;
  const StmtNode* at;       // the loop statement its window is read before
  std::vector<Expr> prefix; // the leading indices of its loads
  std::string extent;       // E, printed
  std::string cb;
  int depth = 0;          // the loops around `at` inside the per-core loop
  bool by_writer = false; // read by the writer kernel, on its NoC
};

class Rows : public Mutator {
public:
  Rows(Program& p, Function& k) : p_(p), k_(k), names_(p) {}

  void run() {
    std::vector<Stmt> top = as<Block>(k_.body)->stmts, out;
    for (const Stmt& s : top) {
      const For* f = as<For>(s);
      if (!f || f->role != ForRole::per_core) {
        out.push_back(s);
        continue;
      }
      Bound inside;
      inside.visit(f->body);
      inside.names.insert(f->var);
      inside_ = inside.names;
      std::set<std::string> pending;
      for (const Tensor& t : p_.tensors)
        if (t.role == TensorRole::input && (t.dims.size() == 2 || t.dims.size() == 3))
          pending.insert(t.name);
      place(f->body, pending, 0);
      if (streamed_.empty()) {
        out.push_back(s);
        continue;
      }
      if (!choose_window()) {
        streamed_.clear();
        out.push_back(s);
        continue;
      }
      split_nocs();
      for (Streamed& r : streamed_)
        add_cb(r);
      Stmt body = mutate(f->body);
      out.insert(out.end(), lets_.begin(), lets_.end());
      out.push_back(for_loop(f->var, f->min, f->extent, f->role, body, f->loc.range));
    }
    k_.body = block(std::move(out));
  }

protected:
  // The statements a window is read before: its read and wait first, its pop after.
  Stmt mutate_node(const Block& b, const Stmt&) override {
    std::vector<Stmt> out;
    for (const Stmt& s : b.stmts) {
      std::vector<Streamed*> here;
      for (Streamed& r : streamed_)
        if (r.at == s.get())
          here.push_back(&r);
      for (Streamed* r : here) {
        out.push_back(evaluate(call(Intrinsic::df_read_block,
                                    {cb_ref(r->cb), tensor_ref(r->tensor->name), first_page(*r),
                                     int_imm(1), int_imm(window_), int_imm(1), int_imm(1),
                                     int_imm(1), kept(r->extent), int_imm(window_)}),
                               s->loc.range));
        out.push_back(evaluate(call(Intrinsic::cb_wait_front, {cb_ref(r->cb), int_imm(window_)}),
                               s->loc.range));
        active_.push_back(r);
      }
      Stmt m = mutate(s);
      if (const Block* split = as<Block>(m); split && as<For>(s)) // a loop split in two
        out.insert(out.end(), split->stmts.begin(), split->stmts.end());
      else
        out.push_back(m);
      for (Streamed* r : here) {
        out.push_back(evaluate(call(Intrinsic::cb_pop_front, {cb_ref(r->cb), int_imm(window_)}),
                               s->loc.range));
        active_.erase(std::find(active_.begin(), active_.end(), r));
      }
    }
    return block(std::move(out));
  }

  // A loop over the last index of an active row: its window's part, then the streamed rest.
  Stmt mutate_node(const For& f, const Stmt& self) override {
    std::vector<const Streamed*> rows;
    for (const Streamed* r : active_) {
      Loads loads;
      loads.tensor = r->tensor->name;
      loads.visit(f.body);
      for (const Load* l : loads.found)
        if (const Var* v = as<Var>(l->indices.back()); v && v->name == f.var) {
          rows.push_back(r);
          break;
        }
    }
    if (rows.empty())
      return Mutator::mutate_node(f, self);
    Stmt body = mutate(f.body);
    FromWindow from(rows, f.var);
    const Expr k = kept(rows.front()->extent);
    return block({for_loop(f.var, f.min, k, f.role, from.mutate(body), f.loc.range),
                  for_loop(f.var, k, f.extent - k, f.role, body, f.loc.range)});
  }

private:
  Program& p_;
  Function& k_;
  ir::NameSet names_;
  std::set<std::string> inside_; // the names the per-core loop binds
  std::vector<Streamed> streamed_;
  std::vector<Streamed*> active_;
  std::map<std::string, Expr> kept_; // per extent: `stream_kept = min(E, W)`
  std::vector<Stmt> lets_;
  std::map<std::string, const For*> extent_loops_;
  std::int64_t window_ = 0;

  // Loads of the rows at [prefix, e] become tile e of their window.
  struct FromWindow : Mutator {
    FromWindow(std::vector<const Streamed*> rows, std::string var)
        : rows_(std::move(rows)), var_(std::move(var)) {}
    Expr mutate_node(const Load& l, const Expr& self) override {
      for (const Streamed* r : rows_)
        if (l.tensor == r->tensor->name)
          if (const Var* v = as<Var>(l.indices.back()); v && v->name == var_)
            return call(Intrinsic::cb_tile, {cb_ref(r->cb), l.indices.back()}, l.loc.range);
      return Mutator::mutate_node(l, self);
    }
    std::vector<const Streamed*> rows_;
    std::string var_;
  };

  // Each pending tensor is streamed before the outermost loop statement in which its row is fixed.
  void place(const Stmt& s, std::set<std::string>& pending, int depth) {
    const Block* b = as<Block>(s);
    if (!b)
      return;
    for (const Stmt& x : b->stmts) {
      const For* f = as<For>(x);
      if (!f)
        continue;
      for (auto it = pending.begin(); it != pending.end();) {
        if (std::optional<Streamed> r = fixed_in(x, *p_.find_tensor(*it))) {
          r->depth = depth;
          streamed_.push_back(*r);
          it = pending.erase(it);
        } else {
          ++it;
        }
      }
      place(f->body, pending, depth + 1);
    }
  }

  // The reader reads on one NoC and the writer on the other, each NoC with its own DRAM queue
  // (docs/timing.md, "Per NoC"). The rows read most often per work item are those inside the most
  // loops; when there are several, the writer reads the later half of them (in the order place
  // found them) and the reader the rest, so that the bytes a work item reads are split over both
  // NoCs. In FlashAttention the key step's K row stays with the reader and its V row goes to the
  // writer (which also writes O); Q, read once per work item, stays with the reader. TTNN's SDPA
  // reads Q, K and V in its reader and forwards K/V chunks between the cores of one head instead
  // (tt-metal a8c5af0f5a26, ttnn/cpp/ttnn/operations/transformer/sdpa/device/kernels/dataflow/
  // reader_interleaved.cpp: cb_q_in, cb_k_in, cb_v_in; writer_interleaved.cpp writes the output
  // and generates the mask tiles).
  void split_nocs() {
    int deepest = 0;
    for (const Streamed& r : streamed_)
      deepest = std::max(deepest, r.depth);
    std::vector<Streamed*> most;
    for (Streamed& r : streamed_)
      if (r.depth == deepest)
        most.push_back(&r);
    for (std::size_t n = most.size() - most.size() / 2; n < most.size(); ++n)
      most[n]->by_writer = true;
  }

  // T's row is fixed in loop statement s when every load of T in s has the same leading indices,
  // which read nothing s binds, and a last index that is the variable of a loop `0 .. E` in s, E
  // the same for all and read only from names bound before the per-core loop.
  std::optional<Streamed> fixed_in(const Stmt& s, const Tensor& t) {
    Loads loads;
    loads.tensor = t.name;
    loads.visit(s);
    if (loads.found.empty())
      return std::nullopt;
    Bound bound;
    bound.visit(s);
    Streamed r{&t, s.get(), {}, "", ""};
    std::string prefix;
    for (const Load* l : loads.found) {
      std::vector<Expr> lead(l->indices.begin(), l->indices.end() - 1);
      std::string printed;
      for (const Expr& e : lead) {
        if (reads_any(e, bound.names))
          return std::nullopt;
        printed += print(e) + ",";
      }
      const Var* v = as<Var>(l->indices.back());
      auto loop = v ? bound.loops.find(v->name) : bound.loops.end();
      if (loop == bound.loops.end() || !is_zero(loop->second->min) ||
          reads_any(loop->second->extent, inside_))
        return std::nullopt;
      if (r.extent.empty()) {
        r.extent = print(loop->second->extent), r.prefix = lead, prefix = printed;
        extent_loops_[r.extent] = loop->second;
      }
      if (printed != prefix || print(loop->second->extent) != r.extent)
        return std::nullopt;
    }
    return r;
  }

  // W: the largest power of two at most kMaxWindow whose two windows per streamed row fit the
  // share. False when not even one tile does, or when no input CB index is left for a window.
  bool choose_window() {
    const std::vector<std::int64_t> free = tt::free_cb_indices(p_, CBRole::input);
    if (streamed_.size() > free.size())
      streamed_.resize(free.size());
    if (streamed_.empty())
      return false;
    std::int64_t used = 0;
    for (const CircularBuffer& c : p_.cbs)
      used += c.page_size * c.depth;
    std::int64_t pages = 0;
    for (const Streamed& r : streamed_)
      pages += 2 * r.tensor->layout->page_size;
    const std::int64_t share = std::min(kWindowShare, tt::l1_cb_budget(p_) - used - kOtherShare);
    window_ = 1;
    while (2 * window_ <= kMaxWindow && 2 * window_ * pages <= share)
      window_ *= 2;
    return window_ * pages <= share;
  }

  Expr kept(const std::string& extent) {
    auto [it, fresh] = kept_.try_emplace(extent);
    if (fresh) {
      std::string n = names_.fresh("stream_kept");
      lets_.push_back(
          decl(n, Type::i32(),
               binary(BinaryOp::min, extent_loops_.at(extent)->extent, int_imm(window_))));
      it->second = var(n, Type::i32());
    }
    return it->second;
  }

  // The row's first page: T[.., row, 0].
  Expr first_page(const Streamed& r) const {
    std::map<std::string, std::string> counts = ir::tile_count_vars(k_);
    const std::vector<Dim>& d = r.tensor->dims;
    Expr row = r.prefix.size() == 2
                   ? ir::add(ir::mul(r.prefix[0], ir::tiles_of(d[1], counts)), r.prefix[1])
                   : r.prefix[0];
    return ir::mul(row, ir::tiles_of(d.back(), counts));
  }

  // The window CB: two windows, at the next free input index.
  void add_cb(Streamed& r) {
    r.cb = tt::add_row_cb(p_, names_, r.tensor->name, "_win", 2 * window_, "stream-rows");
    p_.cbs.back().read_by_writer = r.by_writer;
  }
};

} // namespace

ir::Module stream_rows(const ir::Module& m, Diagnostics&) {
  return tt::on_unblocked_kernels(m, [](Program& p, Function& k) { Rows(p, k).run(); });
}

} // namespace tk::lower
