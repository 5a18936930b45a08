// A random kernel as the generator builds it and the reducer shrinks it: the .tk program as a
// small tree of statements and expressions (kept as text where the reducer never looks inside),
// plus the sizes of its named dimensions and the values of its scalars for one run.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace tk::difftest {

struct Expr {
  enum class Kind { leaf, call, binary };
  Kind kind = Kind::leaf;
  std::string text; // leaf: "x[i, j]", "m", "0.5", "alpha"; call: the builtin; binary: + - * @
  std::vector<Expr> args;

  static Expr leaf(std::string t) { return {Kind::leaf, std::move(t), {}}; }
  static Expr call(std::string fn, std::vector<Expr> a) {
    return {Kind::call, std::move(fn), std::move(a)};
  }
  static Expr binary(std::string op, Expr l, Expr r) {
    return {Kind::binary, std::move(op), {std::move(l), std::move(r)}};
  }
};

struct Stmt {
  enum class Kind { assign, accumulate, store, loop };
  Kind kind = Kind::assign;
  std::string target; // the name (assign, accumulate), the access "y[i, j]" (store), the loop
                      // header "k in tiles(K)" (loop)
  Expr value;         // unused for a loop
  std::vector<Stmt> body;
};

struct Tensor {
  std::string name;
  std::string dtype;      // bf16 or f32
  std::string rows, cols; // a dimension name, a multiple of 32, or 1
  std::string batch;      // a rank-3 tensor's batch dimension (a name or a count); empty: rank 2
};

struct Program {
  std::string name;                 // the kernel's name, also the generated files' stem
  std::vector<std::string> options; // "grid = 2x3", "cb_depth = 1", ...
  std::vector<Tensor> inputs;
  std::vector<std::string> scalars; // f32 scalar inputs, after the tensors
  std::vector<Tensor> outputs;
  std::vector<Stmt> before; // before the parallel: reduction variables bound
  std::string parallel;     // "i in tiles(M), j in tiles(N)"
  std::vector<Stmt> body;
  std::vector<Stmt> after; // after the parallel: what finishes the reduction variables

  std::map<std::string, std::int64_t> dims;    // each dimension name's size for the run
  std::map<std::string, double> scalar_values; // each scalar's value for the run
  std::uint64_t input_seed = 0;                // the seed of the run's input values
  /// Input tensor -> the offset of its rows: row r holds c_r + U(-1, 1), c_r = offset (1 +
  /// U(-1, 1) / 4). An input not listed is uniform in [kInputMin, kInputMax].
  std::map<std::string, double> offsets;
  std::string shape;  // the generator's kernel shape: map, row, matmul or col
  std::string source; // a replayed file's text, used as is (the body is then empty)
};

/// The program as .tk source (or `source` when set), its first line the run's comment:
/// `// tk-difftest run: seed=7 M=64 N=32 alpha=0.5 x0.offset=64` (parse_run reads it back).
std::string print(const Program& p);
/// The run of a replayed file: reads the comment print() writes into dims, scalar_values and
/// input_seed; false if `text` has none.
bool parse_run(const std::string& text, Program& p);
std::string print(const Expr& e);

/// The number of rows (d = 0) or columns (d = 1) of `t` in the run, of each matrix of a batch.
std::int64_t extent(const Program& p, const Tensor& t, int d);
/// The number of matrices of `t` in the run: 1 for a rank-2 tensor.
std::int64_t batch_extent(const Program& p, const Tensor& t);

} // namespace tk::difftest
