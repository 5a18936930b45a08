// Timing mode (docs/timing.md): the clocks of a program worked out by hand, exact counters, the
// roofline bound, unchanged results, and the report and trace files.
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>

#include <nlohmann/json.hpp>

#include <tk_emulator/emulator.hpp>

#include "emu_program.hpp"

namespace {
using namespace tk::test;
namespace emu = tk::rt::emu;

// Timing mode on for one test, off again after it.
struct Timed {
  Timed() { emu::set_timing(true); }
  ~Timed() { emu::set_timing(std::nullopt); }
};

// One tile from DRAM through c_0 back to DRAM: a reader on RISCV_1 and a writer on RISCV_0.
std::vector<bfloat16> copy_one_tile(const std::vector<bfloat16>& in) {
  ProgramBuilder p;
  auto src = p.dram(in);
  auto dst = p.dram(1);
  p.cb(tt::CBIndex::c_0, 2);
  auto r = p.reader("dataflow/read_tile.cpp", {src});
  auto w = p.writer("dataflow/write_cb0.cpp", {dst});
  SetRuntimeArgs(p.program, r, CoreCoord{0, 0}, {ProgramBuilder::addr(src), 1u});
  SetRuntimeArgs(p.program, w, CoreCoord{0, 0}, {ProgramBuilder::addr(dst), 0u});
  p.run();
  return p.read(dst);
}

// out = a + b over n tiles on one core (the SDK's eltwise_binary flow).
std::vector<bfloat16> add_tiles(uint32_t n) {
  ProgramBuilder p;
  const auto a = random_bf16(n * 1024, -1.0f, 1.0f, 7);
  const auto b = random_bf16(n * 1024, -1.0f, 1.0f, 8);
  auto in0 = p.dram(a), in1 = p.dram(b), out = p.dram(n);
  for (auto cb : {tt::CBIndex::c_0, tt::CBIndex::c_1, tt::CBIndex::c_16})
    p.cb(cb, 2);
  auto r = p.reader("dataflow/read_tiles.cpp", {in0, in1});
  auto w = p.writer("dataflow/write_tile.cpp", {out});
  auto c = p.compute("compute/tiles_add.cpp", ComputeConfig{.math_fidelity = MathFidelity::HiFi4});
  const CoreCoord core{0, 0};
  SetRuntimeArgs(p.program, r, core, {ProgramBuilder::addr(in0), ProgramBuilder::addr(in1), n});
  SetRuntimeArgs(p.program, w, core, {ProgramBuilder::addr(out), n, 0u});
  SetRuntimeArgs(p.program, c, core, {n});
  p.run();
  return p.read(out);
}

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}
} // namespace

// Wormhole B0's table: sync call 10, read issue 23, write issue 26, a DRAM bank 22.25 B/cycle,
// a read port 30.4 B/cycle, a write port 30.2 B/cycle, DRAM read latency 397, write 425.
//   reader: cb_reserve_back 10; read issued at 10 + 23 = 33; bank busy 2048 / 22.25 = 92.045
//           (the port, 2048 / 30.4, is faster): lands at 33 + 92.045 + 397 = 522.045 (barrier);
//           cb_push_back: 532.045.
//   writer: cb_wait_front resumes at 532.045, + 10; write issued at 568.045; bank 0 is free, so
//           it lands at 568.045 + 92.045 + 425 = 1085.090 (barrier); cb_pop_front: 1095.090.
TEST(EmulatorTiming, OneTileCopyTakesTheCyclesWorkedOutByHand) {
  Timed timed;
  const auto in = random_bf16(1024, -2.0f, 2.0f, 3);
  copy_one_tile(in);
  const auto& t = emu::last_timing();
  ASSERT_TRUE(t.has_value());
  const double bank = 2048 / 22.25;
  const double read_done = 10 + 23 + bank + 397;
  const double pushed = read_done + 10;
  const double end = pushed + 10 + 26 + bank + 425 + 10;
  EXPECT_NEAR(t->device_cycles, end, 1e-6);
  ASSERT_EQ(t->kernels.size(), 2u);
  const emu::KernelTiming& reader = t->kernels[0];
  const emu::KernelTiming& writer = t->kernels[1];
  EXPECT_EQ(reader.risc, "ncrisc");
  EXPECT_EQ(writer.risc, "brisc");
  EXPECT_NEAR(reader.end_cycle, pushed, 1e-6);
  EXPECT_NEAR(reader.busy_cycles, 10 + 23 + 10, 1e-6);
  EXPECT_NEAR(reader.stalls.at("noc_async_read_barrier"), bank + 397, 1e-6);
  EXPECT_NEAR(writer.stalls.at("cb_wait_front(c_0)"), pushed, 1e-6);
  EXPECT_NEAR(writer.stalls.at("noc_async_write_barrier"), bank + 425, 1e-6);
  EXPECT_NEAR(t->device_us, end / 1000.0, 1e-9);
}

