// The interpreter proper (interp.hpp): statements and expressions of a checked kernel, executed
// one tile at a time. The `parallel` points run one after the other in row-major order (they are
// independent, so any order gives the same outputs, up to the reassociation of a reduction
// variable's combine); `for` loops run in increasing order.
#include "interp/interp.hpp"

#include "interp/bind.hpp"
#include "interp/tile.hpp"
#include "support/diagnostics.hpp"

#include <cmath>
#include <cstdint>
#include <limits>
#include <set>
#include <string>
#include <utility>
#include <variant>

namespace tk::interp {
namespace {

using Value = std::variant<Scalar, Tile>; // a scalar or a tile

constexpr double kInf = std::numeric_limits<double>::infinity();

[[noreturn]] void unchecked(const std::string& what) {
  throw InternalError("interp: " + what + "; run() takes a kernel that passed dsl::check()");
}

std::string index_str(const dsl::TensorIndex& ix) {
  if (!ix.var)
    return std::to_string(ix.offset);
  if (ix.divisor_name)
    return ix.var->name + " / " + ix.divisor_name->name;
  if (ix.divided)
    return ix.var->name + " / " + std::to_string(ix.divisor);
  if (ix.offset == 0)
    return ix.var->name;
  return ix.var->name + (ix.offset > 0 ? " + " : " - ") +
         std::to_string(ix.offset > 0 ? ix.offset : -ix.offset);
}

std::string access_str(const dsl::Access& a) {
  std::string s = a.tensor.name + "[";
  for (std::size_t i = 0; i < a.indices.size(); ++i)
    s += (i ? ", " : "") + index_str(a.indices[i]);
  return s + "]";
}

/// The elements of a tensor that tile (ti, tj) covers: 32 along a tiled dimension, 1 along a
/// vector one. `row0` counts rows across a batch (matrix b starts at row b * rows); `tile` is the
/// tile's number among all of the tensor's tiles, batch-major.
struct Region {
  std::int64_t row0 = 0, col0 = 0;
  int rows = 0, cols = 0;
  std::int64_t tile = 0;
  std::string coords; // "(b, i, j)" or "(i, j)"
};

class Machine {
public:
  Machine(const dsl::Kernel& k, Binding& b, const Precision& p) : k_(k), b_(b), p_(p), pc_(p) {
    for (const auto& [name, m] : b_.outputs)
      bounds_[name] = Matrix::batched(m.batch, m.rows, m.cols);
    // A carried sum's combine rounds in fp32 (pc_).
    pc_.op = p.carried;
    if (p_.fp32_names)
      find_names(k_.body);
    if (p_.sfpu_arith)
      find_fpu_reads(k_.body);
  }

  std::map<std::string, Matrix>& bounds() { return bounds_; }

  void run() {
    for (const auto& [name, m] : b_.outputs)
      stored_[name].assign(static_cast<std::size_t>(m.batch * tiles(m.rows) * tiles(m.cols)), 0);
    // The reduction variables bound before the 'parallel', then its points in order carrying
    // them, then the statements after it, once (docs/language.md, "Whole-tensor reductions").
    const dsl::Parallel* par = nullptr;
    scopes_.assign(1, {});
    for (const dsl::Stmt& s : k_.body) {
      if (const auto* p = std::get_if<dsl::Parallel>(&s.node)) {
        if (par)
          unchecked("'" + k_.name.name + "' has two 'parallel' statements");
        par = p;
        for (const auto& [name, t] : scopes_[0])
          reductions_[name].init = t;
        in_parallel_ = true;
        parallel(*p, 0);
        in_parallel_ = false;
        finish_reductions();
      } else {
        exec(s);
      }
    }
    if (!par)
      unchecked("'" + k_.name.name + "' has no 'parallel' statement");
    scopes_.clear();
    for (const auto& [name, counts] : stored_) {
      const Matrix& m = b_.outputs.at(name);
      for (std::size_t t = 0; t < counts.size(); ++t)
        if (counts[t] != 1) {
          const auto tc = static_cast<std::size_t>(tiles(m.cols));
          const auto per = static_cast<std::size_t>(tiles(m.rows)) * tc; // tiles per matrix
          unchecked("tile (" + (m.batch > 1 ? std::to_string(t / per) + ", " : std::string()) +
                    std::to_string(t % per / tc) + ", " + std::to_string(t % tc) + ") of output '" +
                    name + "' is never stored");
        }
    }
  }

private:
  static std::int64_t tiles(std::int64_t size) { return size == 1 ? 1 : size / kTile; }

