// Binding the arguments of one run to a kernel's signature: every argument present, every tensor
// of the declared shape, every dimension name one size. What fails throws tk::Error with a message
// in the style of the generated code's shape checks (README, "The generated C++ interface").
#pragma once

#include "dsl/ast.hpp"
#include "interp/interp.hpp"

#include <cstdint>
#include <map>
#include <string>

namespace tk::interp {

struct Binding {
  std::map<std::string, std::int64_t> dims;        // every dimension name -> size in elements
  std::map<std::string, const Matrix*> tensors;    // every input tensor
  std::map<std::string, double> scalars;           // every scalar parameter
  std::map<std::string, Matrix> outputs;           // every output, allocated, NaN until stored
  std::map<std::string, const dsl::Param*> params; // every parameter by name
};

/// Checks `in` against the signature of `k` and allocates the outputs.
Binding bind(const dsl::Kernel& k, const Inputs& in);

/// The size of dimension `d` of tensor `p` once `dims` is bound: elements for rows and columns,
/// matrices for the batch dimension of a rank-3 tensor.
std::int64_t extent(const dsl::Param& p, std::size_t d,
                    const std::map<std::string, std::int64_t>& dims);

} // namespace tk::interp
