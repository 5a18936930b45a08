// Blackhole, as the P150 board (140 Tensix cores, no harvesting): every figure with the tt-metal
// file it comes from (tt-metal a8c5af0f5a26, paths from its root). The timing figures come from
// documents only: the P150 rows of tech_reports/GEMM_FLOPS are held out to check the model
// (bench/gemm_flops_p150.py), never used to set it.
#pragma once

#include "arch/spec.hpp"
#include "arch/wormhole_b0.hpp"

namespace tk::arch {

// Sources of the timing figures, abbreviated in the table:
//  GEMM  = tech_reports/GEMM_FLOPS/GEMM_FLOPS.md (its text; not its P150 result rows)
//  ME    = tech_reports/matrix_engine/matrix_engine.md ("All numbers and values apply to both
//          Wormhole and Blackhole devices")
//  MOREH = tests/scripts/test_moreh_microbenchmark.py, test_dram_read_all_core: the measured DRAM
//          read bandwidth of all banks must lie in [490, 512] GB/s on Blackhole
//  NOC   = tt_metal/impl/experimental/noc_estimator/latencies/noc_latencies.yaml, the entries
//          keyed `arch: 3` (noc_estimator/types.hpp: Architecture::BLACKHOLE = 3); the same tests
//          as Wormhole's figures ("N x S B" = N transactions of S bytes, cycles from the first
//          issue to the barrier)
inline constexpr ArchSpec kBlackhole{
    .name = "blackhole",
    .product = "p150",
    // tt_metal/llrt/hal/tt-1xx/blackhole/bh_hal.cpp: the JIT build defines ARCH_BLACKHOLE.
    .firmware_define = "ARCH_BLACKHOLE",
    // bh_hal.cpp, includes(): hw/ckernels/blackhole/metal/{common,llk_io,llk_api},
    // hw/inc/internal/tt-1xx/blackhole/{,blackhole_defines,noc}, tt-llk/tt_llk_blackhole (the
    // snapshot has no blackhole_defines folder; the list names it, so ours does too).
    .jit_ckernels = "blackhole",
    .jit_inc = "blackhole",
    .jit_inc_defines = "blackhole_defines",
    .jit_llk = "tt_llk_blackhole",
    // tt_metal/tools/precompile_fw/precompile_fw.cpp pcie_core_map (BLACKHOLE: {19, 24}, the
    // translated coordinates jit_device_config.cpp takes from the soc descriptor).
    .jit_pcie_core = {19, 24},

    // tt_metal/core_descriptors/blackhole_140_arch.yaml, unharvested (P150): the
    // compute_with_storage_grid_range [0, 0]..[12, 9]; the 14th column (logical x 13) holds the
    // dispatch cores. tech_reports/GEMM_FLOPS: "Blackhole supporting up to 13x10".
    .grid_x = 13,
    .grid_y = 10,
    // tt_metal/hw/inc/internal/tt-1xx/blackhole/noc/noc_parameters.h: VIRTUAL_TENSIX_START_X 1,
    // VIRTUAL_TENSIX_START_Y 2, COORDINATE_VIRTUALIZATION_ENABLED 1. The Tensix columns of the die
    // are NoC x 1-7 and 10-16 (tt_metal/soc_descriptors/blackhole_140_arch.yaml,
    // functional_workers; x 8 holds ARC, security and L2CPU, x 9 DRAM), and on an unharvested chip
    // a core's translated coordinate is its NoC 0 one, so logical columns 7.. sit 2 further right.
    .virtual_worker_start_x = 1,
    .virtual_worker_start_y = 2,
    .noc_x_gap_from = 7,
    .noc_x_gap = 2,
    // tt_metal/soc_descriptors/blackhole_140_arch.yaml: 8 dram_views (bank b is view b, channel
    // b). Blackhole virtualizes DRAM (bh_hal.cpp: virtualized_core_types_ has DRAM), so the bank
    // table holds translated coordinates (risc_firmware_initializer.cpp, dram_is_virtualized):
    // metal_soc_descriptor.cpp asks for dram[channel][worker_endpoint[0]] in CoordSystem::
    // TRANSLATED, which tt-umd maps channels 0-3 to x 17 and 4-7 to x 18, y 12 + 3 * (channel % 4)
    // + endpoint (tt-umd blackhole_coordinate_manager.cpp, fill_dram_noc0_translated_mapping;
    // blackhole_implementation.hpp: dram_translated_coordinate_start 17, 12). NoC 0 endpoints:
    // views 1-3 endpoint 0, views 0 and 4-7 endpoint 2.
    .dram_banks = 8,
    .dram_bank_noc =
        {{{17, 14}, {17, 15}, {17, 18}, {17, 21}, {18, 14}, {18, 17}, {18, 20}, {18, 23}}},
    // The same file: dram_view_size 4278190080 (dev_mem_map.h: MEM_DRAM_SIZE 4177920 * 1024).
    .dram_bank_bytes = 4278190080,

    // tt_metal/soc_descriptors/blackhole_140_arch.yaml: worker_l1_size 1572864 (= MEM_L1_SIZE,
    // 1536 KiB, in tt_metal/hw/inc/internal/tt-1xx/blackhole/dev_mem_map.h). The bring-up guide's
    // table says "1464 KB" for Blackhole too; the header and the SoC descriptor are what the
    // allocator uses.
    .l1_size = 1572864,
    // tt_metal/hw/inc/internal/tt-1xx/blackhole/dev_mem_map.h: MEM_MAP_END, the end of the packet
    // header pool (144 B x 6 x 2 x MaxDMProcessorsPerCoreType 2, core_config.h), is 40448 = 0x9e00.
    .mem_map_end = 40448,
    // tt_metal/llrt/hal/tt-1xx/blackhole/bh_hal_tensix.cpp: default_l1_kernel_config_size
    // 69 * 1024 from MEM_MAP_END; DEFAULT_UNRESERVED rounds its end up to max(DRAM, L1) alignment
    // (first_free_l1_address(): 0x1b200).
    .kernel_config_size = 69 * 1024,
    // tt_metal/hw/inc/internal/tt-1xx/blackhole/noc/noc_parameters.h: L1_ALIGNMENT 16
    // (NOC_L1_READ/WRITE_ALIGNMENT_BYTES), DRAM_ALIGNMENT 64 (NOC_DRAM_READ_ALIGNMENT_BYTES).
    .l1_alignment = 16,
    .dram_alignment = 64,
    // tt_metal/llrt/hal.hpp, get_arch_num_circular_buffers: NUM_CIRCULAR_BUFFERS, which
    // tt_metal/api/tt-metalium/circular_buffer_constants.h makes 64 when ARCH_WORMHOLE is not
    // defined ("Blackhole supports the full CB count").
    .num_circular_buffers = 64,

    // The same file: NUM_NOCS 2, NOC_PAYLOAD_WIDTH 512 so NOC_WORD_BYTES 64, NOC_MAX_BURST_WORDS
    // 256 so NOC_MAX_BURST_SIZE 16384.
    .num_nocs = 2,
    .noc_word_bytes = 64,
    .noc_max_burst_bytes = 16384,
    // tt_metal/soc_descriptors/blackhole_140_arch.yaml: grid 17 x 12; functional_workers in NoC 0
    // columns 1-7 and 10-16 and rows 2-11 (an unharvested P150: logical column x at the translated,
    // here NoC 0, column worker_noc(x, 0).x above).
    .noc_size_x = 17,
    .noc_size_y = 12,
    .worker_noc0_x = {1, 2, 3, 4, 5, 6, 7, 10, 11, 12, 13, 14, 15, 16},
    .worker_noc0_y = {2, 3, 4, 5, 6, 7, 8, 9, 10, 11},
    // The same yaml: dram[channel][worker_endpoint[noc]] of view b (channel b); the endpoints
    // differ per NoC: NoC 0 takes endpoint 2 of channels 0 and 4-7 and 0 of 1-3, NoC 1 endpoint 1.
    .dram_bank_router = {{{{{0, 11}, {0, 2}, {0, 9}, {0, 5}, {9, 11}, {9, 3}, {9, 8}, {9, 6}}},
                          {{{0, 1}, {0, 10}, {0, 4}, {0, 7}, {9, 1}, {9, 10}, {9, 4}, {9, 7}}}}},

    // ttnn/cpp/ttnn/kernel_lib/dest_helpers.hpp, get_dest_limit (the same for every architecture):
    // SyncFull 16 tiles with a 16-bit DST, 8 with fp32; SyncHalf 8 and 4.
    .dst_tiles_full_sync_16bit = 16,

    .clock_ghz = {1.35, "GEMM: 'At 1.35GHz (BH)'"},
    .matmul_tile = {{{16, "GEMM: cycle_per_tile LoFi 16 (one matrix engine on WH and BH)"},
                     {32, "GEMM: HiFi2 32"},
                     {48, "GEMM: HiFi3 48"},
                     {64, "GEMM: HiFi4 64"}}},
    .eltwise_tile = {8, "ME: 8x16 element-wise per cycle (1024 / 128); mul x fidelity phases"},
    .reduce_tile = {4, "ME: 16x16 reduce per cycle (1024 / 256); sum, avg x fidelity phases"},
    .copy_tile = {8, "assumption: a datacopy moves 8x16 per cycle, like an element-wise op"},
    // Assumption: Wormhole's SFPU costs (tt-isa-documentation describes only Wormhole B0's
    // SFPU, and tt-llk's Blackhole kernels were not counted).
    .sfpu_tile = kWormholeB0SfpuCosts,
    .sfpu_simple_tile = {64, "assumption: 32 rows of 32 lanes, 2 instructions each"},
    .pack_bytes_per_cycle = {64, "assumption: the packer writes 64 B per cycle to L1"},
    .sync_call = {10, "assumption: a few RISC-V loads, compares and stores"},
    // The unpackers: tenstorrent/tt-isa-documentation (ec91668) BlackholeA0/TensixTile/
    // TensixCoprocessor/UNPACR_Regular.md is "shared with the Wormhole tree", its differences
    // "conditionalized inline using TTArchitecture"; its "Performance" section has no Blackhole
    // condition, so the x1 / x2 / x4 rates, the sharing table and the two address cycles are
    // Blackhole's too (the only Blackhole condition, UnpackRowWidth 32 datums for 16-bit formats,
    // is where a row's datums are read from, not how fast). tt-llk asks x4 of both unpackers on
    // Blackhole as well (tt_llk_blackhole/common/inc/cunpack_common.h, throttle_mode = 2).
    .unpack_bytes_per_cycle = {64, "ISA (BlackholeA0 UNPACR_Regular.md, the Wormhole page, "
                                   "'Performance' unconditional): x4, 'up to 64 bytes per cycle "
                                   "from L1', an unpacker fetching alone"},
    .unpack_shared_bytes_per_cycle = {32, "ISA (the same page): both unpackers want x4 and fetch "
                                          "at once: 'each gets x2'"},
    .unpack_address = {2, "ISA (the same page): two cycles of input address per uncompressed "
                          "UNPACR"},
    // tt-llk tt_llk_blackhole/llk_lib/llk_unpack_AB_matmul.h, _llk_unpack_AB_matmul_: each turn of
    // its t loop unpacks one of the shorter side's tiles, then the longer side's (the MOP, one
    // UNPACR each), so the longer side's tiles are unpacked once per shorter-side tile (Wormhole's
    // loop takes two); llk_math_matmul.h multiplies each longer-side tile with that one tile,
    // giving the longer side's bank back after each product and the shorter side's after the last.
    .matmul_pass_tiles = {1, "tt-llk: tt_llk_blackhole _llk_unpack_AB_matmul_ unpacks the "
                             "shorter side one tile per pass of the longer side"},
    .matmul_call = {20, "assumption: Wormhole's (pinned by GEMM's N150 HiFi4 rows)"},
    .init_call = {50, "assumption: a few dozen configuration-register writes"},
    .dst_handoff = {10, "assumption: a semaphore update and a stall on it"},
    .dram_bank_bytes_per_cycle = {45.37, "MOREH: all 8 banks read at >= 490 GB/s; / 8 / 1.35"},
    .dram_read_total_bytes_per_cycle = {181.7, "NOC: ALL_FROM_ALL from interleaved DRAM, 256 x 2 "
                                               "KiB on each of 110 cores (the measuring device's "
                                               "grid: its L1 sweep's 110) in 317324, on one "
                                               "NoC"},
    .dram_peak_bytes_per_cycle = {379.26, "MOREH: the test's ceiling, 512 GB/s; / 1.35"},
    .port_read_bytes_per_cycle = {57.16, "NOC: one core reads 256 x 2 KiB from interleaved DRAM"
                                         " in 9173"},
    .port_write_bytes_per_cycle = {57.80, "NOC: one core writes 256 x 2 KiB to one core in 9070"},
    .mcast_bytes_per_cycle = {50.56, "NOC: linked multicast of 256 x 2 KiB to 25 cores in 10369"},
    .mcast_line_bytes_per_cycle = {72.1, "NOC: ROW_TO_ROW, 11 linked senders x 256 x 2 KiB "
                                         "into one row in 80030"},
    .noc_link_bytes_per_cycle = {64, "assumption: one flit per cycle per link, as the Wormhole "
                                     "ISA says, of NOC_WORD_BYTES 64 (noc_parameters.h)"},
    .dram_read_latency = {481, "NOC: 1 x 64 B read from one DRAM bank"},
    .dram_write_latency = {388, "NOC: 1 x 128 B write to one DRAM bank"},
    .l1_read_latency = {373, "NOC: 1 x 64 B read from another core"},
    .l1_write_latency = {358, "NOC: 1 x 64 B write to another core"},
    .mcast_latency = {675, "NOC: 1 x 64 B linked multicast to 25 cores"},
    .read_issue = {24, "NOC: 256 x 64 B DRAM reads in 6105 (issue-bound)"},
    .write_issue = {27, "NOC: 256 x 128 B DRAM writes in 7015 (issue-bound)"},
    .host_dispatch_us = {3.4, "assumption: Wormhole's (GEMM's N150 1024^3 with and without "
                              "trace); the host's software is the same"},
};

} // namespace tk::arch
