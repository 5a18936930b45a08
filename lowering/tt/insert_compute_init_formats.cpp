#include "lowering/tt/insert_compute_init_formats.hpp"

#include "lowering/ir/util.hpp"
#include "lowering/tt/target.hpp"

#include "support/diagnostics.hpp"

#include <algorithm>
#include <array>

namespace tk::lower::tt {

namespace {

using namespace tk::ir;

// What srcA, srcB and the packer are configured from: a CB's name, or empty when unknown (after a
// loop that may or may not have run, or whose body changes it).
enum Unit { kSrcA, kSrcB, kPack };
using Config = std::array<std::string, 3>;

constexpr Intrinsic kReconfig[3] = {Intrinsic::reconfig_data_format_srca,
                                    Intrinsic::reconfig_data_format_srcb,
                                    Intrinsic::pack_reconfig_data_format};

const Call* call_of(const Stmt& s) {
  const Evaluate* e = as<Evaluate>(s);
  return e ? as<Call>(e->call) : nullptr;
}

std::string cb_name(const Expr& e) {
  return e ? as<Ref>(e)->name : std::string();
}

class Formats {
public:
  explicit Formats(const Program& p) : p_(p) {}

  Stmt walk(const Stmt& s, Config& st) {
    std::vector<Stmt> out;
    for (const Stmt& x : as<Block>(s)->stmts) {
      if (const For* f = as<For>(x)) {
        loop(*f, st, out);
        continue;
      }
      if (const IfThenElse* i = as<IfThenElse>(x)) { // each branch from here; after: what both set
        Config then_st = st, else_st = st;
        Stmt t = walk(i->then_case, then_st);
        Stmt e = i->else_case ? walk(i->else_case, else_st) : nullptr;
        out.push_back(if_then_else(i->cond, t, e, x->loc.range));
        for (int u = 0; u < 3; ++u)
          st[u] = same(then_st[u], else_st[u]) ? then_st[u] : std::string();
        continue;
      }
      std::array<std::string, 3> need = needs(x);
      if (configures_all(x)) { // it sets what it needs itself: no reconfiguration before it
        st = need;
        out.push_back(x);
        continue;
      }
      for (int u : {kSrcA, kSrcB})
        if (!need[u].empty() && !same(st[u], need[u])) {
          out.insert(before_init(out), reconfig(u, need[u]));
          st[u] = need[u];
        }
      if (!need[kPack].empty() && !same(st[kPack], need[kPack])) {
        out.push_back(reconfig(kPack, need[kPack]));
        st[kPack] = need[kPack];
      }
      out.push_back(x);
    }
    return block(std::move(out));
  }

private:
  const Program& p_;

  // unary_bcast_init(icb, ocb) configures both unpackers from icb and the packer for ocb itself
  // (tt-metal a8c5af0f5a26 tt_metal/hw/inc/api/compute/bcast.h: llk_unpack_hw_configure(icb),
  // llk_math_hw_configure(icb, icb), llk_pack_hw_configure(ocb)), so a reconfig_data_format_* or
  // pack_reconfig_data_format before it would configure what it configures again (one init call
  // each in the timing model: FlashAttention's o-row loop paid one per output tile per key tile).
  static bool configures_all(const Stmt& x) {
    const Call* c = call_of(x);
    return c && c->fn == Intrinsic::unary_bcast_init;
  }

  // The CBs one statement unpacks through srcA / srcB, or packs into.
  static std::array<std::string, 3> needs(const Stmt& x) {
    const Call* c = call_of(x);
    if (!c)
      return {};
    if (c->fn == Intrinsic::pack_tile)
      return {"", "", cb_name(c->args[1])};
    // unary_bcast_init(icb, ocb): what it configures itself (configures_all).
    if (c->fn == Intrinsic::unary_bcast_init)
      return {cb_name(c->args[1]), cb_name(c->args[1]), cb_name(c->args[2])};
    if (!writes_dst(c->fn))
      return {};
    Unpackers u = unpackers(*c);
    return {cb_name(u.srca), cb_name(u.srcb), ""};
  }

