// Running one random kernel everywhere (docs/difftest.md): check it, interpret it with the error
// bounds of each target, generate its code with ttgen's driver, compile the CPU and TT files and
// a small shim into a shared object, load it, run run_cpu and run_tt (on the emulator), and
// compare every output element with the interpreter.
#pragma once

#include "tools/difftest/program.hpp"

#include <cstdint>
#include <filesystem>
#include <string>

namespace tt::tt_metal::distributed {
class MeshDevice;
} // namespace tt::tt_metal::distributed

namespace tk::difftest {

struct Outcome {
  enum class Status { pass, fail, invalid };
  Status status = Status::pass;
  /// For a failure, what kind ("tt mismatch", "cpu error", "ttgen error", "compile error", ...):
  /// the reducer keeps a candidate only if it fails the same way.
  std::string kind;
  std::string detail;         // the diagnostics, the exception or the first differing elements
  std::int64_t compared = 0;  // elements compared with a finite bound, both targets
  std::int64_t unbounded = 0; // elements with no finite bound or value (not compared)
  double worst = 0;           // the largest |got - value| / bound over the compared elements
  std::string worst_at;       // that element: "tt y(3, 4) = got, interpreter value +- bound"
  double seconds = 0;
};

class Runner {
public:
  /// Works in `work_dir` (one subdirectory per kernel, removed after a pass unless `keep`).
  Runner(std::filesystem::path work_dir, bool keep);
  /// Runs `p` on inputs drawn from its input_seed.
  Outcome run(const Program& p);

private:
  std::filesystem::path work_;
  bool keep_;
  std::uint64_t serial_ = 0; // distinguishes the reducer's candidates
};

/// The device every run shares (the emulator's unit mesh).
tt::tt_metal::distributed::MeshDevice& device();

} // namespace tk::difftest
