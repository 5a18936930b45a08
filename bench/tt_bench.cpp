// tk_tt_bench: the driver of the TT benchmark table (bench/tt_bench.sh, docs/bench.md). Runs
// TileKit's generated TT kernels (examples/*.tk, built with tilekit_add_kernel) and the SDK's four
// matmul programming examples (baselines/) on the emulator with its timing model on, at one shape,
// and prints one JSON line per program: the projected device time and the model's counters
// (ProgramTiming), the figures derived from them (TFLOPS, arithmetic intensity, the bound that
// binds) and a check of the output against a double-precision reference (max |err|, the bf16
// bound's ratio, PCC), on every row or, for large products, on evenly spaced rows; with
// TK_EMULATOR_MATH=off the projection alone, in seconds at 4096^3 (docs/timing.md). It takes no
// decision about what to run: bench/tt_bench.py chooses the shapes and renders the table. This
// file is the harness (the JSON row, the timing of the launches, the check, the command line); the
// programs it can run, their inputs and references are tt_bench_programs.cpp.
//
//   tk_tt_bench --program matmul,reuse_mcast --shape 1024,1024,1024
//   tk_tt_bench --program softmax --shape 2048,4096        (M,N for the non-matmul kernels)
//   tk_tt_bench --arch blackhole --program matmul --shape 4096,4096,4096
//
// One binary per architecture, since the generated namespaces are the examples' own: tk_tt_bench
// runs the n150 code on an emulated n150, tk_tt_bench_p150 (built with TK_BENCH_ARCH=blackhole
// from the examples generated with ttgen --arch=blackhole) the P150 code on an emulated P150;
// `--arch` names either, and a binary asked for the other one runs it in its place.
//
// Exit status: 0 when every program ran (a shape a baseline does not support is reported in its
// row as "error", not a failure), 1 when a run threw, 2 a usage error.
#include "bench/tt_bench_programs.hpp"

#include <tk_emulator/emulator.hpp>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <functional>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <tt-metalium/distributed.hpp>

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#ifndef TK_BENCH_ARCH
#define TK_BENCH_ARCH "wormhole_b0" // the architecture this binary's kernels were generated for
#endif

