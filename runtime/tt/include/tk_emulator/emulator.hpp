// Emulator-only host API: errors it throws and JIT statistics. Host programs written for the SDK
// never include this; tests and tools use it.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace tk::arch {
struct ArchSpec;
}
namespace tt::tt_metal::distributed {
class MeshDevice;
}

namespace tk::rt::emu {
// Thrown for kernel protocol errors, deadlocks, kernel compile errors and invalid host calls.
class EmulatorError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

struct JitStats {
  std::uint64_t compiled = 0;    // kernels compiled by the C++ compiler
  std::uint64_t disk_hits = 0;   // shared objects found in the on-disk cache
  std::uint64_t memory_hits = 0; // shared objects already loaded in this process
};
JitStats jit_stats();
// Unloads every cached kernel .so; the next launch reloads from disk. Only between launches.
void forget_loaded_kernels();
// The directory kernels are cached in: $TT_METAL_EMULATOR_CACHE_DIR, else
// $XDG_CACHE_HOME/tilekit/kernels, else ~/.cache/tilekit/kernels.
std::string kernel_cache_dir();

// ---- Timing mode (docs/timing.md) -------------------------------------------------------------
/// Turns the timing model on or off for the launches that follow; std::nullopt (the start) leaves
/// it to the environment: on when TK_EMULATOR_TIMING=1, TK_EMULATOR_REPORT or TK_EMULATOR_TRACE
/// is set. It changes no result.
void set_timing(std::optional<bool> on);

/// Turns the tile arithmetic off (false) or on (true) for the launches that follow; std::nullopt
/// (the start) leaves it to the environment: off when TK_EMULATOR_MATH=off (or 0). Without it,
/// compute kernels run every protocol check and every timing hook but neither unpack, compute nor
/// pack values: DST and the pages packed into CBs hold undefined values, so are the outputs; and
/// DRAM stores nothing (host and NoC transfers to and from DRAM move no bytes, so a projection
/// needs no memory for its tensors). L1 transfers, runtime args, CBs and semaphores stay exact,
/// and the timing report is the same (docs/timing.md, "Projections without the arithmetic").
void set_math(std::optional<bool> on);
/// Whether a launch now would do the tile arithmetic (set_math, else TK_EMULATOR_MATH); throws
/// EmulatorError when TK_EMULATOR_MATH is neither on, off, 1 nor 0.
bool math_enabled();

/// One kernel on one core, as the timing model saw it.
struct KernelTiming {
  std::uint32_t core_x = 0, core_y = 0; // logical
  std::string kernel;                   // the path given to CreateKernel
  std::string risc;                     // "brisc", "ncrisc" or "trisc"
  double end_cycle = 0, busy_cycles = 0, stalled_cycles = 0;
  std::map<std::string, double> stalls; // cycles by what was waited for
  std::uint64_t dram_bytes_read = 0, dram_bytes_written = 0;
  std::uint64_t noc_bytes_read = 0, noc_bytes_written = 0; // to and from other cores' L1
  std::map<std::string, std::uint64_t> tile_ops;
  // busy cycles by call kind and thread ("init", "dst_handoff", "cb", "matmul", "exp", ...; a
  // compute kernel's pack thread as "pack: pack", "pack: cb", ...): docs/timing.md, "The report"
  std::map<std::string, double> busy_by;
};

/// A program run in timing mode. Cycles are at the architecture's clock.
struct ProgramTiming {
  std::string arch;
  double clock_ghz = 0;
  double device_cycles = 0; // the latest clock of any kernel
  double device_us = 0;
  double host_dispatch_us = 0; // the host's dispatch of the program, not part of device_us
  std::uint64_t dram_bytes_read = 0, dram_bytes_written = 0;
  std::uint64_t matmul_tiles = 0;
  double matmul_tflops = 0;          // 2 * 32^3 per matmul tile over the device time
  double ideal_matmul_cycles = 0;    // GEMM_FLOPS: tiles * cycles per tile / cores of the grid
  double utilization = 0;            // ideal_matmul_cycles / device_cycles
  double dram_gbps = 0;              // bytes read and written over the device time
  double dram_roofline_gbps = 0;     // the DRAM's peak
  double compute_cycles = 0;         // every tile operation's cycles (math and pack threads)
  double compute_bound_cycles = 0;   // the longer thread's tile operations spread over the grid
  double dram_bound_cycles = 0;      // the DRAM bytes at the DRAM's peak
  std::vector<KernelTiming> kernels; // by core (row-major), then kernel creation order
};
/// The last program run in timing mode in this process, if any.
const std::optional<ProgramTiming>& last_timing();
/// Every program run in timing mode since the last set_timing(true), in launch order (one
/// generated run_tt may launch several: a whole-tensor reduction's two programs); empty when the
/// environment, not set_timing(true), turned timing on.
const std::vector<ProgramTiming>& timings();

// The chip's facts (L1, DRAM banks, coordinates, alignments) are the device's ArchSpec (arch/):
/// The architecture `device` emulates (TK_EMULATOR_ARCH when it was created, else the default).
const ::tk::arch::ArchSpec& device_arch(const tt::tt_metal::distributed::MeshDevice& device);
constexpr std::uint32_t kMaxRuntimeArgs = 341;
} // namespace tk::rt::emu
