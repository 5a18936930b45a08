// The emulator's internal device model: DRAM banks, per-core L1 windows, circular buffers, DST,
// programs, and the fibers that run kernels. Shared by the host API, the scheduler and the kernel
// entry points.
#pragma once
#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <boost/context/fiber.hpp>

#include "arch/arch.hpp"

#include <tk_emulator/device_api.hpp>
#include <tk_emulator/emulator.hpp>
#include <tt-metalium/host_api.hpp>

#include "timing.hpp"

namespace tk::rt::emu {
using tt::tt_metal::ComputeConfig;
using tt::tt_metal::CoreCoord;
using tt::tt_metal::CoreRange;
using tt::tt_metal::CoreRangeSet;
using tt::tt_metal::DataMovementConfig;
using tt::tt_metal::MathFidelity;
using tt::tt_metal::UnpackToDestMode;

std::string cb_name(std::uint32_t cb); // "c_16"
/// Whether `cb` is a CB index of `a` (ArchSpec::num_circular_buffers), and the error text when it
/// is not: "CB index 40 is out of range (32 CBs on wormhole_b0)".
bool cb_in_range(const arch::ArchSpec& a, std::int64_t cb);
std::string cb_out_of_range(const arch::ArchSpec& a, std::int64_t cb);
std::string hex(std::uint64_t v);

// One interleaved allocation; in DRAM the same address range in every bank, in L1 in every worker
// core.
struct Allocation {
  std::uint32_t id = 0;
  bool dram = true;
  std::uint64_t address = 0;
  std::uint64_t bytes_per_bank = 0;
  bool alive = true;
};

struct DeviceState {
  const arch::ArchSpec& arch;      // the chip emulated: L1, banks, coordinates, timing
  CoreCoord grid;                  // compute_with_storage grid (x = columns, y = rows)
  std::uint8_t* l1_base = nullptr; // grid.x * grid.y windows of arch.l1_size bytes, below 4 GiB
  int l1_fd = -1;                  // the memfd l1_base maps (l1_window.cpp)
  // The DRAM banks, arch.dram_bank_bytes each, one after another: address space reserved without
  // backing store (MAP_NORESERVE), so a page takes memory only once something is stored in it;
  // without the arithmetic nothing is (dram_holds_bytes).
  std::uint8_t* dram_base = nullptr;
  std::uint64_t dram_top = 64; // bump allocator, same offset in every bank
  std::uint64_t l1_bottom;     // L1 buffers grow down from the top of L1
  std::vector<Allocation> allocations;
  std::vector<struct CoreState*> launch_cores; // by core index, during a launch; null if unused

