#include "lowering/tt/elide_configs.hpp"

#include "lowering/ir/printer.hpp"
#include "lowering/ir/util.hpp"
#include "lowering/tt/target.hpp"

#include <array>
#include <map>
#include <optional>
#include <set>
#include <utility>

namespace tk::lower {

namespace {

using namespace tk::ir;

const Call* call_of(const Stmt& s) {
  const Evaluate* e = as<Evaluate>(s);
  return e ? as<Call>(e->call) : nullptr;
}

std::string cb_name(const Expr& e) {
  return as<Ref>(e)->name;
}

// ---- what sets the data formats
// ------------------------------------------------------------------ The unpacker's srcA and srcB
// and the packer each hold the formats of the CB they were last configured from.
enum Unit { kSrcA, kSrcB, kPack };
constexpr int kKeep = -1;    // leaves the unit as it is
constexpr int kClobber = -2; // configures it in a way this stage does not follow

constexpr Intrinsic kReconfig[3] = {Intrinsic::reconfig_data_format_srca,
                                    Intrinsic::reconfig_data_format_srcb,
                                    Intrinsic::pack_reconfig_data_format};

struct FormatWriter {
  Intrinsic fn;
  std::array<int, 3>
      from; // per unit: the argument whose CB it is configured from, or kKeep/kClobber
};

// The calls that configure formats, as tt-metal a8c5af0f5a26 tt_metal/hw/inc/api/compute/ writes
// them (the IR's arguments are the SDK's, bcast/pool template arguments first):
constexpr FormatWriter kFormatWriters[] = {
    // compute_kernel_hw_startup.h: llk_unpack_hw_configure(icb0, icb1),
    // llk_math_hw_configure(icb0, icb1), llk_pack_hw_configure(ocb).
    {Intrinsic::compute_kernel_hw_startup, {0, 1, 2}},
    // reconfig_data_format.h: llk_unpack_/llk_math_reconfig_data_format_srca(srca_new_operand),
    // _srcb(srcb_new_operand).
    {Intrinsic::reconfig_data_format_srca, {0, kKeep, kKeep}},
    {Intrinsic::reconfig_data_format_srcb, {kKeep, 0, kKeep}},
    // pack.h: llk_pack_reconfig_data_format(new_cb_id).
    {Intrinsic::pack_reconfig_data_format, {kKeep, kKeep, 0}},
    // bcast.h unary_bcast_init<bcast>(icb, ocb): llk_unpack_hw_configure(icb) ("Will configure A &
    // B in similar way"), llk_math_hw_configure(icb, icb), llk_pack_hw_configure(ocb).
    {Intrinsic::unary_bcast_init, {1, 1, 2}},
    // matmul.h mm_init(in0, in1, out): llk_unpack_hw_configure(in1, in0),
    // llk_pack_hw_configure(out).
    {Intrinsic::mm_init, {1, 0, 2}},
    // eltwise_binary.h binary_op_init_common(icb0, icb1, ocb): llk_unpack_hw_configure(icb0,
    // icb1), llk_pack_hw_configure(ocb).
    {Intrinsic::binary_op_init_common, {0, 1, 2}},
    // eltwise_unary.h unary_op_init_common(icb, ocb) and init_sfpu(icb, ocb):
    // llk_unpack_hw_configure(icb), llk_pack_hw_configure(ocb).
    {Intrinsic::unary_op_init_common, {0, 0, 1}},
    {Intrinsic::init_sfpu, {0, 0, 1}},
    // bcast.h init_bcast<op, dim>(icb0, icb1, ocb) configures all three from its CBs too, but the
    // emulator's init_bcast leaves them as they were: nothing is assumed after it.
    {Intrinsic::init_bcast, {kClobber, kClobber, kClobber}},
};

const FormatWriter* format_writer(Intrinsic fn) {
  for (const FormatWriter& w : kFormatWriters)
    if (w.fn == fn)
      return &w;
  return nullptr;
}

int init_parts(Intrinsic fn);

// The inits that configure no format: those (b) knows (init_parts) that are not in the table
// above, and reduce_uninit. In the SDK none of them calls llk_unpack_hw_configure,
// llk_math_hw_configure, llk_pack_hw_configure or a llk_*_reconfig_data_format (their MOPs read a
// CB's formats from its descriptor, not from the unpacker). Any other init leaves every unit
// unknown.
// pack.h's pack_relu_config (guard-fast-exp): llk_pack_relu_config writes the packer's ReLU mode
// only, no format and nothing an init below configures.
bool packer_relu(Intrinsic fn) {
  return fn == Intrinsic::pack_relu_on || fn == Intrinsic::pack_relu_off;
}

bool configures_no_format(Intrinsic fn) {
  return init_parts(fn) != 0 || fn == Intrinsic::reduce_uninit || packer_relu(fn);
}

// ---- a forward dataflow over a structured body
// --------------------------------------------------- `Rules` gives the State (with meet and ==),
// the transfer of one call, and whether a call is redundant in a state. A branch's successor state
// is the meet of both; a loop's head is the fixed point of its entry and its back edge (the loop
// may run no iteration, so the state after it is the head's). Each statement's verdict is taken in
// one final pass that visits it once, from its loop heads' fixed points.
template <class Rules>
class Dataflow {
public:
  using State = typename Rules::State;
  explicit Dataflow(const Rules& r) : r_(r) {}

