// Writes timing mode's report and trace (timing_report.hpp) with nlohmann::json.
#include "timing_report.hpp"

#include <filesystem>
#include <fstream>
#include <set>

#include <nlohmann/json.hpp>

#include "state.hpp"

namespace tk::rt::emu::timing {
namespace {
void write_file(const std::string& path, const nlohmann::json& j) {
  std::ofstream out(path);
  out << j.dump(1) << '\n';
  if (!out)
    throw EmulatorError("timing: cannot write " + path);
}
} // namespace

std::string numbered(const std::string& path, unsigned run) {
  if (run == 0)
    return path;
  const std::filesystem::path p(path);
  return (p.parent_path() /
          (p.stem().string() + "." + std::to_string(run) + p.extension().string()))
      .string();
}

void write_report(const ProgramTiming& p, const std::string& path) {
  nlohmann::json cores = nlohmann::json::array();
  for (const KernelTiming& k : p.kernels) {
    cores.push_back({{"core", {k.core_x, k.core_y}},
                     {"kernel", k.kernel},
                     {"risc", k.risc},
                     {"end_cycle", k.end_cycle},
                     {"busy_cycles", k.busy_cycles},
                     {"stalled_cycles", k.stalled_cycles},
                     {"stalls", k.stalls},
                     {"dram_bytes_read", k.dram_bytes_read},
                     {"dram_bytes_written", k.dram_bytes_written},
                     {"noc_bytes_read", k.noc_bytes_read},
                     {"noc_bytes_written", k.noc_bytes_written},
                     {"tile_ops", k.tile_ops},
                     {"busy_by", k.busy_by}});
  }
  write_file(path, {{"arch", p.arch},
                    {"clock_ghz", p.clock_ghz},
                    {"device_cycles", p.device_cycles},
                    {"device_us", p.device_us},
                    {"host_dispatch_us", p.host_dispatch_us},
                    {"host_us", p.device_us + p.host_dispatch_us},
                    {"dram_bytes_read", p.dram_bytes_read},
                    {"dram_bytes_written", p.dram_bytes_written},
                    {"matmul_tiles", p.matmul_tiles},
                    {"matmul_tflops", p.matmul_tflops},
                    {"ideal_matmul_cycles", p.ideal_matmul_cycles},
                    {"utilization", p.utilization},
                    {"dram_gbps", p.dram_gbps},
                    {"dram_roofline_gbps", p.dram_roofline_gbps},
                    {"compute_cycles", p.compute_cycles},
                    {"compute_bound_cycles", p.compute_bound_cycles},
                    {"dram_bound_cycles", p.dram_bound_cycles},
                    {"cores", cores}});
}

// One process per core, one thread per RISC; a complete event ("X") per kernel and per wait, in
// microseconds.
void write_trace(const std::vector<Fiber*>& fibers, double clock_ghz, const std::string& path) {
  const double us = 1.0 / (clock_ghz * 1000.0);
  nlohmann::json events = nlohmann::json::array();
  std::set<std::uint32_t> named;
  for (const Fiber* f : fibers) {
    const std::uint32_t pid = f->core->index;
    const int tid = f->kernel->compute ? 2 : static_cast<int>(f->kernel->dm.processor);
    const std::string core = "core (" + std::to_string(f->core->logical.x) + "," +
                             std::to_string(f->core->logical.y) + ")";
    if (named.insert(pid).second) {
      events.push_back(
          {{"ph", "M"}, {"name", "process_name"}, {"pid", pid}, {"args", {{"name", core}}}});
      events.push_back({{"ph", "M"},
                        {"name", "process_sort_index"},
                        {"pid", pid},
                        {"args", {{"sort_index", pid}}}});
    }
    const char* risc = tid == 2   ? "trisc (compute)"
                       : tid == 0 ? "brisc (RISCV_0)"
                                  : "ncrisc (RISCV_1)";
    events.push_back({{"ph", "M"},
                      {"name", "thread_name"},
                      {"pid", pid},
                      {"tid", tid},
                      {"args", {{"name", std::string(risc) + " " + f->kernel->path}}}});
    const KernelClock& k = f->time;
    events.push_back({{"ph", "X"},
                      {"name", f->kernel->path},
                      {"cat", "kernel"},
                      {"pid", pid},
                      {"tid", tid},
                      {"ts", 0.0},
                      {"dur", k.clock * us},
                      {"args",
                       {{"busy_cycles", k.busy},
                        {"stalled_cycles", k.stalled},
                        {"dram_bytes_read", k.dram_read},
                        {"dram_bytes_written", k.dram_written}}}});
    for (const KernelClock::Zone& z : k.waits) {
      events.push_back({{"ph", "X"},
                        {"name", z.what},
                        {"cat", "wait"},
                        {"pid", pid},
                        {"tid", tid},
                        {"ts", z.start * us},
                        {"dur", (z.end - z.start) * us}});
    }
  }
  write_file(path, {{"traceEvents", events}, {"displayTimeUnit", "ns"}});
}
} // namespace tk::rt::emu::timing