  std::pair<std::int64_t, std::int64_t> range(const dsl::Range& r) const {
    auto bound = [&](const dsl::Bound& b) {
      if (b.size_of && b.is_index) { // an enclosing loop variable plus an offset
        auto it = loops_.find(b.size_of->name);
        if (it == loops_.end())
          unchecked("'" + b.size_of->name + "' names no enclosing loop variable");
        return it->second + b.offset;
      }
      if (b.size_of) { // a batch dimension: its count of matrices
        auto it = b_.dims.find(b.size_of->name);
        if (it == b_.dims.end())
          unchecked("'" + b.size_of->name + "' names no dimension");
        return it->second;
      }
      if (!b.tiles_of)
        return b.value;
      auto it = b_.dims.find(b.tiles_of->name);
      if (it == b_.dims.end())
        unchecked("tiles(" + b.tiles_of->name + ") names no dimension");
      return it->second / kTile;
    };
    return {r.lo ? bound(*r.lo) : 0, bound(r.hi)};
  }

  // `parallel` variables from the d-th on; each point starts with no local names.
  void parallel(const dsl::Parallel& p, std::size_t d) {
    if (d == p.loops.size()) {
      scopes_.emplace_back();
      block(p.body);
      scopes_.pop_back();
      return;
    }
    const auto [lo, hi] = range(p.loops[d].range);
    const std::string& v = p.loops[d].var.name;
    for (std::int64_t x = lo; x < hi; ++x) {
      loops_[v] = x;
      parallel(p, d + 1);
    }
    loops_.erase(v);
  }

  void block(const std::vector<dsl::Stmt>& body) {
    for (const dsl::Stmt& s : body)
      exec(s);
  }

  void exec(const dsl::Stmt& s) {
    if (const auto* a = std::get_if<dsl::Assign>(&s.node)) {
      const std::string& name = a->name.name;
      Tile t = assigned(name, a->value);
      if (Tile* x = lookup(name))
        *x = std::move(t); // an enclosing scope's name: updated, carried to the next iteration
      else
        scopes_.back().insert_or_assign(name, std::move(t));
    } else if (const auto* acc = std::get_if<dsl::Accumulate>(&s.node)) {
      const std::string& name = acc->name.name;
      Tile* x = lookup(name);
      if (!x)
        unchecked("'+=' on unbound name '" + name + "'");
      if (in_parallel_ && reductions_.count(name)) {
        reduction_sum(name, *x, acc->value);
        return;
      }
      if (!p_.fp32_names) {
        Value v = eval(acc->value);
        *x = std::holds_alternative<Tile>(v)
                 ? apply(dsl::BinOp::add, *x, std::get<Tile>(v), p_)
                 : apply(dsl::BinOp::add, *x, std::get<Scalar>(v), /*scalar_left=*/false, p_);
        return;
      }
      Tile sum = exact(name);
      Value v = increment(acc->value);
      Tile r = std::holds_alternative<Tile>(v)
                   ? apply(dsl::BinOp::add, sum, std::get<Tile>(v), pc_)
                   : apply(dsl::BinOp::add, sum, std::get<Scalar>(v), false, pc_);
      r.kept = Kept::carried;
      *lookup(name) = std::move(r);
    } else if (const auto* st = std::get_if<dsl::Store>(&s.node)) {
      if (st->target.row)
        store_row(*st);
      else
        store(*st);
    } else if (const auto* r = std::get_if<dsl::RowInit>(&s.node)) {
      init_row(*r);
    } else if (const auto* f = std::get_if<dsl::For>(&s.node)) {
      const auto [lo, hi] = range(f->loop.range);
      const std::string& v = f->loop.var.name;
      for (std::int64_t x = lo; x < hi; ++x) {
        loops_[v] = x;
        scopes_.emplace_back(); // names first bound in the body are local to one iteration
        block(f->body);
        scopes_.pop_back();
      }
      loops_.erase(v);
    } else {
      unchecked("nested 'parallel'");
    }
  }