  State flow(const Stmt& s, State st) { return walk(s, st, false); }

  // The Evaluate nodes whose calls are redundant on every path reaching them.
  std::set<const StmtNode*> redundant(const Stmt& body, State entry) {
    walk(body, entry, true);
    std::set<const StmtNode*> out;
    for (const auto& [node, red] : verdict_)
      if (red)
        out.insert(node);
    return out;
  }

private:
  const Rules& r_;
  std::map<std::pair<const StmtNode*, State>, State> heads_;
  std::map<const StmtNode*, bool> verdict_;

  State head(const For& f, const State& in) {
    auto key = std::make_pair(static_cast<const StmtNode*>(&f), in);
    if (auto it = heads_.find(key); it != heads_.end())
      return it->second;
    State h = in;
    for (;;) {
      State next = Rules::meet(in, walk(f.body, h, false));
      if (next == h)
        break;
      h = next;
    }
    heads_.emplace(key, h);
    return h;
  }

  State walk(const Stmt& s, State st, bool record) {
    if (const Block* b = as<Block>(s)) {
      for (const Stmt& x : b->stmts)
        st = walk(x, st, record);
      return st;
    }
    if (const For* f = as<For>(s)) {
      State h = head(*f, st);
      if (record)
        walk(f->body, h, true);
      return h;
    }
    if (const IfThenElse* i = as<IfThenElse>(s)) {
      State t = walk(i->then_case, st, record);
      State e = i->else_case ? walk(i->else_case, st, record) : st;
      return Rules::meet(t, e);
    }
    if (const Call* c = call_of(s)) {
      if (record) {
        auto [it, fresh] = verdict_.emplace(s.get(), true);
        it->second = it->second && r_.redundant(*c, st);
      }
      r_.transfer(*c, st);
    }
    return st;
  }
};

// (a) the formats: per unit, the formats it is configured for, or unknown.
class FormatRules {
public:
  using State = std::array<std::optional<std::string>, 3>;

  FormatRules(const Program& p, const Function& f) : p_(p) {
    for (const std::string& cb : tt::unpack_to_dest_fp32(p, f))
      to_dest_.insert(cb);
  }

  // What the unit holds when configured from `cb`: the CB's data format, and for the unpacker
  // whether it unpacks to DST (UnpackToDestFp32 changes the unpacker's destination format). Every
  // CB holds 32x32 tiles, so the tile shape the reconfiguration also writes is the same.
  std::string key(int unit, const std::string& cb) const {
    const CircularBuffer* b = p_.find_cb(cb);
    if (!b)
      return "cb " + cb;
    return std::string(ir::to_string(b->format)) +
           (unit != kPack && to_dest_.count(cb) ? "/dest" : "");
  }

  static State meet(const State& a, const State& b) {
    State m = a;
    for (int u = 0; u < 3; ++u)
      if (a[u] != b[u])
        m[u].reset();
    return m;
  }

  void transfer(const Call& c, State& st) const {
    if (const FormatWriter* w = format_writer(c.fn)) {
      for (int u = 0; u < 3; ++u) {
        if (w->from[u] >= 0)
          st[u] = key(u, cb_name(c.args[w->from[u]]));
        else if (w->from[u] == kClobber)
          st[u].reset();
      }
    } else if (tt::is_compute_init(c.fn) && !configures_no_format(c.fn)) {
      st = State{};
    }
  }