  DeviceState(const arch::ArchSpec& a, CoreCoord grid_size);
  ~DeviceState();
  std::uint32_t num_cores() const { return static_cast<std::uint32_t>(grid.x * grid.y); }
  std::uint32_t l1_size() const { return arch.l1_size; }
  std::uint8_t* l1(std::uint32_t core_index) const {
    return l1_base + std::size_t{core_index} * arch.l1_size;
  }
  std::uint8_t* dram(std::uint32_t bank) const { return dram_base + bank * arch.dram_bank_bytes; }
  std::uint32_t core_index(const CoreCoord& logical) const {
    return static_cast<std::uint32_t>(logical.y * grid.x + logical.x);
  }
  // NoC coordinates (the same on both NoCs): a worker's are the architecture's harvesting-free
  // virtual coordinates, a DRAM bank's its NoC 0 endpoint (arch/).
  CoreCoord worker_noc(const CoreCoord& logical) const;
  /// The logical core at NoC (x, y), or nullopt when no worker of the grid sits there.
  std::optional<CoreCoord> worker_at(std::uint32_t x, std::uint32_t y) const;
  CoreCoord dram_bank_noc(std::uint32_t bank) const;
  std::uint32_t dram_banks() const { return arch.dram_banks; }
  /// Where semaphore 0 lives (semaphore i at + i * L1 alignment): the kernel-config ring above
  /// MEM_MAP_END, where tt-metal places a program's semaphores.
  std::uint32_t semaphore_base() const { return arch.mem_map_end; }
};

struct CbRecord {
  std::map<std::uint8_t, tt::DataFormat> formats;
  std::map<std::uint8_t, std::uint32_t> page_sizes;
  std::uint32_t total_size = 0;
  CoreRangeSet cores;
  std::uint32_t address = 0; // L1 offset, same on every core of `cores`
  // Set: the CB lives in an L1 buffer at this address (CircularBufferConfig::
  // set_globally_allocated_address), not in the program's CB space.
  std::optional<std::uint32_t> global_address;
};

struct KernelRecord {
  std::string path;
  CoreRangeSet cores;
  bool compute = false;
  DataMovementConfig dm;
  ComputeConfig cc;
  std::map<CoreCoord, std::vector<std::uint32_t>> runtime_args;
  std::map<CoreCoord, tt::tt_metal::RuntimeArgsData> views;
  std::vector<std::uint32_t> common_args;
  tt::tt_metal::RuntimeArgsData common_view;
};

struct SemaphoreRecord {
  CoreRangeSet cores;
  std::uint32_t initial = 0;
};
} // namespace tk::rt::emu

namespace tt::tt_metal {
// What an Allocator answers from: the device model.
class AllocatorImpl {
public:
  explicit AllocatorImpl(const tk::rt::emu::DeviceState& device) : dev(device) {}
  const tk::rt::emu::DeviceState& dev;
};
} // namespace tt::tt_metal

namespace tt::tt_metal::detail {
struct ProgramImpl {
  std::vector<tk::rt::emu::KernelRecord> kernels;
  std::vector<tk::rt::emu::CbRecord> cbs;
  std::vector<tk::rt::emu::SemaphoreRecord> semaphores;
};
} // namespace tt::tt_metal::detail