namespace {

using namespace tk::bench;

// The rows compared with the reference: all of them when the reference costs at most `budget`
// operations, else evenly spaced ones (0, s, 2s, ...) within it.
std::vector<std::int64_t> rows_to_check(std::int64_t rows, double cost_per_row, double budget) {
  std::int64_t n = rows;
  if (cost_per_row * static_cast<double>(rows) > budget)
    n = std::max<std::int64_t>(1, static_cast<std::int64_t>(budget / cost_per_row));
  const std::int64_t stride = (rows + n - 1) / n;
  std::vector<std::int64_t> r;
  for (std::int64_t i = 0; i < rows; i += stride)
    r.push_back(i);
  return r;
}

// The programs one run launched since the `before`-th, as one: a run_tt that launches several (a
// whole-tensor reduction's two, mlp's two matmuls) runs them one after the other on one queue, so
// their device times, bytes, products and bounds add up (the host's dispatch in between is not
// device time: ProgramTiming::host_dispatch_us).
tk::rt::emu::ProgramTiming launched_since(std::size_t before, const std::string& name) {
  const std::vector<tk::rt::emu::ProgramTiming>& all = tk::rt::emu::timings();
  if (all.size() <= before)
    throw std::runtime_error(name + ": the run left no timing (timing mode off?)");
  tk::rt::emu::ProgramTiming t = all[before];
  for (std::size_t k = before + 1; k < all.size(); ++k) {
    const tk::rt::emu::ProgramTiming& u = all[k];
    t.device_cycles += u.device_cycles;
    t.host_dispatch_us += u.host_dispatch_us;
    t.dram_bytes_read += u.dram_bytes_read;
    t.dram_bytes_written += u.dram_bytes_written;
    t.matmul_tiles += u.matmul_tiles;
    t.ideal_matmul_cycles += u.ideal_matmul_cycles;
    t.compute_cycles += u.compute_cycles;
    t.compute_bound_cycles += u.compute_bound_cycles;
    t.dram_bound_cycles += u.dram_bound_cycles;
    t.kernels.insert(t.kernels.end(), u.kernels.begin(), u.kernels.end());
  }
  const double seconds = t.device_cycles / (t.clock_ghz * 1e9);
  t.device_us = seconds * 1e6;
  t.utilization = t.device_cycles > 0 ? t.ideal_matmul_cycles / t.device_cycles : 0;
  t.matmul_tflops =
      seconds > 0 ? static_cast<double>(t.matmul_tiles) * 2 * 32 * 32 * 32 / seconds / 1e12 : 0;
  t.dram_gbps = seconds > 0
                    ? static_cast<double>(t.dram_bytes_read + t.dram_bytes_written) / seconds / 1e9
                    : 0;
  return t;
}

nlohmann::json run_one(Device& device, const Program& p, const std::vector<std::uint32_t>& dims,
                       const Options& o) {
  const bool mm = p.family == Family::matmul || p.family == Family::attention;
  const double M = dims[0], K = mm ? dims[1] : 0, N = mm ? dims[2] : dims[1];
  std::string shape = std::to_string(dims[0]);
  for (std::size_t i = 1; i < dims.size(); ++i)
    shape += "x" + std::to_string(dims[i]);
  nlohmann::json row = {{"program", p.name},
                        {"kind", p.generated ? "generated" : "baseline"},
                        {"family", p.family == Family::matmul      ? "matmul"
                                   : p.family == Family::attention ? "attention"
                                   : p.family == Family::rows      ? "rows"
                                                                   : "elementwise"},
                        {"shape", shape},
                        {"M", dims[0]},
                        {"K", mm ? dims[1] : 0},
                        {"N", mm ? dims[2] : dims[1]},
                        {"dtype", p.dtype},
                        {"dst", p.accumulator},
                        {"fidelity", p.fidelity},
                        {"flops_formula", p.flops}};
  RunResult r;
  const std::size_t before = tk::rt::emu::timings().size();
  try {
    r = std::string(p.name) == "mlp"    ? run_mlp(device, dims[0], dims[1], dims[2], o)
        : p.family == Family::attention ? run_attention(device, p, dims[0], dims[1], dims[2], o)
        : mm ? run_matmul_family(device, p, {dims[0], dims[1], dims[2]}, o)
             : run_other(device, p, dims[0], dims[1], o);
  } catch (const std::invalid_argument& e) { // a shape the baseline does not support
    row["error"] = e.what();
    row["unsupported"] = true;
    return row;
  }
  const tk::rt::emu::ProgramTiming t = launched_since(before, p.name);
  std::set<std::pair<std::uint32_t, std::uint32_t>> cores;
  for (const auto& k : t.kernels)
    cores.insert({k.core_x, k.core_y});
  const double flops = nominal_flops(p, M, K, N);
  const double seconds = t.device_cycles / (t.clock_ghz * 1e9);
  const double bytes = static_cast<double>(t.dram_bytes_read + t.dram_bytes_written);
  // A run_tt that launched several programs: each one's own figures too.
  if (tk::rt::emu::timings().size() > before + 1)
    for (std::size_t k = before; k < tk::rt::emu::timings().size(); ++k) {
      const tk::rt::emu::ProgramTiming& u = tk::rt::emu::timings()[k];
      std::map<std::string, double> stalls; // by processor and reason, the busiest core's
      for (const auto& kt : u.kernels)
        for (const auto& [why, cycles] : kt.stalls)
          stalls[kt.risc + ": " + why] = std::max(stalls[kt.risc + ": " + why], cycles);
      row["launches"].push_back({{"device_us", u.device_us},
                                 {"stalls", stalls},
                                 {"utilization", u.utilization},
                                 {"matmul_tiles", u.matmul_tiles},
                                 {"compute_bound_cycles", u.compute_bound_cycles},
                                 {"dram_bound_cycles", u.dram_bound_cycles}});
    }
  // Where the time goes: the kernels of the core that finishes last, each with its busy and
  // stalled cycles, what it waited for and the DRAM bytes it read (KernelTiming).
  if (!t.kernels.empty()) {
    auto last =
        std::max_element(t.kernels.begin(), t.kernels.end(),
                         [](const auto& a, const auto& b) { return a.end_cycle < b.end_cycle; });
    nlohmann::json where;
    where["core"] = {last->core_x, last->core_y};
    for (const auto& kt : t.kernels)
      if (kt.core_x == last->core_x && kt.core_y == last->core_y)
        where[kt.risc] = {{"busy_cycles", kt.busy_cycles},
                          {"stalled_cycles", kt.stalled_cycles},
                          {"stalls", kt.stalls},
                          {"busy_by", kt.busy_by},
                          {"dram_bytes_read", kt.dram_bytes_read},
                          {"dram_bytes_written", kt.dram_bytes_written}};
    row["last_core"] = where;
  }
  row["plan"] = r.plan;
  row["math"] = o.math ? "on" : "off";
  row["wall_s"] = r.wall_seconds;
  row["device_cycles"] = t.device_cycles;
  row["device_us"] = t.device_us;
  row["arch"] = t.arch; // the modelled chip, as ProgramTiming names it (arch, board, grid)
  row["clock_ghz"] = t.clock_ghz;
  row["cores"] = cores.size();
  row["dram_bytes_read"] = t.dram_bytes_read;
  row["dram_bytes_written"] = t.dram_bytes_written;
  row["dram_gbps"] = t.dram_gbps;
  row["dram_roofline_gbps"] = t.dram_roofline_gbps;
  row["matmul_tiles"] = t.matmul_tiles;
  row["matmul_tflops"] = t.matmul_tflops;
  row["ideal_matmul_cycles"] = t.ideal_matmul_cycles;
  row["utilization"] = t.utilization;
  row["compute_bound_cycles"] = t.compute_bound_cycles;
  row["dram_bound_cycles"] = t.dram_bound_cycles;
  row["flops"] = flops;
  row["tflops"] = seconds > 0 ? flops / seconds / 1e12 : 0.0;
  row["intensity"] = bytes > 0 ? flops / bytes : 0.0; // FLOP per DRAM byte
  const bool compute_binds = t.compute_bound_cycles >= t.dram_bound_cycles;
  row["bound"] = compute_binds ? "compute" : "DRAM";
  row["bound_cycles"] = std::max(t.compute_bound_cycles, t.dram_bound_cycles);
  // The matrix engine's peak, from the model's own figures: matmul_tiles products of 2 * 32^3
  // flops take ideal_matmul_cycles on every core of the device.
  if (t.matmul_tiles > 0 && t.ideal_matmul_cycles > 0)
    row["peak_tflops"] = static_cast<double>(t.matmul_tiles) * 2 * 32 * 32 * 32 /
                         t.ideal_matmul_cycles * t.clock_ghz / 1e3;
  if (o.check) {
    const auto start = std::chrono::steady_clock::now();
    // The element-wise and row-wise references cost M*N operations: always every row.
    const std::vector<std::int64_t> rows =
        rows_to_check(r.out_rows, r.ref_cost_per_row, mm ? o.check_budget : INFINITY);
    Checker checker;
    r.check(rows, checker);
    const Check c = checker.finish(r.out_rows, static_cast<std::int64_t>(rows.size()));
    row["check"] = {{"rows", c.rows},
                    {"rows_checked", c.rows_checked},
                    {"max_abs_err", c.max_abs_err},
                    {"max_bound_ratio", c.max_bound_ratio},
                    {"pcc", c.pcc},
                    {"mean_err", c.mean_err},
                    {"nonfinite", c.nonfinite},
                    {"seconds", seconds_since(start)}};
  }
  return row;
}

// `heads`: the first dimension is a count of heads (attention's H), any positive number.
bool parse_dims(const std::string& text, std::vector<std::uint32_t>& dims, bool heads) {
  std::stringstream in(text);
  std::string part;
  dims.clear();
  while (std::getline(in, part, ',')) {
    try {
      std::size_t used = 0;
      const unsigned long v = std::stoul(part, &used);
      const bool any = heads && dims.empty();
      if (used != part.size() || v == 0 || (!any && v % 32 != 0) || v > (1ul << 20))
        return false;
      dims.push_back(static_cast<std::uint32_t>(v));
    } catch (const std::exception&) {
      return false;
    }
  }
  return true;
}

} // namespace

