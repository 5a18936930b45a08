// ttgen check's proofs over the kernels of one program (docs/check.md): each kernel's CB windows
// and DST protocol along its paths, its runtime-argument indices, and across kernels the balance
// of every CB's pushes and pops, for all trip counts or under a stated condition.
#pragma once

#include "arch/arch.hpp"
#include "check/model.hpp"
#include "support/diagnostics.hpp"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace tk::check {

struct CheckOptions {
  std::map<std::int64_t, std::int64_t> cb_pages;      // --cb c_N=PAGES
  std::map<Role, std::int64_t> runtime_args;          // --runtime-args ROLE=COUNT
  bool fp32_dest = false;                             // --fp32-dest-acc: DST holds fp32
  const arch::ArchSpec* arch = &arch::default_arch(); // DST capacity
};

/// Checks the kernels; errors (bugs) and warnings (what it cannot prove) go to `diags`, and one
/// line per proved fact to `proved`.
void analyze(const std::vector<Kernel>& kernels, const CheckOptions& options, Diagnostics& diags,
             std::vector<std::string>& proved);

} // namespace tk::check
