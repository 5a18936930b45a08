#include "lowering/tt/fission_rows.hpp"

#include "lowering/ir/util.hpp"
#include "lowering/ir/visitor.hpp"
#include "lowering/tt/call_match.hpp"
#include "lowering/tt/cb_tile_args.hpp"
#include "lowering/tt/target.hpp"

#include <algorithm>
#include <map>
#include <set>

namespace tk::lower {

namespace {

using namespace tk::ir;
using tt::call_of;
using tt::cb_name;

// What a call does to a CB it names: pushes a tile (the packer, or the reader's streams, which
// split-kernels gives to the reader in the order the body has them), pops, waits, reads, or
// something this stage does not move across a cut (the writer's drains).
enum class Kind { push, pop, wait, read, other };

Kind kind_of(Intrinsic fn, std::size_t arg) {
  switch (fn) {
  case Intrinsic::pack_tile:
    return Kind::push;
  case Intrinsic::cb_pop_front:
    return Kind::pop;
  case Intrinsic::cb_wait_front:
    return Kind::wait;
  case Intrinsic::df_read_tile:
  case Intrinsic::df_read_block:
  case Intrinsic::df_tril_tile:
  case Intrinsic::df_triu_tile:
  case Intrinsic::df_scaler_tile:
    return arg == 0 ? Kind::push : Kind::other;
  default:
    return std::string_view(to_string(fn)).substr(0, 3) == "df." ? Kind::other : Kind::read;
  }
}

struct Event {
  Kind kind;
  bool top;         // a statement of the row loop's body itself, not inside a nested loop
  std::size_t stmt; // the body statement it is in
  const Call* call;
};

// The CB events of body statement `at`, by CB, in program order.
void collect(const Stmt& s, bool top, std::size_t at,
             std::map<std::string, std::vector<Event>>& out, bool& assigns) {
  if (const Block* b = as<Block>(s)) {
    for (const Stmt& x : b->stmts)
      collect(x, top, at, out, assigns);
  } else if (const For* f = as<For>(s)) {
    collect(f->body, false, at, out, assigns);
  } else if (const IfThenElse* i = as<IfThenElse>(s)) {
    collect(i->then_case, false, at, out, assigns);
    if (i->else_case)
      collect(i->else_case, false, at, out, assigns);
  } else if (as<Assign>(s) || as<Store>(s)) {
    assigns = true; // a value carried from row to row, or memory the rows share
  } else if (const Call* c = call_of(s)) {
    for (std::size_t k = 0; k < c->args.size(); ++k)
      if (std::string cb = cb_name(c->args[k]); !cb.empty())
        out[cb].push_back(Event{kind_of(c->fn, k), top, at, c});
  }
}

// The DST events of a statement in order: 'W' a call that writes DST (dst.assume_zero included:
// it opens a section), 'P' a pack.
void dst_events(const Stmt& s, std::string& out) {
  if (const Block* b = as<Block>(s)) {
    for (const Stmt& x : b->stmts)
      dst_events(x, out);
  } else if (const For* f = as<For>(s)) {
    dst_events(f->body, out);
  } else if (const IfThenElse* i = as<IfThenElse>(s)) {
    dst_events(i->then_case, out);
    if (i->else_case)
      dst_events(i->else_case, out);
  } else if (const Call* c = call_of(s)) {
    if (c->fn == Intrinsic::pack_tile)
      out += 'P';
    else if (tt::writes_dst(c->fn))
      out += 'W';
  }
}

bool literal_is(const Expr& e, std::int64_t v) {
  const IntImm* i = as<IntImm>(e);
  return i && i->value == v;
}

// A read this stage can move to the row's tile: the CB at an argument whose tile index the SDK
// signature names (cb_tile_args.hpp), at index 0, and nowhere else in the call.
bool movable_read(const Call& c, const std::string& cb) {
  std::set<std::size_t> known;
  for (auto [at, index] : tt::cb_tile_args(c.fn))
    if (at < c.args.size() && cb_name(c.args[at]) == cb) {
      if (index >= c.args.size() || !literal_is(c.args[index], 0))
        return false;
      known.insert(at);
    }
  for (std::size_t k = 0; k < c.args.size(); ++k)
    if (cb_name(c.args[k]) == cb && !known.count(k))
      return false;
  return !known.empty();
}

// What the pieces do to one CB across them.
struct Plan {
  std::set<std::size_t> moved;        // pieces whose reads of the CB take the row's tile (index qr)
  std::set<std::size_t> drop_waits;   // pieces whose waits for the CB are dropped
  std::optional<std::size_t> wait_at; // the piece before which all q rows' tiles are waited for
};

class Fission {
public:
  Fission(const For& loop) : loop_(loop), stmts_(as<Block>(loop.body)->stmts) {}