  // ---- rows of tiles (docs/language.md, "Rows of tiles") ---------------------------------------
  // Tile x of row `o` is the name `o[x]` of the scope that binds the row (no name holds '[').
  static std::string row_key(const std::string& row, std::int64_t x) {
    return row + "[" + std::to_string(x) + "]";
  }
  std::string row_key(const dsl::Access& a) const {
    if (a.indices.size() != 1 || !a.indices[0].var)
      unchecked("row '" + access_str(a) + "' without its one loop variable");
    auto it = loops_.find(a.indices[0].var->name);
    if (it == loops_.end())
      unchecked("'" + a.indices[0].var->name + "' in '" + access_str(a) +
                "' is not a loop variable");
    return row_key(a.tensor.name, it->second);
  }

  /// `o[d in R] = e`: e for each d in R, each in a scope of its own, then the row is bound.
  void init_row(const dsl::RowInit& r) {
    const auto [lo, hi] = range(r.loop.range);
    const std::string& v = r.loop.var.name;
    std::vector<Tile> tiles;
    for (std::int64_t x = lo; x < hi; ++x) {
      loops_[v] = x;
      scopes_.emplace_back();
      Tile t = tile(r.value);
      t.kept = Kept::value;
      tiles.push_back(std::move(t));
      scopes_.pop_back();
    }
    loops_.erase(v);
    for (std::int64_t x = lo; x < hi; ++x)
      scopes_.back().insert_or_assign(row_key(r.name.name, x),
                                      std::move(tiles[static_cast<std::size_t>(x - lo)]));
  }

  /// `o[d] = e`: tile d of the row, in the scope that bound it. A tile computed from its own row
  /// (`o[d] = o[d] * c + p @ v`) is carried, as a carried sum is.
  void store_row(const dsl::Store& st) {
    Tile* x = lookup(row_key(st.target));
    if (!x)
      unchecked("'" + access_str(st.target) + "' writes outside its row");
    Tile t = tile(st.value);
    t.kept = reads_row(st.value, st.target.tensor.name) ? Kept::carried : Kept::value;
    *x = std::move(t);
  }
  static bool reads_row(const dsl::Expr& e, const std::string& row) {
    if (const auto* a = std::get_if<dsl::Access>(&e.node))
      return a->row && a->tensor.name == row;
    if (const auto* b = std::get_if<dsl::Binary>(&e.node))
      return reads_row(*b->lhs, row) || reads_row(*b->rhs, row);
    if (const auto* c = std::get_if<dsl::Call>(&e.node))
      for (const dsl::Expr& a : c->args)
        if (reads_row(a, row))
          return true;
    return false;
  }

  Tile* lookup(const std::string& name) {
    for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it)
      if (auto f = it->find(name); f != it->end())
        return &f->second;
    return nullptr;
  }

  // ---- tensors ----------------------------------------------------------------------------------
  const dsl::Param& param(const dsl::Ident& id) const {
    auto it = b_.params.find(id.name);
    if (it == b_.params.end() || !it->second->is_tensor)
      unchecked("'" + id.name + "' is not a tensor");
    return *it->second;
  }