  bool redundant(const Call& c, const State& st) const {
    for (int u = 0; u < 3; ++u)
      if (c.fn == kReconfig[u])
        return st[u] && *st[u] == key(u, cb_name(c.args[0]));
    return false;
  }

private:
  const Program& p_;
  std::set<std::string> to_dest_;
};

// (b) what each init configures, as three parts of the compute engine's state: the unpacker and
// the FPU's math (MOPs, address modifiers 0-6, the ALU), the SFPU (its config register, address
// modifier 7, its programmable constants) and the packer. An init is redundant when every part it
// writes was last written by the same init (printed alike, so with the same arguments) on every
// path. tt-metal a8c5af0f5a26 / tt-llk:
// - the SFPU inits are MATH-thread calls of llk_math_eltwise_{unary,binary,ternary}_sfpu_init
//   (api/compute/eltwise_unary/*.h, eltwise_binary_sfpu.h): _init_sfpu_config_reg, ADDR_MOD_7
//   ("this kernel is typically used in conjunction with A2D, which is using ADDR_MOD_0 and
//   ADDR_MOD_2, so use one that doesn't conflict!", llk_math_eltwise_unary_sfpu.h) and the op's
//   constants; no FPU init sets ADDR_MOD_7 or the SFPU's registers. The SDK's eltwise_sfpu example
//   (programming_examples/eltwise_sfpu) runs copy_tile and exp_tile in a loop after one init each,
//   and bmm_large_block_zm_fused_bias_activation (tests/tt_metal/.../1_compute_mm) runs the next
//   subblock's matmul_tiles after SFPU_OP_INIT_ACTIVATION without a matmul init, re-initialising
//   the matmul only after the bias's FPU add ("reconfigure init for matmul").
//   binary_max/min_tile_init and where_tile_init also set ADDR_MOD_6, which mm_init's
//   llk_math_matmul_init sets too: they write the FPU's part as well.
// - the FPU inits (copy, matmul, element-wise and broadcast *_init_short, transpose) are UNPACK and
//   MATH calls; reduce_init also sets the packer's edge mask, unary_bcast_init and init_bcast
//   configure the packer (llk_pack_hw_configure, llk_pack_init).
// A reconfiguration of srcA/srcB leaves the FPU's part unknown, one of the packer the packer's,
// reduce_uninit both; compute_kernel_hw_startup and any init not listed here all three.
enum Part { kFpu = 1, kSfpu = 2, kPacker = 4, kAll = 7 };

// The parts an init writes, or 0 for a configuration call that is never left out.
int init_parts(Intrinsic fn) {
  switch (fn) {
  case Intrinsic::copy_tile_init:
  case Intrinsic::copy_tile_to_dst_init_short:
  case Intrinsic::mm_init_short:
  case Intrinsic::mm_init_short_bt:
  case Intrinsic::mm_block_init_short:
  case Intrinsic::transpose_wh_init_short:
  case Intrinsic::add_tiles_init:
  case Intrinsic::sub_tiles_init:
  case Intrinsic::mul_tiles_init:
  case Intrinsic::add_bcast_rows_init_short:
  case Intrinsic::add_bcast_cols_init_short:
  case Intrinsic::sub_bcast_cols_init_short:
  case Intrinsic::add_bcast_scalar_init_short:
  case Intrinsic::mul_bcast_rows_init_short:
  case Intrinsic::mul_bcast_cols_init_short:
    return kFpu;
  case Intrinsic::reduce_init:
  case Intrinsic::unary_bcast_init:
  case Intrinsic::init_bcast:
    return kFpu | kPacker;
  case Intrinsic::binary_max_tile_init:
  case Intrinsic::binary_min_tile_init:
  case Intrinsic::where_tile_init:
    return kSfpu | kFpu;
  case Intrinsic::fill_tile_init:
  case Intrinsic::binop_with_scalar_tile_init:
  case Intrinsic::add_binary_tile_init:
  case Intrinsic::sub_binary_tile_init:
  case Intrinsic::mul_binary_tile_init:
    return kSfpu;
  default:
    break;
  }
  for (ops::Op op : ops::all_ops()) // the SFPU inits of the op table (exp_tile_init, ...)
    if (tt_init(op) == fn)
      return kSfpu;
  return 0;
}

// The parts a configuration call that is not left out makes unknown.
int clobbered_parts(Intrinsic fn) {
  switch (fn) {
  case Intrinsic::reconfig_data_format_srca:
  case Intrinsic::reconfig_data_format_srcb:
    return kFpu;
  case Intrinsic::pack_reconfig_data_format:
    return kPacker;
  case Intrinsic::reduce_uninit:
    return kFpu | kPacker;
  case Intrinsic::pack_relu_on:
  case Intrinsic::pack_relu_off:
    return 0;
  default:
    return kAll;
  }
}

// An init as (b) compares it: printed, so alike with the same arguments.
std::string init_key(const Call& c) {
  return print(evaluate(call(c.fn, c.args)));
}

struct InitRules {
  // Per part (kFpu, kSfpu, kPacker in that order), the init that last wrote it, printed.
  using State = std::array<std::optional<std::string>, 3>;

