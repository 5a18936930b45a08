// ArchSpec: the facts TileKit knows about one Tenstorrent architecture (arch/arch.hpp has the
// table of architectures, wormhole_b0.hpp the values and their sources).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace tk::arch {

/// One timing-model figure: its value and where it comes from (a tt-metal document, or
/// "assumption: ..." where nothing is published).
struct Param {
  double value;
  std::string_view source;
};

/// What one SFPU call costs on a 32x32 tile in DST, by the DST format of the compute kernel
/// (ComputeConfig::fp32_dest_acc_en): tt-llk runs a different kernel for some calls (exp's
/// Cody-Waite polynomial with an fp32 DST, exp_21f with a 16-bit one). `call` is the SDK's call
/// without `_tile` (`exp` for exp_tile, `mul_binary` for mul_binary_tile, `mul_unary` for
/// mul_unary_tile).
struct SfpuCost {
  std::string_view call;
  Param fp32_dst;
  Param bf16_dst;
  /// The kernel passes the figures cover: 4 (tt-llk's default VectorMode::RC, the kernel once per
  /// face), or 1 (a kernel that runs the whole tile in one pass on VectorMode::None).
  int passes = 4;
};

/// A set of NoCs (bit n: NoC n) and where the fact comes from.
struct NocSet {
  std::uint32_t bits;
  std::string_view source;
  constexpr bool has(int noc) const { return ((bits >> noc) & 1U) != 0; }
};

/// A NoC coordinate (x, y).
struct NocCoord {
  std::uint32_t x, y;
  friend constexpr bool operator==(const NocCoord&, const NocCoord&) = default;
};

/// The most DRAM banks of any architecture (the bank table's capacity).
inline constexpr std::size_t kMaxDramBanks = 12;
/// The most worker columns (rows) of any architecture's die (the NoC 0 coordinate tables'
/// capacity).
inline constexpr std::size_t kMaxWorkerLines = 16;
/// The most circular buffers per core of any architecture: what the SDK's host sizes its per-CB
/// tables for (NUM_CIRCULAR_BUFFERS without ARCH_WORMHOLE, tt_metal/api/tt-metalium/
/// circular_buffer_constants.h); a device takes ArchSpec::num_circular_buffers of them.
inline constexpr std::uint32_t kMaxCircularBuffers = 64;

struct ArchSpec {
  // ---- Identity --------------------------------------------------------------------------------
  std::string_view name;    // as --arch spells it: "wormhole_b0"
  std::string_view product; // the board the figures are for: "n150"
  /// The firmware's architecture define (-D...), as tt-metal's JIT build passes it.
  std::string_view firmware_define;
  /// The architecture's folders in the JIT build's include list (ttgen check --sdk):
  /// tt_metal/hw/ckernels/<jit_ckernels>/metal/..., tt_metal/hw/inc/internal/tt-1xx/<jit_inc> and
  /// <jit_inc>/<jit_inc_defines>, tt_metal/tt-llk/<jit_llk>/...
  std::string_view jit_ckernels, jit_inc, jit_inc_defines, jit_llk;
  /// The PCIe core the JIT build defines as PCIE_NOC_X/Y (translated coordinates).
  NocCoord jit_pcie_core;

  // ---- Worker grid and coordinates ------------------------------------------------------------
  /// The compute-with-storage grid of the product: columns (x) by rows (y).
  std::uint32_t grid_x, grid_y;
  /// NoC coordinates of worker (x, y) are virtual_worker_start + (x, y) on both NoCs: the
  /// harvesting-free (translated) coordinates that worker_core_from_logical_core returns; except
  /// that logical columns from noc_x_gap_from on sit noc_x_gap columns further right, past the
  /// columns of the die that hold no Tensix core (Blackhole's; 0 on Wormhole).
  std::uint32_t virtual_worker_start_x, virtual_worker_start_y;
  std::uint32_t noc_x_gap_from, noc_x_gap;
  /// The NoC 0 coordinate of each DRAM bank (interleaved page p lives in bank p % dram_banks).
  std::uint32_t dram_banks;
  std::array<NocCoord, kMaxDramBanks> dram_bank_noc;
  /// Bytes one DRAM bank holds (a bank is a view of half a channel).
  std::uint64_t dram_bank_bytes;