int main(int argc, char** argv) {
  CLI::App app{"Runs TileKit's generated TT kernels and the SDK matmul baselines on the emulator "
               "with the timing model on and prints one JSON line per program (bench/tt_bench.sh "
               "renders them; docs/bench.md)."};
  std::vector<std::string> names;
  std::string shape_text;
  Options options;
  bool no_check = false, list = false;
  app.add_option("--program", names, "programs to run, comma-separated (--list names them)")
      ->delimiter(',');
  app.add_option("--shape", shape_text,
                 "M,K,N for the matmul programs, H,S,D for attention, M,N for the others; "
                 "multiples of 32 (but H)");
  app.add_option("--seed", options.seed, "seed of the random inputs")->capture_default_str();
  app.add_option("--check-budget", options.check_budget,
                 "multiply-adds the reference may spend per matmul program; beyond it evenly "
                 "spaced rows are checked")
      ->capture_default_str();
  app.add_flag("--no-check", no_check, "skip the reference check");
  std::vector<std::uint32_t> chunks;
  app.add_option("--chunks", chunks,
                 "flash_ttnn's q_chunk_size,k_chunk_size (multiples of 32 dividing S; "
                 "default 256,256, or 256,128 where those CBs do not fit L1)")
      ->delimiter(',')
      ->expected(2);
  app.add_flag("--list", list, "print the programs, one per line, and exit");
  std::string arch = TK_BENCH_ARCH;
  app.add_option("--arch", arch,
                 "the architecture to generate for and emulate: wormhole_b0 (n150, tk_tt_bench) "
                 "or blackhole (P150, tk_tt_bench_p150)")
      ->check(CLI::IsMember({"wormhole_b0", "blackhole"}))
      ->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  if (arch != TK_BENCH_ARCH) { // the other architecture's binary, built beside this one
    const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe");
    const std::string other =
        (self.parent_path() / (arch == "blackhole" ? "tk_tt_bench_p150" : "tk_tt_bench")).string();
    execv(other.c_str(), argv);
    std::fprintf(stderr,
                 "tk_tt_bench: --arch %s runs %s, which cannot be started: %s (without "
                 "TILEKIT_BUILD_BENCH it is built on request: cmake --build <build dir> --target "
                 "%s)\n",
                 arch.c_str(), other.c_str(), std::strerror(errno),
                 std::filesystem::path(other).filename().c_str());
    return 2;
  }
  // The emulated device is the one the kernels were generated for (the emulator reads this when
  // the device is created; docs/emulator.md).
  setenv("TK_EMULATOR_ARCH", TK_BENCH_ARCH, 1);
  options.check = !no_check;
  if (chunks.size() == 2)
    options.q_chunk = chunks[0], options.k_chunk = chunks[1], options.chunks_given = true;
  auto shape_of = [](const Program& p) {
    return p.family == Family::matmul ? "M,K,N" : p.family == Family::attention ? "H,S,D" : "M,N";
  };
  if (list) {
    for (const Program& p : kPrograms)
      std::printf("%s %s %s\n", p.name, p.generated ? "generated" : "baseline", shape_of(p));
    return 0;
  }
  std::vector<std::uint32_t> dims;
  const bool heads = !names.empty() && std::all_of(names.begin(), names.end(), [](const auto& n) {
    const Program* p = find_program(n);
    return p && p->family == Family::attention;
  });
  if (names.empty() || !parse_dims(shape_text, dims, heads)) {
    std::fprintf(stderr, "tk_tt_bench: wants --program NAME[,NAME...] and --shape M,K,N, H,S,D or "
                         "M,N (positive multiples of 32, but H)\n");
    return 2;
  }
  std::vector<const Program*> programs;
  for (const std::string& n : names) {
    const Program* p = find_program(n);
    if (!p) {
      std::fprintf(stderr, "tk_tt_bench: unknown program '%s' (--list names them)\n", n.c_str());
      return 2;
    }
    if (dims.size() != (p->family == Family::matmul || p->family == Family::attention ? 3u : 2u)) {
      std::fprintf(stderr, "tk_tt_bench: %s wants --shape %s\n", p->name, shape_of(*p));
      return 2;
    }
    programs.push_back(p);
  }

  tk::rt::emu::set_timing(true);
  // Without the arithmetic (docs/timing.md) the outputs are undefined: there is nothing to check.
  try {
    options.math = tk::rt::emu::math_enabled();
  } catch (const tk::rt::emu::EmulatorError& e) {
    std::fprintf(stderr, "tk_tt_bench: %s\n", e.what());
    return 2;
  }
  options.check = options.check && options.math;
  auto device = Device::create_unit_mesh(0);
  int status = 0;
  for (const Program* p : programs) {
    try {
      std::cout << run_one(*device, *p, dims, options).dump() << std::endl;
    } catch (const std::exception& e) {
      std::fprintf(stderr, "tk_tt_bench: %s: %s\n", p->name, e.what());
      std::cout << nlohmann::json{{"program", p->name}, {"error", e.what()}}.dump() << std::endl;
      status = 1;
    }
  }
  return status;
}
