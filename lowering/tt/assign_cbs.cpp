#include "lowering/tt/assign_cbs.hpp"

#include "lowering/ir/fold.hpp"
#include "lowering/ir/printer.hpp"
#include "lowering/ir/util.hpp"
#include "lowering/tt/target.hpp"

#include <map>

namespace tk::lower {

namespace {

using namespace tk::ir;

// Tiles an intermediate CB holds (packed, not yet popped) along the compute order; a loop body
// must leave its count as it found it, so one pass over each body bounds every iteration, unless
// the loop runs a literal number of times, whose iterations are walked one by one, or a count the
// host's rule bounds (chunk-rows' `for qr in 0 .. q` with q = tt.q_chunk(...), at most its largest
// chunk), walked as many times as that bound.
class Occupancy {
public:
  Occupancy(const std::string& cb, const std::map<std::string, std::int64_t>& bounds)
      : cb_(cb), bounds_(bounds) {}
  std::int64_t peak() const { return peak_; }

  void walk(const Stmt& s) {
    if (const Block* b = as<Block>(s)) {
      for (const Stmt& x : b->stmts)
        walk(x);
    } else if (const For* f = as<For>(s)) {
      // A loop of a literal count may fill the CB row by row (chunk-rows' loop over a chunk's
      // rows packs each row's state): its iterations, one after the other. A count of the
      // rule's chunk (batch-rows' `for qrb in 0 .. q / 4` and the rows left, `.. q % 2`) folded
      // at the chunk's bound: the loops' counts add up to the rows, and the CB holds the most.
      const std::int64_t n = ir::fold_int(f->extent, bounds_).value_or(-1);
      if (n == 0)
        return;
      std::int64_t before = now_;
      walk(f->body);
      if (n >= 0 && now_ != before)
        for (std::int64_t k = 1; k < n; ++k)
          walk(f->body);
      else if (now_ != before)
        throw InternalError("internal error: assign-cbs: loop '" + f->var +
                            "' changes the tiles "
                            "held in '" +
                            cb_ + "' by " + std::to_string(now_ - before) + " per iteration");
    } else if (const Evaluate* e = as<Evaluate>(s)) {
      const Call* c = as<Call>(e->call);
      bool pack = c->fn == Intrinsic::pack_tile && is_cb(c->args[1]);
      // Pages pushed unwritten (chunk-keys' pad of a key step's slot in P), counted at the bound.
      bool push = c->fn == Intrinsic::cb_push_back && is_cb(c->args[0]);
      bool pop = c->fn == Intrinsic::cb_pop_front && is_cb(c->args[0]);
      if (pack)
        now_ += 1;
      if (push)
        now_ += pages(*c);
      if (pop)
        now_ -= pages(*c);
      peak_ = std::max(peak_, now_);
    }
  }

private:
  std::string cb_;
  const std::map<std::string, std::int64_t>& bounds_;
  std::int64_t pages(const Call& c) const {
    if (std::optional<std::int64_t> n = ir::fold_int(c.args[1], bounds_))
      return *n;
    throw InternalError("internal error: assign-cbs: " + std::string(to_string(c.fn)) + " of '" +
                        cb_ + "' with a page count that is neither a literal nor the rule's");
  }
  std::int64_t now_ = 0, peak_ = 0;
  bool is_cb(const Expr& e) const {
    const Ref* r = as<Ref>(e);
    return r && r->name == cb_;
  }
};

// The first statement that streams or packs into `cb`: where a user error about it points.
SourceRange first_use(const Stmt& s, const std::string& cb) {
  if (const Block* b = as<Block>(s)) {
    for (const Stmt& x : b->stmts)
      if (SourceRange r = first_use(x, cb); r != SourceRange{})
        return r;
  } else if (const For* f = as<For>(s)) {
    return first_use(f->body, cb);
  } else if (const Evaluate* e = as<Evaluate>(s)) {
    const Call* c = as<Call>(e->call);
    for (const Expr& a : c->args)
      if (const Ref* r = as<Ref>(a); r && r->name == cb && s->loc.range != SourceRange{})
        return s->loc.range;
  }
  return {};
}

// The kernel's lets of a count the host's rule chooses, with their bound: q = tt.q_chunk(H, St,
// Dt, cores, window, largest chunk, ...) is at most its largest chunk.
std::map<std::string, std::int64_t> rule_bounds(const Function& k) {
  std::map<std::string, std::int64_t> out;
  for (const Stmt& s : as<Block>(k.body)->stmts)
    if (const Decl* d = as<Decl>(s))
      if (const Call* c = as<Call>(d->value); c && c->fn == Intrinsic::tt_q_chunk)
        if (const IntImm* n = as<IntImm>(c->args[5]))
          out[d->name] = n->value;
  return out;
}

} // namespace

ir::Module assign_cbs(const ir::Module& m, Diagnostics& diags) {
  ir::Module out = m;
  for (Program& p : out.programs) {
    const Function* k = ir::find_function(p, FuncKind::kernel);
    if (!k)
      throw InternalError("internal error: assign-cbs: program '" + p.name + "' has no kernel");
    for (CircularBuffer& c : p.cbs) {
      tt::CbRange r = tt::cb_range(c.role);
      if (c.index < r.first || c.index > r.last)
        throw InternalError("internal error: assign-cbs: " + std::string(to_string(c.role)) +
                            " circular buffer '" + c.name + "' has index " +
                            std::to_string(c.index) + " outside " + std::to_string(r.first) + "-" +
                            std::to_string(r.last));
      if (c.role == CBRole::intermediate) {
        const std::map<std::string, std::int64_t> bounds = rule_bounds(*k);
        Occupancy occ(c.name, bounds);
        occ.walk(k->body);
        c.depth = std::max<std::int64_t>(1, occ.peak());
      }
    }
    const arch::ArchSpec& a = tt::arch_of(p);
    std::int64_t total = 0;
    for (const CircularBuffer& c : p.cbs) {
      total += c.page_size * c.depth;
      if (total <= tt::l1_cb_budget(p))
        continue;
      std::int64_t all = 0;
      for (const CircularBuffer& x : p.cbs)
        all += x.page_size * x.depth;
      diags.error(first_use(k->body, c.name),
                  "the circular buffers of kernel '" + p.name + "' need " + std::to_string(all) +
                      " bytes of L1 (cb_depth " + std::to_string(tt::options(p).cb_depth) +
                      "), but a " + std::string(a.name) + " core has " +
                      std::to_string(tt::l1_cb_budget(p)) + " for them (its L1 from " +
                      arch::hex(a.first_free_l1_address()) + " to " + arch::hex(a.l1_size) +
                      "); the one for '" + (c.tensor.empty() ? c.name : c.tensor) +
                      "' does not fit: lower cb_depth");
      return m;
    }
  }
  return out;
}

} // namespace tk::lower