  /// The tile of `a` its indices select now, checked against the tensor's size `rows x cols`.
  Region region(const dsl::Access& a, const dsl::Param& p, const Matrix& m,
                const char* verb) const {
    const std::int64_t rows = m.rows, cols = m.cols;
    const std::size_t n = a.indices.size();
    if (n != p.dims.size() || (n != 2 && n != 3))
      unchecked("'" + access_str(a) + "' does not have one index per dimension of '" + p.name.name +
                "'");
    std::int64_t ix[3] = {0, 0, 0}; // batch, row, column
    for (std::size_t d = 0; d < n; ++d) {
      const dsl::TensorIndex& t = a.indices[d];
      std::int64_t& v = ix[d + 3 - n];
      v = t.offset;
      if (t.var) {
        auto it = loops_.find(t.var->name);
        if (it == loops_.end())
          unchecked("'" + t.var->name + "' in '" + access_str(a) + "' is not a loop variable");
        v += it->second;
        if (t.divisor > 1) // a grouped index `h / 2`: floor division of a non-negative index
          v /= t.divisor;
      }
    }
    Region r{ix[0] * rows + ix[1] * kTile,
             ix[2] * kTile,
             rows == 1 ? 1 : kTile,
             cols == 1 ? 1 : kTile,
             (ix[0] * tiles(rows) + ix[1]) * tiles(cols) + ix[2],
             "(" + (n == 3 ? std::to_string(ix[0]) + ", " : std::string()) + std::to_string(ix[1]) +
                 ", " + std::to_string(ix[2]) + ")"};
    if (ix[0] < 0 || ix[0] >= m.batch || ix[1] < 0 || ix[2] < 0 || ix[1] * kTile + r.rows > rows ||
        r.col0 + r.cols > cols)
      unchecked("'" + access_str(a) + "' " + verb + " tile " + r.coords + ", outside '" +
                p.name.name + "' (" + (n == 3 ? std::to_string(m.batch) + "x" : std::string()) +
                std::to_string(rows) + "x" + std::to_string(cols) + ")");
    return r;
  }

  /// A vector tensor fills row 0 (row vector) or column 0 (column vector); the rest is 0.
  Tile load(const dsl::Access& a) const {
    const dsl::Param& p = param(a.tensor);
    auto it = b_.tensors.find(p.name.name);
    if (it == b_.tensors.end())
      unchecked("reading '" + access_str(a) + "', which is not an input");
    const Matrix& m = *it->second;
    const Region r = region(a, p, m, "reads");
    Tile t;
    if (p.dtype != dsl::DType::f32) // bf16 and bfp8 values pass SrcA/SrcB (TF32) exactly
      t.kept = Kept::exact;
    else if (fpu_read_.count(p.name.name))
      t.kept = Kept::through_src;
    for (int i = 0; i < r.rows; ++i)
      for (int j = 0; j < r.cols; ++j)
        t(i, j) = m.at(r.row0 + i, r.col0 + j);
    return t;
  }

  /// A vector output takes row 0 (row vector) or column 0 (column vector) of the tile.
  void store(const dsl::Store& st) {
    Tile t = tile(st.value);
    const dsl::Param& p = param(st.target.tensor);
    auto it = b_.outputs.find(p.name.name);
    if (it == b_.outputs.end())
      unchecked("storing to '" + access_str(st.target) + "', which is not an output");
    Matrix& m = it->second;
    Matrix& bound = bounds_.at(p.name.name);
    const Region r = region(st.target, p, m, "writes");
    // The output's dtype rounds what is stored: bf16 and f32 to nearest even, relative to each
    // value; bfp8 relative to its run of 16 (below).
    const bool bfp8 = p_.round_outputs && p.dtype == dsl::DType::bfp8;
    const double u = !p_.round_outputs || bfp8     ? 0.0
                     : p.dtype == dsl::DType::bf16 ? 0x1p-8
                                                   : 0x1p-24;
    std::uint8_t& count = stored_[p.name.name][static_cast<std::size_t>(r.tile)];
    if (++count > 1)
      unchecked("'" + access_str(st.target) + "' stores tile " + r.coords + " of '" + p.name.name +
                "' twice");
    for (int i = 0; i < r.rows; ++i)
      for (int j = 0; j < r.cols; ++j) {
        m.at(r.row0 + i, r.col0 + j) = t(i, j);
        // A stored tile passes the target's unpacker once more (TT: copy_tile from a circular
        // buffer that also feeds the FPU reads f32 as TF32), then the output's rounding.
        const double read = operand(t, static_cast<std::size_t>(i * kTile + j), p_, false);
        const double e = read + u * (std::abs(t(i, j)) + read);
        bound.at(r.row0 + i, r.col0 + j) = std::isfinite(e) ? e : kInf;
      }
    // A bfp8 output: the packer truncates to bf16 and rounds to the run's largest exponent E,
    // each step within half a unit 2^(E - 6) of the run, so at most 2^-6 times its largest value.
    if (bfp8)
      for (int i = 0; i < r.rows; ++i)
        for (int j0 = 0; j0 < r.cols; j0 += 16) {
          double largest = 0;
          for (int j = j0; j < std::min(j0 + 16, r.cols); ++j)
            largest = std::max(largest, std::abs(t(i, j)) + bound.at(r.row0 + i, r.col0 + j));
          for (int j = j0; j < std::min(j0 + 16, r.cols); ++j) {
            double& b = bound.at(r.row0 + i, r.col0 + j);
            b = std::isfinite(b + 0x1p-6 * largest) ? b + 0x1p-6 * largest : kInf;
          }
        }
  }

