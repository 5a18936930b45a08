#include "lowering/ir/util.hpp"

#include "lowering/ir/equal.hpp"

#include <algorithm>
#include <cstdint>
#include <string_view>
#include <unordered_map>
#include <utility>

namespace tk::ir {

namespace {
struct NameCollector : Visitor {
  std::set<std::string>& names;
  explicit NameCollector(std::set<std::string>& n) : names(n) {}
  void visit_node(const Decl& d) override {
    names.insert(d.name);
    Visitor::visit_node(d);
  }
  void visit_node(const For& f) override {
    names.insert(f.var);
    Visitor::visit_node(f);
  }
  void visit_node(const Var& v) override { names.insert(v.name); }
};

struct MentionCounter : Visitor {
  const std::string& var;
  int count = 0;
  explicit MentionCounter(const std::string& v) : var(v) {}
  void visit_node(const Var& v) override { count += v.name == var; }
  void visit_node(const Assign& a) override {
    count += a.name == var;
    Visitor::visit_node(a);
  }
};

struct ReadCollector : Visitor {
  std::set<std::string> names;
  void visit_node(const Var& v) override { names.insert(v.name); }
};

struct CallCollector : Visitor {
  std::vector<const Call*> calls;
  Intrinsic fn{};
  bool (*pred)(Intrinsic) = nullptr;
  void visit_node(const Call& c) override {
    if (pred ? pred(c.fn) : c.fn == fn)
      calls.push_back(&c);
    Visitor::visit_node(c);
  }
};
} // namespace

NameSet::NameSet(const Program& p) {
  for (const Tensor& t : p.tensors)
    used_.insert(t.name);
  for (const CircularBuffer& c : p.cbs)
    used_.insert(c.name);
  for (const Function& f : p.functions) {
    used_.insert(f.name);
    add(f);
  }
}

void NameSet::add(const Function& f) {
  for (const Param& q : f.params)
    used_.insert(q.name);
  NameCollector c{used_};
  c.visit(f.body);
}

std::string NameSet::fresh(const std::string& base) {
  std::string n = base;
  for (int i = 1; used_.count(n); ++i)
    n = base + "_" + std::to_string(i);
  used_.insert(n);
  return n;
}

std::string NameSet::numbered(const std::string& base) {
  std::string n;
  do
    n = base + std::to_string(next_++);
  while (used_.count(n));
  used_.insert(n);
  return n;
}

int count_mentions(const Stmt& s, const std::string& var) {
  MentionCounter c{var};
  c.visit(s);
  return c.count;
}
int count_mentions(const Expr& e, const std::string& var) {
  MentionCounter c{var};
  c.visit(e);
  return c.count;
}

std::set<std::string> vars_read(const Stmt& s) {
  ReadCollector c;
  c.visit(s);
  return c.names;
}
std::set<std::string> vars_read(const Expr& e) {
  ReadCollector c;
  c.visit(e);
  return c.names;
}

std::vector<const Call*> calls_of(const Stmt& s, Intrinsic fn) {
  CallCollector c;
  c.fn = fn;
  c.visit(s);
  return c.calls;
}

bool any_call(const Stmt& s, bool (*pred)(Intrinsic)) {
  CallCollector c;
  c.pred = pred;
  c.visit(s);
  return !c.calls.empty();
}

namespace {
// One backwards pass over a block: a let survives if a later statement (or anything after the
// block, `live_after`) reads it. The names read are bitsets over the statement's variable names
// (one bit each, interned once), and what each node reads is computed once: the pass runs on
// every TT kernel (split-kernels), and recomputing the names below each statement at each level
// as sets of strings was most of that stage. A node nothing changed in is returned as is.
class DeadCode {
public:
  explicit DeadCode(const Stmt& s) {
    struct Names : Visitor {
      std::unordered_map<std::string_view, std::size_t>& ids;
      explicit Names(std::unordered_map<std::string_view, std::size_t>& i) : ids(i) {}
      void visit_node(const Var& v) override { ids.emplace(v.name, ids.size()); }
    } names{ids_};
    names.visit(s);
    words_ = (ids_.size() + 63) / 64;
  }

  Stmt pass(const Stmt& s) { return dce(s, Bits(words_, 0)); }

private:
  using Bits = std::vector<std::uint64_t>;

  bool has(const Bits& b, std::string_view name) const {
    auto it = ids_.find(name);
    return it != ids_.end() && (b[it->second / 64] >> (it->second % 64) & 1);
  }
  static void add(Bits& to, const Bits& from) {
    for (std::size_t w = 0; w < to.size(); ++w)
      to[w] |= from[w];
  }

  // The variables `s` reads (vars_read), memoised; the entry holds the node, so that its address
  // is not reused by a node of a later pass.
  const Bits& reads(const Stmt& s) {
    if (auto it = reads_.find(s.get()); it != reads_.end())
      return it->second.second;
    Bits r(words_, 0);
    struct Reads : Visitor {
      const std::unordered_map<std::string_view, std::size_t>& ids;
      Bits& r;
      Reads(const std::unordered_map<std::string_view, std::size_t>& i, Bits& b) : ids(i), r(b) {}
      void visit_node(const Var& v) override {
        const std::size_t id = ids.at(v.name);
        r[id / 64] |= std::uint64_t{1} << (id % 64);
      }
    } visit{ids_, r};
    if (const Block* b = as<Block>(s)) {
      for (const Stmt& x : b->stmts)
        add(r, reads(x));
    } else if (const For* f = as<For>(s)) {
      visit.visit(f->min);
      visit.visit(f->extent);
      add(r, reads(f->body));
    } else {
      visit.visit(s);
    }
    return reads_.emplace(s.get(), std::make_pair(s, std::move(r))).first->second.second;
  }

