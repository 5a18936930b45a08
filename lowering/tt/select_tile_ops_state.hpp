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
#include <string>
#include <vector>

namespace tk::lower::tt {

/// What a tile value holds outside the result of a reduction along one axis: outside column 0
/// (where rowsum/rowmax put their column vector) or outside row 0 (colsum/colmax). Ordered: each
/// admits the ones before it.
enum class Outside : std::uint8_t { zero, nonpos, any };
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
  // A reduction in DST (its ReduceDim: 0 row, 1 column), -1 otherwise. Only its row or column 0 is
  // defined (on the device REDUCE_ROW leaves scratch elsewhere); the packer's mask, on from
  // reduce_init to reduce_uninit, writes zeros there. So it must be packed before any other DST
  // operation, alone in its section: the next one would change the init and drop the mask.
  int mask = -1;
};
using Val = std::shared_ptr<TileValue>;

class TileSelector {
public:
  TileSelector(ir::Program& p, const ir::Function& kernel, Diagnostics& diags);

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

  /// The page of tile [r, c] of a tensor: r * (its tile columns) + c.
  ir::Expr page_of(const std::string& tensor, const std::vector<ir::Expr>& idx) const;

  /// What `e` holds outside row / column 0, from the kernel's definitions of its variables.
  OutsideFacts outside(const ir::Expr& e) const;

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
  std::map<std::string, std::string> var_cbs_;
  std::map<std::string, bool> in_cb_;
  std::map<std::string, Val> resident_;
  std::map<std::string, OutsideFacts> var_outside_; // every tile variable, over all its values
  std::vector<Val> live_;                           // DST values of the open section
  std::vector<std::string> free_temps_;
  int next_slot_ = 0, capacity_ = 8, temps_ = 0;
  bool fp32_acc_ = false, inter_f32_ = false, used_reduction_ = false;
  std::string scaler_cb_, mask_cb_;

  [[noreturn]] void user_error(SourceRange at, const std::string& msg);
  std::string new_cb(const std::string& base, bool f32);
  std::string cb_of_tensor(const std::string& tensor) const;
  int alloc_slot();
  void spill_all();
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
  Val sfpu_binary(ir::Intrinsic op, Val a, Val b);
  Val sfpu_where(Val m, Val a, Val b);
  Val reduce(const ir::Call& c);
  const std::string& scaler() const;
  ir::Expr bits(const ir::Expr& scalar) const;
};

} // namespace tk::lower::tt