  // ---- expressions ------------------------------------------------------------------------------
  Tile tile(const dsl::Expr& e, const Precision* top = nullptr) {
    Value v = eval(e, top);
    if (!std::holds_alternative<Tile>(v))
      unchecked("a scalar where a tile is needed");
    return std::move(std::get<Tile>(v));
  }

  /// `e`'s value; its outermost operation rounds as `top` says (default: the target's `op`).
  Value eval(const dsl::Expr& e, const Precision* top = nullptr) {
    if (e.type != dsl::Type::tile && e.type != dsl::Type::scalar)
      unchecked("an expression of type " + std::string(dsl::to_string(e.type)));
    Value v = eval_node(e, top ? *top : p_);
    if (std::holds_alternative<Tile>(v) != (e.type == dsl::Type::tile))
      unchecked("an expression evaluates to a " +
                std::string(std::holds_alternative<Tile>(v) ? "tile" : "scalar") +
                " but the checker typed it " + std::string(dsl::to_string(e.type)));
    return v;
  }

  Value eval_node(const dsl::Expr& e, const Precision& q) {
    if (const auto* n = std::get_if<dsl::Number>(&e.node))
      return Scalar{n->value, 0};
    if (const auto* n = std::get_if<dsl::Name>(&e.node)) {
      if (const Tile* t = lookup(n->id.name))
        return *t;
      if (auto it = b_.scalars.find(n->id.name); it != b_.scalars.end())
        return Scalar{it->second, 0};
      if (auto it = b_.dims.find(n->id.name); it != b_.dims.end())
        return Scalar{static_cast<double>(it->second), 0}; // a size as a value: its elements

      unchecked("'" + n->id.name + "' is neither a bound tile nor a scalar parameter");
    }
    if (const auto* a = std::get_if<dsl::Access>(&e.node)) {
      if (!a->row)
        return load(*a);
      if (const Tile* t = lookup(row_key(*a)))
        return *t;
      unchecked("'" + access_str(*a) + "' reads outside its row");
    }
    if (const auto* c = std::get_if<dsl::Call>(&e.node))
      return call(*c, q);
    const auto& b = std::get<dsl::Binary>(e.node);
    return binary(b.op, eval(*b.lhs), eval(*b.rhs), q);
  }

  Value binary(dsl::BinOp op, Value l, Value r, const Precision& q) {
    const bool lt = std::holds_alternative<Tile>(l), rt = std::holds_alternative<Tile>(r);
    if (lt && rt)
      return apply(op, std::get<Tile>(l), std::get<Tile>(r), q);
    if (!lt && !rt)
      return apply(op, std::get<Scalar>(l), std::get<Scalar>(r), q);
    if (op == dsl::BinOp::matmul)
      unchecked("'@' with a scalar operand");
    return lt ? apply(op, std::get<Tile>(l), std::get<Scalar>(r), false, q)
              : apply(op, std::get<Tile>(r), std::get<Scalar>(l), true, q);
  }