  Stmt dce_block(const Stmt& self, const Block& b, const Bits& live_after) {
    Bits live = live_after;
    std::vector<Stmt> kept;
    bool changed = false;
    for (auto it = b.stmts.rbegin(); it != b.stmts.rend(); ++it) {
      const Stmt& s = *it;
      if (const Decl* d = as<Decl>(s); d && !d->type.is_tile() && !has(live, d->name)) {
        changed = true;
        continue;
      }
      Stmt n = dce(s, live);
      changed = changed || n != s;
      if (!n)
        continue;
      add(live, reads(n));
      kept.push_back(n);
    }
    if (!changed)
      return self;
    std::reverse(kept.begin(), kept.end());
    return block(std::move(kept));
  }

  Stmt dce(const Stmt& s, const Bits& live_after) {
    if (const Block* b = as<Block>(s))
      return dce_block(s, *b, live_after);
    if (const For* f = as<For>(s)) {
      // Anything the body reads is live across iterations.
      Bits live = live_after;
      add(live, reads(f->body));
      Stmt body = dce(f->body, live);
      if (as<Block>(body)->stmts.empty())
        return nullptr;
      if (body == f->body)
        return s;
      return for_loop(f->var, f->min, f->extent, f->role, body, f->loc.range);
    }
    return s;
  }

  std::unordered_map<std::string_view, std::size_t> ids_;
  std::size_t words_ = 0;
  std::unordered_map<const StmtNode*, std::pair<Stmt, Bits>> reads_;
};
} // namespace

Stmt drop_dead_code(const Stmt& s) {
  // A loop keeps alive what its body read before the pass; once a pass has emptied an inner loop,
  // the lets only its bounds read die in the next one (a reduction chunk's `lo` and `hi` in a
  // writer that stores after the loop).
  DeadCode dead(s);
  Stmt out = s;
  for (;;) {
    Stmt next = dead.pass(out);
    next = next ? next : block({});
    if (next == out || equal(next, out))
      return next;
    out = next;
  }
}

Expr mul(Expr a, Expr b) {
  const IntImm* ia = as<IntImm>(a);
  const IntImm* ib = as<IntImm>(b);
  if (ia && ib)
    return int_imm(ia->value * ib->value, binary(BinaryOp::mul, a, b)->type);
  if ((ia && ia->value == 0) || (ib && ib->value == 0))
    return int_imm(0);
  if (ia && ia->value == 1)
    return b;
  if (ib && ib->value == 1)
    return a;
  return a * b;
}

Expr add(Expr a, Expr b) {
  const IntImm* ia = as<IntImm>(a);
  const IntImm* ib = as<IntImm>(b);
  if (ia && ib)
    return int_imm(ia->value + ib->value, binary(BinaryOp::add, a, b)->type);
  if (ia && ia->value == 0)
    return b;
  if (ib && ib->value == 0)
    return a;
  return a + b;
}

std::map<std::string, std::string> tile_count_vars(const Function& kernel) {
  std::map<std::string, std::string> out;
  const Block* b = as<Block>(kernel.body);
  if (!b)
    return out;
  for (const Stmt& s : b->stmts) {
    const Decl* d = as<Decl>(s);
    if (!d)
      continue;
    const Binary* bin = as<Binary>(d->value);
    if (!bin || bin->op != BinaryOp::div)
      continue;
    const Var* v = as<Var>(bin->a);
    const IntImm* k = as<IntImm>(bin->b);
    if (v && k && k->value == 32)
      out.emplace(v->name, d->name);
  }
  return out;
}

Expr tiles_of(const Dim& d, const std::map<std::string, std::string>& tile_counts) {
  if (d.name.empty())
    return int_imm((d.size + 31) / 32);
  auto it = tile_counts.find(d.name);
  if (it == tile_counts.end())
    return var(d.name, Type::i32()) / int_imm(32);
  return var(it->second, Type::i32());
}

Function* find_function(Program& p, FuncKind kind) {
  for (Function& f : p.functions)
    if (f.kind == kind)
      return &f;
  return nullptr;
}
const Function* find_function(const Program& p, FuncKind kind) {
  for (const Function& f : p.functions)
    if (f.kind == kind)
      return &f;
  return nullptr;
}

std::vector<const ir::For*> parallel_nest(const ir::Stmt& s, ir::Stmt& body) {
  std::vector<const For*> nest;
  Stmt cur = s;
  while (const For* f = as<For>(cur)) {
    if (f->role != ForRole::parallel)
      break;
    nest.push_back(f);
    body = f->body;
    const Block* b = as<Block>(f->body);
    if (!b || b->stmts.size() != 1 || !as<For>(b->stmts[0]) ||
        as<For>(b->stmts[0])->role != ForRole::parallel)
      break;
    cur = b->stmts[0];
  }
  return nest;
}

} // namespace tk::ir