namespace tk::rt::emu {
struct CbState {
  std::uint32_t id = 0; // its index on the core
  bool configured = false;
  std::uint32_t address = 0; // L1 offset
  std::uint32_t page_size = 0;
  std::uint32_t num_pages = 0;
  tt::DataFormat format = tt::DataFormat::Invalid;
  std::uint32_t received = 0, acked = 0; // cumulative pages pushed / popped
  std::uint32_t wr_page = 0, rd_page = 0;
  std::uint32_t reserved = 0; // pages reserved and not yet pushed
  std::uint32_t waited = 0;   // pages waited for and not yet popped
  std::uint32_t pack_index = 0;
  // Timing mode: when each page was last pushed, and last popped (its slot free again).
  std::vector<double> ready_at, free_at;
  // The hardware's arithmetic on its 16-bit pages_received/pages_acked registers
  // (api/dataflow/dataflow_api.h, cb_wait_front and cb_reserve_back): the same as plain
  // differences while the protocol holds; with the watcher off, a pop without a wait makes
  // acked pass received and the CB look full of pages to its consumer, as on the chip.
  std::uint32_t available() const { return static_cast<std::uint16_t>(received - acked); }
  std::uint32_t free_pages() const { return static_cast<std::uint16_t>(num_pages - available()); }
};

using Tile = std::array<float, 1024>; // in CB page order: four 16x16 faces

struct DstState {
  std::array<Tile, 16> tiles{};
  bool math = false;      // between acquire and commit
  bool committed = false; // between commit and release
  bool pack = false;      // between wait and release
  bool acc_to_dest = false;
  // mm_init / mm_init_short's transpose: matmul_tiles transposes each in1 tile (B) until the next
  // matmul init.
  bool mm_transpose = false;
  // llk_unpack_AB_matmul's tiles (in0's CB and tile, in1's, in0's row stride) for the next
  // llk_math_matmul; unpacked is false until one.
  bool unpacked = false;
  std::uint32_t unp_cb0 = 0, unp_cb1 = 0, unp_tile0 = 0, unp_tile1 = 0, unp_kt = 1;
  // The packer's edge mask, set by reduce_init (its ReduceDim: 0 ROW, 1 COL, 2 SCALAR) until
  // reduce_uninit; -1 when clear.
  int pack_mask = -1;
  // pack_reconfig_l1_acc(1): pack_tile adds DST to the tile already in L1 instead of overwriting.
  bool l1_acc = false;
  // llk_pack_relu_config(ReluType::ZERO_RELU): pack_tile writes max(value, 0) (NO_RELU: off).
  bool pack_relu = false;
  // The approximate exp's setup, by the last exp_tile_init<true, scale, clamping> (None before one
  // and after exp_tile_init<false>, which reloads the constants), and its scale's fp32 bits.
  enum class ExpApprox : std::uint8_t { None, Clamp, NoClamp } exp_approx = ExpApprox::None;
  std::uint32_t exp_approx_scale = 0x3f800000u;
  // The init that last reloaded the programmable constants the approximate exp reads (empty:
  // none since the kernel started).
  std::string exp_approx_cleared_by;
  // The formats configured for the unpacker's srcA and srcB and for the packer, and the CBs they
  // were taken from (for the messages); Invalid until a hardware init configures them.
  tt::DataFormat srca = tt::DataFormat::Invalid, srcb = tt::DataFormat::Invalid,
                 pack_format = tt::DataFormat::Invalid;
  std::uint32_t srca_cb = 0, srcb_cb = 0, pack_cb = 0;
  // What the last inits configured the unpacker and the math thread for, and the init that did
  // (tk_emulator/op_inits.hpp); empty before any.
  std::string unpack_for, unpack_by, math_for, math_by;
};

struct CoreState {
  CoreCoord logical;
  CoreCoord noc;
  std::uint32_t index = 0;
  std::uint8_t* l1 = nullptr;
  std::array<CbState, arch::kMaxCircularBuffers> cbs{}; // the device's arch uses the first ones
  std::uint32_t num_semaphores = 0;
  std::vector<double> semaphore_set_at; // timing mode: when each semaphore last got a value
  DstState dst;
  std::array<std::uint8_t, 2> noc_x{}, noc_y{};
};

using EntryFn = void (*)();

// Yield: runnable, but lets a kernel with an earlier clock run first (timing mode).
enum class WaitKind { None, Reserve, Front, Semaphore, Poll, Yield };
struct Wait {
  WaitKind kind = WaitKind::None;
  std::uint32_t cb = 0;
  std::uint32_t pages = 0;
  volatile std::uint32_t* sem = nullptr;
  std::uint32_t value = 0;
  bool at_least = false;
  std::string what; // for Poll: the probe's name
};

// What one kernel did with one CB of its core: the deadlock report names, for a kernel blocked on
// a CB, the kernels on the CB's other side.
struct CbUse {
  bool produces = false; // called cb_reserve_back or cb_push_back on it
  bool consumes = false; // called cb_wait_front or cb_pop_front on it
  std::uint32_t pushed = 0, popped = 0;
};

struct Fiber {
  CoreState* core = nullptr;
  const KernelRecord* kernel = nullptr;
  EntryFn entry = nullptr;
  const std::vector<std::uint32_t>* args = nullptr;
  // The runtime-arg slots the dispatcher writes for this kernel on this core: the most args any
  // core of its kernel group (the cores that run the same kernels) was given (host_api.cpp).
  std::size_t arg_slots = 0;
  boost::context::fiber context; // created when the scheduler first resumes the kernel
  boost::context::fiber* scheduler = nullptr;
  Wait wait;
  std::array<CbUse, arch::kMaxCircularBuffers> cb_use{};
  // NoC transactions issued and not yet waited for (dataflow.cpp): reads until a read barrier;
  // the distinct L1 ranges (offset, bytes) that writes and multicasts send from, until a write
  // barrier or a flush (a multicast sender that never flushes repeats a few ranges).
  struct {
    std::uint32_t reads = 0;
    std::vector<std::pair<std::uint32_t, std::uint32_t>> write_sources;
  } noc_pending;
  // Each NoC's read state (Noc::set_async_read_state): set, source address, size.
  struct {
    bool set = false;
    std::uint64_t src = 0;
    std::uint32_t size = 0;
  } noc_read_state[2];
  bool done = false;
  std::string error;
  timing::KernelClock time; // timing mode
  // For AddressSanitizer's fiber API (scheduler.cpp): this fiber's stack, the stack of the
  // scheduler it switches back to, and its fake stack while it is suspended.
  const void* stack_bottom = nullptr;
  std::size_t stack_size = 0;
  const void* scheduler_stack_bottom = nullptr;
  std::size_t scheduler_stack_size = 0;
  void* fake_stack = nullptr;
};

// The fiber the scheduler is running; kernel entry points act on it.
Fiber& current();
// Called when a kernel returns: fails if it left NoC reads not waited for (dataflow.cpp).
void check_noc_idle();
// Throws a kernel error: the scheduler reports it with the kernel path and core.
[[noreturn]] void fail(const std::string& message);
// A protocol violation that silicon tolerates (watcher.cpp, docs/emulator.md "The watcher off"):
// with the watcher on (the default) it fails with `message`; with TK_EMULATOR_WATCHER=off it prints
// "watcher off: <kernel>: core (x,y): <message>" on stderr, once per kernel and `site` in a launch,
// and returns: the caller then does what the hardware does.
void violation(const std::string& site, const std::string& message);
// Whether the launch that runs has the watcher off.
bool watcher_off();
// Reads TK_EMULATOR_WATCHER for the launch about to run and forgets the last launch's warnings;
// throws EmulatorError when it is neither on, off, 1 nor 0.
void begin_watcher_launch();
// Suspends the current fiber until `wait` holds.
void block(Wait wait);
// Timing mode: lets the kernels whose clocks are behind the current one's run first.
void yield_if_behind();
// Bumped on every state change that a polling kernel might be waiting for.
void note_progress();

// Runs the fibers to completion; throws EmulatorError on a kernel error or a deadlock.
void run_fibers(std::vector<std::unique_ptr<Fiber>>& fibers);

// JIT: the entry point of `kernel` compiled for the CB formats of `core`.
EntryFn load_kernel(const KernelRecord& kernel, const CoreState& core);

// Reads set_math / TK_EMULATOR_MATH for the launch about to run (compute.cpp).
void begin_math_launch();
namespace compute_detail {
/// Whether this launch computes values (TK_EMULATOR_MATH, set_math; compute.cpp).
bool math_on();
} // namespace compute_detail
/// Whether DRAM keeps the bytes stored in it: only with the arithmetic. Without it (docs/timing.md,
/// "Projections without the arithmetic") every output is undefined, so host writes and NoC
/// writes into DRAM store nothing and reads from DRAM copy nothing (their checks and their timing
/// stay): a projection needs no memory for the tensors. `launch`: a kernel's transfer (the
/// launch's setting), else the host's (set_math / TK_EMULATOR_MATH now).
bool dram_holds_bytes(bool launch);

// Directly addressable L1 (l1_window.cpp): a memfd for a device's L1; the running core's L1 shown
// at its own addresses while its kernels run.
int make_l1_memfd(std::size_t bytes);
void l1_window_enter(const DeviceState& dev, const CoreState& core);
void l1_window_leave();

// The device a launch runs on (set for the duration of EnqueueMeshWorkload).
DeviceState& active_device();
void set_active_device(DeviceState* device);
} // namespace tk::rt::emu
