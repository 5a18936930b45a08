// Shared state of the semantic checker, split over check.cpp (kernels, statements, write
// coverage), check_expr.cpp (expressions, tensor indices) and check_decl.cpp (options, parameters).
#pragma once

#include "dsl/ast.hpp"
#include "dsl/check.hpp"
#include "support/diagnostics.hpp"
#include "support/suggest.hpp"

#include <deque>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace tk::dsl::detail {

/// Where the rows or the columns of a tile come from: a named tensor dimension, a literal one
/// (1 for a vector), or unknown (constants, broadcasts, after an error).
struct DimKey {
  enum class Kind { unknown, named, literal } kind = Kind::unknown;
  std::string name;
  std::int64_t size = 0;
  SourceRange where;  // the dimension in its tensor's declaration, for notes; not compared
  std::string tensor; // the tensor declaring it, for notes

  bool known() const { return kind != Kind::unknown; }
  bool is_vector() const { return kind == Kind::literal && size == 1; }
  std::string str() const; // "K", "64", "1"
  static DimKey of(const Dim& d, const std::string& tensor);
  friend bool operator==(const DimKey& a, const DimKey& b) {
    return a.kind == b.kind && a.name == b.name && a.size == b.size;
  }
};

/// Two keys provably name different extents: different names, different literals, or a vector
/// against a named dimension (a named dimension is a multiple of 32).
bool provably_differ(const DimKey& a, const DimKey& b);
DimKey merge(const DimKey& a, const DimKey& b);

struct Shape {
  DimKey rows, cols;
};

/// A loop bound: `tiles(dim)` when dim is set, `dim` itself when `batch` (a batch dimension's
/// size, in matrices), else the literal `value`.
struct SymBound {
  std::string dim;
  std::int64_t value = 0;
  bool batch = false;
  std::string str() const;
  friend bool operator==(const SymBound&, const SymBound&) = default;
};

struct LoopInfo {
  const LoopVar* lv = nullptr;
  bool parallel = false;
  bool valid = false; // range checked clean; lo and hi meaningful
  SymBound lo, hi;
  /// A triangular loop `lo .. v + c`: the enclosing loop of v and c. Then hi is v's hi, and
  /// excess says how far past hi - 1 the variable can reach: its largest value is
  /// hi - 1 + excess (v's own excess plus c - 1), 0 for a rectangular loop.
  const LoopInfo* outer = nullptr;
  std::int64_t outer_offset = 0;
  std::int64_t excess = 0;
  SourceRange keyword;           // `parallel` or `for`, for notes
  std::string range_str() const; // "tiles(N)", "1 .. tiles(N)" or "0 .. B"
};

/// A dimension name: whether it is a batch dimension (the first of a rank-3 tensor, counted in
/// matrices) or a tiled one (rows or columns), and where it was first declared.
struct DimUse {
  bool batch = false;
  SourceRange where;
  std::string tensor;
};

/// A tensor of rank 3 has a leading batch dimension; rows and columns are always the last two.
inline bool is_batch_dim(const Param& t, std::size_t dim) {
  return t.dims.size() == 3 && dim == 0;
}

struct Binding {
  enum class Kind { tensor, scalar, loop, local, row } kind = Kind::local;
  const Param* param = nullptr; // tensor, scalar
  bool is_output = false;       // tensor
  LoopInfo* loop = nullptr;     // loop
  SourceRange where;            // declaration or first binding
  Shape shape;                  // local; row: the shape of each of its tiles
  SymBound row_hi;              // row: the end of its range (it starts at 0)
  std::string row_range;        // row: its range as written, "tiles(D)"
  // For -Wunused-input and -Wunused-value:
  bool read = false;            // named in an expression (a '+=' does not count)
  bool read_since_write = true; // local: the value of the last '=' or '+=' was used ('+=' uses it)
  SourceRange last_write;       // local: the name of its last '=' or '+='
  bool last_write_accumulates = false;
  std::size_t write_scope = 0; // local: the scope depth of its last write
  // A reduction variable: a local bound before the 'parallel' (docs/language.md, "Whole-tensor
  // reductions"), combined inside it by one associative operation.
  bool reduction = false;
  std::string combine;    // "+=", "max" or "min" once combined inside the 'parallel'
  SourceRange combine_at; // the first combine, for notes
};

/// A warning held until the kernel is checked: dropped if the kernel had an error (an unused name
/// is then more likely a consequence than a mistake), else reported in source order.
struct PendingWarning {
  SourceRange where;
  std::string name; // a row of kWarnings
  std::string message;
  SourceRange note_at;
  std::string note; // empty: no note
};

struct StoreSite {
  SourceRange where;
};

/// How deep 'for' loops may nest. The generated code spells each loop inside the one around it,
/// and the templates recurse once per level (common/ir.jinja, within the Jinja engine's 200 calls);
/// real kernels nest a few.
constexpr int kMaxLoopNesting = 32;

class Checker {
public:
  Checker(Kernel& k, Diagnostics& d) : k_(k), d_(d) {}
  /// Checks the kernel, then reports its pending warnings if it had no error.
  void run();
  void check_body();

  // check_decl.cpp
  void check_options();
  void check_params();

