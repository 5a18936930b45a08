#include "lowering/tt/price_q_chunk.hpp"

#include "lowering/ir/fold.hpp"
#include "lowering/ir/util.hpp"
#include "lowering/ir/visitor.hpp"
#include "lowering/tt/call_cost.hpp"
#include "lowering/tt/chunk_keys.hpp"
#include "lowering/tt/target.hpp"

#include "include/tilekit/q_chunk.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <string>

namespace tk::lower {

namespace {

using namespace tk::ir;

// The argument positions of tt.q_chunk (lowering/ir/intrinsics.hpp): H, St, Dt, then
// tk::tt_host::q_chunk_limits' order: cores, W, max q, a page, the DRAM rate, the key tiles of a
// chunk step, then the costs of q = 1, 2, 4, 8.
constexpr std::size_t kKeysArg = 3 + 5;

// Integer values of the names in scope; nullopt for a value the price does not need (a loop
// variable, a float's bits, an address).
using Env = std::map<std::string, std::optional<std::int64_t>, std::less<>>;

std::optional<std::int64_t> eval(const Expr& e, const Env& env) {
  if (const IntImm* i = as<IntImm>(e))
    return i->value;
  if (const Var* v = as<Var>(e)) {
    auto it = env.find(v->name);
    return it == env.end() ? std::nullopt : it->second;
  }
  if (const Binary* b = as<Binary>(e)) {
    const std::optional<std::int64_t> x = eval(b->a, env), y = eval(b->b, env);
    if (!x || !y)
      return std::nullopt;
    return fold_binary(b->op, *x, *y);
  }
  return std::nullopt;
}

// The host's let bound to the rule (`q = tt.q_chunk(...)`), or null.
const Decl* rule_let(const Function& host) {
  for (const Stmt& s : as<Block>(host.body)->stmts)
    if (const Decl* d = as<Decl>(s))
      if (const Call* c = as<Call>(d->value); c && c->fn == Intrinsic::tt_q_chunk)
        return d;
  return nullptr;
}

// The host's lets with the rule's row extent at 64 tile rows and its Dt at `Dt` (the lets its
// call names: tt.q_chunk(H, St, Dt, ...)), q at `rows`: the values the kernels' runtime args of
// the same names take. The host's parameters (the sizes) are not needed, and not known.
Env host_values(const Function& host, const Decl& q, std::int64_t Dt, std::int64_t rows) {
  const Call* rule = as<Call>(q.value);
  const Var* st = as<Var>(rule->args[1]);
  const Var* dt = as<Var>(rule->args[2]);
  Env env;
  for (const Param& x : host.params)
    env[x.name] = std::nullopt;
  for (const Stmt& s : as<Block>(host.body)->stmts)
    if (const Decl* d = as<Decl>(s)) {
      std::optional<std::int64_t> v = eval(d->value, env);
      if (d->name == q.name)
        v = rows;
      else if (st && d->name == st->name)
        v = 64;
      else if (dt && d->name == dt->name)
        v = Dt;
      env[d->name] = v;
    }
  return env;
}

// The compute kernel's loop over its work items (role per_core), with the lets in scope before it,
// taken in order (a runtime arg takes the host's let of its name).
struct FindItems {
  const Env& host;
  Env env;
  const For* items = nullptr;