  // The loop as one loop per piece, or null when it stays as it is.
  Stmt run() {
    bool assigns = false;
    for (std::size_t k = 0; k < stmts_.size(); ++k)
      collect(stmts_[k], true, k, events_, assigns);
    if (assigns)
      return nullptr;
    cut();
    std::map<std::string, Plan> plans;
    for (bool again = true; again && pieces_.size() > 1;) {
      again = false;
      plans.clear();
      for (const auto& [cb, evs] : events_) {
        std::optional<Plan> plan = plan_for(cb, evs);
        if (!plan) {
          join(cb, evs);
          again = true;
          break;
        }
        plans.emplace(cb, *plan);
      }
    }
    if (pieces_.size() < 2)
      return nullptr;
    return build(plans);
  }

private:
  const For& loop_;
  const std::vector<Stmt>& stmts_;
  std::map<std::string, std::vector<Event>> events_;
  std::vector<std::size_t> pieces_; // the first body statement of each piece

  std::size_t piece_of(std::size_t stmt) const {
    return static_cast<std::size_t>(std::upper_bound(pieces_.begin(), pieces_.end(), stmt) -
                                    pieces_.begin()) -
           1;
  }

  // A cut before a statement whose first DST event opens a section while none is open, in a
  // piece that has packed: the pieces each run whole DST sections.
  void cut() {
    pieces_ = {0};
    bool open = false, packed = false;
    for (std::size_t k = 0; k < stmts_.size(); ++k) {
      std::string ev;
      dst_events(stmts_[k], ev);
      if (!ev.empty() && ev.front() == 'W' && !open && packed) {
        pieces_.push_back(k);
        packed = false;
      }
      for (char e : ev) {
        open = e == 'W' || (e != 'P' && open);
        packed = packed || e == 'P';
      }
    }
  }

  // The pieces from the first to the last that touch `cb`, made one.
  void join(const std::string&, const std::vector<Event>& evs) {
    std::size_t lo = piece_of(evs.front().stmt), hi = lo;
    for (const Event& e : evs) {
      lo = std::min(lo, piece_of(e.stmt));
      hi = std::max(hi, piece_of(e.stmt));
    }
    pieces_.erase(pieces_.begin() + static_cast<std::ptrdiff_t>(lo) + 1,
                  pieces_.begin() + static_cast<std::ptrdiff_t>(hi) + 1);
  }

  // nullopt: the pieces the CB spans must be one.
  std::optional<Plan> plan_for(const std::string& cb, const std::vector<Event>& evs) const {
    std::set<std::size_t> touched;
    for (const Event& e : evs)
      touched.insert(piece_of(e.stmt));
    if (touched.size() < 2)
      return Plan{};
    std::vector<const Event*> pushes, pops;
    for (const Event& e : evs) {
      if (e.kind == Kind::other)
        return std::nullopt;
      if (e.kind == Kind::push)
        pushes.push_back(&e);
      if (e.kind == Kind::pop)
        pops.push_back(&e);
    }
    if (pops.empty()) // read only (a window, the scaler): every row reads the same tiles
      return pushes.empty() ? std::optional<Plan>(Plan{}) : std::nullopt;
    // One tile popped per row, by a statement of the body itself, and at most one pushed.
    if (pops.size() != 1 || !pops[0]->top || !literal_is(pops[0]->call->args[1], 1) ||
        pushes.size() > 1 || (pushes.size() == 1 && !pushes[0]->top))
      return std::nullopt;
    const std::size_t b = piece_of(pops[0]->stmt);
    const std::size_t pb = pops[0]->stmt;
    Plan plan;
    // The pieces whose reads take the row's tile: those between the push and the pop (a tile
    // each row hands on), or those before the pop (the rows' state, or tiles pushed before the
    // loop); piece b's reads come before its pop.
    std::size_t from = 0;
    if (!pushes.empty()) {
      const std::size_t a = piece_of(pushes[0]->stmt);
      if (a > b || (a == b && pushes[0]->stmt < pb))
        return std::nullopt;
      from = a < b ? a + 1 : 0;
      if (a < b)
        plan.drop_waits.insert(a);
    }
    for (const Event& e : evs) {
      const std::size_t k = piece_of(e.stmt);
      if (e.kind == Kind::wait && k != b) {
        if (!e.top)
          return std::nullopt;
        plan.drop_waits.insert(k);
        continue;
      }
      if (e.kind != Kind::read)
        continue;
      if (k == b) {
        if (e.stmt >= pb)
          return std::nullopt;
        continue;
      }
      if (k < from || k > b || !movable_read(*e.call, cb))
        return std::nullopt;
      plan.moved.insert(k);
    }
    // One wait for all the rows' tiles before the first piece that reads them once their own
    // waits are gone.
    if (!plan.moved.empty() || !plan.drop_waits.empty())
      plan.wait_at = plan.moved.empty() ? b : *plan.moved.begin();
    return plan;
  }

