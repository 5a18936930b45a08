#include "lowering/tt/call_cost.hpp"

#include "lowering/tt/column_zero_reads.hpp"
#include "lowering/tt/target.hpp"
#include "support/diagnostics.hpp"

#include <string>
#include <string_view>

namespace tk::lower::tt {

using namespace tk::ir;
namespace timing = rt::emu::timing;

timing::TileOp tile_op_class(const Call& c) {
  switch (c.fn) {
  case Intrinsic::matmul_tiles:
  case Intrinsic::matmul_tiles_bt:
  case Intrinsic::matmul_block:
    return timing::TileOp::Matmul;
  case Intrinsic::add_tiles:
  case Intrinsic::sub_tiles:
  case Intrinsic::add_tiles_bcast:
  case Intrinsic::sub_tiles_bcast:
    return timing::TileOp::AddSub;
  case Intrinsic::mul_tiles:
  case Intrinsic::mul_tiles_bcast:
    return timing::TileOp::Mul;
  case Intrinsic::reduce_tile: {
    const EnumImm* pool = as<EnumImm>(c.args[0]);
    const bool max =
        pool && (pool->value == EnumConst::pool_max || pool->value == EnumConst::pool_min);
    return max ? timing::TileOp::ReduceMax : timing::TileOp::ReduceSum;
  }
  case Intrinsic::copy_tile:
  case Intrinsic::unary_bcast:
  case Intrinsic::transpose_wh_tile:
    return timing::TileOp::Copy;
  case Intrinsic::pack_tile:
    return timing::TileOp::Pack;
  default: // an SFPU call, in place on DST, priced by its name (timing::sfpu_tile_cycles)
    return timing::TileOp::Sfpu;
  }
}

namespace {
double page_of(const Program& p, const Expr& cb) {
  const Ref* r = as<Ref>(cb);
  const CircularBuffer* b = r ? p.find_cb(r->name) : nullptr;
  if (!b)
    throw InternalError("internal error: a compute call on an unknown CB");
  return static_cast<double>(b->page_size);
}

// Whether a compute kernel of `p` unpacks CB `cb` straight to DST (UnpackToDestFp32): its
// ComputeConfig's list once bind-runtime-args set it, before that the rule that list comes from
// (tt::unpack_to_dest_fp32), on the compute function or the kernel not yet split.
bool to_dest(const Program& p, const Expr& cb) {
  const Ref* r = as<Ref>(cb);
  if (!r)
    return false;
  for (const Function& f : p.functions) {
    if (f.kind != FuncKind::compute && f.kind != FuncKind::kernel)
      continue;
    const std::vector<std::string> list = f.config && f.config->compute
                                              ? f.config->compute->unpack_to_dest_fp32
                                              : unpack_to_dest_fp32(p, f);
    for (const std::string& name : list)
      if (name == r->name)
        return true;
  }
  return false;
}

timing::Unpacked tile_of(const Program& p, const Expr& cb, timing::Fetch fetch) {
  return {fetch, page_of(p, cb)};
}

timing::Fetch fetch_of(const Expr& bcast) {
  const EnumImm* b = as<EnumImm>(bcast);
  if (!b)
    throw InternalError("internal error: a broadcast without a literal BroadcastType");
  return b->value == EnumConst::bcast_row      ? timing::Fetch::Row
         : b->value == EnumConst::bcast_col    ? timing::Fetch::Col
         : b->value == EnumConst::bcast_scalar ? timing::Fetch::Scalar
                                               : timing::Fetch::Tile;
}
} // namespace

double fpu_call_cycles(const Program& p, const Call& c, int phases) {
  const timing::Arch& a = arch_of(p);
  const timing::TileOp op = tile_op_class(c);
  using timing::Fetch;
  switch (c.fn) {
  case Intrinsic::copy_tile: // (cb, tile, slot): unpacker 0, to srcA or DST
    return timing::fpu_call_cycles(a, op, phases, tile_of(p, c.args[0], Fetch::Tile), {},
                                   to_dest(p, c.args[0]));
  case Intrinsic::transpose_wh_tile:
    return timing::fpu_call_cycles(a, op, phases, tile_of(p, c.args[0], Fetch::Tile));
  case Intrinsic::unary_bcast: // (bcast, cb, tile, slot): srcB, or DST for an fp32 CB
    return timing::fpu_call_cycles(a, op, phases, tile_of(p, c.args[1], fetch_of(c.args[0])), {},
                                   to_dest(p, c.args[1]));
  case Intrinsic::add_tiles:
  case Intrinsic::sub_tiles:
  case Intrinsic::mul_tiles: // (cb0, cb1, ...)
    return timing::fpu_call_cycles(a, op, phases, tile_of(p, c.args[0], Fetch::Tile),
                                   tile_of(p, c.args[1], Fetch::Tile));
  case Intrinsic::add_tiles_bcast:
  case Intrinsic::sub_tiles_bcast:
  case Intrinsic::mul_tiles_bcast: // (bcast, cb0, cb1, ...)
    return timing::fpu_call_cycles(a, op, phases, tile_of(p, c.args[1], Fetch::Tile),
                                   tile_of(p, c.args[2], fetch_of(c.args[0])));
  case Intrinsic::reduce_tile: // (pool, dim, cb, scaler, ...)
    return timing::fpu_call_cycles(a, op, phases, tile_of(p, c.args[2], Fetch::Tile),
                                   tile_of(p, c.args[3], Fetch::Scalar));
  default:
    return -1;
  }
}

std::string_view sfpu_cost_name(Intrinsic fn) {
  // exp_tile<true> as ttgen emits it (ClampToNegative, 8 rows a face) is the emulator's
  // "exp_approx" (runtime/tt/src/exp_approx.cpp, exp_approx_tile), the unclamped 32-row form
  // (exp_tile.approx_noclamp) its "exp_approx_noclamp_32", a call on VectorMode::C its RC call's
  // name; every other SFPU call is charged by its SDK name. The scale folded into the init's
  // constants (fold-scale) costs nothing in the call.
  if (fn == Intrinsic::exp_tile_approx_noclamp || fn == Intrinsic::exp_tile_approx_noclamp_scaled)
    return "exp_approx_noclamp_32";
  if (const std::optional<Intrinsic> rc = rc_call(fn))
    return to_string(*rc);
  return fn == Intrinsic::exp_tile_approx || fn == Intrinsic::exp_tile_approx_scaled
             ? "exp_approx"
             : to_string(fn);
}

double sfpu_cycles(const timing::Arch& a, Intrinsic fn, bool fp32_dst) {
  if (rc_call(fn))
    return timing::sfpu_call_cycles(a, sfpu_cost_name(fn), fp32_dst, timing::SfpuMode::C);
  return timing::sfpu_tile_cycles(a, sfpu_cost_name(fn), fp32_dst); // its table figure
}

double math_thread_cycles(const Program& p, const Call& c, int phases) {
  const timing::Arch& a = arch_of(p);
  switch (c.fn) {
  case Intrinsic::dst_assume_zero: // TileKit's marker, no code
  case Intrinsic::pack_tile:
  case Intrinsic::cb_reserve_back:
  case Intrinsic::cb_push_back:
  case Intrinsic::tile_regs_wait:
  case Intrinsic::tile_regs_release:
    return 0;
  case Intrinsic::tile_regs_acquire:
  case Intrinsic::tile_regs_commit:
    return a.dst_handoff.value;
  case Intrinsic::cb_wait_front:
  case Intrinsic::cb_pop_front:
    return a.sync_call.value;
  case Intrinsic::matmul_tiles:
  case Intrinsic::matmul_tiles_bt:
    return timing::matmul_call_cycles(a, phases, 1, 1, page_of(p, c.args[0]),
                                      page_of(p, c.args[1]));
  case Intrinsic::matmul_block: { // (in0, in1, i0, i1, idst, transpose, ct, rt, kt)
    const IntImm* ct = as<IntImm>(c.args[6]);
    const IntImm* rt = as<IntImm>(c.args[7]);
    if (!ct || !rt)
      throw InternalError("internal error: matmul_block without a literal sub-block");
    return timing::matmul_call_cycles(a, phases, static_cast<double>(rt->value),
                                      static_cast<double>(ct->value), page_of(p, c.args[0]),
                                      page_of(p, c.args[1]));
  }
  case Intrinsic::mm_init:          // the formats' and the matmul's
  case Intrinsic::unary_bcast_init: // the binary op's and the formats'
    return 2 * a.init_call.value;
  default:
    break;
  }
  if (is_compute_init(c.fn)) // an FPU or SFPU op's init: configuration writes, `init_call`
    return a.init_call.value;
  if (writes_dst(c.fn)) {
    const double fpu = fpu_call_cycles(p, c, phases);
    return fpu >= 0 ? fpu : sfpu_cycles(a, c.fn, dst_fp32(p));
  }
  return 0;
}

} // namespace tk::lower::tt
