#include "report/format.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace tk::report {

namespace timing = tk::rt::emu::timing;

namespace {

/// 1234567 -> "1,234,567".
std::string grouped(std::int64_t n) {
  std::string digits = std::to_string(n < 0 ? -n : n), out;
  for (std::size_t k = 0; k < digits.size(); ++k) {
    if (k > 0 && (digits.size() - k) % 3 == 0)
      out += ',';
    out += digits[k];
  }
  return n < 0 ? "-" + out : out;
}

std::string cycles(double c) {
  return grouped(static_cast<std::int64_t>(c + 0.5));
}

const char* class_name(timing::TileOp op) {
  switch (op) {
  case timing::TileOp::Matmul:
    return "matmul";
  case timing::TileOp::AddSub:
    return "fpu add/sub";
  case timing::TileOp::Mul:
    return "fpu mul";
  case timing::TileOp::ReduceMax:
    return "reduce max";
  case timing::TileOp::ReduceSum:
    return "reduce sum";
  case timing::TileOp::Copy:
    return "unpack copy";
  case timing::TileOp::Sfpu:
    return "sfpu";
  case timing::TileOp::Pack:
    return "pack";
  }
  return "?";
}

std::string shape_text(const std::vector<std::pair<std::string, std::int64_t>>& s) {
  std::string out;
  for (const auto& [name, size] : s)
    out += (out.empty() ? "" : ", ") + name + "=" + std::to_string(size);
  return out;
}

std::string role_text(ir::TensorRole r) {
  return std::string(ir::to_string(r));
}

} // namespace

std::string format_text(const Estimate& e) {
  const double us_per_cycle = 1e-3 / e.clock_ghz;
  // A kernel with no named dimension (a reduction's combine program) has the same work at every
  // shape.
  const std::string shape = shape_text(e.shape);
  std::string out = fmt::format(
      "{}{}: static estimate for {} at {:g} GHz, grid {}x{}, {} (no run; docs/timing.md)\n",
      e.kernel, shape.empty() ? "" : " at " + shape, e.arch, e.clock_ghz, e.grid.x, e.grid.y,
      e.math_fidelity);
  out += fmt::format("work: {} item(s) on {} core(s), {}{} per core\n\n", grouped(e.work_items),
                     e.cores, e.items_max,
                     e.items_min != e.items_max ? fmt::format(" or {}", e.items_min) : "");

  out += fmt::format("{:<12} {:<7} {:<5} {:>9} {:>16} {:>16} {:>10}\n", "tensor", "role", "type",
                     "tiles", "DRAM read B", "DRAM written B", "moves/tile");
  for (const TensorTraffic& t : e.tensors) {
    const std::int64_t pages = t.pages_read + t.pages_written;
    out += fmt::format("{:<12} {:<7} {:<5} {:>9} {:>16} {:>16} {:>9.2f}x\n", t.name,
                       role_text(t.role), ir::to_string(t.dtype), grouped(t.tiles),
                       grouped(t.bytes_read()), grouped(t.bytes_written()),
                       t.tiles ? static_cast<double>(pages) / static_cast<double>(t.tiles) : 0.0);
  }
  out += fmt::format("{:<12} {:<7} {:<5} {:>9} {:>16} {:>16}\n\n", "total", "", "", "",
                     grouped(e.dram_bytes_read), grouped(e.dram_bytes_written));

  out += fmt::format("{:<20} {:<18} {:>12} {:>8} {:>14}\n", "compute call", "class", "count",
                     "cycles", "total cycles");
  for (const TileOpCount& op : e.tile_ops) {
    std::string cls = class_name(op.cost_class);
    if (timing::by_fidelity(op.cost_class))
      cls += " " + e.math_fidelity;
    out +=
        fmt::format("{:<20} {:<18} {:>12} {:>8g} {:>14}\n", op.call, cls, grouped(op.count),
                    op.count ? op.cycles / static_cast<double>(op.count) : 0.0, cycles(op.cycles));
  }
  out += fmt::format("{:<20} {:<18} {:>12} {:>8} {:>14}\n\n", "total", "", "", "",
                     cycles(e.compute_cycles));

  const double dram_bytes = static_cast<double>(e.dram_bytes_read + e.dram_bytes_written);
  out += fmt::format(
      "compute bound  {:>14} cycles  {:>10.1f} us  the busiest core's tile operations\n",
      cycles(e.busiest_core_compute_cycles), e.busiest_core_compute_cycles * us_per_cycle);
  out += fmt::format("DRAM bound     {:>14} cycles  {:>10.1f} us  {} B at {:g} B/cycle\n",
                     cycles(e.dram_bound_cycles), e.dram_bound_cycles * us_per_cycle,
                     grouped(static_cast<std::int64_t>(dram_bytes)),
                     e.dram_bound_cycles > 0 ? dram_bytes / e.dram_bound_cycles : 0.0);
  out += fmt::format("DRAM floor     {:>14} cycles  {:>10.1f} us  at {:g} B/cycle, the timing "
                     "model's banks and NoC DRAM queues (NoC 0 {} B, NoC 1 {} B)\n",
                     cycles(e.dram_floor_cycles), e.dram_floor_cycles * us_per_cycle,
                     e.dram_floor_cycles > 0 ? dram_bytes / e.dram_floor_cycles : 0.0,
                     grouped(e.dram_bytes_on_noc[0]), grouped(e.dram_bytes_on_noc[1]));
  out +=
      fmt::format("roofline       {:>14} cycles  {:>10.1f} us  {}-bound", cycles(e.bound_cycles()),
                  e.bound_cycles() * us_per_cycle, e.dram_bound() ? "DRAM" : "compute");
  if (e.matmul_tiles > 0)
    out += fmt::format("; matmul utilisation at most {:.1f}%", 100 * e.utilization_ceiling());
  out += "\n";
  return out;
}