  Value call(const dsl::Call& c, const Precision& q) {
    using dsl::Builtin;
    if (c.fn == Builtin::unknown)
      unchecked("the call to '" + c.callee.name + "' is not resolved");
    if (static_cast<int>(c.args.size()) != dsl::arity(c.fn))
      unchecked("'" + c.callee.name + "' has the wrong number of arguments");
    switch (c.fn) {
    case Builtin::zeros:
      return constant(0.0, q);
    case Builtin::fill: {
      Value v = eval(c.args[0]);
      if (!std::holds_alternative<Scalar>(v))
        unchecked("fill() of a tile");
      return constant(std::get<Scalar>(v).v, q, std::get<Scalar>(v).err);
    }
    case Builtin::max:
    case Builtin::min: {
      Tile a = tile(c.args[0]);
      return apply(c.fn, a, tile(c.args[1]), q);
    }
    case Builtin::rowsum:
    case Builtin::rowmax:
    case Builtin::colsum:
    case Builtin::colmax:
      return reduce(c.fn, tile(c.args[0]), q);
    case Builtin::bcast_row:
    case Builtin::bcast_col:
      return broadcast(c.fn, tile(c.args[0]), q);
    case Builtin::transpose:
      return transpose(tile(c.args[0]), q);
    case Builtin::elu: {
      Tile a = tile(c.args[0]);
      Value s = eval(c.args[1]);
      if (!std::holds_alternative<Scalar>(s))
        unchecked("elu() with a tile alpha");
      return elu(a, std::get<Scalar>(s), q);
    }
    case Builtin::where: {
      auto as_tile = [&](const dsl::Expr& x) {
        Value v = eval(x);
        if (const auto* s = std::get_if<Scalar>(&v))
          return constant(s->v, p_, s->err);
        return std::move(std::get<Tile>(v));
      };
      Tile m = tile(c.args[0]);
      Tile a = as_tile(c.args[1]);
      return where(m, a, as_tile(c.args[2]), p_);
    }
    case Builtin::tril:
    case Builtin::triu: { // exact 0/1 values: no bound
      if (c.indices.size() != 2)
        unchecked("'" + c.callee.name + "' without its tile indices");
      auto at = [&](const dsl::TensorIndex& t) {
        std::int64_t v = t.offset;
        if (t.var) {
          auto it = loops_.find(t.var->name);
          if (it == loops_.end())
            unchecked("'" + t.var->name + "' in '" + c.callee.name + "' is not a loop variable");
          v += it->second;
        }
        return v;
      };
      return position(c.fn, at(c.indices[0]), at(c.indices[1]));
    }
    default:
      return apply(c.fn, tile(c.args[0]), q);
    }
  }

  // ---- sums (docs/language.md, "Sums"; docs/difftest.md) ---------------------------------------
  /// The carried sums of `body`: a name updated from its own value, other than by max or min, or
  /// by +=.
  void find_names(const std::vector<dsl::Stmt>& body) {
    for (const dsl::Stmt& s : body) {
      if (const auto* a = std::get_if<dsl::Assign>(&s.node)) {
        dsl::Builtin fn{};
        if (mentions(a->value, a->name.name) && !extremum_update(a->name.name, a->value, fn))
          carried_.insert(a->name.name);
      } else if (const auto* acc = std::get_if<dsl::Accumulate>(&s.node)) {
        carried_.insert(acc->name.name);
      } else if (const auto* f = std::get_if<dsl::For>(&s.node)) {
        find_names(f->body);
      } else if (const auto* p = std::get_if<dsl::Parallel>(&s.node)) {
        find_names(p->body);
      }
    }
  }
  /// The f32 tensors the FPU reads directly: a load that is an operand of `@`, a reduction
  /// builtin or `transpose` (docs/language.md, "Precision").
  void find_fpu_reads(const std::vector<dsl::Stmt>& body) {
    auto expr = [&](const dsl::Expr& e) { find_fpu_reads(e); };
    for (const dsl::Stmt& s : body) {
      if (const auto* a = std::get_if<dsl::Assign>(&s.node))
        expr(a->value);
      else if (const auto* acc = std::get_if<dsl::Accumulate>(&s.node))
        expr(acc->value);
      else if (const auto* st = std::get_if<dsl::Store>(&s.node))
        expr(st->value);
      else if (const auto* f = std::get_if<dsl::For>(&s.node))
        find_fpu_reads(f->body);
      else if (const auto* p = std::get_if<dsl::Parallel>(&s.node))
        find_fpu_reads(p->body);
    }
  }
  void find_fpu_reads(const dsl::Expr& e) {
    auto direct = [&](const dsl::Expr& x) {
      if (const auto* a = std::get_if<dsl::Access>(&x.node))
        fpu_read_.insert(a->tensor.name);
    };
    if (const auto* b = std::get_if<dsl::Binary>(&e.node)) {
      if (b->op == dsl::BinOp::matmul) {
        direct(*b->lhs);
        direct(*b->rhs);
      }
      find_fpu_reads(*b->lhs);
      find_fpu_reads(*b->rhs);
    } else if (const auto* c = std::get_if<dsl::Call>(&e.node)) {
      using dsl::Builtin;
      if (c->fn == Builtin::rowsum || c->fn == Builtin::colsum || c->fn == Builtin::rowmax ||
          c->fn == Builtin::colmax || c->fn == Builtin::transpose)
        direct(c->args[0]);
      for (const dsl::Expr& a : c->args)
        find_fpu_reads(a);
    }
  }