  DataFormat format(const std::string& cb) const {
    const CircularBuffer* b = p_.find_cb(cb);
    if (!b)
      throw InternalError("internal error: insert-compute-init: no circular buffer '" + cb + "'");
    return b->format;
  }
  bool same(const std::string& have, const std::string& want) const {
    return !have.empty() && format(have) == format(want);
  }
  bool same_config(const Config& a, const Config& b) const {
    for (int u = 0; u < 3; ++u)
      if (a[u].empty() != b[u].empty() || (!a[u].empty() && format(a[u]) != format(b[u])))
        return false;
    return true;
  }
  // Unknown where the two configurations disagree.
  Config merge(const Config& a, const Config& b) const {
    Config m = a;
    for (int u = 0; u < 3; ++u)
      if (a[u].empty() || b[u].empty() || format(a[u]) != format(b[u]))
        m[u].clear();
    return m;
  }

  static Stmt reconfig(int unit, const std::string& cb) {
    return evaluate(call(kReconfig[unit], {cb_ref(cb)}));
  }

  // An unpacker reconfiguration goes before the operation's init (the SDK's order), past the
  // dst.assume_zero claims and tile_regs_acquire between them.
  static std::vector<Stmt>::iterator before_init(std::vector<Stmt>& out) {
    auto at = out.end();
    while (at != out.begin()) {
      const Call* c = call_of(*(at - 1));
      if (!c || !(is_compute_init(c->fn) || c->fn == Intrinsic::dst_assume_zero ||
                  c->fn == Intrinsic::tile_regs_acquire))
        break;
      --at;
    }
    return at;
  }

  // Every format a loop body asks of each unit, in order: one format throughout is set before the
  // loop (next to its hoisted init), once.
  void collect(const Stmt& s, std::array<std::vector<std::string>, 3>& asked) const {
    if (const Block* b = as<Block>(s)) {
      for (const Stmt& x : b->stmts)
        collect(x, asked);
    } else if (const For* f = as<For>(s)) {
      collect(f->body, asked);
    } else if (const IfThenElse* i = as<IfThenElse>(s)) {
      collect(i->then_case, asked);
      if (i->else_case)
        collect(i->else_case, asked);
    } else {
      std::array<std::string, 3> need = needs(s);
      for (int u = 0; u < 3; ++u)
        if (!need[u].empty())
          asked[u].push_back(need[u]);
    }
  }

  // The units the body's own unary_bcast_init configures before any statement of the body asks
  // them (configures_all): every iteration sets them itself, so a reconfiguration before the loop
  // would be configured again (attention's output row: `reconfig_data_format_srcb(cb_c)` before
  // the batches, each beginning with unary_bcast_init(cb_c, cb_o)).
  static std::array<bool, 3> set_by_body(const Stmt& body) {
    std::array<bool, 3> set{}, asked{};
    for (const Stmt& x : as<Block>(body)->stmts) {
      if (!call_of(x) && !as<Decl>(x))
        break; // a loop that may not run, a branch: nothing further is known to run first
      std::array<std::string, 3> need = needs(x);
      for (int u = 0; u < 3; ++u) {
        if (configures_all(x) && !asked[u])
          set[u] = true;
        asked[u] = asked[u] || !need[u].empty();
      }
    }
    return set;
  }

  void loop(const For& f, Config& st, std::vector<Stmt>& out) {
    std::array<std::vector<std::string>, 3> asked;
    collect(f.body, asked);
    const std::array<bool, 3> set_itself = set_by_body(f.body);
    for (int u = 0; u < 3; ++u) {
      const std::vector<std::string>& a = asked[u];
      bool uniform = !a.empty() && std::all_of(a.begin(), a.end(), [&](const std::string& cb) {
        return format(cb) == format(a.front());
      });
      if (uniform && !set_itself[u] && !same(st[u], a.front())) {
        out.insert(u == kPack ? out.end() : before_init(out), reconfig(u, a.front()));
        st[u] = a.front();
      }
    }
    Config first = st;
    Stmt body = walk(f.body, first);
    if (!same_config(first, st)) { // the next iteration starts elsewhere: assume nothing there
      Config from = merge(st, first);
      Config again = from;
      body = walk(f.body, again);
      first = again;
    }
    out.push_back(for_loop(f.var, f.min, f.extent, f.role, body, f.loc.range));
    st = merge(st, first); // the loop may run no iteration
  }
};

} // namespace

Stmt insert_format_reconfigs(const Program& p, const Stmt& body, const Call& startup) {
  Config st = {cb_name(startup.args[0]), cb_name(startup.args[1]), cb_name(startup.args[2])};
  return Formats(p).walk(body, st);
}

} // namespace tk::lower::tt
