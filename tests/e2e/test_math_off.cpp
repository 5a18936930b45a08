// TK_EMULATOR_MATH=off (docs/timing.md, "Projections without the arithmetic") on every example
// with a TT target: run once with the tile arithmetic and once without, and the timing model's
// figures of every program launched (each of a whole-tensor reduction's two) are the same, down
// to every kernel's clock, stalls, bytes and tile operations.
#include "tests/e2e/cases.hpp"

#include <tk_emulator/emulator.hpp>

#include <gtest/gtest.h>

#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

namespace tk::e2e {
namespace {

// Every field of a run's figures, doubles in hexadecimal (exact), one line each.
std::string describe(const rt::emu::ProgramTiming& t) {
  std::ostringstream out;
  auto num = [&](const char* name, double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%a", v);
    out << name << " " << buf << "\n";
  };
  out << "arch " << t.arch << "\n";
  num("clock_ghz", t.clock_ghz);
  num("device_cycles", t.device_cycles);
  num("device_us", t.device_us);
  out << "dram " << t.dram_bytes_read << " " << t.dram_bytes_written << "\n";
  out << "matmul_tiles " << t.matmul_tiles << "\n";
  num("matmul_tflops", t.matmul_tflops);
  num("ideal_matmul_cycles", t.ideal_matmul_cycles);
  num("utilization", t.utilization);
  num("dram_gbps", t.dram_gbps);
  num("dram_roofline_gbps", t.dram_roofline_gbps);
  num("compute_bound_cycles", t.compute_bound_cycles);
  num("dram_bound_cycles", t.dram_bound_cycles);
  for (const rt::emu::KernelTiming& k : t.kernels) {
    out << "core " << k.core_x << "," << k.core_y << " " << k.kernel << " " << k.risc << "\n";
    num("  end_cycle", k.end_cycle);
    num("  busy_cycles", k.busy_cycles);
    num("  stalled_cycles", k.stalled_cycles);
    for (const auto& [what, cycles] : k.stalls)
      num(("  stall " + what).c_str(), cycles);
    out << "  dram " << k.dram_bytes_read << " " << k.dram_bytes_written << " noc "
        << k.noc_bytes_read << " " << k.noc_bytes_written << "\n";
    for (const auto& [op, count] : k.tile_ops)
      out << "  tile_op " << op << " " << count << "\n";
  }
  return out.str();
}

TEST(MathOff, EveryExamplesTimingIsTheSameWithoutTheArithmetic) {
  const Shape s{96, 160, 64}; // 15 output tiles on 64 cores; attention: sequence 96, head 160
  int compared = 0;
  for (const Example& ex : examples()) {
    if (!ex.tt_generated)
      continue;
    SCOPED_TRACE(ex.name + " at " + to_string(s, ex.uses_k));
    rt::emu::set_timing(true); // also clears timings()
    ASSERT_TRUE(ex.run(Backend::tt, s).ok);
    const std::vector<rt::emu::ProgramTiming> with = rt::emu::timings();
    rt::emu::set_timing(true);
    rt::emu::set_math(false);
    (void)ex.run(Backend::tt, s); // the outputs are undefined
    rt::emu::set_math(std::nullopt);
    const std::vector<rt::emu::ProgramTiming> without = rt::emu::timings();
    ASSERT_FALSE(with.empty());
    ASSERT_EQ(without.size(), with.size());
    for (std::size_t i = 0; i < with.size(); ++i) {
      EXPECT_GT(with[i].device_cycles, 0);
      EXPECT_EQ(describe(without[i]), describe(with[i]));
    }
    ++compared;
  }
  rt::emu::set_timing(std::nullopt);
  EXPECT_GE(compared, 10);
}

} // namespace
} // namespace tk::e2e