  /// In `v = max(v, e)`, `max(e, v)`, `min(v, e)` or `min(e, v)` (e not mentioning v): e, with
  /// max or min in `fn`; else null.
  static const dsl::Expr* extremum_update(const std::string& v, const dsl::Expr& value,
                                          dsl::Builtin& fn) {
    const auto* c = std::get_if<dsl::Call>(&value.node);
    if (!c || (c->fn != dsl::Builtin::max && c->fn != dsl::Builtin::min) || c->args.size() != 2)
      return nullptr;
    for (std::size_t k = 0; k < 2; ++k) {
      const auto* n = std::get_if<dsl::Name>(&c->args[k].node);
      if (n && n->id.name == v && !mentions(c->args[1 - k], v)) {
        fn = c->fn;
        return &c->args[1 - k];
      }
    }
    return nullptr;
  }

  /// The value `name = value` gives `name`.
  Tile assigned(const std::string& name, const dsl::Expr& value) {
    const Tile* old = lookup(name);
    dsl::Builtin fn{};
    if (const dsl::Expr* other = old ? extremum_update(name, value, fn) : nullptr)
      return extremum(*old, fn, *other);
    if (p_.fp32_names && old && carried_.count(name)) {
      Tile t = std::get<Tile>(combine(value, name));
      t.kept = Kept::carried;
      return t;
    }
    Tile t = tile(value);
    // Its first binding, into the carried sum's CB, or any dest-only CB (Precision::sfpu_arith).
    t.kept = p_.fp32_names && (carried_.count(name) || p_.sfpu_arith) ? Kept::carried : Kept::value;
    return t;
  }

  /// `v = max(v, e)` (or min): rounding is monotone, so round(max(v~, e~)) = max(v~, round(e~))
  /// for a v~ already kept, and TF32 truncation is idempotent: the bound is the larger of v's and
  /// of e's read, rounded and truncated once, and does not grow with the trip count.
  Tile extremum(const Tile& old, dsl::Builtin fn, const dsl::Expr& other) {
    const Tile e = tile(other);
    Tile out = old;
    const double trunc = std::max(p_.operand, p_.named_operand);
    for (std::size_t i = 0; i < Tile::size(); ++i) {
      const double a = old[i], b = e[i];
      out[i] = std::isnan(a) || std::isnan(b) ? a + b
               : fn == dsl::Builtin::max      ? std::max(a, b)
                                              : std::min(a, b);
      double eb = operand(e, i, p_, false);
      eb += p_.op * (std::abs(b) + eb) + (p_.op > 0 ? p_.tiny : 0.0);
      eb += trunc * (std::abs(b) + eb);
      const double bound = std::max(old.err(i), eb);
      out.err(i) = std::isfinite(out[i]) && std::isfinite(bound) ? bound : kInf;
    }
    return out;
  }

  /// The carried sum `v` as its own combine reads it: in DST, exactly.
  Tile exact(const std::string& v) {
    Tile t = *lookup(v);
    t.kept = Kept::exact;
    return t;
  }

  /// What a carried sum adds: an `@`, rowsum or colsum accumulates into it in DST (fp32).
  Value increment(const dsl::Expr& e) {
    const auto* b = std::get_if<dsl::Binary>(&e.node);
    const auto* c = std::get_if<dsl::Call>(&e.node);
    const bool into = (b && b->op == dsl::BinOp::matmul) ||
                      (c && (c->fn == dsl::Builtin::rowsum || c->fn == dsl::Builtin::colsum));
    Value v = eval(e, into ? &pc_ : nullptr);
    if (Tile* t = std::get_if<Tile>(&v); t && into)
      t->kept = Kept::exact; // the sum is already in DST: not read again
    return v;
  }