  // ---- L1 --------------------------------------------------------------------------------------
  std::uint32_t l1_size;            // bytes of L1 per worker core
  std::uint32_t mem_map_end;        // the end of the firmware's reserved region (MEM_MAP_END)
  std::uint32_t kernel_config_size; // the kernel-config ring above it (runtime args, CB configs)
  std::uint32_t l1_alignment;       // L1 buffers and CB pages
  std::uint32_t dram_alignment;     // DRAM buffer pages
  /// Circular buffers per core: CB indices 0 .. num_circular_buffers - 1 (the HAL's
  /// get_arch_num_circular_buffers; at most kMaxCircularBuffers).
  std::uint32_t num_circular_buffers;

  // ---- NoC -------------------------------------------------------------------------------------
  std::uint32_t num_nocs;
  std::uint32_t noc_word_bytes;      // one flit's payload
  std::uint32_t noc_max_burst_bytes; // the largest single NoC transaction
  /// The routers' own grid, for the timing model's routes (runtime/tt/src/noc_links.cpp): the
  /// torus's size in NoC 0 coordinates (x columns by y rows), the NoC 0 column of each logical
  /// worker column and row of each logical worker row (the routers the workers sit at, not the
  /// translated coordinates above), and each DRAM bank's endpoint router per NoC (NoC 0
  /// coordinates on both).
  std::uint32_t noc_size_x, noc_size_y;
  std::array<std::uint8_t, kMaxWorkerLines> worker_noc0_x, worker_noc0_y;
  std::array<std::array<NocCoord, kMaxDramBanks>, 2> dram_bank_router;

  // ---- DST -------------------------------------------------------------------------------------
  /// DST tiles with a 16-bit DST in full-sync mode; half-sync halves it, fp32 halves it again.
  std::uint32_t dst_tiles_full_sync_16bit;

  // ---- Clock and timing model (runtime/tt/src/timing.cpp, report/, choose-blocks) ------------
  Param clock_ghz;
  // Compute (cycles per 32x32 tile on the compute clock; the three TRISCs are one clock).
  std::array<Param, 4> matmul_tile; // LoFi, HiFi2, HiFi3, HiFi4
  Param eltwise_tile;               // add / sub; mul multiplies by the fidelity's phases
  Param reduce_tile;                // max; sum / avg multiply by the fidelity's phases
  Param copy_tile;                  // unpack of one tile to DST
  /// The SFPU calls whose cost comes from a source (a measurement or tt-llk's instructions
  /// counted), one entry per call; timing_params.hpp, sfpu_tile_cycles, reads it.
  std::span<const SfpuCost> sfpu_tile;
  Param sfpu_simple_tile;     // an SFPU call without an sfpu_tile entry (none that is emitted)
  Param pack_bytes_per_cycle; // DST to L1, on the pack thread (overlaps the math thread)
  Param sync_call;            // a CB call on a RISC (and its loop's control)
  // Operand delivery and call overheads of the compute kernel (the unpack and math threads).
  Param unpack_bytes_per_cycle;        // an unpacker fetching from L1 alone (x4)
  Param unpack_shared_bytes_per_cycle; // each unpacker while both fetch (throttled to x2)
  Param unpack_address;                // per UNPACR: its input address, before the bytes stream
  /// The shorter side's tiles tt-llk's matmul unpack (_llk_unpack_AB_matmul_) puts in the source
  /// register's banks per pass, each pass followed by the longer side's tiles: a count of tiles.
  Param matmul_pass_tiles;
  Param matmul_call; // per matmul call (one k step of a sub-block; matmul_tiles is 1x1)
  Param init_call;   // an *_init* call: unpacker / math / packer reconfiguration
  Param dst_handoff; // a tile_regs_* call (the DST half-sync semaphores)
  // Data movement (cycles and bytes per cycle at the AI clock).
  Param dram_bank_bytes_per_cycle;       // what one bank delivers to interleaved reads and writes
  Param dram_read_total_bytes_per_cycle; // all DRAM reads on one NoC together (contention)
  /// The NoCs whose DRAM reads and writes share dram_read_total_bytes_per_cycle (the NoC it was
  /// measured on); on the others the banks and the links alone bound DRAM traffic.
  NocSet dram_total_nocs = {0b11, "the measured rate applied to both NoCs"};
  Param dram_peak_bytes_per_cycle;  // all banks at spec speed: the roofline
  Param port_read_bytes_per_cycle;  // into one core, per NoC
  Param port_write_bytes_per_cycle; // out of one core, per NoC
  Param mcast_bytes_per_cycle;      // a linked multicast out of one core
  Param mcast_line_bytes_per_cycle; // the links of one row (column), shared by its multicasts
  Param noc_link_bytes_per_cycle;   // one link between neighbouring routers, per NoC
  Param dram_read_latency;
  Param dram_write_latency;
  Param l1_read_latency;
  Param l1_write_latency;
  Param mcast_latency;
  Param read_issue;  // RISC cycles to issue one read request
  Param write_issue; // RISC cycles to issue one write (or semaphore) request
  // Host.
  Param host_dispatch_us; // per program launch, reported apart from the device time