  void walk(const Stmt& s) {
    if (items)
      return;
    if (const Block* b = as<Block>(s)) {
      for (const Stmt& x : b->stmts)
        walk(x);
    } else if (const Decl* d = as<Decl>(s)) {
      const Call* c = as<Call>(d->value);
      if (c && c->fn == Intrinsic::get_arg_val && host.count(d->name))
        env[d->name] = host.at(d->name);
      else
        env[d->name] = eval(d->value, env);
    } else if (const For* f = as<For>(s)) {
      if (f->role == ForRole::per_core) {
        items = f;
        return;
      }
      env[f->var] = std::nullopt; // any other loop's index is unknown
      walk(f->body);
    } else if (const IfThenElse* i = as<IfThenElse>(s)) {
      walk(i->then_case);
      if (i->else_case)
        walk(i->else_case);
    }
  }
};

// Whether `s` refers to one of the CBs named in `names` (a CB is a Ref, not a Var).
bool reads_cb(const Stmt& s, const std::vector<std::string>& names) {
  struct Finder : Visitor {
    const std::vector<std::string>& names;
    bool found = false;
    explicit Finder(const std::vector<std::string>& n) : names(n) {}
    void visit_node(const Ref& r) override {
      found = found || std::find(names.begin(), names.end(), r.name) != names.end();
    }
  } finder{names};
  finder.visit(s);
  return finder.found;
}

// The unpack/math thread's cycles of `s`, its loops' counts evaluated in `env`; nullopt when a
// count or a condition is not known.
std::optional<double> price(const Program& p, const Stmt& s, Env& env, int phases) {
  if (const Block* b = as<Block>(s)) {
    double sum = 0;
    for (const Stmt& x : b->stmts) {
      const std::optional<double> c = price(p, x, env, phases);
      if (!c)
        return std::nullopt;
      sum += *c;
    }
    return sum;
  }
  if (const Decl* d = as<Decl>(s)) {
    env[d->name] = eval(d->value, env);
    return 0.0;
  }
  if (const Assign* a = as<Assign>(s)) {
    env[a->name] = eval(a->value, env);
    return 0.0;
  }
  if (const For* f = as<For>(s)) {
    const std::optional<std::int64_t> lo = eval(f->min, env), n = eval(f->extent, env);
    if (!lo || !n)
      return std::nullopt;
    double sum = 0;
    for (std::int64_t k = 0; k < *n; ++k) {
      Env it = env;
      it[f->var] = *lo + k;
      const std::optional<double> c = price(p, f->body, it, phases);
      if (!c)
        return std::nullopt;
      sum += *c;
    }
    return sum;
  }
  if (const IfThenElse* i = as<IfThenElse>(s)) {
    const std::optional<std::int64_t> cond = eval(i->cond, env);
    if (!cond)
      return std::nullopt;
    Env inner = env;
    if (*cond != 0)
      return price(p, i->then_case, inner, phases);
    return i->else_case ? price(p, i->else_case, inner, phases) : std::optional<double>(0.0);
  }
  if (const Evaluate* e = as<Evaluate>(s))
    if (const Call* c = as<Call>(e->call))
      return tt::math_thread_cycles(p, *c, phases);
  return 0.0;
}

} // namespace

namespace tt {

namespace {

// The compute kernel's work item at the host's lets for q and Dt (St 64): its body, the lets in
// scope before it, the item's index set to `w`, and the fidelity's phases.
struct ItemContext {
  const Stmt* stmt = nullptr; // the body, as a statement
  const Block* body = nullptr;
  Env env;
  int phases = 0;
};

std::optional<ItemContext> item_context(const Program& p, std::int64_t q, std::int64_t Dt,
                                        std::int64_t w) {
  const Function* host = ir::find_function(p, FuncKind::host);
  const Function* compute = ir::find_function(p, FuncKind::compute);
  const Decl* rule = host ? rule_let(*host) : nullptr;
  if (!rule || !compute)
    return std::nullopt;
  const std::optional<MathFidelity> fidelity = math_fidelity_option(p);
  if (!fidelity)
    return std::nullopt;
  const Env host_env = host_values(*host, *rule, Dt, q);
  FindItems find{host_env, {}};
  find.walk(compute->body);
  const Block* body = find.items ? as<Block>(find.items->body) : nullptr;
  if (!body)
    return std::nullopt;
  ItemContext out{&find.items->body, body, find.env,
                  static_cast<int>(*fidelity) + 1}; // LoFi 1 ... HiFi4 4
  out.env[find.items->var] = w;
  return out;
}

} // namespace

std::optional<double> q_work_item_cycles(const Program& p, std::int64_t q, std::int64_t Dt,
                                         std::int64_t w) {
  std::optional<ItemContext> item = item_context(p, q, Dt, w);
  if (!item)
    return std::nullopt;
  return price(p, *item->stmt, item->env, item->phases);
}

std::optional<QItemPrices> q_item_prices(const Program& p, std::int64_t q, std::int64_t Dt) {
  // The first item: chunk 0 of head 0, whose rows all lie below S (St is 64), so a guard of
  // block-products' (the batch's last row not clamped) holds, as on every chunk but S's last.
  std::optional<ItemContext> item = item_context(p, q, Dt, 0);
  if (!item)
    return std::nullopt;
  const Block* body = item->body;
  Env& env = item->env;
  const int phases = item->phases;
  std::vector<std::string> masks;
  for (const CircularBuffer& cb : p.cbs)
    if (cb.role == CBRole::mask)
      masks.push_back(cb.name);
  QItemPrices out;
  std::optional<double> chunk, single, diagonal;
  for (const Stmt& s : body->stmts) {
    const For* f = as<For>(s);
    if (f && f->role == ForRole::reduction) { // a key loop: one step, at its first key
      Env it = env;
      it[f->var] = eval(f->min, env).value_or(0);
      const std::optional<double> step = price(p, f->body, it, phases);
      if (!step)
        return std::nullopt;
      const std::int64_t k = keys_per_step(*f);
      if (k > 1) {
        chunk = step;
        out.keys = k;
      } else if (reads_cb(f->body, masks)) {
        diagonal = step;
      } else {
        single = step;
      }
      continue;
    }
    const std::optional<double> c = price(p, s, env, phases); // the item's own work
    if (!c)
      return std::nullopt;
    out.item += *c;
  }
  // Without key chunks a chunk step is a single step; without peel-mask's diagonal loop a
  // diagonal step is one like the others.
  if (!single)
    single = chunk ? std::nullopt : diagonal;
  if (!single)
    return std::nullopt;
  out.single = *single;
  out.chunk = chunk.value_or(*single);
  out.diagonal = diagonal.value_or(*single);
  return out;
}

std::optional<double> key_step_cycles(const Program& p, std::int64_t Dt) {
  // A chunk of as many rows as DST holds tiles: batch-rows' largest batch.
  const std::int64_t rows = dst_capacity(p, dst_fp32(p));
  const std::optional<QItemPrices> prices = q_item_prices(p, rows, Dt);
  if (!prices)
    return std::nullopt;
  // chunk-keys' loop covers k key tiles an iteration: a key tile's step is its k-th part.
  return prices->chunk / static_cast<double>(rows * prices->keys);
}

} // namespace tt

ir::Module price_q_chunk(const ir::Module& m, Diagnostics& diags) {
  (void)diags;
  ir::Module out = m;
  for (Program& p : out.programs) {
    Function* host = ir::find_function(p, FuncKind::host);
    const Decl* q = host ? rule_let(*host) : nullptr;
    if (!q)
      continue;
    // For each q the rule can choose (1, 2, 4, 8), each piece's line through its prices at D = 64
    // and D = 128: per_tile = (c(4) - c(2)) / 2, fixed centred between the two prices (each is
    // then within a cycle of the integer line: half a cycle from rounding per_tile, twice over
    // half the width, plus half from this).
    std::vector<std::int64_t> costs;
    std::int64_t keys = 1;
    for (std::int64_t i = 0; i < tk::tt_host::kQChunkPriced; ++i) {
      const std::int64_t qi = std::int64_t{1} << i;
      const std::optional<tt::QItemPrices> d64 = tt::q_item_prices(p, qi, 2),
                                           d128 = tt::q_item_prices(p, qi, 4);
      if (!d64 || !d128)
        throw InternalError("internal error: price-q-chunk: program '" + p.name +
                            "' calls the Q chunk rule but its compute kernel has no key step over "
                            "the chunk's rows to price");
      keys = d64->keys;
      for (double tt::QItemPrices::* piece :
           {&tt::QItemPrices::item, &tt::QItemPrices::chunk, &tt::QItemPrices::single,
            &tt::QItemPrices::diagonal}) {
        const double c2 = (*d64).*piece, c4 = (*d128).*piece;
        const auto per_tile = static_cast<std::int64_t>(std::floor((c4 - c2) / 2 + 0.5));
        costs.push_back(static_cast<std::int64_t>(
            std::floor((c2 + c4) / 2 - 3 * static_cast<double>(per_tile) + 0.5)));
        costs.push_back(per_tile);
      }
    }
    std::vector<Stmt> stmts = as<Block>(host->body)->stmts;
    for (Stmt& s : stmts)
      if (const Decl* d = as<Decl>(s))
        if (const Call* c = as<Call>(d->value); c && c->fn == Intrinsic::tt_q_chunk) {
          std::vector<Expr> args = c->args;
          args[kKeysArg] = int_imm(keys);
          for (std::size_t i = 0; i < costs.size(); ++i)
            args[kKeysArg + 1 + i] = int_imm(costs[i]);
          s = decl(d->name, d->type, call(c->fn, std::move(args), c->loc.range), s->loc.range);
        }
    host->body = block(std::move(stmts));
  }
  return out;
}

} // namespace tk::lower
