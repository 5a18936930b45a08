// The timing model: clocks, the DRAM and NoC queues (the links: noc_links.cpp), and the hooks the
// kernel entry points call (timing.hpp says what it models; docs/timing.md how, and what it leaves
// out).
#include "timing.hpp"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <optional>

#include "noc_links.hpp"
#include "state.hpp"
#include "timing_report.hpp"
#include "tk_emulator/timing_params.hpp"

namespace tk::rt::emu {
namespace timing {
namespace {
// The shared resources of one launch: a queue per DRAM bank and per core, NoC and direction. A
// queue's value is the time it is free again.
struct Launch {
  const Arch* arch = nullptr;
  std::vector<double> bank_free;
  std::array<double, 2> dram_free{}; // all DRAM reads and writes on each NoC together
  std::vector<std::array<double, 2>> port_in, port_out; // by core index, then NoC
  // The links of each NoC row (by y) and column (by x) that multicasts travel along, per NoC.
  std::map<std::uint32_t, std::array<double, 2>> row_links, column_links;
  // The links between routers that unicast transfers travel along (noc_links.hpp).
  NocLinks links;
  std::uint32_t grid_cores = 0, grid_x = 1;
};

std::optional<bool> g_forced;
std::optional<Launch> g_launch;
std::optional<ProgramTiming> g_last;
std::vector<ProgramTiming> g_all;          // since the last set_timing(true)
std::map<std::string, unsigned> g_written; // runs that wrote each file path, for numbering

const char* env(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? v : nullptr;
}
bool requested() {
  if (g_forced)
    return *g_forced;
  const char* t = env("TK_EMULATOR_TIMING");
  return (t != nullptr && std::string(t) != "0") || env("TK_EMULATOR_REPORT") != nullptr ||
         env("TK_EMULATOR_TRACE") != nullptr;
}

const Arch& arch() {
  return *g_launch->arch;
}

// The number of passes a fidelity takes (LoFi 1 ... HiFi4 4) and its index in matmul_tile.
int phases(MathFidelity f) {
  switch (f) {
  case MathFidelity::LoFi:
    return 1;
  case MathFidelity::HiFi2:
    return 2;
  case MathFidelity::HiFi3:
    return 3;
  default:
    return 4;
  }
}
const char* fidelity_name(MathFidelity f) {
  static constexpr std::array<const char*, 4> names{"LoFi", "HiFi2", "HiFi3", "HiFi4"};
  return names[phases(f) - 1];
}

// Moves the clock of `k` to `t` if that is later, counting the wait as a stall on `what`.
void stall_until(KernelClock& k, double t, const std::string& what) {
  if (t <= k.clock)
    return;
  k.stalled += t - k.clock;
  k.stalls[what] += t - k.clock;
  k.waits.push_back({k.clock, t, what});
  k.clock = t;
}

std::vector<double>& sized(std::vector<double>& v, std::uint32_t n) {
  if (v.size() != n)
    v.assign(n, 0.0);
  return v;
}
// The latest time in `times` over `n` pages of a ring starting at `first`.
double latest(const std::vector<double>& times, std::uint32_t first, std::uint32_t n) {
  double t = 0;
  for (std::uint32_t i = 0; i < n; ++i)
    t = std::max(t, times[(first + i) % times.size()]);
  return t;
}
void stamp(std::vector<double>& times, std::uint32_t first, std::uint32_t n, double t) {
  for (std::uint32_t i = 0; i < n; ++i)
    times[(first + i) % times.size()] = t;
}

int noc_of(const Fiber& f) {
  return f.kernel->compute ? 0 : static_cast<int>(f.kernel->dm.noc) & 1;
}
// A transfer through a queue: starts when both the issuer (`t`) and the queue are free.
double through(double& queue, double t, double bytes, double bytes_per_cycle) {
  queue = std::max(queue, t) + bytes / bytes_per_cycle;
  return queue;
}
} // namespace

bool on() {
  return g_launch.has_value();
}

void begin(const DeviceState& device) {
  g_launch.reset();
  if (!requested())
    return;
  Launch l;
  l.arch = &device.arch;
  l.bank_free.assign(static_cast<std::size_t>(l.arch->dram_banks), 0.0);
  l.grid_cores = device.num_cores();
  l.grid_x = static_cast<std::uint32_t>(device.grid.x);
  l.links.reset(*l.arch);
  l.port_in.assign(l.grid_cores, {0.0, 0.0});
  l.port_out.assign(l.grid_cores, {0.0, 0.0});
  g_launch = std::move(l);
}

void abandon() {
  g_launch.reset();
}

void work(Fiber& f, double cycles, const std::string& kind) {
  if (!on())
    return;
  f.time.clock += cycles;
  f.time.busy += cycles;
  f.time.busy_by[kind] += cycles;
}

void sync_call(Fiber& f) {
  if (on())
    work(f, arch().sync_call.value, "cb");
}

namespace {
bool is_compute(const Fiber& f) {
  return f.kernel->compute;
}
// Work on a compute kernel's pack thread.
void pack_work(Fiber& f, double cycles, const std::string& kind) {
  f.time.pack_clock += cycles;
  f.time.pack_busy += cycles;
  f.time.busy_by["pack: " + kind] += cycles;
}
} // namespace

void dst_acquire(Fiber& f) {
  if (!on())
    return;
  KernelClock& k = f.time;
  // Half-sync: the math thread takes the half the packer released longest ago.
  k.half ^= 1;
  k.committed = false;
  stall_until(k, k.half_free[k.half], "tile_regs_acquire");
  work(f, arch().dst_handoff.value, "dst_handoff");
}
void dst_commit(Fiber& f) {
  if (!on())
    return;
  work(f, arch().dst_handoff.value, "dst_handoff");
  f.time.pack_ready = f.time.clock;
  f.time.committed = true;
}
void dst_wait(Fiber& f) {
  if (!on())
    return;
  KernelClock& k = f.time;
  k.pack_clock = std::max(k.pack_clock, k.pack_ready);
  pack_work(f, arch().dst_handoff.value, "dst_handoff");
}
void dst_release(Fiber& f) {
  if (!on())
    return;
  pack_work(f, arch().dst_handoff.value, "dst_handoff");
  f.time.half_free[f.time.half] = f.time.pack_clock;
}

void init_call(Fiber& f, const char* kind) {
  if (on())
    work(f, arch().init_call.value, kind);
}
void pack_init_call(Fiber& f, const char* kind) {
  if (on())
    pack_work(f, arch().init_call.value, kind);
}

void matmul_call(Fiber& f, std::uint32_t rt, std::uint32_t ct, std::uint32_t in0_bytes,
                 std::uint32_t in1_bytes) {
  if (!on())
    return;
  const Arch& a = arch();
  const MathFidelity fid = f.kernel->cc.math_fidelity;
  const double engine = tile_op_cycles(a, TileOp::Matmul, phases(fid));
  const double products = static_cast<double>(rt) * ct;
  f.time.compute += products * engine;
  f.time.matmul_tiles += static_cast<std::uint64_t>(rt) * ct;
  f.time.matmul_cycles += products * engine;
  f.time.tile_ops["matmul " + std::string(fidelity_name(fid))] +=
      static_cast<std::uint64_t>(rt) * ct;
  work(f, matmul_call_cycles(a, phases(fid), rt, ct, in0_bytes, in1_bytes), "matmul");
}

void poll(Fiber& f, const std::string& what) {
  if (!on())
    return;
  stall_until(f.time, f.time.clock + arch().sync_call.value, what);
}

void cb_reserve(Fiber& f, CbState& cb, std::uint32_t pages) {
  if (!on())
    return;
  const auto& free_at = sized(cb.free_at, cb.num_pages);
  if (is_compute(f)) { // the pack thread's call
    KernelClock& k = f.time;
    k.pack_clock = std::max(k.pack_clock, latest(free_at, cb.wr_page, pages));
    pack_work(f, arch().sync_call.value, "cb");
    return;
  }
  stall_until(f.time, latest(free_at, cb.wr_page, pages),
              "cb_reserve_back(" + cb_name(cb.id) + ")");
  work(f, arch().sync_call.value, "cb");
}
void cb_push(Fiber& f, CbState& cb, std::uint32_t pages) {
  if (!on())
    return;
  if (is_compute(f)) {
    pack_work(f, arch().sync_call.value, "cb");
    stamp(sized(cb.ready_at, cb.num_pages), cb.wr_page, pages, f.time.pack_clock);
    return;
  }
  work(f, arch().sync_call.value, "cb");
  stamp(sized(cb.ready_at, cb.num_pages), cb.wr_page, pages, f.time.clock);
}
void cb_wait(Fiber& f, CbState& cb, std::uint32_t pages, const char* call) {
  if (!on())
    return;
  const auto& ready_at = sized(cb.ready_at, cb.num_pages);
  stall_until(f.time, latest(ready_at, cb.rd_page, pages),
              std::string(call) + "(" + cb_name(cb.id) + ")");
  work(f, arch().sync_call.value, "cb");
}
void cb_pop(Fiber& f, CbState& cb, std::uint32_t pages) {
  if (!on())
    return;
  work(f, arch().sync_call.value, "cb");
  stamp(sized(cb.free_at, cb.num_pages), cb.rd_page, pages, f.time.clock);
}

namespace {
struct Transfer {
  double sent; // the issuing core's port is done
  double done; // the data has landed (read) or been acknowledged (write)
};
// A read into, or a write out of, the current kernel's core: it occupies that core's port and the
// far end (a DRAM bank, or the other core's opposite port), each from when both the issuer and
// it are free, and completes when both are done, plus the latency.
Transfer transfer(Fiber& f, Endpoint far, std::uint32_t bytes, bool read) {
  yield_if_behind();
  const Arch& a = arch();
  Launch& l = *g_launch;
  work(f, read ? a.read_issue.value : a.write_issue.value, "noc_issue");
  const double t = f.time.clock;
  const int noc = noc_of(f);
  const double in_bw = a.port_read_bytes_per_cycle.value;
  const double out_bw = a.port_write_bytes_per_cycle.value;
  const auto core = f.core->index;
  const double sent = read ? through(l.port_in[core][noc], t, bytes, in_bw)
                           : through(l.port_out[core][noc], t, bytes, out_bw);
  const bool dram = far.bank >= 0;
  double far_done =
      dram   ? through(l.bank_free[far.bank], t, bytes, a.dram_bank_bytes_per_cycle.value)
      : read ? through(l.port_out[far.core][noc], t, bytes, out_bw)
             : through(l.port_in[far.core][noc], t, bytes, in_bw);
  // Every DRAM read and write of the chip on a NoC the architecture's measurement of many readers
  // was taken on (dram_total_nocs) shares that NoC's capacity for interleaved DRAM traffic
  // (measured with reads; applied to writes too, an assumption pinned by GEMM's N150 rows with
  // several out blocks per core: docs/timing.md, "Per NoC"); on the other NoC the banks and the
  // links bound it.
  if (dram && a.dram_total_nocs.has(noc))
    far_done = std::max(
        far_done, through(l.dram_free[noc], t, bytes, a.dram_read_total_bytes_per_cycle.value));
  // The data travels along the links of its route: from the far end to this core (a read's
  // response) or from this core to the far end (a write).
  const Router here = l.links.worker(core % l.grid_x, core / l.grid_x);
  const Router there = dram ? l.links.bank(noc, static_cast<std::uint32_t>(far.bank))
                            : l.links.worker(static_cast<std::uint32_t>(far.core) % l.grid_x,
                                             static_cast<std::uint32_t>(far.core) / l.grid_x);
  far_done = std::max(far_done, read ? l.links.unicast(noc, there, here, t, bytes)
                                     : l.links.unicast(noc, here, there, t, bytes));
  const double latency = dram ? (read ? a.dram_read_latency : a.dram_write_latency).value
                              : (read ? a.l1_read_latency : a.l1_write_latency).value;
  (dram ? (read ? f.time.dram_read : f.time.dram_written)
        : (read ? f.time.noc_read : f.time.noc_written)) += bytes;
  return {sent, std::max(sent, far_done) + latency};
}
} // namespace

void read(Fiber& f, Endpoint from, std::uint32_t bytes) {
  if (on())
    f.time.reads_done = std::max(f.time.reads_done, transfer(f, from, bytes, true).done);
}

double write(Fiber& f, Endpoint to, std::uint32_t bytes) {
  if (!on())
    return 0;
  const Transfer t = transfer(f, to, bytes, false);
  f.time.writes_sent = std::max(f.time.writes_sent, t.sent);
  // Writes from one RISC land in the order they were issued (a semaphore set after the data it
  // announces is seen after the data).
  f.time.writes_done = std::max(f.time.writes_done, t.done);
  return f.time.writes_done;
}

double multicast(Fiber& f, std::uint32_t bytes, std::uint32_t destinations, std::uint32_t x0,
                 std::uint32_t y0, std::uint32_t x1, std::uint32_t y1) {
  if (!on())
    return 0;
  yield_if_behind();
  const Arch& a = arch();
  Launch& l = *g_launch;
  work(f, a.write_issue.value, "noc_issue");
  const int noc = noc_of(f);
  const double t = f.time.clock;
  double out = through(l.port_out[f.core->index][noc], t, bytes, a.mcast_bytes_per_cycle.value);
  // The data travels along the links of the rectangle's row (a one-row rectangle), column (a
  // one-column one), or of every row it covers; multicasts along the same links share them.
  const double line_bw = a.mcast_line_bytes_per_cycle.value;
  if (x0 != x1 && y0 == y1)
    out = std::max(out, through(l.row_links[y0][noc], t, bytes, line_bw));
  else if (x0 == x1)
    out = std::max(out, through(l.column_links[x0][noc], t, bytes, line_bw));
  else
    for (std::uint32_t y = y0; y <= y1; ++y)
      out = std::max(out, through(l.row_links[y][noc], t, bytes, line_bw));
  f.time.noc_written += std::uint64_t{bytes} * destinations;
  f.time.writes_sent = std::max(f.time.writes_sent, out);
  f.time.writes_done = std::max(f.time.writes_done, out + a.mcast_latency.value);
  return f.time.writes_done;
}

void barrier(Fiber& f, Barrier kind) {
  if (!on())
    return;
  KernelClock& k = f.time;
  switch (kind) {
  case Barrier::Read:
    stall_until(k, k.reads_done, "noc_async_read_barrier");
    break;
  case Barrier::Write:
    stall_until(k, k.writes_done, "noc_async_write_barrier");
    break;
  case Barrier::Flush:
    stall_until(k, k.writes_sent, "noc_async_writes_flushed");
    break;
  case Barrier::Atomic:
    stall_until(k, k.writes_done, "noc_async_atomic_barrier");
    break;
  case Barrier::Full:
    stall_until(k, std::max(k.reads_done, k.writes_done), "noc_async_full_barrier");
    break;
  }
}

void semaphore_written(CoreState& core, std::uint32_t id, double t) {
  if (!on())
    return;
  auto& times = sized(core.semaphore_set_at, core.num_semaphores);
  if (id < times.size())
    times[id] = std::max(times[id], t);
}
void semaphore_waited(Fiber& f, std::uint32_t id) {
  if (!on())
    return;
  const auto& times = sized(f.core->semaphore_set_at, f.core->num_semaphores);
  if (id < times.size())
    stall_until(f.time, times[id], "noc_semaphore_wait(" + std::to_string(id) + ")");
}

void tile_op(Fiber& f, TileOp op, const char* name, std::uint32_t bytes) {
  if (!on())
    return;
  const Arch& a = arch();
  const MathFidelity fid = f.kernel->cc.math_fidelity;
  const int p = phases(fid);
  const double cycles = tile_op_cycles(a, op, p, bytes, name, f.kernel->cc.fp32_dest_acc_en);
  f.time.compute += cycles;
  ++f.time.tile_ops[by_fidelity(op) ? std::string(name) + " " + fidelity_name(fid) : name];
  if (op == TileOp::Pack) { // on the pack thread, after the math thread committed DST
    KernelClock& k = f.time;
    k.pack_ops += cycles;
    k.pack_clock = std::max(k.pack_clock, k.committed ? k.pack_ready : k.clock);
    pack_work(f, cycles, name);
    return;
  }
  work(f, cycles, name);
}

void sfpu_call(Fiber& f, const char* name, SfpuMode mode) {
  if (!on())
    return;
  const double cycles = sfpu_call_cycles(arch(), name, f.kernel->cc.fp32_dest_acc_en, mode);
  f.time.compute += cycles;
  ++f.time.tile_ops[name];
  work(f, cycles, name);
}

void fpu_call(Fiber& f, TileOp op, const char* name, Unpacked u0, Unpacked u1, bool to_dest) {
  if (!on())
    return;
  const Arch& a = arch();
  const MathFidelity fid = f.kernel->cc.math_fidelity;
  const int p = phases(fid);
  f.time.compute += tile_op_cycles(a, op, p);
  ++f.time.tile_ops[by_fidelity(op) ? std::string(name) + " " + fidelity_name(fid) : name];
  work(f, fpu_call_cycles(a, op, p, u0, u1, to_dest), name);
}

void end(const std::vector<Fiber*>& fibers, const DeviceState& device) {
  if (!on())
    return;
  const Arch& a = arch();
  ProgramTiming p;
  p.arch = ::tk::arch::describe(a);
  p.clock_ghz = a.clock_ghz.value;
  const double cores = static_cast<double>(device.num_cores());
  double compute = 0, packs = 0;
  for (Fiber* f : fibers) {
    KernelClock& k = f->time;
    // A kernel is done when its last transfer is, and a compute kernel when its pack thread is.
    stall_until(k, std::max(k.reads_done, k.writes_done), "outstanding transfers");
    stall_until(k, k.pack_clock, "pack thread");
    KernelTiming kt;
    kt.core_x = static_cast<std::uint32_t>(f->core->logical.x);
    kt.core_y = static_cast<std::uint32_t>(f->core->logical.y);
    kt.kernel = f->kernel->path;
    kt.risc = f->kernel->compute                                                        ? "trisc"
              : f->kernel->dm.processor == tt::tt_metal::DataMovementProcessor::RISCV_0 ? "brisc"
                                                                                        : "ncrisc";
    kt.end_cycle = k.clock;
    kt.busy_cycles = k.busy;
    kt.stalled_cycles = k.stalled;
    kt.stalls = k.stalls;
    kt.dram_bytes_read = k.dram_read;
    kt.dram_bytes_written = k.dram_written;
    kt.noc_bytes_read = k.noc_read;
    kt.noc_bytes_written = k.noc_written;
    kt.tile_ops = k.tile_ops;
    kt.busy_by = k.busy_by;
    p.device_cycles = std::max(p.device_cycles, k.clock);
    p.dram_bytes_read += k.dram_read;
    p.dram_bytes_written += k.dram_written;
    compute += k.compute;
    packs += k.pack_ops;
    p.matmul_tiles += k.matmul_tiles;
    p.ideal_matmul_cycles += k.matmul_cycles / cores;
    p.kernels.push_back(std::move(kt));
  }
  const double seconds = p.device_cycles / (a.clock_ghz.value * 1e9);
  p.device_us = seconds * 1e6;
  p.host_dispatch_us = a.host_dispatch_us.value;
  if (seconds > 0) {
    p.matmul_tflops = static_cast<double>(p.matmul_tiles) * 2.0 * 32 * 32 * 32 / seconds / 1e12;
    p.dram_gbps = static_cast<double>(p.dram_bytes_read + p.dram_bytes_written) / seconds / 1e9;
  }
  if (p.device_cycles > 0)
    p.utilization = p.ideal_matmul_cycles / p.device_cycles;
  p.dram_roofline_gbps = a.dram_peak_bytes_per_cycle.value * a.clock_ghz.value;
  // The pack thread overlaps the others: the grid takes at least the longer of the two shares.
  p.compute_cycles = compute;
  p.compute_bound_cycles = std::max(compute - packs, packs) / cores;
  p.dram_bound_cycles = static_cast<double>(p.dram_bytes_read + p.dram_bytes_written) /
                        a.dram_peak_bytes_per_cycle.value;

  if (const char* path = env("TK_EMULATOR_REPORT"))
    write_report(p, numbered(path, g_written[path]++));
  if (const char* path = env("TK_EMULATOR_TRACE"))
    write_trace(fibers, a.clock_ghz.value, numbered(path, g_written[path]++));
  if (g_forced.value_or(
          false)) // kept for the caller who asked: not for a long run the environment timed
    g_all.push_back(p);
  g_last = std::move(p);
  g_launch.reset();
}
} // namespace timing

void set_timing(std::optional<bool> on) {
  timing::g_forced = on;
  timing::g_all.clear();
}
const std::optional<ProgramTiming>& last_timing() {
  return timing::g_last;
}
const std::vector<ProgramTiming>& timings() {
  return timing::g_all;
}
} // namespace tk::rt::emu
