#include "lowering/tt/price_q_chunk.hpp"

#include "lowering/ir/fold.hpp"
#include "lowering/ir/util.hpp"
#include "lowering/tt/call_cost.hpp"
#include "lowering/tt/chunk_keys.hpp"
#include "lowering/tt/target.hpp"

#include <algorithm>
#include <map>
#include <string>

namespace tk::lower {

namespace {

using namespace tk::ir;

// The argument positions of tt.q_chunk (lowering/ir/intrinsics.hpp): H, St, Dt, cores, W, max q,
// the step's fixed cycles, its cycles per tile of D, a page, the DRAM rate.
constexpr std::size_t kStepFixedArg = 6, kStepPerTileArg = 7;

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

// The compute kernel's first key loop over the chunk's rows (peel-mask's loop below the
// diagonal): a loop of role reduction with, right in its body, a loop whose count is made of the
// host's q (chunk-rows' `for qr in 0 .. q`, fission-rows' pieces, batch-rows' batches `.. q / 4`),
// with the lets in scope before it, taken in order.
struct FindStep {
  const std::string& q;
  const Env& host;
  Env env;
  const For* step = nullptr;

  static bool over_rows(const For& key, const std::string& q) {
    const Block* b = as<Block>(key.body);
    return b && std::any_of(b->stmts.begin(), b->stmts.end(), [&](const Stmt& s) {
             const For* f = as<For>(s);
             return f && ir::mentions(f->extent, q);
           });
  }

  void walk(const Stmt& s) {
    if (step)
      return;
    if (const Block* b = as<Block>(s)) {
      for (const Stmt& x : b->stmts)
        walk(x);
    } else if (const Decl* d = as<Decl>(s)) {
      // a runtime arg takes the host's let of its name
      const Call* c = as<Call>(d->value);
      if (c && c->fn == Intrinsic::get_arg_val && host.count(d->name))
        env[d->name] = host.at(d->name);
      else
        env[d->name] = eval(d->value, env);
    } else if (const For* f = as<For>(s)) {
      if (f->role == ForRole::reduction && over_rows(*f, q)) {
        step = f;
        return;
      }
      // The work items' loop at its first item: a chunk whose rows all lie below S, so a guard
      // of block-products' (the batch's last row not clamped) holds, as on every chunk but S's
      // last; any other loop's index is unknown.
      env[f->var] = f->role == ForRole::per_core ? std::optional<std::int64_t>(0) : std::nullopt;
      walk(f->body);
    } else if (const IfThenElse* i = as<IfThenElse>(s)) {
      walk(i->then_case);
      if (i->else_case)
        walk(i->else_case);
    }
  }
};

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

std::optional<double> key_step_cycles(const Program& p, std::int64_t Dt) {
  const Function* host = ir::find_function(p, FuncKind::host);
  const Function* compute = ir::find_function(p, FuncKind::compute);
  const Decl* q = host ? rule_let(*host) : nullptr;
  if (!q || !compute)
    return std::nullopt;
  const std::optional<MathFidelity> fidelity = math_fidelity_option(p);
  if (!fidelity)
    return std::nullopt;
  const int phases = static_cast<int>(*fidelity) + 1; // LoFi 1 ... HiFi4 4
  // A chunk of as many rows as DST holds tiles: batch-rows' largest batch, where a row's share of
  // the sections' inits, reconfigurations and waits stops falling.
  const std::int64_t rows = dst_capacity(p, dst_fp32(p));
  const Env host_env = host_values(*host, *q, Dt, rows);
  FindStep find{q->name, host_env, {}};
  find.walk(compute->body);
  if (!find.step)
    return std::nullopt;
  Env env = find.env;
  env[find.step->var] = 0;
  const std::optional<double> step = price(p, find.step->body, env, phases);
  if (!step)
    return std::nullopt;
  // chunk-keys' loop covers k key tiles an iteration: a key tile's step is its k-th part.
  return *step / static_cast<double>(rows * keys_per_step(*find.step));
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
    const std::optional<double> d64 = tt::key_step_cycles(p, 2), d128 = tt::key_step_cycles(p, 4);
    if (!d64 || !d128)
      throw InternalError("internal error: price-q-chunk: program '" + p.name +
                          "' calls the Q chunk rule but its compute kernel has no key step over "
                          "the chunk's rows to price");
    const auto per_tile = static_cast<std::int64_t>((*d128 - *d64) / 2 + 0.5);
    // The fixed cost centred between the two prices: each is then within a cycle of the integer
    // line (half a cycle from rounding per_tile, twice over half the width, plus half from this).
    const std::int64_t fixed =
        static_cast<std::int64_t>((*d64 + *d128) / 2 - 3 * static_cast<double>(per_tile) + 0.5);
    std::vector<Stmt> stmts = as<Block>(host->body)->stmts;
    for (Stmt& s : stmts)
      if (const Decl* d = as<Decl>(s))
        if (const Call* c = as<Call>(d->value); c && c->fn == Intrinsic::tt_q_chunk) {
          std::vector<Expr> args = c->args;
          args[kStepFixedArg] = int_imm(fixed);
          args[kStepPerTileArg] = int_imm(per_tile);
          s = decl(d->name, d->type, call(c->fn, std::move(args), c->loc.range), s->loc.range);
        }
    host->body = block(std::move(stmts));
  }
  return out;
}

} // namespace tk::lower