  // check_expr.cpp
  Shape check_expr(Expr& e);
  /// Checks the indices of `a` against its tensor; false if any index was wrong or unresolved.
  bool check_indices(const Access& a, SourceRange where, const Param& t,
                     std::vector<LoopInfo*>& vars);
  bool check_index(const Access& a, std::size_t dim, const Param& t, LoopInfo*& var);
  bool check_batch_index(const Access& a, const Param& t, LoopInfo*& var);
  /// The divisor of index `dim` of `a` (`h / 2`): a positive integer, on a batch index only.
  bool check_divisor(const Access& a, std::size_t dim, const Param& t);
  /// A divided batch index `v / r` whose variable ranges over a batch dimension or a literal
  /// range; records the host's check in k_.grouped.
  bool check_grouped_index(const Access& a, const Param& t, const LoopInfo& L);
  /// The loop an index variable names; nullptr after reporting an unknown name or a name that is
  /// not a loop index.
  LoopInfo* index_loop(const Ident& vid);
  /// Reports operands whose rows or columns provably differ; `what` names the operation.
  void check_agree(const Shape& a, const Expr& ea, const Shape& b, const Expr& eb,
                   SourceRange where, const std::string& what);
  /// tril(i, j) / triu(i, j): the arguments are tile indices (recorded in c.indices); the
  /// result's rows come from the dimension the first ranges over, its columns from the second's.
  Shape check_position(Call& c, const Expr& e);
  /// Resolves the tensor of an access; reports what the name is otherwise. Null on error.
  const Binding* resolve_tensor(const Ident& id);

  // check_row.cpp: rows of tiles (docs/language.md, "Rows of tiles")
  void check_row_init(RowInit& r);
  /// `o[d]`, reading or writing one tile of row `row`: one plain loop variable over its range.
  bool check_row_index(const Access& a, SourceRange where, const Binding& row);
  Shape check_row_read(Access& a, SourceRange where, Binding& row);
  void check_row_store(Store& st, Binding& row, const Shape& value);
  /// `o` used as a tile, assigned (`o = e`) or accumulated (`o += e`): reported.
  void row_as_tile(const Ident& id, const Binding& row, const std::string& how);

  // check.cpp
  void check_block(std::vector<Stmt>& body);
  void check_stmt(Stmt& s);
  void check_store(Store& st);
  void check_coverage(const Store& st, const Param& out, const std::vector<LoopInfo*>& vars);
  /// A statement before the 'parallel': only `v = zeros()` / `v = fill(c)`, binding a reduction
  /// variable.
  void check_prologue(Stmt& s);
  /// An assignment to reduction variable `b` inside the 'parallel': `v = max(v, e)`, `max(e, v)`
  /// or the same with min. Returns the combine's name ("max", "min"), empty if it is none.
  std::string combine_of(const Assign& a);
  /// Records that reduction variable `n` is combined by `op` at `at`; reports a second kind.
  void record_combine(Binding& b, const std::string& n, const std::string& op, SourceRange at);
  /// Reports a read or assignment of a reduction variable inside the 'parallel', once per name.
  void reduction_misuse(const Binding& b, const std::string& n, SourceRange at, bool read);
  LoopInfo* check_loop_var(LoopVar& lv, bool parallel, SourceRange keyword);
  bool check_bound(const Bound& b, SymBound& out);
  /// `lo .. v + c` with v a loop variable: fills L's outer, hi and excess; false after an error.
  bool check_index_bound(Bound& b, LoopInfo& L, bool parallel);

  Binding* lookup(const std::string& name);
  void bind(const std::string& name, Binding b) { scopes_.back()[name] = std::move(b); }
  /// Reports an unknown name once per kernel, with the closest known name as a suggestion.
  void unknown_name(const Ident& id, const std::vector<std::string>& candidates,
                    const std::string& what);
  std::vector<std::string> visible_names(bool loops_only) const;

  Diagnostic& error(SourceRange r, std::string msg) { return d_.error(r, std::move(msg)); }
  void warn_tile_permutation(const Store& st);
  /// Records that local `n` is written (by '=' or '+=') at `at`; a value of an '=' or '+=' in
  /// the same block that nobody read is reported as overwritten.
  void write_local(Binding& b, const std::string& n, SourceRange at, bool accumulates);
  /// The locals of the innermost scope, about to end: those never read are unused values.
  void warn_unused_locals();
  void warn_unused_inputs();
  SourceRange decl_of(const Param& p) const { return p.name.loc.range; }

  Kernel& k_;
  Diagnostics& d_;
  std::map<std::string, const Param*> params_;
  std::map<std::string, SourceRange> dims_; // dimension names, first occurrence
  std::map<std::string, DimUse> dim_use_;   // dimension names: batch or tiled, first declaration
  std::map<std::string, bool> bad_params_;  // params whose declaration had an error
  std::vector<std::map<std::string, Binding>> scopes_;
  std::deque<LoopInfo> loops_;
  std::vector<LoopInfo*> enclosing_; // loops around the current statement, outermost first
  std::set<std::string> reported_unknown_;
  std::map<std::string, SourceRange> expired_; // locals whose loop body ended
  std::map<std::string, StoreSite> stores_;    // output name -> first store
  const Stmt* parallel_ = nullptr;             // the top-level parallel
  /// Where the statement being checked stands relative to the 'parallel'.
  enum class Phase { before, inside, after } phase_ = Phase::before;
  const Expr* combine_operand_ = nullptr; // the one read of a reduction variable its combine allows
  std::set<std::string> reported_reduction_; // reduction variables whose misuse was reported
  int for_depth_ = 0;                        // 'for' loops around the current statement
  bool coverage_ok_ = true; // false once a store was skipped, so "never stored" would lie
  std::vector<PendingWarning> pending_;
};

// "Did you mean" suggestions (support/suggest.hpp).
using tk::closest;
using tk::edit_distance;
SourceRange keyword_range(const Stmt& s, std::uint32_t len);
std::string index_str(const TensorIndex& ix);
std::string access_str(const Access& a);
std::string expr_str(const Expr& e);

} // namespace tk::dsl::detail
