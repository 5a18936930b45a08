// The semantic checker of the tile language: resolves names, types every expression, ties every
// tensor index to a dimension, and reports user errors with locations (docs/language.md lists
// them).
#pragma once

#include "dsl/ast.hpp"
#include "support/diagnostics.hpp"

#include <string>
#include <string_view>

namespace tk::dsl {

/// Checks every kernel of `m`. On return every Expr::type is set (Type::unknown only where an error
/// was reported), every Call::fn is resolved, and the kernel obeys the rules of docs/language.md
/// unless an error was reported. Reports independent mistakes in one run (up to the limit of
/// `diags`) and never reports one mistake twice. Returns false iff it reported an error.
bool check(Module& m, Diagnostics& diags);

/// The effective value of the kernel options after `@options(...)` and the defaults.
struct KernelOptions {
  std::string arch;        // @options(arch = ...): one of arch/'s names; empty = the default
  std::int64_t grid_x = 0; // options_of: the whole grid of the kernel's architecture (`arch`, or
  std::int64_t grid_y = 0; // options_of's argument, else the default) unless given
  std::int64_t cb_depth = 2;
  bool fp32_acc = false;
  std::string math_fidelity = "HiFi4"; // LoFi, HiFi2, HiFi3 or HiFi4
  // matmul_block = <rows>x<cols>: the blocked matmul's block of output tiles; 0 = the rule's.
  std::int64_t matmul_rows = 0, matmul_cols = 0;
  // q_chunk = N: query tile rows per work item of a row-of-tiles kernel on TT (1 = one row);
  // 0, without the option: the host's rule chooses at run time (docs/lowering.md, "The Q chunk").
  std::int64_t q_chunk = 0;
  // exp_approx_mode = true: TT's exp is tt-llk's approximate kernel where its error cannot
  // compound (docs/language.md, "Precision"); the CPU ignores it.
  bool exp_approx_mode = false;
};

/// Reads the options of a kernel that passed check() (invalid entries are ignored). `arch`, when
/// not empty, overrides the kernel's own `arch` option (ttgen --arch) and so its default grid.
KernelOptions options_of(const Kernel& k, std::string_view arch = {});

} // namespace tk::dsl