  Stmt build(const std::map<std::string, Plan>& plans) const {
    const Expr qr = var(loop_.var, Type::i32());
    // The CBs whose reads move in piece k, and whose waits piece k drops.
    std::vector<std::set<std::string>> moved(pieces_.size()), dropped(pieces_.size());
    std::map<std::size_t, std::vector<std::string>> wait_before; // piece -> CBs waited for
    for (const auto& [cb, plan] : plans) {
      for (std::size_t k : plan.moved)
        moved[k].insert(cb);
      for (std::size_t k : plan.drop_waits)
        dropped[k].insert(cb);
      if (plan.wait_at)
        wait_before[*plan.wait_at].push_back(cb);
    }
    struct MoveReads : Mutator {
      const std::set<std::string>* cbs = nullptr;
      Expr qr;
      Expr mutate_node(const Call& c, const Expr& self) override {
        std::vector<Expr> args = c.args;
        bool changed = false;
        for (auto [at, index] : tt::cb_tile_args(c.fn))
          if (at < args.size() && cbs->count(cb_name(args[at])) && c.fn != Intrinsic::pack_tile &&
              c.fn != Intrinsic::cb_wait_front && c.fn != Intrinsic::cb_pop_front) {
            args[index] = qr;
            changed = true;
          }
        return changed ? call(c.fn, std::move(args), c.loc.range) : self;
      }
    };
    std::vector<Stmt> out;
    for (std::size_t k = 0; k < pieces_.size(); ++k) {
      const std::size_t begin = pieces_[k];
      const std::size_t end = k + 1 < pieces_.size() ? pieces_[k + 1] : stmts_.size();
      std::vector<Stmt> body;
      for (std::size_t s = begin; s < end; ++s) {
        const Stmt& x = stmts_[s];
        if (const Call* c = call_of(x);
            c && c->fn == Intrinsic::cb_wait_front && dropped[k].count(cb_name(c->args[0])))
          continue;
        MoveReads mv;
        mv.cbs = &moved[k];
        mv.qr = qr;
        body.push_back(moved[k].empty() ? x : mv.mutate(x));
      }
      // The lets of the pieces before it that this piece names (the row's index `i`).
      std::set<std::string> need;
      for (const Stmt& x : body)
        for (const std::string& v : ir::vars_read(x))
          need.insert(v);
      std::vector<Stmt> lets;
      for (std::size_t s = begin; s-- > 0;)
        if (const Decl* d = as<Decl>(stmts_[s]); d && need.count(d->name)) {
          lets.insert(lets.begin(), stmts_[s]);
          for (const std::string& v : ir::vars_read(d->value))
            need.insert(v);
        }
      body.insert(body.begin(), lets.begin(), lets.end());
      if (auto w = wait_before.find(k); w != wait_before.end())
        for (const std::string& cb : w->second)
          out.push_back(evaluate(call(Intrinsic::cb_wait_front, {cb_ref(cb), loop_.extent}),
                                 loop_.loc.range));
      out.push_back(for_loop(loop_.var, loop_.min, loop_.extent, loop_.role, block(std::move(body)),
                             loop_.loc.range));
    }
    return block(std::move(out));
  }
};

// The row loops of the key loops (a loop of role reduction), each cut into pieces.
class Walker {
public:
  Walker(const Program& p, const Function& k) : rows_(p, k) {}

  Stmt walk(const Stmt& s, bool in_key_loop) {
    if (const Block* b = as<Block>(s)) {
      std::vector<Stmt> out;
      bool changed = false;
      for (const Stmt& x : b->stmts) {
        Stmt y = nullptr;
        if (const For* f = as<For>(x); f && in_key_loop && rows_.is_rows(*f))
          y = Fission(*f).run();
        if (y) {
          for (const Stmt& z : as<Block>(y)->stmts)
            out.push_back(z);
          changed = true;
          continue;
        }
        out.push_back(walk(x, in_key_loop));
        changed = changed || out.back() != x;
      }
      return changed ? block(std::move(out)) : s;
    }
    if (const For* f = as<For>(s)) {
      Stmt body = walk(f->body, f->role == ForRole::reduction);
      return body == f->body ? s : for_loop(f->var, f->min, f->extent, f->role, body, f->loc.range);
    }
    return s;
  }

private:
  tt::ChunkRowLoops rows_;
};

} // namespace

ir::Module fission_rows(const ir::Module& m, Diagnostics&) {
  ir::Module out = m;
  for (Program& p : out.programs)
    for (Function& f : p.functions)
      if (f.kind == FuncKind::kernel) {
        Walker w(p, f);
        f.body = w.walk(f.body, false);
      }
  return out;
}

namespace tt {

ChunkRowLoops::ChunkRowLoops(const Program& p, const Function& k) : fixed_(options(p).q_chunk) {
  for (const Stmt& s : as<Block>(k.body)->stmts)
    if (const Decl* d = as<Decl>(s))
      if (const Call* c = as<Call>(d->value); c && c->fn == Intrinsic::tt_q_chunk)
        rule_ = d->name;
}

bool ChunkRowLoops::is_rows(const For& f) const {
  if (f.role != ForRole::serial || !literal_is(f.min, 0) || !as<Block>(f.body))
    return false;
  if (const Var* v = as<Var>(f.extent))
    return !rule_.empty() && v->name == rule_;
  return fixed_ > 0 && literal_is(f.extent, fixed_);
}

} // namespace tt

} // namespace tk::lower