nlohmann::ordered_json to_json(const Estimate& e) {
  nlohmann::ordered_json j;
  j["kernel"] = e.kernel;
  j["shape"] = nlohmann::ordered_json::object();
  for (const auto& [name, size] : e.shape)
    j["shape"][name] = size;
  j["arch"] = e.arch;
  j["clock_ghz"] = e.clock_ghz;
  j["grid"] = {e.grid.x, e.grid.y};
  j["math_fidelity"] = e.math_fidelity;
  j["work_items"] = e.work_items;
  j["cores"] = e.cores;
  j["items_per_core"] = {e.items_min, e.items_max};
  j["tensors"] = nlohmann::ordered_json::array();
  for (const TensorTraffic& t : e.tensors)
    j["tensors"].push_back({{"name", t.name},
                            {"role", role_text(t.role)},
                            {"dtype", ir::to_string(t.dtype)},
                            {"tiles", t.tiles},
                            {"page_bytes", t.page_bytes},
                            {"dram_bytes_read", t.bytes_read()},
                            {"dram_bytes_written", t.bytes_written()}});
  j["tile_ops"] = nlohmann::ordered_json::array();
  for (const TileOpCount& op : e.tile_ops)
    j["tile_ops"].push_back({{"call", op.call},
                             {"class", class_name(op.cost_class)},
                             {"count", op.count},
                             {"cycles", op.cycles}});
  j["matmul_tiles"] = e.matmul_tiles;
  j["dram_bytes_read"] = e.dram_bytes_read;
  j["dram_bytes_written"] = e.dram_bytes_written;
  j["compute_cycles"] = e.compute_cycles;
  j["compute_bound_cycles"] = e.busiest_core_compute_cycles;
  j["dram_bound_cycles"] = e.dram_bound_cycles;
  j["dram_floor_cycles"] = e.dram_floor_cycles;
  j["dram_bytes_on_noc"] = {e.dram_bytes_on_noc[0], e.dram_bytes_on_noc[1]};
  j["bound_cycles"] = e.bound_cycles();
  j["bound_us"] = e.bound_cycles() * 1e-3 / e.clock_ghz;
  j["bound"] = e.dram_bound() ? "dram" : "compute";
  j["ideal_matmul_cycles"] = e.ideal_matmul_cycles;
  j["utilization_ceiling"] = e.utilization_ceiling();
  return j;
}

} // namespace tk::report
