// Timing mode (docs/timing.md): the clocks of a program worked out by hand, exact counters, the
// roofline bound, unchanged results, and the report and trace files.
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>

#include <nlohmann/json.hpp>

#include <tk_emulator/emulator.hpp>
#include <tk_emulator/timing_params.hpp>
#include <tt-metalium/tilize_utils.hpp>

#include "arch/arch.hpp"
#include "arch/blackhole.hpp"
#include "arch/wormhole_b0.hpp"

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
  auto c = p.compute("compute/tiles_add.cpp",
                     ComputeConfig{.math_fidelity = tt::tt_metal::MathFidelity::HiFi4});
  const CoreCoord core{0, 0};
  SetRuntimeArgs(p.program, r, core, {ProgramBuilder::addr(in0), ProgramBuilder::addr(in1), n});
  SetRuntimeArgs(p.program, w, core, {ProgramBuilder::addr(out), n, 0u});
  SetRuntimeArgs(p.program, c, core, {n});
  p.run();
  return p.read(out);
}

// C (32 x 32) = A (32 x 64) B (64 x 32) on core (0,0): the SDK's mm.cpp compute (one output
// tile, Kt = 2 matmul_tiles), at `fidelity`.
void matmul_one_tile(tt::tt_metal::MathFidelity fidelity) {
  ProgramBuilder p;
  const auto a = random_bf16(32 * 64, -1.0f, 1.0f, 5), b = random_bf16(64 * 32, -1.0f, 1.0f, 6);
  auto src0 = p.dram(tilize_nfaces(a, 32, 64)), src1 = p.dram(tilize_nfaces(b, 64, 32));
  auto dst = p.dram(1);
  for (auto cb : {tt::CBIndex::c_0, tt::CBIndex::c_1, tt::CBIndex::c_16})
    p.cb(cb, 2);
  auto r = p.reader("dataflow/reader_mm_output_tiles_partitioned.cpp", {src0, src1});
  auto w = p.writer("dataflow/write_tile.cpp", {dst});
  auto c = p.compute("compute/mm.cpp", ComputeConfig{.math_fidelity = fidelity});
  const CoreCoord core{0, 0};
  SetRuntimeArgs(p.program, r, core, {p.addr(src0), p.addr(src1), 1u, 2u, 1u, 0u, 1u});
  SetRuntimeArgs(p.program, w, core, {p.addr(dst), 1u, 0u});
  SetRuntimeArgs(p.program, c, core, {1u, 2u});
  p.run();
}

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}
} // namespace

