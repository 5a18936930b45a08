// The reference interpreter of the tile language: runs a checked kernel on concrete inputs in
// double precision, tile by tile, exactly as docs/language.md defines it. It shares nothing with
// the back ends (only the AST and support/), so that both targets can be compared with it;
// docs/interp.md says what it is for and the decisions it follows.
#pragma once

#include "dsl/ast.hpp"
#include "interp/precision.hpp"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace tk::interp {

/// A row-major rows x cols matrix of doubles, or (for a tensor of rank 3) a batch of `batch` such
/// matrices one after the other: element (b, r, c) is data[(b * rows + r) * cols + c].
struct Matrix {
  std::int64_t rows = 0;
  std::int64_t cols = 0;
  std::vector<double> data;
  std::int64_t batch = 1;

  Matrix() = default;
  Matrix(std::int64_t r, std::int64_t c, double value = 0.0)
      : rows(r), cols(c), data(static_cast<std::size_t>(r * c), value) {}
  /// A batch of b matrices of r x c.
  static Matrix batched(std::int64_t b, std::int64_t r, std::int64_t c, double value = 0.0) {
    Matrix m(b * r, c, value);
    m.rows = r;
    m.batch = b;
    return m;
  }
  /// Row r of the stacked matrices (r counts across the batch: b * rows + row).
  double& at(std::int64_t r, std::int64_t c) {
    return data[static_cast<std::size_t>(r * cols + c)];
  }
  double at(std::int64_t r, std::int64_t c) const {
    return data[static_cast<std::size_t>(r * cols + c)];
  }
  double& at(std::int64_t b, std::int64_t r, std::int64_t c) { return at(b * rows + r, c); }
  double at(std::int64_t b, std::int64_t r, std::int64_t c) const { return at(b * rows + r, c); }
};

/// The arguments of one run, by parameter name. Values are used as given: nothing is rounded to
/// bf16 or f32 (pass the values a target sees to compare with it).
struct Inputs {
  std::map<std::string, Matrix> tensors; // every input tensor
  std::map<std::string, double> scalars; // every scalar parameter
  /// The size of a dimension that only outputs declare (no input tensor binds it); empty usually.
  std::map<std::string, std::int64_t> dims;
};

/// Runs `k`, which must have passed dsl::check(), and returns every output by name. Arguments
/// that do not fit the kernel's signature throw tk::Error (<tilekit/runtime.hpp>) with a message
/// in the style of the generated code's shape checks, e.g.
/// "matmul: dimension K mismatch: A.cols = 64 but B.rows = 96". A kernel the checker would have
/// rejected (an output tile stored twice or never, an index outside its tensor) throws
/// tk::InternalError.
std::map<std::string, Matrix> run(const dsl::Kernel& k, const Inputs& in);

/// Every output by name (`values`, as run() returns them) and, element by element, a bound on how
/// far a target computing with precision `p` may be from it (`bounds`; infinite where no bound
/// holds, e.g. past a function's pole). docs/difftest.md derives the rules.
struct Bounded {
  std::map<std::string, Matrix> values;
  std::map<std::string, Matrix> bounds;
};
Bounded run_bounded(const dsl::Kernel& k, const Inputs& in, const Precision& p);

} // namespace tk::interp
