// The argument checks of interp::run (bind.hpp). They follow the order of the generated shape
// checks: each input tensor on its own (rows, columns, data), then every later use of a dimension
// name against its first use; then what only the interpreter has (unknown names, Inputs::dims).
#include "interp/bind.hpp"

#include "interp/tile.hpp"
#include "support/diagnostics.hpp"

#include <tilekit/runtime.hpp>

#include <limits>
#include <string>
#include <utility>

namespace tk::interp {
namespace {

const char* axis_name(std::size_t d) {
  return d == 0 ? "rows" : "cols";
}

/// The axes of a batch: 0 batch, 1 rows, 2 cols (a matrix has the last two).
const char* axis3_name(std::size_t a) {
  return a == 0 ? "batch" : axis_name(a - 1);
}

/// `x.rows = 70` as the messages spell it.
std::string where(const std::string& kernel, const std::string& param, const std::string& axis,
                  std::int64_t value) {
  return kernel + ": " + param + "." + axis + " = " + std::to_string(value);
}

/// A size bound to the dimension name `dim`: a positive multiple of 32 (docs/language.md).
void check_named(const std::string& kernel, const std::string& param, const std::string& axis,
                 std::int64_t value, const std::string& dim) {
  if (value < 0)
    throw Error(where(kernel, param, axis, value) + " is negative");
  if (value % kTile != 0)
    throw Error(where(kernel, param, axis, value) + " is not a multiple of " +
                std::to_string(kTile));
  if (value == 0)
    throw Error(where(kernel, param, axis, value) + " but dimension " + dim +
                " holds at least one tile (a positive multiple of 32)");
}

void check_literal(const std::string& kernel, const std::string& param, std::size_t d,
                   std::int64_t value, std::int64_t expected) {
  if (value == expected)
    return;
  std::string msg = where(kernel, param, axis_name(d), value) + " but must be exactly " +
                    std::to_string(expected);
  if (expected == 1)
    msg += d == 0 ? " (a row vector)" : " (a column vector)";
  throw Error(msg);
}

const dsl::Param& tensor_param(const dsl::Param& p) {
  if (!p.is_tensor || (p.dims.size() != 2 && p.dims.size() != 3))
    throw InternalError("interp: parameter '" + p.name.name +
                        "' is not a tensor of rank 2 or 3; run() takes a checked kernel");
  return p;
}

/// The batch count of an input: positive when named, else exactly the literal; 1 for a matrix.
void check_batch(const std::string& kernel, const dsl::Param& p, std::int64_t value) {
  const std::string& n = p.name.name;
  if (p.dims.size() == 2) {
    if (value != 1)
      throw Error(where(kernel, n, "batch", value) + " but " + n +
                  " is a matrix (rank 2), not a batch");
    return;
  }
  const dsl::Dim& d = p.dims[0];
  if (d.name && value < 1)
    throw Error(where(kernel, n, "batch", value) + " but dimension " + d.name->name +
                " holds at least one matrix");
  if (!d.name && value != d.size)
    throw Error(where(kernel, n, "batch", value) + " but must be exactly " +
                std::to_string(d.size) +
                (d.size == 1 ? " (one matrix shared by every batch)" : ""));
}

} // namespace

std::int64_t extent(const dsl::Param& p, std::size_t d,
                    const std::map<std::string, std::int64_t>& dims) {
  const dsl::Dim& dim = p.dims.at(d);
  if (!dim.name)
    return dim.size;
  auto it = dims.find(dim.name->name);
  if (it == dims.end())
    throw InternalError("interp: dimension " + dim.name->name + " is not bound");
  return it->second;
}

Binding bind(const dsl::Kernel& k, const Inputs& in) {
  const std::string& kn = k.name.name;
  Binding b;
  // Each input on its own, in declaration order.
  for (const dsl::Param& p : k.inputs) {
    const std::string& n = p.name.name;
    b.params[n] = &p;
    if (!p.is_tensor) {
      auto it = in.scalars.find(n);
      if (it == in.scalars.end())
        throw Error(kn + ": no value for scalar '" + n + "'" +
                    (in.tensors.count(n) ? " (it is given as a tensor; scalars are numbers)" : ""));
      b.scalars[n] = it->second;
      continue;
    }
    tensor_param(p);
    auto it = in.tensors.find(n);
    if (it == in.tensors.end())
      throw Error(kn + ": no value for input tensor '" + n + "'" +
                  (in.scalars.count(n) ? " (it is given as a scalar)" : ""));
    const Matrix& m = it->second;
    check_batch(kn, p, m.batch);
    const std::int64_t size[2] = {m.rows, m.cols};
    const std::size_t r0 = p.dims.size() - 2; // rows and columns are the last two dimensions
    for (std::size_t d = 0; d < 2; ++d) {
      if (p.dims[r0 + d].name)
        check_named(kn, n, axis_name(d), size[d], p.dims[r0 + d].name->name);
      else
        check_literal(kn, n, d, size[d], p.dims[r0 + d].size);
    }
    if (static_cast<std::int64_t>(m.data.size()) != m.batch * m.rows * m.cols)
      throw Error(kn + ": " + n + ".data holds " + std::to_string(m.data.size()) + " values but " +
                  n + " is " + (p.dims.size() == 3 ? std::to_string(m.batch) + "x" : "") +
                  std::to_string(m.rows) + "x" + std::to_string(m.cols));
    b.tensors[n] = &m;
  }
  // Every later use of a dimension name against its first use.
  std::map<std::string, std::pair<std::string, std::size_t>> first; // dim -> (tensor, axis)
  for (const dsl::Param& p : k.inputs) {
    if (!p.is_tensor)
      continue;
    const Matrix& m = *b.tensors[p.name.name];
    const bool batched = p.dims.size() == 3;
    for (std::size_t d = 0; d < p.dims.size(); ++d) {
      if (!p.dims[d].name)
        continue;
      const std::string& dn = p.dims[d].name->name;
      const std::size_t a = batched ? d : d + 1; // 0: batch, 1: rows, 2: cols
      const std::int64_t v = a == 0 ? m.batch : a == 1 ? m.rows : m.cols;
      auto [it, fresh] = first.emplace(dn, std::pair{p.name.name, a});
      if (fresh) {
        b.dims[dn] = v;
      } else if (b.dims[dn] != v) {
        const auto& [tensor, axis] = it->second;
        throw Error(kn + ": dimension " + dn + " mismatch: " + tensor + "." + axis3_name(axis) +
                    " = " + std::to_string(b.dims[dn]) + " but " + p.name.name + "." +
                    axis3_name(a) + " = " + std::to_string(v));
      }
    }
  }
  // Names that are not parameters are mistakes, not extra data.
  for (const auto& [n, m] : in.tensors)
    if (!b.params.count(n) || !b.params[n]->is_tensor)
      throw Error(kn + ": '" + n + "' is not an input tensor of " + kn);
  for (const auto& [n, v] : in.scalars)
    if (!b.params.count(n) || b.params[n]->is_tensor)
      throw Error(kn + ": '" + n + "' is not a scalar parameter of " + kn);
  // Dimensions that only outputs declare take their size from Inputs::dims.
  for (const dsl::Param& p : k.outputs) {
    tensor_param(p);
    b.params[p.name.name] = &p;
    for (std::size_t i = 0; i < p.dims.size(); ++i) {
      const dsl::Dim& d = p.dims[i];
      if (!d.name || b.dims.count(d.name->name))
        continue;
      const std::string& dn = d.name->name;
      auto it = in.dims.find(dn);
      if (it == in.dims.end())
        throw Error(kn + ": dimension " + dn + " of output '" + p.name.name +
                    "' is declared by no input; give its size in Inputs::dims");
      if (p.dims.size() == 3 && i == 0) {
        if (it->second < 1)
          throw Error(kn + ": dims." + dn + " = " + std::to_string(it->second) + " but dimension " +
                      dn + " holds at least one matrix");
      } else {
        check_named(kn, "dims", dn, it->second, dn);
      }
      b.dims[dn] = it->second;
    }
  }
  for (const auto& [dn, v] : in.dims)
    if (first.count(dn))
      throw Error(kn + ": Inputs::dims gives " + dn + ", which input '" + first[dn].first +
                  "' already binds; it is only for a dimension that no input declares");
    else if (!b.dims.count(dn))
      throw Error(kn + ": Inputs::dims gives " + dn + ", which is not a dimension of " + kn);
  // Grouped indices (K[h / 2, ...]): the variable's batch is the ratio times the indexed one.
  for (const dsl::GroupedDim& g : k.grouped) {
    auto source = [&](const std::string& dn) {
      auto it = first.find(dn);
      return it == first.end() ? "dims." + dn
                               : it->second.first + "." + axis3_name(it->second.second);
    };
    const std::int64_t a = b.dims.at(g.outer), c = b.dims.at(g.inner);
    if (a != g.ratio * c)
      throw Error(kn + ": dimension " + g.outer + " must be " + std::to_string(g.ratio) +
                  " times dimension " + g.inner + " (a grouped index divides by " +
                  std::to_string(g.ratio) + "): " + source(g.outer) + " = " + std::to_string(a) +
                  " but " + source(g.inner) + " = " + std::to_string(c));
  }
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (const dsl::Param& p : k.outputs)
    b.outputs.emplace(p.name.name, p.dims.size() == 3
                                       ? Matrix::batched(extent(p, 0, b.dims), extent(p, 1, b.dims),
                                                         extent(p, 2, b.dims), nan)
                                       : Matrix(extent(p, 0, b.dims), extent(p, 1, b.dims), nan));
  return b;
}

} // namespace tk::interp