// Wormhole B0's table: sync call 10, read issue 23, write issue 26, a DRAM bank 15.83 B/cycle,
// all DRAM transfers of a NoC 66.1 B/cycle, a read port 30.4 B/cycle, a write port 30.2 B/cycle,
// DRAM read latency 397, write 425.
//   reader: cb_reserve_back 10; read issued at 10 + 23 = 33; bank busy 2048 / 15.83 = 129.375
//           (the port, 2048 / 30.4, and the NoC's DRAM queue, 2048 / 66.1, are faster): lands
//           at 33 + 129.375 + 397 (barrier); cb_push_back 10 later.
//   writer: cb_wait_front resumes then, + 10; write issued 26 later; bank 0 is free, so it lands
//           129.375 + 425 later (barrier); cb_pop_front: 10.
TEST(EmulatorTiming, OneTileCopyTakesTheCyclesWorkedOutByHand) {
  Timed timed;
  const auto in = random_bf16(1024, -2.0f, 2.0f, 3);
  copy_one_tile(in);
  const auto& t = emu::last_timing();
  ASSERT_TRUE(t.has_value());
  const double bank = 2048 / 15.83;
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

// busy_by splits each kernel's busy cycles by call kind: on the 64-tile add, the compute kernel's
// unpack/math thread spends 64 adds at 64 cycles (two bf16 tiles unpacked at 32 B/cycle each,
// slower than the add's 8: test_unpack_timing.cpp), its pack thread 64 packs of 2048 B at 64
// B/cycle, the reader issues 128 reads at 23 cycles; what the unpack/math thread does sums to
// busy_cycles.
TEST(EmulatorTiming, BusyCyclesByCallKindSumToTheBusyCycles) {
  Timed timed;
  add_tiles(64);
  const auto& t = emu::last_timing();
  ASSERT_TRUE(t.has_value());
  ASSERT_EQ(t->kernels.size(), 3u);
  const emu::KernelTiming& reader = t->kernels[0];
  const emu::KernelTiming& compute = t->kernels[2];
  EXPECT_NEAR(compute.busy_by.at("add"), 64 * 64, 1e-9);
  EXPECT_NEAR(compute.busy_by.at("pack: pack"), 64 * 2048 / 64.0, 1e-9);
  EXPECT_NEAR(reader.busy_by.at("noc_issue"), 128 * 23, 1e-9);
  for (const auto& k : t->kernels) {
    double math = 0;
    for (const auto& [kind, cycles] : k.busy_by)
      if (kind.rfind("pack: ", 0) != 0)
        math += cycles;
    EXPECT_NEAR(math, k.busy_cycles, 1e-6) << k.kernel;
  }
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

// The table's data-movement figures are the quotients their sources state (arch/wormhole_b0.hpp),
// and every timing figure names its source.
TEST(EmulatorTiming, ParameterTableStatesItsSources) {
  const tk::arch::ArchSpec& a = tk::arch::kWormholeB0;
  EXPECT_NEAR(a.dram_bank_bytes_per_cycle.value, 190.0 / 12, 0.01);                       // llms.md
  EXPECT_NEAR(a.dram_read_total_bytes_per_cycle.value, 56.0 * 256 * 2048 / 444011, 0.05); // NOC
  EXPECT_TRUE(a.dram_total_nocs.has(1) && !a.dram_total_nocs.has(0)); // measured on NoC 1
  EXPECT_NE(a.dram_total_nocs.source.find("NoC 1"), std::string_view::npos);
  EXPECT_NEAR(a.mcast_line_bytes_per_cycle.value, 8.0 * 256 * 2048 / 102229, 0.05); // NOC
  EXPECT_NEAR(a.mcast_bytes_per_cycle.value, 256.0 * 2048 / 18751, 0.05);
  EXPECT_NEAR(a.host_dispatch_us.value, (72388.65 - 68984.03) / 1000, 0.01); // GEMM_FLOPS
  EXPECT_NE(a.write_issue.source.find("6773"), std::string_view::npos);
  EXPECT_NE(a.write_issue.source.find("128 B"), std::string_view::npos);
  for (const tk::arch::Param* p : {&a.clock_ghz,
                                   &a.eltwise_tile,
                                   &a.reduce_tile,
                                   &a.copy_tile,
                                   &a.sfpu_simple_tile,
                                   &a.pack_bytes_per_cycle,
                                   &a.sync_call,
                                   &a.unpack_bytes_per_cycle,
                                   &a.unpack_shared_bytes_per_cycle,
                                   &a.unpack_address,
                                   &a.matmul_pass_tiles,
                                   &a.matmul_call,
                                   &a.init_call,
                                   &a.dst_handoff,
                                   &a.dram_bank_bytes_per_cycle,
                                   &a.dram_read_total_bytes_per_cycle,
                                   &a.dram_peak_bytes_per_cycle,
                                   &a.port_read_bytes_per_cycle,
                                   &a.port_write_bytes_per_cycle,
                                   &a.mcast_bytes_per_cycle,
                                   &a.mcast_line_bytes_per_cycle,
                                   &a.noc_link_bytes_per_cycle,
                                   &a.dram_read_latency,
                                   &a.dram_write_latency,
                                   &a.l1_read_latency,
                                   &a.l1_write_latency,
                                   &a.mcast_latency,
                                   &a.read_issue,
                                   &a.write_issue,
                                   &a.host_dispatch_us}) {
    EXPECT_GT(p->value, 0);
    EXPECT_FALSE(p->source.empty());
  }
}

// The math thread of mm.cpp for one output tile of Kt = 2 (Wormhole B0's table: init 50, CB call
// 10, DST hand-off 10, matmul call 20, HiFi4 64 and HiFi2 32 cycles per product, the unpackers at
// 64 B/cycle between them; pack 64 B/cycle on the pack thread):
//   mm_init: the formats and the matmul init, 2 x 50; tile_regs_acquire 10;
//   per k: cb_wait_front x 2 (20), matmul_tiles, cb_pop_front x 2 (20);
//   tile_regs_commit 10.
// matmul_tiles unpacks both tiles for every product, 4 KiB at 64 B/cycle: 64 cycles, as long as
// the HiFi4 product and twice the HiFi2 one, plus `matmul_call` (timing_params.hpp,
// matmul_call_cycles: the steady state of a stream of calls, within 0.1 cycle of 64 when the bytes
// bound it). The pack thread (wait 10, reserve 10, pack 32, push 10, release 10) is apart.
TEST(EmulatorTiming, MatmulCallCostsWhatTheUnpackerAndTheEngineTake) {
  Timed timed;
  const double call = 64 + tk::arch::kWormholeB0.matmul_call.value;
  for (const auto& [fidelity, product] : {std::pair{tt::tt_metal::MathFidelity::HiFi4, call},
                                          std::pair{tt::tt_metal::MathFidelity::HiFi2, call}}) {
    matmul_one_tile(fidelity);
    const auto& t = emu::last_timing();
    ASSERT_TRUE(t.has_value());
    const emu::KernelTiming* trisc = nullptr;
    for (const emu::KernelTiming& k : t->kernels)
      if (k.risc == "trisc")
        trisc = &k;
    ASSERT_NE(trisc, nullptr);
    EXPECT_NEAR(trisc->busy_cycles, 100 + 10 + 2 * (20 + product + 20) + 10, 0.2);
    EXPECT_EQ(trisc->tile_ops.at(fidelity == tt::tt_metal::MathFidelity::HiFi4 ? "matmul HiFi4"
                                                                               : "matmul HiFi2"),
              2u);
    EXPECT_EQ(trisc->tile_ops.at("pack"), 1u);
    EXPECT_EQ(t->matmul_tiles, 2u);
    // The compute counters are the engines' cycles: 2 products and a pack.
    EXPECT_NEAR(t->compute_cycles,
                2 * (fidelity == tt::tt_metal::MathFidelity::HiFi4 ? 64 : 32) + 32, 1e-9);
  }
}

// One k step of a sub-block in a stream of them (timing_params.hpp, matmul_call_cycles: tt-llk's
// UNPACR and product order, the srcA / srcB banks, the ISA's unpacker rates; Wormhole B0's table:
// 2 cycles per UNPACR, 64 B/cycle for an unpacker alone, 32 each while both fetch, call 28):
//   * tt-llk unpacks the shorter side once and the longer side once per pair of it: 4x2 and 1x5
//     6 tiles, 4x4 12;
//   * both unpackers together never fetch more than 64 B/cycle (x4 alone or x2 each), so a
//     matmul_tiles call (two 2 KiB tiles) takes 4096 / 64 = 64 cycles at any fidelity below HiFi4
//     (its product is 16 or 32), and a bf16 1x5 call at least 6 x 2048 / 64 = 192;
//   * where the products are longer than that, the call is the products: 1x5 at HiFi4 320, 1x8
//     512; 4x2 at HiFi4 within 1% of its 512 (the next call's first in1 tile waits for a bank
//     that the last product gives back);
//   * 4x2 and 2x4 are mirror images (in1 or in0 is the pair; both unpackers run at the same
//     rates), so they cost the same: 320 at HiFi2, 256 of products and 64 while the next call's
//     pair, whose banks the last two products give back, and its first longer-side tile arrive;
//   * a bf16 1x5 call at HiFi2 (160 cycles of products) is held to its bytes, 192; in Bfp4_b
//     (576 B pages) the products (80) are longer than the 6 x 576 / 64 = 54 cycles of bytes: 80.
TEST(EmulatorTiming, MatmulCallFollowsTheSourceBanks) {
  namespace timing = tk::rt::emu::timing;
  const tk::arch::ArchSpec& a = tk::arch::kWormholeB0;
  const double call = a.matmul_call.value;
  EXPECT_EQ(a.matmul_pass_tiles.value, 2);
  EXPECT_EQ(timing::matmul_unpacked_tiles(a, 4, 2), 6);
  EXPECT_EQ(timing::matmul_unpacked_tiles(a, 1, 5), 6);
  EXPECT_EQ(timing::matmul_unpacked_tiles(a, 4, 4), 12);
  for (int phases : {1, 2})
    EXPECT_NEAR(timing::matmul_call_cycles(a, phases, 1, 1, 2048, 2048), 64 + call, 0.5);
  EXPECT_NEAR(timing::matmul_call_cycles(a, 4, 1, 5, 2048, 2048), 320 + call, 1e-9);
  EXPECT_NEAR(timing::matmul_call_cycles(a, 4, 1, 8, 2048, 2048), 512 + call, 1e-9);
  EXPECT_GE(timing::matmul_call_cycles(a, 4, 4, 2, 2048, 2048), 512 + call);
  EXPECT_LE(timing::matmul_call_cycles(a, 4, 4, 2, 2048, 2048), 512 * 1.01 + call);
  for (int phases : {1, 2, 4})
    EXPECT_EQ(timing::matmul_call_cycles(a, phases, 4, 2, 2048, 2048),
              timing::matmul_call_cycles(a, phases, 2, 4, 2048, 2048));
  EXPECT_NEAR(timing::matmul_call_cycles(a, 2, 4, 2, 2048, 2048), 320 + call, 1e-9);
  EXPECT_NEAR(timing::matmul_call_cycles(a, 2, 1, 5, 2048, 2048), 192 + call, 0.5);
  EXPECT_NEAR(timing::matmul_call_cycles(a, 1, 1, 5, 576, 576), 80 + call, 1e-9);
  // Nothing depends on the call's place in the cache: the same figure twice, other shapes between.
  const double first = timing::matmul_call_cycles(a, 1, 1, 5, 1088, 1088);
  (void)timing::matmul_call_cycles(a, 3, 3, 2, 2048, 1088);
  EXPECT_EQ(timing::matmul_call_cycles(a, 1, 1, 5, 1088, 1088), first);
}

// The same simulation as matmul_call_cycles, one cycle at a time with every check in every cycle
// (the form it had before it skipped the cycles in which only the unpackers' bytes move), as
// the reference its figures must equal to the bit.
double matmul_call_cycles_stepped(const tk::arch::ArchSpec& a, int phases, int rt, int ct,
                                  double in0_bytes, double in1_bytes) {
  const bool reuse_in0 = ct >= rt;
  const int pair_dim = reuse_in0 ? rt : ct, long_dim = reuse_in0 ? ct : rt;
  const int pair_unpacker = reuse_in0 ? 1 : 0, long_unpacker = 1 - pair_unpacker;
  const double pair_bytes = reuse_in0 ? in0_bytes : in1_bytes;
  const double long_bytes = reuse_in0 ? in1_bytes : in0_bytes;
  constexpr int kCalls = 256, kFrom = 128;
  const int pass = static_cast<int>(a.matmul_pass_tiles.value);
  const int per_call = pair_dim + (pair_dim + pass - 1) / pass * long_dim;
  struct Unpack {
    int unpacker, tile;
    double bytes;
  };
  struct Product {
    int pair_tile, long_tile;
    bool frees_long, frees_pair;
  };
  std::vector<Unpack> unpacks;
  std::vector<Product> products;
  for (int c = 0; c < kCalls; ++c)
    for (int t0 = 0; t0 < pair_dim; t0 += pass) {
      const int n = std::min(pass, pair_dim - t0);
      for (int i = 0; i < n; ++i)
        unpacks.push_back({pair_unpacker, c * per_call + t0 + i, pair_bytes});
      const int first_long = c * per_call + pair_dim + t0 / pass * long_dim;
      for (int r = 0; r < long_dim; ++r)
        unpacks.push_back({long_unpacker, first_long + r, long_bytes});
      for (int r = 0; r < long_dim; ++r)
        for (int i = 0; i < n; ++i)
          products.push_back(
              {c * per_call + t0 + i, first_long + r, i == n - 1, r == long_dim - 1});
    }
  const double engine = a.matmul_tile[static_cast<std::size_t>(phases - 1)].value;
  std::vector<char> valid(static_cast<std::size_t>(kCalls * per_call), 0);
  std::vector<int> owner(valid.size(), 0);
  int free_banks[2] = {2, 2};
  struct Fetch {
    int tile = -1;
    double left = 0;
    bool has_bank = false;
  } fetch[2];
  std::size_t issued = 0, done = 0;
  long now = 0, thread_free = 0, math_free = 0;
  int current = -1;
  std::vector<long> call_end(kCalls, 0);
  const std::size_t per_call_products = products.size() / kCalls;
  while (done < products.size()) {
    if (issued < unpacks.size() && now >= thread_free) {
      const Unpack& u = unpacks[issued];
      if (fetch[u.unpacker].tile < 0) {
        fetch[u.unpacker] = {u.tile, u.bytes, false};
        ++issued;
        thread_free = now + static_cast<long>(a.unpack_address.value);
      }
    }
    for (int u = 0; u < 2; ++u)
      if (fetch[u].tile >= 0 && !fetch[u].has_bank && free_banks[u] > 0) {
        --free_banks[u];
        fetch[u].has_bank = true;
      }
    const bool both = fetch[0].has_bank && fetch[1].has_bank;
    for (int u = 0; u < 2; ++u) {
      Fetch& f = fetch[u];
      if (f.tile < 0 || !f.has_bank)
        continue;
      f.left -= both ? a.unpack_shared_bytes_per_cycle.value : a.unpack_bytes_per_cycle.value;
      if (f.left <= 0) {
        valid[static_cast<std::size_t>(f.tile)] = 1;
        owner[static_cast<std::size_t>(f.tile)] = u;
        f = Fetch{};
      }
    }
    if (current >= 0 && now >= math_free) {
      const Product& p = products[static_cast<std::size_t>(current)];
      if (p.frees_long)
        ++free_banks[owner[static_cast<std::size_t>(p.long_tile)]];
      if (p.frees_pair)
        ++free_banks[owner[static_cast<std::size_t>(p.pair_tile)]];
      call_end[done / per_call_products] = now;
      current = -1;
      ++done;
    }
    if (current < 0 && done < products.size()) {
      const Product& p = products[done];
      if (valid[static_cast<std::size_t>(p.pair_tile)] &&
          valid[static_cast<std::size_t>(p.long_tile)]) {
        current = static_cast<int>(done);
        math_free = now + static_cast<long>(engine);
      }
    }
    ++now;
  }
  return static_cast<double>(call_end[kCalls - 1] - call_end[kFrom]) /
             static_cast<double>(kCalls - 1 - kFrom) +
         a.matmul_call.value;
}

// matmul_call_cycles skips the cycles in which only the unpackers' bytes move; its figure equals
// the cycle-by-cycle simulation's exactly, for sub-blocks from 1 x 1 to 8 x 8, every fidelity,
// bf16 with bfp8 and bfp4 pages and sizes no rate divides, on every architecture.
TEST(EmulatorTiming, MatmulCallSkipsOnlyCyclesWhereNothingButBytesMove) {
  namespace timing = tk::rt::emu::timing;
  int compared = 0;
  for (const tk::arch::ArchSpec* a : tk::arch::all())
    for (int phases = 1; phases <= 4; ++phases)
      for (int rt : {1, 2, 3, 4, 8})
        for (int ct : {1, 2, 3, 4, 8})
          for (const auto& [in0, in1] :
               {std::pair{2048.0, 1088.0}, std::pair{576.0, 576.0}, std::pair{1000.0, 1500.0}}) {
            ASSERT_EQ(timing::matmul_call_cycles(*a, phases, rt, ct, in0, in1),
                      matmul_call_cycles_stepped(*a, phases, rt, ct, in0, in1))
                << a->name << " phases " << phases << " " << rt << "x" << ct << " " << in0 << " "
                << in1;
            ++compared;
          }
  EXPECT_EQ(compared, static_cast<int>(tk::arch::all().size()) * 4 * 5 * 5 * 3);
}

// Blackhole's tt-llk loop (tt_llk_blackhole/llk_lib/llk_unpack_AB_matmul.h, _llk_unpack_AB_matmul_)
// takes the shorter side one tile per pass (`matmul_pass_tiles` 1), so the longer side's tiles are
// unpacked once per shorter-side tile: 4x2 2 + 2 x 4 = 10 tiles, 4x4 4 + 4 x 4 = 20; a 1x5 call
// is one pass on both chips, 6. The unpackers' rates are the ISA's, as on Wormhole (arch/
// blackhole.hpp), and so is the call's set-up, `matmul_call`:
//   * HiFi4, 4x2, 2x2 and 4x4: the products alone, 512, 256 and 1024 (Wormhole: more, as its next
//     pair waits for the banks its last products give back, 4x2 above 512; Blackhole's next tile
//     has the other bank of its register, which a one-tile pass leaves free);
//   * HiFi2, 4x2: unpacker 1 fetches the 8 in0 tiles (16 KiB), unpacker 0 the 2 in1 tiles (4 KiB);
//     while both fetch each gets 32 B/cycle, so unpacker 0's 4 KiB take 128 cycles in which
//     unpacker 1 gets 4 KiB, and its other 12 KiB take 192 at 64: 320, unpacker 1 never idle,
//     as much as Wormhole's 320 (there: its 6 tiles and the pair's wait for its banks);
//   * 1x5: the same figures as Wormhole (one pass: the same UNPACRs in the same order).
TEST(EmulatorTiming, MatmulCallFollowsBlackholesUnpackLoop) {
  namespace timing = tk::rt::emu::timing;
  const tk::arch::ArchSpec& a = tk::arch::kBlackhole;
  const tk::arch::ArchSpec& wh = tk::arch::kWormholeB0;
  const double call = a.matmul_call.value;
  EXPECT_EQ(a.matmul_pass_tiles.value, 1);
  EXPECT_EQ(timing::matmul_unpacked_tiles(a, 4, 2), 10);
  EXPECT_EQ(timing::matmul_unpacked_tiles(a, 2, 4), 10);
  EXPECT_EQ(timing::matmul_unpacked_tiles(a, 4, 4), 20);
  EXPECT_EQ(timing::matmul_unpacked_tiles(a, 1, 5), 6);
  EXPECT_NEAR(timing::matmul_call_cycles(a, 4, 4, 2, 2048, 2048), 512 + call, 1e-9);
  EXPECT_NEAR(timing::matmul_call_cycles(a, 4, 2, 2, 2048, 2048), 256 + call, 1e-9);
  EXPECT_NEAR(timing::matmul_call_cycles(a, 4, 4, 4, 2048, 2048), 1024 + call, 1e-9);
  EXPECT_GT(timing::matmul_call_cycles(wh, 4, 4, 2, 2048, 2048), 512 + wh.matmul_call.value);
  EXPECT_NEAR(timing::matmul_call_cycles(a, 2, 4, 2, 2048, 2048), 320 + call, 0.5);
  for (int phases : {1, 2, 4})
    EXPECT_EQ(timing::matmul_call_cycles(a, phases, 4, 2, 2048, 2048),
              timing::matmul_call_cycles(a, phases, 2, 4, 2048, 2048));
  for (int phases : {1, 2, 4})
    EXPECT_EQ(timing::matmul_call_cycles(a, phases, 1, 5, 2048, 2048) - call,
              timing::matmul_call_cycles(wh, phases, 1, 5, 2048, 2048) - wh.matmul_call.value);
}

// The DRAM reads of many cores on NoC 1 share one queue at 66.1 B/cycle (NOC's ALL_FROM_ALL
// figure, measured on NoC 1: arch/wormhole_b0.hpp, dram_total_nocs): 16 cores each read 64 tiles of
// one interleaved buffer (their own range, every bank in turn), 2 MiB in all. On NoC 1 that takes
// at least 2 MiB / 66.1 = 31,727 cycles (the 12 banks, 190 B/cycle, and the 16 read ports, 30.4
// each, are faster), and its links add up to 20% (docs/timing.md, "NoC links": NoC 1 goes up first,
// so the 8 banks in NoC 0 column 5 send all their data up that column's links before it turns
// towards the readers). On NoC 0, which has no such queue, the same reads are bound by the banks
// and the links alone; with half the readers on each NoC, the NoC 1 half takes at least half the
// one-NoC time and the whole about half of it.
TEST(EmulatorTiming, DramReadsShareOneQueueOnNocOne) {
  Timed timed;
  enum class Nocs { One, Split, Zero };
  auto run = [](Nocs nocs) {
    ProgramBuilder p;
    p.cores = tt::tt_metal::CoreRange({0, 0}, {3, 3});
    auto a = p.dram(1024);
    p.cb(tt::CBIndex::c_0, 64);
    // Columns 0-1 read on NoC 1 (RISCV_1) unless all read on NoC 0; columns 2-3 on NoC 1 unless
    // the readers are split or all on NoC 0 (RISCV_0, NoC 0).
    p.cores = tt::tt_metal::CoreRange({0, 0}, {1, 3});
    const KernelHandle left = nocs == Nocs::Zero ? p.writer("dataflow/read_block.cpp", {a})
                                                 : p.reader("dataflow/read_block.cpp", {a});
    p.cores = tt::tt_metal::CoreRange({2, 0}, {3, 3});
    const KernelHandle right = nocs == Nocs::One ? p.reader("dataflow/read_block.cpp", {a})
                                                 : p.writer("dataflow/read_block.cpp", {a});
    for (uint32_t x = 0; x < 4; ++x)
      for (uint32_t y = 0; y < 4; ++y)
        SetRuntimeArgs(p.program, x < 2 ? left : right, tt::tt_metal::CoreCoord{x, y},
                       {ProgramBuilder::addr(a), (y * 4 + x) * 64, 64u});
    p.run();
    return emu::last_timing()->device_cycles;
  };
  const double bytes = 1024.0 * 2048;
  const double one = run(Nocs::One), two = run(Nocs::Split), zero = run(Nocs::Zero);
  EXPECT_GE(one, bytes / 66.1);
  EXPECT_LT(one, bytes / 66.1 * 1.2);
  EXPECT_GE(two, bytes / 66.1 / 2);
  EXPECT_LT(two, one * 0.55);
  const tk::arch::ArchSpec& wh = tk::arch::kWormholeB0;
  EXPECT_GE(zero, bytes / (wh.dram_banks * wh.dram_bank_bytes_per_cycle.value));
  EXPECT_LT(zero, bytes / 66.1 * 0.8);
}

// DRAM writes share NoC 1's DRAM queue with the reads (docs/timing.md, "Per NoC"): 16 cores
// moving 1024 pages to and from interleaved DRAM on NoC 1 take its 66.1 B/cycle for them whether
// they write, or half read and half write; with the writes on NoC 0 (no queue) the two halves run
// at once, the reads' half bound by NoC 1's queue.
TEST(EmulatorTiming, DramWritesShareTheReadsQueuePerNoc) {
  Timed timed;
  enum class Mix { Writes, SameNoc, OtherNoc };
  auto run = [](Mix mix) {
    ProgramBuilder p;
    p.cores = tt::tt_metal::CoreRange({0, 0}, {3, 3});
    auto a = p.dram(1024);
    p.cb(tt::CBIndex::c_0, 64);
    std::map<std::pair<uint32_t, uint32_t>, KernelHandle> kernel;
    for (uint32_t half = 0; half < 2; ++half) {
      p.cores = tt::tt_metal::CoreRange({2 * half, 0}, {2 * half + 1, 3});
      const bool reads = mix != Mix::Writes && half == 0;
      const char* path = reads ? "dataflow/read_block.cpp" : "dataflow/write_block.cpp";
      // reader(): RISCV_1 on NoC 1; writer(): RISCV_0 on NoC 0.
      const KernelHandle k =
          (mix == Mix::OtherNoc && !reads) ? p.writer(path, {a}) : p.reader(path, {a});
      for (uint32_t x = 2 * half; x < 2 * half + 2; ++x)
        for (uint32_t y = 0; y < 4; ++y)
          kernel[{x, y}] = k;
    }
    for (const auto& [xy, k] : kernel)
      SetRuntimeArgs(p.program, k, tt::tt_metal::CoreCoord{xy.first, xy.second},
                     {ProgramBuilder::addr(a), (xy.second * 4 + xy.first) * 64, 64u});
    p.run();
    return emu::last_timing()->device_cycles;
  };
  const double bytes = 1024.0 * 2048;
  const double writes = run(Mix::Writes), same = run(Mix::SameNoc), other = run(Mix::OtherNoc);
  EXPECT_GE(writes, bytes / 66.1);
  EXPECT_LT(writes, bytes / 66.1 * 1.05);
  EXPECT_GE(same, bytes / 66.1);
  EXPECT_LT(same, bytes / 66.1 * 1.05);
  EXPECT_GE(other, bytes / 66.1 / 2);
  EXPECT_LT(other, bytes / 66.1 / 2 * 1.2); // the readers' NoC 1 links add (docs/timing.md)
}

// A multicast's semaphore flag wakes its receivers no earlier than it lands: core (0,0) reads a
// tile from DRAM, waits for both receivers' increments, multicasts the tile and then the flag to
// (1,0) and (2,0) (tests/unit/emulator/kernels/dataflow/mcast_*.cpp). The receivers' pushes
// cannot come before the read (issue 23 + DRAM latency 397) and the multicast (latency 536) that
// precede the flag, so each receiver kernel ends after at least 23 + 397 + 536 cycles and stalls
// in its noc_semaphore_wait for most of them. (Until 2026-11-28 the flag became visible before
// its landing time was recorded, and a receiver behind the sender resumed without a stall.)
TEST(EmulatorTiming, MulticastFlagWakesReceiversWhenItLands) {
  Timed timed;
  ProgramBuilder p;
  auto src = p.dram(random_bf16(1024, -1.0f, 1.0f, 54));
  const tt::tt_metal::CoreRange all({0, 0}, {2, 0});
  p.cores = tt::tt_metal::CoreRangeSet(all);
  p.cb(tt::CBIndex::c_0, 1);
  const uint32_t sender_sem = CreateSemaphore(p.program, all, 0);
  const uint32_t receiver_sem = CreateSemaphore(p.program, all, 0);
  std::vector<uint32_t> cta;
  TensorAccessorArgs(*src).append_to(cta);
  auto sender =
      CreateKernel(p.program, kernel("dataflow/mcast_sender.cpp"), tt::tt_metal::CoreCoord{0, 0},
                   DataMovementConfig{.processor = DataMovementProcessor::RISCV_1,
                                      .noc = NOC::RISCV_0_default,
                                      .compile_args = cta});
  auto receiver = CreateKernel(
      p.program, kernel("dataflow/mcast_receiver.cpp"), tt::tt_metal::CoreRange({1, 0}, {2, 0}),
      DataMovementConfig{.processor = DataMovementProcessor::RISCV_1, .noc = NOC::RISCV_1_default});
  const tt::tt_metal::CoreCoord s = p.dev->worker_core_from_logical_core({0, 0});
  const tt::tt_metal::CoreCoord r0 = p.dev->worker_core_from_logical_core({1, 0}),
                                r1 = p.dev->worker_core_from_logical_core({2, 0});
  SetRuntimeArgs(p.program, sender, tt::tt_metal::CoreCoord{0, 0},
                 {p.addr(src), uint32_t(r0.x), uint32_t(r0.y), uint32_t(r1.x), uint32_t(r1.y), 2u,
                  sender_sem, receiver_sem});
  SetRuntimeArgs(p.program, receiver, tt::tt_metal::CoreRange({1, 0}, {2, 0}),
                 {uint32_t(s.x), uint32_t(s.y), sender_sem, receiver_sem});
  p.run();
  const auto& t = emu::last_timing();
  ASSERT_TRUE(t.has_value());
  int receivers = 0;
  for (const auto& k : t->kernels) {
    if (k.kernel.find("mcast_receiver") == std::string::npos)
      continue;
    ++receivers;
    EXPECT_GE(k.end_cycle, 23 + 397 + 536) << "receiver (" << k.core_x << "," << k.core_y << ")";
    double waited = 0;
    for (const auto& [what, cycles] : k.stalls)
      if (what.rfind("noc_semaphore_wait", 0) == 0)
        waited += cycles;
    EXPECT_GE(waited, 397 + 536) << "receiver (" << k.core_x << "," << k.core_y << ")";
  }
  EXPECT_EQ(receivers, 2);
}
