// ttgen report's account of the materialise stage's choice (docs/lowering.md, "Recompute or
// materialise"): for each value the stage decided on, what was chosen, why, and what each
// alternative costs at the report's shape, by the same static estimate (estimate.hpp) of the
// programs each alternative lowers to.
#pragma once

#include "report/estimate.hpp"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace tk::report {

struct Alternative {
  std::string choice; // "recompute", "l1", "dram"
  bool chosen = false;
  bool built = false; // the compiler generates it (an alternative it does not is priced by formula)
  std::int64_t matmul_tiles = 0;
  std::int64_t dram_bytes_read = 0, dram_bytes_written = 0;
  double bound_cycles = 0; // the programs' rooflines, in launch order
  double bound_us = 0;
  std::int64_t l1_bytes_per_core = 0; // "l1": a row of the value per core
  std::string note;
};

struct Choice {
  std::string kernel; // the kernel's (first) program
  std::string value;  // the IR variable decided on
  std::string tensor; // its scratch tensor when materialised
  std::string basis;  // "rule", "model" or "request" (ir::Materialise::Basis)
  std::string why;    // the stage's reasoning (ir::Materialise::why)
  std::vector<Alternative> alternatives;
};

/// The decision `decided` on kernel `kernel` (its program's ir::Materialise), priced at `shape`:
/// `dram` from the estimates of `first` and `second` (the materialised programs, the second reading
/// the scratch tensor: as lowered or lowered again by request; null: not priced), `recompute` from
/// `recomputed` (the kernel as written; null: not priced), `l1` by its L1 footprint.
Choice materialise_choice(const ir::Materialise& decided, const std::string& kernel,
                          const ir::Program* first, const ir::Program* second,
                          const ir::Program* recomputed, const Shape& shape);

std::string format_text(const Choice& c);
nlohmann::ordered_json to_json(const Choice& c);

} // namespace tk::report