  // ---- Derived (computed as tt-metal computes them, never stored) -----------------------------
  /// The first address the allocator hands out, where CBs start (HalL1MemAddrType::
  /// DEFAULT_UNRESERVED): MEM_MAP_END plus the kernel-config ring, rounded up to the larger of the
  /// L1 and DRAM alignments (create_tensix_mem_map in the HAL).
  constexpr std::uint32_t first_free_l1_address() const {
    const std::uint32_t align = l1_alignment > dram_alignment ? l1_alignment : dram_alignment;
    return ((mem_map_end + kernel_config_size - 1) | (align - 1)) + 1;
  }
  /// The bytes a core's CBs (and L1 buffers) may use: tt-metal's program.cpp throws when a CB
  /// ends past l1_size.
  constexpr std::uint32_t l1_cb_budget() const { return l1_size - first_free_l1_address(); }
  /// DST tiles in a mode (dest_helpers.hpp's get_dest_limit).
  constexpr std::uint32_t dst_tiles(bool fp32, bool full_sync = false) const {
    return dst_tiles_full_sync_16bit / (full_sync ? 1 : 2) / (fp32 ? 2 : 1);
  }
  constexpr std::uint32_t num_workers() const { return grid_x * grid_y; }
  constexpr NocCoord worker_noc(std::uint32_t x, std::uint32_t y) const {
    return {virtual_worker_start_x + x + (x >= noc_x_gap_from ? noc_x_gap : 0),
            virtual_worker_start_y + y};
  }
  /// The logical worker at NoC coordinate (x, y), the inverse of worker_noc; nothing when no
  /// worker of any grid sits there (left of or above the first worker, or in the gap).
  constexpr std::optional<NocCoord> worker_at_noc(std::uint32_t x, std::uint32_t y) const {
    if (x < virtual_worker_start_x || y < virtual_worker_start_y)
      return std::nullopt;
    std::uint32_t lx = x - virtual_worker_start_x;
    if (lx >= noc_x_gap_from) {
      if (lx < noc_x_gap_from + noc_x_gap)
        return std::nullopt;
      lx -= noc_x_gap;
    }
    return NocCoord{lx, y - virtual_worker_start_y};
  }
  std::span<const NocCoord> dram_bank_nocs() const { return {dram_bank_noc.data(), dram_banks}; }
};

} // namespace tk::arch