  static State meet(const State& a, const State& b) {
    State m = a;
    for (int i = 0; i < 3; ++i)
      if (a[i] != b[i])
        m[i].reset();
    return m;
  }

  void transfer(const Call& c, State& st) const {
    if (!tt::is_compute_init(c.fn))
      return;
    const int parts = init_parts(c.fn);
    const std::string key = parts ? init_key(c) : std::string();
    const int touched = parts ? parts : clobbered_parts(c.fn);
    for (int i = 0; i < 3; ++i)
      if (touched & (1 << i)) {
        if (parts)
          st[i] = key;
        else
          st[i].reset();
      }
  }

  bool redundant(const Call& c, const State& st) const {
    const int parts = tt::is_compute_init(c.fn) ? init_parts(c.fn) : 0;
    if (!parts)
      return false;
    const std::string key = init_key(c);
    for (int i = 0; i < 3; ++i)
      if ((parts & (1 << i)) && st[i] != key)
        return false;
    return true;
  }
};

// ---- rewriting
// ------------------------------------------------------------------------------------
Stmt drop(const Stmt& s, const std::set<const StmtNode*>& gone) {
  if (const Block* b = as<Block>(s)) {
    std::vector<Stmt> out;
    for (const Stmt& x : b->stmts)
      if (!gone.count(x.get()))
        out.push_back(drop(x, gone));
    return block(std::move(out));
  }
  if (const For* f = as<For>(s))
    return for_loop(f->var, f->min, f->extent, f->role, drop(f->body, gone), f->loc.range);
  if (const IfThenElse* i = as<IfThenElse>(s))
    return if_then_else(i->cond, drop(i->then_case, gone),
                        i->else_case ? drop(i->else_case, gone) : nullptr, i->loc.range);
  return s;
}

// Statements that touch no unpacker or packer configuration and read nothing through them.
bool neutral(const Stmt& s) {
  if (as<Decl>(s))
    return true;
  const Call* c = call_of(s);
  if (!c)
    return false;
  switch (c->fn) {
  case Intrinsic::cb_wait_front:
  case Intrinsic::cb_pop_front:
  case Intrinsic::cb_reserve_back:
  case Intrinsic::cb_push_back:
  case Intrinsic::tile_regs_acquire:
  case Intrinsic::tile_regs_commit:
  case Intrinsic::tile_regs_wait:
  case Intrinsic::tile_regs_release:
  case Intrinsic::dst_assume_zero:
    return true;
  default:
    return false;
  }
}

// Loop-invariant configuration: what every iteration sets first (nothing before it in the body
// touches that part) and leaves in place at the back edge goes before the loop too, where it runs
// once; in the body it is then redundant from the first iteration on, and the dataflow leaves it
// out. Innermost loops first, so what a body hoisted to its top can leave an outer loop too.
// Only before a loop whose trip count is a main count: a size, a literal of at least one, their
// sums, products and quotients. A count with a difference, a remainder, a min or a max (the
// remainder batches of batch-rows and batch-sections, q % 4 / 2; the streamed part of a row,
// Dt - stream_kept) runs no iteration for most sizes, and what is hoisted before it would then run
// once where the body ran it never. `before(body)` gives the statements to put before a loop
// with that body.
bool main_count(const Expr& e) {
  if (const IntImm* i = as<IntImm>(e))
    return i->value >= 1;
  if (as<Var>(e))
    return true;
  if (const Binary* b = as<Binary>(e))
    return (b->op == BinaryOp::add || b->op == BinaryOp::mul || b->op == BinaryOp::div) &&
           main_count(b->a) && main_count(b->b);
  return false;
}

template <class Before>
Stmt hoist(const Stmt& s, const Before& before) {
  if (const Block* b = as<Block>(s)) {
    std::vector<Stmt> out;
    for (const Stmt& x : b->stmts) {
      if (const For* f = as<For>(x)) {
        Stmt body = hoist(f->body, before);
        if (main_count(f->extent))
          for (Stmt& h : before(body))
            out.push_back(std::move(h));
        out.push_back(for_loop(f->var, f->min, f->extent, f->role, body, f->loc.range));
      } else {
        out.push_back(hoist(x, before));
      }
    }
    return block(std::move(out));
  }
  if (const IfThenElse* i = as<IfThenElse>(s))
    return if_then_else(i->cond, hoist(i->then_case, before),
                        i->else_case ? hoist(i->else_case, before) : nullptr, i->loc.range);
  if (const For* f = as<For>(s)) // a loop not in a block: no place before it
    return for_loop(f->var, f->min, f->extent, f->role, hoist(f->body, before), f->loc.range);
  return s;
}

// (a): a body that opens with a unit's reconfiguration (only neutral statements before it) and
// whose every iteration leaves that unit in those formats.
std::vector<Stmt> hoisted_reconfigs(const FormatRules& rules, const Stmt& body) {
  std::vector<Stmt> out;
  const FormatRules::State end = Dataflow<FormatRules>(rules).flow(body, FormatRules::State{});
  for (int u = 0; u < 3; ++u)
    for (const Stmt& x : as<Block>(body)->stmts) {
      if (const Call* c = call_of(x); c && c->fn == kReconfig[u]) {
        if (end[u] == rules.key(u, cb_name(c->args[0])))
          out.push_back(evaluate(call(kReconfig[u], c->args)));
        break;
      }
      if (!neutral(x))
        break;
    }
  return out;
}

// The parts of the compute engine's configuration a statement writes or relies on (for (b)).
int touched_parts(const Stmt& s) {
  if (const Block* b = as<Block>(s)) {
    int t = 0;
    for (const Stmt& x : b->stmts)
      t |= touched_parts(x);
    return t;
  }
  if (const For* f = as<For>(s))
    return touched_parts(f->body);
  if (const IfThenElse* i = as<IfThenElse>(s))
    return touched_parts(i->then_case) | (i->else_case ? touched_parts(i->else_case) : 0);
  if (as<Decl>(s) || neutral(s))
    return 0;
  const Call* c = call_of(s);
  if (!c)
    return kAll;
  if (tt::is_compute_init(c->fn))
    return init_parts(c->fn) ? init_parts(c->fn) : clobbered_parts(c->fn);
  if (c->fn == Intrinsic::pack_tile)
    return kPacker;
  switch (c->fn) { // the FPU's operations (unpacker and FPU)
  case Intrinsic::copy_tile:
  case Intrinsic::matmul_tiles:
  case Intrinsic::matmul_tiles_bt:
  case Intrinsic::matmul_block:
  case Intrinsic::add_tiles:
  case Intrinsic::sub_tiles:
  case Intrinsic::mul_tiles:
  case Intrinsic::add_tiles_bcast:
  case Intrinsic::sub_tiles_bcast:
  case Intrinsic::mul_tiles_bcast:
  case Intrinsic::unary_bcast:
  case Intrinsic::reduce_tile:
  case Intrinsic::transpose_wh_tile:
    return kFpu;
  default:
    break;
  }
  if (tt::writes_dst(c->fn)) // the SFPU's, and any other: both
    return kFpu | kSfpu;
  return kAll;
}

// (b): an init of the body's top level that nothing before it touches the parts of, and that every
// iteration leaves as the last writer of all its parts.
std::vector<Stmt> hoisted_inits(const InitRules& rules, const Stmt& body) {
  std::vector<Stmt> out;
  const InitRules::State end = Dataflow<InitRules>(rules).flow(body, InitRules::State{});
  int touched = 0;
  for (const Stmt& x : as<Block>(body)->stmts) {
    const Call* c = call_of(x);
    const int parts = c && tt::is_compute_init(c->fn) ? init_parts(c->fn) : 0;
    if (parts && !(touched & parts)) {
      const std::string key = init_key(*c);
      bool invariant = true;
      for (int i = 0; i < 3; ++i)
        if ((parts & (1 << i)) && end[i] != key)
          invariant = false;
      if (invariant)
        out.push_back(evaluate(call(c->fn, c->args)));
    }
    touched |= touched_parts(x);
    if (touched == kAll)
      break;
  }
  return out;
}

Stmt elide(const Program& p, const Function& f) {
  FormatRules formats(p, f);
  Stmt body = hoist(f.body, [&](const Stmt& b) { return hoisted_reconfigs(formats, b); });
  body = drop(body, Dataflow<FormatRules>(formats).redundant(body, FormatRules::State{}));
  InitRules inits;
  body = hoist(body, [&](const Stmt& b) { return hoisted_inits(inits, b); });
  return drop(body, Dataflow<InitRules>(inits).redundant(body, InitRules::State{}));
}

} // namespace

ir::Module elide_configs(const ir::Module& m, Diagnostics&) {
  ir::Module out = m;
  for (Program& p : out.programs)
    for (Function& f : p.functions)
      if (f.kind == FuncKind::compute)
        f.body = elide(p, f);
  return out;
}

} // namespace tk::lower