  /// The right side of an update of carried sum `v`: the + - * on the way to `v` read it exactly
  /// and round in fp32 (the SFPU's fp32 binary ops, or the FPU's accumulation into DST).
  Value combine(const dsl::Expr& e, const std::string& v) {
    if (const auto* n = std::get_if<dsl::Name>(&e.node); n && n->id.name == v)
      return exact(v);
    const auto* b = std::get_if<dsl::Binary>(&e.node);
    if (!b || (b->op != dsl::BinOp::add && b->op != dsl::BinOp::sub && b->op != dsl::BinOp::mul))
      return eval(e);
    const bool lv = mentions(*b->lhs, v), rv = mentions(*b->rhs, v);
    if (lv == rv)
      return eval(e);
    Value l = lv ? combine(*b->lhs, v) : increment(*b->lhs);
    Value r = rv ? combine(*b->rhs, v) : increment(*b->rhs);
    return binary(b->op, std::move(l), std::move(r), pc_);
  }

  /// `v += e` on a reduction variable inside the `parallel`. The targets sum each chunk of points
  /// from 0 and combine the chunks' f32 partials in order, so the order is not this one: the
  /// bound is order-free, (2n + 1) fp32 roundings of the sum of magnitudes for n updates (at
  /// most n in a chunk, at most n chunks that are not empty, and the initial value).
  void reduction_sum(const std::string& name, Tile& x, const dsl::Expr& value) {
    Value v = increment(value);
    const Tile t = std::holds_alternative<Tile>(v)
                       ? std::move(std::get<Tile>(v))
                       : constant(std::get<Scalar>(v).v, p_, std::get<Scalar>(v).err);
    Reduction& r = reductions_.at(name);
    if (r.n++ == 0)
      r.errs = r.mass = Tile(0.0);
    for (std::size_t i = 0; i < Tile::size(); ++i) {
      const double e = operand(t, i, p_, false);
      x[i] += t[i];
      r.errs[i] += e;
      r.mass[i] += std::abs(t[i]) + e;
    }
  }
  void finish_reductions() {
    for (auto& [name, r] : reductions_) {
      if (r.n == 0)
        continue;
      Tile& x = scopes_[0].at(name);
      const double rounds = static_cast<double>(2 * r.n + 1);
      for (std::size_t i = 0; i < Tile::size(); ++i) {
        const double e = r.init.err(i) + r.errs[i] +
                         p_.carried * rounds * (std::abs(r.init[i]) + r.init.err(i) + r.mass[i]) +
                         (p_.carried > 0 ? rounds * p_.tiny : 0.0);
        x.err(i) = std::isfinite(x[i]) && std::isfinite(e) ? e : kInf;
      }
      x.kept = p_.fp32_names ? Kept::carried : Kept::value;
    }
  }

  struct Reduction {
    Tile init;       // the value bound before the parallel
    Tile errs, mass; // a sum's: the increments' bounds, their magnitudes plus bounds
    std::int64_t n = 0;
  };

  const dsl::Kernel& k_;
  Binding& b_;
  const Precision& p_;
  Precision pc_; // p_ with fp32 rounding: carried sums
  std::set<std::string> carried_;
  std::set<std::string> fpu_read_;              // f32 tensors the FPU reads (Precision::sfpu_arith)
  std::map<std::string, Reduction> reductions_; // the reduction variables
  bool in_parallel_ = false;
  std::map<std::string, Matrix> bounds_;            // output -> the bound of each stored element
  std::map<std::string, std::int64_t> loops_;       // loop variable -> its current value
  std::vector<std::map<std::string, Tile>> scopes_; // local names, innermost scope last
  std::map<std::string, std::vector<std::uint8_t>> stored_; // output -> stores per tile
};

} // namespace

std::map<std::string, Matrix> run(const dsl::Kernel& k, const Inputs& in) {
  return run_bounded(k, in, Precision{}).values;
}

Bounded run_bounded(const dsl::Kernel& k, const Inputs& in, const Precision& p) {
  Binding b = bind(k, in);
  Machine m(k, b, p);
  m.run();
  return {std::move(b.outputs), std::move(m.bounds())};
}

} // namespace tk::interp
