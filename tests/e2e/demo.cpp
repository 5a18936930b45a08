// The demo: every example on one representative shape through both targets, one line each
// (example, shape, target, max abs error, PCC, wall time). Exits 1 if any check fails.
#include "tests/e2e/cases.hpp"

#include <cstdio>
#include <cstring>
#include <exception>

int main(int argc, char** argv) {
  using namespace tk::e2e;
  if (argc > 1) {
    if (std::strcmp(argv[1], "--help") != 0 && std::strcmp(argv[1], "-h") != 0) {
      std::fprintf(stderr, "%s: error: unexpected argument '%s' (it takes none; see --help)\n",
                   argv[0], argv[1]);
      return 2;
    }
    std::printf("usage: %s\n"
                "Runs every example on one shape through the CPU target and the TT emulator, and "
                "checks each\nagainst a double-precision reference and the reference interpreter; "
                "exits 1 if a check fails.\nTK_EMULATOR_TIMING=1, TK_EMULATOR_REPORT=FILE.json and "
                "TK_EMULATOR_TRACE=FILE.json time the TT runs\n(docs/timing.md).\n",
                argv[0]);
    return 0;
  }
  const Shape shape = demo_shape();
  std::printf("%-17s %-12s %-6s %12s %10s %10s  %s\n", "example", "shape", "target", "max|err|",
              "PCC", "time", "check");
  int failures = 0, not_generated = 0;
  for (const Example& e : examples()) {
    for (Backend b : {Backend::cpu, Backend::tt}) {
      const std::string shown = to_string(shape, e.uses_k);
      if (b == Backend::tt && !e.tt_generated) {
        std::printf("%-17s %-12s %-6s %12s %10s %10s  %s\n", e.name.c_str(), shown.c_str(),
                    to_string(b), "-", "-", "-", "not generated yet");
        ++not_generated;
        continue;
      }
      try {
        const Outcome out = e.run(b, shape);
        std::printf("%-17s %-12s %-6s %12.3e %10.6f %8.2fms  %s\n", e.name.c_str(), shown.c_str(),
                    to_string(b), out.max_abs_err, out.pcc, out.seconds * 1e3,
                    out.ok ? "ok" : "FAIL");
        if (!out.ok) {
          std::printf("%s", out.detail.c_str());
          ++failures;
        }
      } catch (const std::exception& ex) {
        std::printf("%-17s %-12s %-6s FAIL: %s\n", e.name.c_str(), shown.c_str(), to_string(b),
                    ex.what());
        ++failures;
      }
    }
  }
  if (not_generated > 0)
    std::printf("TT code is not generated yet (TILEKIT_TT_CODEGEN is OFF in cmake/TileKit.cmake): "
                "%d TT rows skipped\n",
                not_generated);
  std::printf("%s: %d failed\n", failures == 0 ? "all checks passed" : "FAILED", failures);
  return failures == 0 ? 0 : 1;
}
