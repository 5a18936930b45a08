// The timing model (docs/timing.md): off unless asked for. Every RISC of every core keeps a clock
// in cycles (the three TRISCs are one compute clock); each kernel API call advances the clock of
// the kernel that makes it by a cost from the architecture's table (timing_params.hpp); a call
// that waits (a CB, a barrier, a semaphore) resumes at the time its condition became true. DRAM
// banks, each core's NoC ports and the links between routers (noc_links.hpp) are queues: a
// transfer starts on each when its issuer and it are free. The scheduler runs the kernel with the
// smallest clock, and a kernel yields before each NoC request if another one is behind it, so
// shared queues see requests in time order. Nothing here changes a value or a protocol check.
#pragma once

#include "tk_emulator/timing_params.hpp"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace tk::rt::emu {
struct Fiber;
struct CbState;
struct CoreState;
struct DeviceState;

namespace timing {

/// What one kernel on one core did: cycles, bytes and tile operations, counted exactly.
struct KernelClock {
  double clock = 0;    // this RISC's time in cycles
  double busy = 0;     // cycles spent issuing, computing, packing
  double stalled = 0;  // cycles spent waiting
  double compute = 0;  // cycles of tile operations, math and pack threads (their engines' share)
  double pack_ops = 0; // the pack thread's share of `compute`
  // A compute kernel's pack thread (TRISC2) runs beside its unpack and math threads (`clock`):
  // pack_tile, cb_reserve_back and cb_push_back advance `pack_clock`; DST is handed between them
  // in two halves (half-sync), a half free again when the packer releases it.
  double pack_clock = 0, pack_busy = 0, pack_ready = 0;
  double half_free[2] = {0, 0};
  int half = 0;
  bool committed = false;
  std::uint64_t matmul_tiles = 0;
  double matmul_cycles = 0;             // the matrix engine's ideal cycles for those tiles
  std::map<std::string, double> stalls; // by what was waited for: "cb_wait_front(c_0)", ...
  std::uint64_t dram_read = 0, dram_written = 0; // bytes
  std::uint64_t noc_read = 0, noc_written = 0;   // bytes to and from other cores' L1
  std::map<std::string, std::uint64_t> tile_ops; // "matmul HiFi4", "add", "exp", "pack", ...
  // `busy` and `pack_busy` by call kind: "init", "dst_handoff", "cb", "noc_issue", "matmul", a
  // tile op's counter ("exp", "copy", ...); the pack thread's keys start with "pack: ".
  std::map<std::string, double> busy_by;
  double reads_done = 0;  // completion of the latest read issued
  double writes_done = 0; // acknowledgement of the latest write
  double writes_sent = 0; // the latest write has left L1
  struct Zone {
    double start, end;
    std::string what;
  };
  std::vector<Zone> waits; // every stall, for the trace
};

/// True while a timed program runs.
bool on();
/// Starts timing a launch if timing mode is on (set_timing, TK_EMULATOR_TIMING, _REPORT, _TRACE).
void begin(const DeviceState& device);
/// Ends the launch: the program's figures (last_timing()), and the report and trace files.
void end(const std::vector<Fiber*>& fibers, const DeviceState& device);
/// Drops the launch's state after an error.
void abandon();

// Every hook below does nothing unless on().
/// `kind` is the key of KernelClock::busy_by the cycles are counted under.
void work(Fiber& f, double cycles, const std::string& kind = "other");
/// A CB call's own cost.
void sync_call(Fiber& f);
/// The DST hand-off between the math and pack threads: tile_regs_acquire / commit (math),
/// tile_regs_wait / release (pack).
void dst_acquire(Fiber& f);
void dst_commit(Fiber& f);
void dst_wait(Fiber& f);
void dst_release(Fiber& f);
/// An *_init* call (the unpacker's or math's reconfiguration).
void init_call(Fiber& f, const char* kind = "init");
/// A packer reconfiguration (pack_reconfig_l1_acc, pack_reconfig_data_format), on the pack thread.
void pack_init_call(Fiber& f, const char* kind = "init");
/// One matmul call: an rt x ct sub-block's products for one k step (matmul_tiles is 1 x 1), with
/// operand pages of `in0_bytes` and `in1_bytes`; counts rt * ct tile products.
void matmul_call(Fiber& f, std::uint32_t rt, std::uint32_t ct, std::uint32_t in0_bytes,
                 std::uint32_t in1_bytes);
void poll(Fiber& f, const std::string& what);
void cb_reserve(Fiber& f, CbState& cb, std::uint32_t pages);
void cb_push(Fiber& f, CbState& cb, std::uint32_t pages);
void cb_wait(Fiber& f, CbState& cb, std::uint32_t pages, const char* call);
void cb_pop(Fiber& f, CbState& cb, std::uint32_t pages);

/// A NoC endpoint: a DRAM bank, or a worker core's L1 (by core index).
struct Endpoint {
  int bank = -1;
  int core = -1;
};
void read(Fiber& f, Endpoint from, std::uint32_t bytes);
/// Returns the time the write lands.
double write(Fiber& f, Endpoint to, std::uint32_t bytes);
/// A multicast to the worker rectangle (x0, y0)-(x1, y1) (NoC coordinates, x0 <= x1, y0 <= y1).
double multicast(Fiber& f, std::uint32_t bytes, std::uint32_t destinations, std::uint32_t x0,
                 std::uint32_t y0, std::uint32_t x1, std::uint32_t y1);
enum class Barrier { Read, Write, Flush, Atomic, Full };
void barrier(Fiber& f, Barrier kind);
/// Semaphore `id` of `core` gets a value at time `t`; a wait on it resumes no earlier.
void semaphore_written(CoreState& core, std::uint32_t id, double t);
void semaphore_waited(Fiber& f, std::uint32_t id);

/// A compute call on one tile; `name` is its counter ("add", "exp", ...), `bytes` the page size
/// for Pack. Fidelity-dependent ops read the kernel's math_fidelity.
void tile_op(Fiber& f, TileOp op, const char* name, std::uint32_t bytes = 0);
/// An SFPU call on one tile on VectorMode `mode` (sfpu_call_cycles): `name` is its entry in the
/// architecture's sfpu_tile table and its counter.
void sfpu_call(Fiber& f, const char* name, SfpuMode mode);
/// A non-matmul FPU call that unpacks its operands from CBs (unpacker 0's `u0`, unpacker 1's
/// `u1`; `to_dest`: unpacker 0 writes DST): counted as tile_op, charged fpu_call_cycles.
void fpu_call(Fiber& f, TileOp op, const char* name, Unpacked u0, Unpacked u1 = {},
              bool to_dest = false);
} // namespace timing
} // namespace tk::rt::emu
