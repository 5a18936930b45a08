// Expression-level instruction selection for the TT compute kernel (docs/lowering.md, "Compute:
// sections in DST"): a tile expression tree becomes TT compute calls, each value either the front
// tile of a CB or a DST slot of the open section. FPU ops read CBs, SFPU ops work in DST; an
// operand in the wrong place is copied into DST or packed to a temporary CB, which ends the
// section. The statement walk (select_tile_ops.cpp) decides where variables live.
#pragma once

#include "lowering/ir/module.hpp"
#include "support/diagnostics.hpp"

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace tk::lower::tt {

/// What a tile value holds outside the result of a reduction along one axis: outside column 0
/// (where rowsum/rowmax put their column vector) or outside row 0 (colsum/colmax): exactly 0, at
/// most 0 (-inf included), in [0, 1] (finite: what exp makes of a value at most 0), or anything.
/// zero is below nonpos and unit, which are below any (`join`).
enum class Outside : std::uint8_t { zero, nonpos, unit, any };
/// The least fact that admits both.
inline Outside join(Outside a, Outside b) {
  return a == b ? a : a == Outside::zero ? b : b == Outside::zero ? a : Outside::any;
}
struct OutsideFacts {
  Outside col = Outside::any; // outside column 0
  Outside row = Outside::any; // outside row 0
};

/// A tile value during selection.
struct TileValue {
  enum class Where : std::uint8_t { cb, dst } where = Where::dst;
  std::string cb;    // where == cb: the CB whose front tile holds it
  ir::Expr index;    // where == cb: its tile index in the CB's waited front; null for 0 (the front)
  bool pop = false;  // its consumer pops it (a loaded tile or a temporary)
  bool temp = false; // the CB is a pooled temporary, free again after the pop
  // The stream that brings the tile into its CB, emitted right before its consumer waits for it:
  // a load's df.read_tile(cb, T, page), a tril/triu's df.tril_tile(cb, format, 32 * (j - i)).
  ir::Expr read;
  SourceRange read_loc; // the load or the tril/triu in the .tk file
  int slot = -1;        // where == dst
  // where == cb: a Float32 CB that compute reads only with copy_tile, unpacked straight to DST
  // (UnpackToDestFp32): a carried sum or a spilled reduction, exact in fp32. An FPU operation
  // takes such a value only after fpu_operand() copied it to a CB the FPU may read.
  bool dest_only = false;
  // where == dst: a sum the FPU accumulated (rowsum, colsum, @ into an accumulator), kept exact
  // in fp32 when it leaves DST for a copy back (spill_all).
  bool sum = false;
  // A reduction in DST (its ReduceDim: 0 row, 1 column), -1 otherwise. Only its row or column 0 is
  // defined (on the device REDUCE_ROW leaves scratch elsewhere); the packer's mask, on from
  // reduce_init to reduce_uninit, writes zeros there. So it must be packed before any other DST
  // operation, alone in its section: the next one would change the init and drop the mask.
  int mask = -1;
  // where == cb, dest_only: the variable it is the value of has a copy packed for the FPU in the
  // same section (TileSelector::pack_fpu_copy); fpu_operand reads that copy instead.
  std::string var;
};
using Val = std::shared_ptr<TileValue>;

/// `body` with each broadcast operand that a serial loop computes from values it does not change
/// (`bcast_col(recip(l))` in a loop over D) declared once before that loop
/// (select_tile_ops_hoist.cpp).
ir::Stmt hoist_invariant_broadcasts(const ir::Program& p, const ir::Stmt& body);

/// The tile.exp calls of `kernel` that rescale a carried value (a factor b of `x = ... a * b ...`
/// where a reads x, or what such a factor is computed from): with @options(exp_approx_mode) they
/// stay accurate, since their error would compound once per iteration (select_tile_ops_exp.cpp).
std::set<const ir::Call*> exps_rescaling_carried(const ir::Function& kernel);

class TileSelector {
public:
  /// `economy`: without the exact-sum rules that take CBs of their own (splits, dest-only
  /// temporaries), for a kernel they would take past the 8 intermediate CBs.
  TileSelector(ir::Program& p, const ir::Function& kernel, Diagnostics& diags, bool economy);

  /// Where emitted statements go, and the location user errors point at.
  void set_output(std::vector<ir::Stmt>* out) { out_ = out; }
  void set_loc(SourceRange loc) { loc_ = loc; }

  /// Selects a tile expression; the value is left in a CB or a DST slot.
  Val select(const ir::Expr& e);
  /// Moves `v` into a DST slot. A reduction in DST is first packed under its mask (through a
  /// temporary CB) unless `keep_reduction`: its next operation is its pack or a reduction along
  /// the same axis into it.
  void to_dst(const Val& v, bool keep_reduction = false);
  void to_cb(const Val& v);
  /// `acc op= rhs` for an op that accumulates into DST (matmul, rowsum/colsum into +,
  /// rowmax/colmax into max): rhs's operands go to CBs, acc into DST, the op into acc's slot.
  /// Null when `rhs` does not accumulate, or is a reduction `acc` cannot take in DST (below).
  Val accumulate(const ir::Expr& acc, const ir::Expr& rhs, ir::Intrinsic combine);
  /// True when `acc combine rhs` accumulates into DST and rhs's operands are already in CBs
  /// (loads or variables in CBs), so a loop of it keeps the section open.
  bool accumulates_from_cbs(const ir::Expr& acc, const ir::Expr& rhs, ir::Intrinsic combine) const;

  /// Packs a DST value into `cb` (one pack_tile) and drops it from the section.
  void pack(const Val& v, const std::string& cb);
  /// Every value must have left DST; the next value starts a new section.
  void close_section();
  bool section_open() const { return !live_.empty(); }
  void emit(ir::Intrinsic fn, std::vector<ir::Expr> args);

  // Variables: a tile variable lives in its own CB (`cb_<name>`), or in DST for one statement.
  std::string var_cb(const std::string& name);
  void set_in_cb(const std::string& name, bool in_cb);
  bool in_cb(const std::string& name) const;
  void set_resident(const std::string& name, Val v);
  bool resident(const std::string& name) const;

  // Rows of tiles (docs/lowering.md, "Rows of tiles"): each in a Float32 CB of role `row` holding
  // its tiles in index order; `row.get(o, d)` is the tile at its front, read only by copy_tile.
  std::string new_row_cb(const std::string& name, std::int64_t capacity);
  bool is_row(const std::string& name) const { return row_cbs_.count(name) > 0; }
  const std::string& row_cb(const std::string& name) const { return row_cbs_.at(name); }

  /// The page of tile [r, c] of a tensor: r * (its tile columns) + c.
  ir::Expr page_of(const std::string& tensor, const std::vector<ir::Expr>& idx) const;

  /// What `e` holds outside row / column 0, from the kernel's definitions of its variables.
  OutsideFacts outside(const ir::Expr& e) const;

  /// Where an FPU operation reads `v`: a value in a dest-only CB is first copied into DST (to be
  /// packed to an ordinary temporary by the caller's to_cb).
  void fpu_operand(const Val& v);
  /// Packs `v` (in DST, the new value of `name`, whose own CB is dest-only) also to an ordinary
  /// temporary, in the section that computed it, for the FPU reduction of the next statement:
  /// the copy fpu_operand would otherwise make in a section of its own (copy_tile, pack).
  /// Returns the temporary; the caller waits for it after the section.
  std::string pack_fpu_copy(const Val& v, const std::string& name);
  /// Pops the copies pack_fpu_copy made that no FPU operation read.
  void drop_fpu_copies();
  bool has_fpu_copies() const { return !fpu_copies_.empty(); }
  /// A carried sum (docs/language.md, "Precision"): a tile variable updated from its own value
  /// with +, - or * in a kernel with an fp32 DST. It lives in a dest-only Float32 CB and is
  /// combined through the SFPU, never through SrcA/SrcB, where it would be truncated to TF32
  /// once per iteration.
  bool carried_sum(const std::string& name) const { return carried_.count(name) > 0; }
  /// `acc += rhs` as a loop body that keeps acc in DST: rhs a tile already in a CB (a load, a
  /// variable), copied into DST and added by the SFPU in fp32 (add_binary_tile), for a carried sum.
  bool sums_in_dst(const std::string& acc, const ir::Expr& rhs, ir::Intrinsic combine) const;
  Val sum_in_dst(const ir::Expr& acc, const ir::Expr& rhs);
  /// The DST slots selecting `e` takes when every step of it runs in DST without packing
  /// anything (tiles read from CBs, broadcasts of them, SFPU ops), -1 when some step would pack a
  /// value (an FPU operand computed in DST, a reduction, a matmul, two tiles to arrive in one CB).
  int dst_need(const ir::Expr& e) const;
  /// Its own CB is dest-only: a carried sum, or any variable of a kernel whose `+ - *` run on the
  /// SFPU, unless only the FPU reads it or bf16 holds it for an FPU operation.
  bool dest_only_var(const std::string& name) const {
    return carried_sum(name) ||
           (sfpu_arith_ && !fpu_only_.count(name) && !(src_exact_ok() && exact_.count(name)));
  }
  /// In a bf16 kernel with an fp32 DST, `e` reaches SrcA/SrcB exactly from a CB: a load of bf16
  /// or bfp8 data, a tile of a bf16 row kept in L1, a variable whose values bf16 holds (`m` of
  /// `m = max(m, rowmax(x))`), or a broadcast of one. `+ - *` of two such operands stay on the FPU.
  bool src_exact(const ir::Expr& e) const;
  /// A CB tile SrcA/SrcB read exactly: a load of bf16 or bfp8 data, or a tile of a bf16 row
  /// kept in L1.
  bool bf16_source(const ir::Expr& e) const;
  bool src_exact_ok() const { return sfpu_arith_ && !inter_f32_ && !economy_; }
  /// Pops the CB that holds the current value of `name`.
  void drop(const std::string& name);

  bool used_reduction() const { return used_reduction_; }
  /// tril(i, j) / triu(i, j): a tile the reader generates into the mask CB, per use.
  Val position_mask(const ir::Call& c, SourceRange at);
  const std::string& scaler_cb() const { return scaler_cb_; }

private:
  ir::Program& prog_;
  Diagnostics& diags_;
  std::vector<ir::Stmt>* out_ = nullptr;
  SourceRange loc_;
  std::map<std::string, ir::Expr> tile_counts_;     // tensor -> its tile-column count
  std::map<std::string, ir::Expr> row_tile_counts_; // batched tensor -> its tile-row count
  std::map<std::string, std::string> var_cbs_, row_cbs_;
  std::map<std::string, bool> in_cb_;
  std::map<std::string, Val> resident_;
  std::map<std::string, OutsideFacts> var_outside_; // every tile variable, over all its values
  std::vector<Val> live_;                           // DST values of the open section
  std::vector<std::string> free_temps_, free_dest_temps_;
  std::map<std::string, std::string> fpu_copies_; // variable -> the temporary of pack_fpu_copy
  std::vector<std::string> free_split_temps_; // bf16 hi and lo CBs of a kernel with Float32 ones
  std::set<std::string> carried_, fpu_only_;
  // @options(exp_approx_mode): tile.exp is exp_tile<true> but for these (exps_rescaling_carried).
  bool exp_approx_ = false;
  std::set<const ir::Call*> accurate_exps_;
  // Of the others, those whose argument is proved at most 0 (prove_nonpositive.hpp).
  std::set<const ir::Call*> nonpositive_exps_;
  /// The approximate exp `c` selects: exp_tile.approx_noclamp where its argument is proved at
  /// most 0, else exp_tile.approx (select_tile_ops_exp.cpp).
  ir::Intrinsic approx_exp(const ir::Call& c) const;
  // The calls whose result is read only in column 0 (column_zero_reads): their SFPU call, where
  // it takes a vector_mode (column_call), runs on VectorMode::C.
  std::set<const ir::Call*> column_only_;
  std::set<std::string> exact_;      // variables whose values bf16 holds (analyze_precision)
  int next_slot_ = 0, capacity_ = 8, // next_slot_: the slots [0, next_slot_) written this section
      temps_ = 0, dest_temps_ = 0;
  bool fp32_acc_ = false, inter_f32_ = false, used_reduction_ = false, economy_ = false;
  /// A kernel with f32 data (docs/language.md, "Precision"): `+ - *` of tiles, broadcasts included,
  /// run on the SFPU in fp32 with operands unpacked straight to DST, never through SrcA/SrcB
  /// (TF32); named values and spilled intermediates live in dest-only CBs.
  bool sfpu_arith_ = false;
  /// A kernel with an fp32 DST: rowsum/colsum of a sum or difference (`rowsum(x + r)`) or of a
  /// named fp32 value reduces hi = bf16(v) and lo = v - hi (sum_parts), so the sum loses 2^-16 of
  /// v, not the 2^-8 of one bf16 intermediate: a mean taken from it stays exact enough to centre
  /// the rows by. Other operands (products, functions) keep their relative 2^-8. With Float32
  /// intermediates hi and lo still go through bf16 CBs of their own (split_temp): a Float32 one
  /// reaches the reduce through SrcA as TF32, truncated toward zero (-0.37 2^-10 of each term on
  /// average: Sums/RowSumF32), where bf16 hi and lo are read exactly.
  bool split_sums_ = false;
  std::string scaler_cb_, mask_cb_;

  [[noreturn]] void user_error(SourceRange at, const std::string& msg);
  /// `defs`: every tile variable's definitions (name, value), in program order.
  void analyze_precision(const ir::Function& kernel,
                         const std::vector<std::pair<std::string, ir::Expr>>& defs);
  std::string new_cb(const std::string& base, bool f32);
  std::string cb_of_tensor(const std::string& tensor) const;
  /// A DST slot for a new value: the lowest one no live value holds (a value's slot is free again
  /// once its last use has run: sfpu_binary's second operand, a packed value), else the next
  /// one the section has not used, else a new section. `zero`: the value reads the slot as the
  /// zero tile (an accumulation, fresh_zero), so only a slot nothing wrote since the section began.
  int alloc_slot(bool zero = false);
  /// Packs every DST value to a temporary CB. With an fp32 DST each goes to a dest-only Float32
  /// temporary, exact when copied back (a bf16 one would round a carried sum's `s * alpha` once
  /// per iteration, tests/difftest/sums_spilled_carried_product.tk), unless it is `for_fpu`: an FPU
  /// operation reads it next (to_cb), through SrcA/SrcB, in the intermediates' format.
  void spill_all(const Val& for_fpu = nullptr);
  std::string temp_cb(bool dest_only);
  bool reduction_live() const;
  bool reduction_accumulates(const ir::Expr& acc, const ir::Call& r) const;
  void release(const Val& v);
  void pre(const Val& v);
  void post(const Val& v);
  void separate(const Val& a, const Val& b);
  Val fresh_dst();
  /// A fresh slot read as the zero tile (by a pack, an accumulation or an in-place op): marked
  /// with `dst.assume_zero`, which starts a new DST section if one is being packed.
  Val fresh_zero();
  Val binary(const ir::Call& c);
  Val bcast(ir::Intrinsic op, const ir::Expr& a, const ir::Call& bc, SourceRange at);
  Val bcast_vals(ir::Intrinsic op, Val a, Val v, ir::EnumConst dim);
  Val bcast_in_dst(const ir::Call& bc);
  Val sfpu_binary(ir::Intrinsic op, Val a, Val b);
  Val sfpu_where(Val m, Val a, Val b);
  Val reduce(const ir::Call& c);
  /// The CB tiles a sum reduces for `a`, the value of `e`: {a} itself, or, when split_sums_ and
  /// `e` is a sum or difference or a dest-only variable, hi = bf16(a) and lo = a - hi in bf16
  /// temporaries.
  std::vector<Val> sum_parts(const Val& a, const ir::Expr& e);
  /// A bf16 intermediate CB for hi or lo (sum_parts): the intermediates' temp_cb when they are
  /// bf16, else one of free_split_temps_.
  std::string split_temp();
  /// reduce_tile of CB tile `v` (sum or max, along rows or columns) into DST slot `slot`.
  void reduce_tile(bool is_max, bool row, const Val& v, int slot);
  const std::string& scaler() const;
  ir::Expr bits(const ir::Expr& scalar) const;

  // ---- an approximate exp's argument `x - bcast_col(y)` on the FPU (select_tile_ops_fpu_exp.cpp)
public:
  /// Throws an internal error when a CB the FPU subtraction read as `x` is also copied into DST
  /// (it would then reach copy_tile through SrcA, truncated to TF32).
  void check_fpu_exp_args(const ir::Stmt& body) const;

private:
  void analyze_fpu_exp_args(const std::vector<std::pair<std::string, ir::Expr>>& defs);
  /// exp(x - bcast_col(y)) for one of fpu_exps_: sub_tiles_bcast<COL> from x's CB and y's into
  /// DST, then exp_tile<true> there; null when x or y is not in its CB.
  Val fpu_exp(const ir::Call& exp);
  std::set<const ir::Call*> fpu_exps_;
  std::set<std::string> fpu_read_cbs_; // the x's CBs the subtraction read
};

} // namespace tk::lower::tt