// 64 tiles of a + b: 2 * 64 pages of 2048 B read, 64 written, 64 adds and 64 packs; nothing else.
TEST(EmulatorTiming, CountersAreExact) {
  Timed timed;
  add_tiles(64);
  const auto& t = emu::last_timing();
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(t->dram_bytes_read, 2u * 64 * 2048);
  EXPECT_EQ(t->dram_bytes_written, 64u * 2048);
  EXPECT_EQ(t->matmul_tiles, 0u);
  ASSERT_EQ(t->kernels.size(), 3u);
  const std::map<std::string, std::uint64_t> compute_ops{{"add", 64}, {"pack", 64}};
  EXPECT_EQ(t->kernels[2].tile_ops, compute_ops);
  EXPECT_EQ(t->kernels[0].dram_bytes_read, 2u * 64 * 2048);
  EXPECT_EQ(t->kernels[1].dram_bytes_written, 64u * 2048);
  EXPECT_EQ(t->kernels[0].noc_bytes_read + t->kernels[1].noc_bytes_written, 0u);
  // Every kernel's clock is its busy plus stalled cycles.
  for (const auto& k : t->kernels)
    EXPECT_NEAR(k.end_cycle, k.busy_cycles + k.stalled_cycles, 1e-6) << k.kernel;
}

TEST(EmulatorTiming, ProjectedTimeIsNeverBelowTheRoofline) {
  Timed timed;
  for (uint32_t n : {1u, 8u, 64u}) {
    add_tiles(n);
    const auto& t = emu::last_timing();
    ASSERT_TRUE(t.has_value());
    EXPECT_GE(t->device_cycles, t->dram_bound_cycles) << n;
    EXPECT_GE(t->device_cycles, t->compute_bound_cycles) << n;
    EXPECT_NEAR(t->dram_bound_cycles, 3.0 * n * 2048 / 288, 1e-9) << n;
  }
}

TEST(EmulatorTiming, ChangesNoResult) {
  const auto off = add_tiles(16);
  std::vector<bfloat16> on;
  {
    Timed timed;
    on = add_tiles(16);
  }
  ASSERT_EQ(on.size(), off.size());
  for (std::size_t i = 0; i < on.size(); ++i)
    ASSERT_EQ(on[i].to_uint16(), off[i].to_uint16()) << i;
}

TEST(EmulatorTiming, SetTimingFalseTurnsItOff) {
  {
    Timed timed;
    add_tiles(1);
  }
  const double cycles = emu::last_timing()->device_cycles;
  emu::set_timing(false);
  add_tiles(2); // untimed: the last timing stays the one-tile run's
  emu::set_timing(std::nullopt);
  EXPECT_EQ(emu::last_timing()->device_cycles, cycles);
}

TEST(EmulatorTiming, WritesTheReportAndTheTraceOfEveryRun) {
  const std::string dir = TK_BINARY_DIR "/timing_test_files";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  setenv("TK_EMULATOR_REPORT", (dir + "/report.json").c_str(), 1);
  setenv("TK_EMULATOR_TRACE", (dir + "/trace.json").c_str(), 1);
  const auto in = random_bf16(1024, -2.0f, 2.0f, 3);
  copy_one_tile(in);
  add_tiles(4);
  unsetenv("TK_EMULATOR_REPORT");
  unsetenv("TK_EMULATOR_TRACE");

  // The second run of the process to write a path writes the numbered one.
  std::vector<std::string> reports;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    reports.push_back(e.path().filename().string());
  std::sort(reports.begin(), reports.end());
  const std::vector<std::string> names{"report.1.json", "report.json", "trace.1.json",
                                       "trace.json"};
  EXPECT_EQ(reports, names);

  const auto first = nlohmann::json::parse(slurp(dir + "/report.json"));
  const auto second = nlohmann::json::parse(slurp(dir + "/report.1.json"));
  EXPECT_EQ(first["dram_bytes_read"], 2048);
  EXPECT_EQ(first["dram_bytes_written"], 2048);
  EXPECT_EQ(second["dram_bytes_read"], 2 * 4 * 2048);
  EXPECT_EQ(second["matmul_tiles"], 0);
  for (const char* key : {"device_cycles", "utilization", "dram_gbps", "arch"})
    EXPECT_TRUE(second.contains(key)) << key;
  ASSERT_EQ(second["cores"].size(), 3u);
  EXPECT_EQ(second["cores"][2]["tile_ops"]["add"], 4);
  EXPECT_EQ(second["cores"][0]["core"], nlohmann::json::array({0, 0}));

  // The trace: a named track per core and RISC, a zone per kernel and per wait.
  const auto trace = nlohmann::json::parse(slurp(dir + "/trace.json"));
  int kernels = 0, waits = 0, threads = 0;
  for (const auto& e : trace["traceEvents"]) {
    if (e["ph"] == "M" && e["name"] == "thread_name")
      ++threads;
    if (e["ph"] == "X" && e["cat"] == "kernel")
      ++kernels;
    if (e["ph"] == "X" && e["cat"] == "wait") {
      ++waits;
      EXPECT_GT(e["dur"].get<double>(), 0.0);
    }
  }
  EXPECT_EQ(threads, 2);
  EXPECT_EQ(kernels, 2);
  EXPECT_EQ(waits, 3); // the read barrier, the writer's cb_wait_front and its write barrier
}
