// Wormhole B0, as the n150 board: every figure with the tt-metal file it comes from (tt-metal
// a8c5af0f5a26, paths from its root; the timing figures' abbreviations are listed below).
#pragma once

#include "arch/spec.hpp"

namespace tk::arch {

// Sources of the timing figures, abbreviated in the table:
//  GEMM  = tech_reports/GEMM_FLOPS/GEMM_FLOPS.md
//  ME    = tech_reports/matrix_engine/matrix_engine.md
//  DRAM  = tech_reports/Saturating_DRAM_bandwidth/Saturating_DRAM_bandwidth.md
//  NOC   = tt_metal/impl/experimental/noc_estimator/latencies/noc_latencies.yaml (TT's measured
//          latencies of the data-movement tests, Wormhole B0 entries; "N x S B" = N transactions of
//          S bytes, cycles from the first issue to the barrier; patterns and memory types as
//          tt_metal/api/tt-metalium/experimental/noc_estimator/types.hpp numbers them)
//  LLM   = tech_reports/LLMs/llms.md
// "assumption, pinned by X" marks a figure nothing publishes: its value is the one that makes the
// model reproduce measurement X (docs/calibration.md); no other figure was fitted.

// tt_metal/soc_descriptors/wormhole_b0_80_arch.yaml: 12 dram_views (bank b is view b), view b's
// NoC 0 endpoint is dram[channel][worker_endpoint[0]], the same for NoC 1. Wormhole does not
// translate DRAM coordinates, so this one table is both the banks' NoC coordinates and their
// routers on each NoC (kWormholeB0.dram_bank_noc and .dram_bank_router).
inline constexpr std::array<NocCoord, kMaxDramBanks> kWormholeB0DramBanks{{{0, 11},
                                                                           {0, 1},
                                                                           {0, 5},
                                                                           {0, 7},
                                                                           {5, 1},
                                                                           {5, 11},
                                                                           {5, 2},
                                                                           {5, 9},
                                                                           {5, 8},
                                                                           {5, 3},
                                                                           {5, 5},
                                                                           {5, 7}}};

// The SFPU calls' cycles on a 32x32 tile (ArchSpec::sfpu_tile). tt-llk (tt-metal a8c5af0f5a26,
// tt_metal/tt-llk/tt_llk_wormhole_b0) runs an SFPU call as four faces (llk_lib/
// llk_math_eltwise_{unary,binary}_sfpu_params.h, VectorMode::RC), each the op's kernel over 8
// rows of 32 lanes (ITERATIONS = 8; a row is 4 DST rows x 8 even or odd columns: ISA
// SFPLOAD.md) followed by two SETRWCs, between a start (two SETC16, STALLWAIT) and a done
// (SETRWC, STALLWAIT, SETC16): a tile is 32 rows x the cycles of a row + 4 x 2 + 6 = 14.
// The SFPU takes one instruction a cycle (ISA VectorUnit.md: IPC 1 for every instruction but
// SFPSWAP's at most 1, latency 2); an SFPMAD / SFPADD / SFPMUL / SFPLUT result cannot be read on
// the next cycle, so an SFPNOP follows when the next instruction reads it (ISA SFPMAD.md, and
// tt-llk's own square: SFPLOAD, SFPMUL, SFPNOP, SFPSTORE); dst_reg++ is one INCRWC. "count" is
// that count of the kernel's instructions a row (the SFPI code as written: a float constant that
// bf16 cannot hold is two SFPLOADIs, one that it can one); "PR #N" is a cycle figure Tenstorrent
// published in github.com/tenstorrent/tt-metal pull request N, measured on Wormhole, preferred
// where it exists and the count its check.
inline constexpr SfpuCost kWormholeB0SfpuCosts[] = {
    // ckernel_sfpu_exp.h, exp_tile<approx = false> as ttgen emits it: with an fp32 DST
    // _sfpu_exp_fp32_accurate_ (Cody-Waite reduction, degree-7 Taylor polynomial), else
    // _sfpu_exp_21f_bf16_.
    {"exp",
     {2350, "PR #45642: the Cody-Waite + Taylor fp32 exp ('old') 73 cycles a row; x 32 + 14 "
            "(count: 69 a row)"},
     {1161, "PR #32968: exp_21f ('new') 1161 cycles a tile (count: 32 a row, 1038)"}},
    // exp_tile<approx = true> (what ttnn's kernels call; ttgen emits the accurate one): the
    // clamped kernel (InputClamping::ClampToNegative, the default) is 16 SFPLOADMACROs and 8
    // SFPNOPs a face, 110 a tile by count; PR #32968 measured it ("exp+fast+approx").
    {"exp_approx",
     {311.5, "PR #32968: exp+fast+approx 311.5 cycles a tile (count: 24 a face, 110)"},
     {189.4, "PR #32968: exp+fast+approx 189.4 cycles a tile (count: 24 a face, 110)"}},
    // Unclamped, 8 rows a face: tt-llk's comment, "~20 cycles for 8 elements" (rows) a face;
    // x 4 faces + 4 x 2 SETRWC + 6.
    {"exp_approx_noclamp",
     {94, "count: tt-llk's comment on its 8-row unclamped kernel, ~20 cycles a face; x 4 + 14"},
     {94, "count: the same kernel; x 4 + 14"}},
    // Unclamped, 32 rows in one call (VectorMode::None, as ttnn's SDPA calls it): tt-llk's
    // comment, "~68 cycles for 32 elements"; + the start and done, 6.
    {"exp_approx_noclamp_32",
     {74, "count: tt-llk's comment on its 32-row unclamped kernel, ~68 cycles a tile; + 6"},
     {74, "count: the same kernel; + 6"},
     1},
    // ckernel_sfpu_binary.h, _calculate_sfpu_binary_: SFPLOAD x 2, SFPADD, SFPNOP, SFPSTORE,
    // INCRWC.
    {"add_binary",
     {206, "count: tt-llk _calculate_sfpu_binary_ 6 a row (2 SFPLOAD, SFPADD, SFPNOP, SFPSTORE, "
           "INCRWC); x 32 + 14"},
     {206, "count: the same kernel, 6 a row; x 32 + 14"}},
    {"sub_binary",
     {206, "count: tt-llk _calculate_sfpu_binary_ 6 a row (2 SFPLOAD, SFPADD, SFPNOP, SFPSTORE, "
           "INCRWC); x 32 + 14"},
     {206, "count: the same kernel, 6 a row; x 32 + 14"}},
    // tt-metal's llk_sfpu/ckernel_sfpu_binary.h, calculate_sfpu_binary_mul: with a 16-bit DST it
    // also rounds to bf16 by integer ops (float32_to_bf16_rne: SFPMOV, SFPSHFT, 3 SFPLOADI,
    // 2 SFPAND, 2 SFPIADD: 9) and zeroes 0 * x under a v_if (about 9: SFPPUSHC, the two compares
    // and their or, the assignment, SFPPOPC; the least certain count of the table).
    {"mul_binary",
     {206, "count: calculate_sfpu_binary_mul 6 a row (2 SFPLOAD, SFPMUL, SFPNOP, SFPSTORE, "
           "INCRWC); x 32 + 14"},
     {782, "count: calculate_sfpu_binary_mul 24 a row (6, rounding to bf16 9, the v_if zeroing "
           "0 * x about 9); x 32 + 14"}},
    // tt-metal's llk_sfpu/ckernel_sfpu_binop_with_unary.h, calculate_binop_with_scalar: the
    // scalar's two SFPLOADIs each face, then SFPLOAD, SFPMAD, SFPNOP, SFPSTORE, INCRWC a row.
    {"add_unary",
     {182, "count: calculate_binop_with_scalar 5 a row; x 32 + 14 + 4 faces x 2 SFPLOADI"},
     {182, "count: the same kernel; x 32 + 14 + 8"}},
    {"sub_unary",
     {182, "count: calculate_binop_with_scalar 5 a row; x 32 + 14 + 4 faces x 2 SFPLOADI"},
     {182, "count: the same kernel; x 32 + 14 + 8"}},
    {"mul_unary",
     {182, "count: calculate_binop_with_scalar 5 a row; x 32 + 14 + 4 faces x 2 SFPLOADI"},
     {182, "count: the same kernel; x 32 + 14 + 8"}},
    {"div_unary",
     {182, "count: calculate_binop_with_scalar 5 a row (the host inverts); x 32 + 14 + 8"},
     {182, "count: the same kernel; x 32 + 14 + 8"}},
    {"rsub_unary",
     {182, "count: calculate_binop_with_scalar 5 a row; x 32 + 14 + 4 faces x 2 SFPLOADI"},
     {182, "count: the same kernel; x 32 + 14 + 8"}},
    // recip_tile (legacy_compat = true, the SDK's default): ckernel_sfpu_rsqrt_compat.h,
    // _calculate_reciprocal_compat_: three Newton steps (two with APPROX), the sign restored under
    // a v_if, and with a 16-bit DST (and not APPROX) rounded to bf16 by float_to_fp16b (9, as for
    // mul_binary). PR #54938 measured the kernel on Wormhole (MATH_ISOLATE, Float16_b, 8 tiles x
    // 16 loops, 32 rows a tile): 139707 cycles, 1091 a tile. The fp32 DST's kernel is the same
    // without the rounding; APPROX's, without the rounding and one Newton step (MAD, SFPNOP, MUL,
    // SFPNOP).
    {"recip",
     {803, "PR #54938 (1091 a tile, bf16) less float_to_fp16b's 9 a row (count); x 32"},
     {1091, "PR #54938: reciprocal_compat 139707 cycles for 8 tiles x 16 loops, Float16_b"}},
    {"recip_approx",
     {675, "PR #54938 (1091) less the rounding (9 a row) and a Newton step (4 a row); x 32"},
     {675, "PR #54938 (1091) less the rounding (9 a row) and a Newton step (4 a row); x 32"}},
    // rsqrt_tile (legacy_compat = false, the SDK's default) and sqrt_tile: ckernel_sfpu_sqrt.h,
    // _calculate_sqrt_internal_ (SQRT_23-bits, RECIPROCAL for rsqrt), with its inf and negative
    // guards. PR #54317 counted the compiled kernel's issue slots a row (the pinned sfpi toolchain,
    // ITERATIONS = 8, NOPs included): rsqrt 31 with an fp32 DST, 32 with a 16-bit one; sqrt 27
    // and 28.
    {"rsqrt",
     {1006, "PR #54317: rsqrt accurate 31 issue slots a row (compiled, dest_acc Yes); x 32 + 14"},
     {1038, "PR #54317: rsqrt accurate 32 issue slots a row (compiled, dest_acc No); x 32 + 14"}},
    {"sqrt",
     {878, "PR #54317: sqrt accurate 27 issue slots a row (compiled, dest_acc Yes); x 32 + 14"},
     {910, "PR #54317: sqrt accurate 28 issue slots a row (compiled, dest_acc No); x 32 + 14"}},
    // tt-metal's llk_sfpu/ckernel_sfpu_binary_max_min.h, calculate_binary_max_min: SFPLOADMACRO
    // pipelined at 3 instructions a row (its comment: "a throughput of 3 cycles per input row")
    // and 3 SFPNOPs after each face's 8 rows: 27 a face.
    {"binary_max",
     {122, "count: calculate_binary_max_min 3 a row (SFPLOADMACRO) + 3 SFPNOP a face; 4 x 27 + "
           "14"},
     {122, "count: the same kernel; 4 x 27 + 14"}},
    {"binary_min",
     {122, "count: calculate_binary_max_min 3 a row (SFPLOADMACRO) + 3 SFPNOP a face; 4 x 27 + "
           "14"},
     {122, "count: the same kernel; 4 x 27 + 14"}},
    // The other calls ttgen emits (ops/ops.hpp), with tt-metal's kernels (llk_sfpu/ and tt-llk's
    // sfpu/, a8c5af0f5a26). "PR #48925" is the Wormhole per-tile cycles of the tt-llk perf suite
    // ("main cyc", Float16_b, dest_acc No) in that PR's comment of 2026-07-10; "PR #54938" its
    // MATH_ISOLATE cycles for 8 tiles x 16 loops (Float16_b) before the change. Both measure
    // tt-metal main of mid 2026, a few months past a8c5af0f5a26. "count (coarse)" counts the SFPI
    // as written (each operation one instruction, an SFPNOP after each MAD, MUL or ADD the next
    // reads, two SFPLOADIs for a constant bf16 cannot hold, a v_if SFPPUSHC + compare + SFPPOPC,
    // float_to_fp16b 9): against the measured kernels (recip, tanh) such counts run 25-35% high.
    // gelu_tile<false>: calculate_gelu_piecewise (exp_21f tail, degree-4 and degree-8 x^2
    // polynomials, three nested predicates; both regions run, predicated).
    {"gelu",
     {3150, "count (coarse): calculate_gelu_piecewise 98 a row; x 32 + 14 (BH, PR #45920's later "
            "kernel, issue #52407: 2849 a tile)"},
     {3438, "count (coarse): 98 a row + float_to_fp16b 9; x 32 + 14"}},
    // log_tile: calculate_log_body (16-bit DST: degree-5 polynomial, exponent, three guards) or
    // calculate_log_f32_body (fp32 DST: reciprocal<2>, degree-5 polynomial in z^2).
    {"log",
     {3086, "count (coarse): calculate_log_f32_body 96 a row; x 32 + 14"},
     {1902, "count (coarse): calculate_log_body 59 a row (with float_to_fp16b); x 32 + 14"}},
    // sigmoid_tile, silu_tile: _sfpu_sigmoid_, exp (fp32: _sfpu_exp_accurate_; 16-bit:
    // exp_21f) then _sfpu_reciprocal_<2> or <1>; silu multiplies by x.
    {"sigmoid",
     {3182,
      "count: exp accurate 73 a row (PR #45642) + reciprocal<2> 21 + add 2 + load/store/INCRWC "
      "3; x 32 + 14"},
     {1368, "PR #48925: silu 1432.0 a tile, less its multiply (SFPMUL, SFPNOP) x 32"}},
    {"silu",
     {3246, "count: sigmoid's 99 a row + SFPMUL, SFPNOP; x 32 + 14"},
     {1432, "PR #48925: Silu 1432.0 cycles a tile (Float16_b)"}},
    // tanh_tile<false>: 16-bit DST _sfpu_tanh_polynomial_ (degree 6); fp32 DST
    // _sfpu_tanh_fp32_accurate_, both branches of its v_if run (predicated): the degree-4
    // polynomial and 2 sigmoid(2x) - 1.
    {"tanh",
     {4238, "count: sigmoid's 96 a row (PR #45642's exp) + polynomial 18 + the rest 18; x 32 + 14"},
     {792, "PR #48925: Tanh 791.9 cycles a tile (Float16_b)"}},
    // abs_tile, negative_tile: SFPLOAD, SFPABS (SFPMOV negating), SFPSTORE, INCRWC.
    {"abs",
     {142, "count: _calculate_abs_ 4 a row; x 32 + 14"},
     {142, "count: the same; x 32 + 14"}},
    {"negative",
     {142, "count: _calculate_negative_ 4 a row; x 32 + 14"},
     {142, "count: the same; x 32 + 14"}},
    // sign_tile: _calculate_sign_, two v_ifs storing 1, -1 or 0.
    {"sign",
     {398, "count (coarse): _calculate_sign_ 12 a row; x 32 + 14"},
     {398, "count (coarse): the same; x 32 + 14"}},
    // erf_tile<false>: calculate_erf, an n8/d8 rational in x^2 (bf16 inputs; INP_FLOAT32 selects
    // n16/d16 by the input format, which ttgen does not emit) through _sfpu_reciprocal_<2>,
    // clamped.
    {"erf",
     {2350, "count (coarse): calculate_erf 73 a row (reciprocal<2> 21); x 32 + 14"},
     {2350, "count (coarse): the same kernel; x 32 + 14"}},
    // hardsigmoid_tile: _calculate_activation_<Hardsigmoid>, a MAD and _relu_max_body_'s two v_ifs.
    {"hardsigmoid",
     {483.5, "PR #54938: Hardsigmoid 61883 cycles for 8 tiles x 16 loops; no DST-format code"},
     {483.5, "PR #54938: Hardsigmoid 61883 cycles for 8 tiles x 16 loops (Float16_b)"}},
    // exp2_tile: _calculate_exp2_, x ln 2 then exp (fp32: _sfpu_exp_fp32_accurate_).
    {"exp2",
     {2414, "exp's 2350 (PR #45642) + the multiply by ln 2 (SFPMUL, SFPNOP) x 32"},
     {860.1, "PR #48925: Exp2 860.1 cycles a tile (Float16_b)"}},
    // log1p_tile: calculate_log1p_fp32 (the fp32 DST's polynomial has 5 more terms).
    {"log1p",
     {2062, "count (coarse): calculate_log1p_fp32 64 a row (fp32 terms); x 32 + 14"},
     {1550, "count (coarse): 48 a row (with float_to_fp16b); x 32 + 14"}},
    // sin_tile, cos_tile: Cody-Waite reduction and an odd polynomial; the fp32 DST's has one more
    // term (SFPMAD, SFPNOP) and no float_to_fp16b (9).
    {"sin",
     {670, "PR #48925 (894.0, Float16_b) + one term 2 a row - float_to_fp16b 9 a row (count)"},
     {894, "PR #48925: Sin 894.0 cycles a tile (Float16_b)"}},
    {"cos",
     {797.7, "PR #48925 (1021.7, Float16_b) + one term 2 a row - float_to_fp16b 9 a row (count)"},
     {1021.7, "PR #48925: Cos 1021.7 cycles a tile (Float16_b)"}},
    // floor_tile: _calculate_floor_ (TTI code, no DST-format dependence).
    {"floor",
     {567.8, "PR #48925: Floor 567.8 cycles a tile; the kernel has no DST-format code"},
     {567.8, "PR #48925: Floor 567.8 cycles a tile (Float16_b)"}},
    // softplus_tile: calculate_softplus_body (degree-8 residual, exp_21f tail).
    {"softplus",
     {1260.7, "PR #54938 (1548.7, Float16_b) less float_to_fp16b 9 a row (count) x 32"},
     {1548.7, "PR #54938: softplus 198231 cycles for 8 tiles x 16 loops (Float16_b)"}},
    // elu_tile: _calculate_elu_, exp_21f (29 a row of sfpu13's 32) under v_if(v < 0).
    {"elu",
     {1262, "count (coarse): _calculate_elu_ 39 a row; x 32 + 14"},
     {1550, "count (coarse): 39 + float_to_fp16b 9 a row; x 32 + 14"}},
    // lt/gt/le/ge/eq/ne_binary_tile: calculate_binary_comp_fp32, the compare and the +-0, inf and
    // NaN guards (four v_ifs on integer views).
    {"lt_binary",
     {1230, "count (coarse): calculate_binary_comp_fp32 38 a row; x 32 + 14"},
     {1230, "count (coarse): the same; x 32 + 14"}},
    {"gt_binary",
     {1230, "count (coarse): calculate_binary_comp_fp32 38 a row; x 32 + 14"},
     {1230, "count (coarse): the same; x 32 + 14"}},
    {"le_binary",
     {1230, "count (coarse): calculate_binary_comp_fp32 38 a row; x 32 + 14"},
     {1230, "count (coarse): the same; x 32 + 14"}},
    {"ge_binary",
     {1230, "count (coarse): calculate_binary_comp_fp32 38 a row; x 32 + 14"},
     {1230, "count (coarse): the same; x 32 + 14"}},
    {"eq_binary",
     {1230, "count (coarse): calculate_binary_comp_fp32 38 a row; x 32 + 14"},
     {1230, "count (coarse): the same; x 32 + 14"}},
    {"ne_binary",
     {1230, "count (coarse): calculate_binary_comp_fp32 38 a row; x 32 + 14"},
     {1230, "count (coarse): the same; x 32 + 14"}},
    // ckernel_sfpu_fill.h, _calculate_fill_: the value's two SFPLOADIs each face, then SFPSTORE,
    // INCRWC a row.
    {"fill",
     {86, "count: tt-llk _calculate_fill_ 2 a row; x 32 + 14 + 4 faces x 2 SFPLOADI"},
     {86, "count: the same kernel; x 32 + 14 + 8"}},
    // ckernel_sfpu_where.h, _calculate_where_ (SFPLOADMACRO, replayed): with the output in the
    // condition's tile, as ttgen emits it, 3 a row (2 SFPLOADMACRO, SFPLOAD; 4 with another
    // output tile), recorded once a face (3 + the REPLAY).
    {"where",
     {126, "count: tt-llk _calculate_where_ 3 a row (output = condition); x 32 + 14 + 4 faces x "
           "4 recording"},
     {126, "count: the same kernel; x 32 + 14 + 16"}},
    // ckernel_sfpu_square.h, _calculate_square_: SFPLOAD, SFPMUL, SFPNOP, SFPSTORE, INCRWC.
    {"square",
     {174, "count: tt-llk _calculate_square_ 5 a row (its TTI code); x 32 + 14"},
     {174, "count: the same kernel; x 32 + 14"}},
    // ckernel_sfpu_relu.h, _relu_min_ with 0 (relu_tile): the threshold's two SFPLOADIs each
    // face, then SFPLOAD, SFPMOV, SFPSWAP (2 cycles), SFPSTORE, INCRWC a row.
    {"relu",
     {214, "count: tt-llk _relu_min_impl_ 6 a row (SFPSWAP 2 cycles: ISA); x 32 + 14 + 4 faces "
           "x 2 SFPLOADI"},
     {214, "count: the same kernel; x 32 + 14 + 8"}},
};

inline constexpr ArchSpec kWormholeB0{
    .name = "wormhole_b0",
    .product = "n150",
    // tt_metal/llrt/hal/tt-1xx/wormhole/wh_hal.cpp: the JIT build defines ARCH_WORMHOLE (and
    // build_env_manager.cpp NUM_DRAM_BANKS = dram_banks).
    .firmware_define = "ARCH_WORMHOLE",
    // wh_hal.cpp, includes(): hw/ckernels/wormhole_b0/metal/{common,llk_io,llk_api},
    // hw/inc/internal/tt-1xx/wormhole/{,wormhole_b0_defines,noc}, tt-llk/tt_llk_wormhole_b0.
    .jit_ckernels = "wormhole_b0",
    .jit_inc = "wormhole",
    .jit_inc_defines = "wormhole_b0_defines",
    .jit_llk = "tt_llk_wormhole_b0",
    // tt_metal/tools/precompile_fw/precompile_fw.cpp pcie_core_map (WORMHOLE_B0: {0, 3}); the
    // soc descriptor's first pcie core, wormhole_b0_80_arch.yaml pcie: [0-3].
    .jit_pcie_core = {0, 3},

    // tt_metal/core_descriptors/wormhole_b0_80_arch.yaml, nebula_x1 (n150), 1 command queue:
    // compute_with_storage_grid_range [0, 0]..[7, 7].
    .grid_x = 8,
    .grid_y = 8,
    // tt_metal/hw/inc/internal/tt-1xx/wormhole/noc/noc_parameters.h: VIRTUAL_TENSIX_START_X/Y 18,
    // COORDINATE_VIRTUALIZATION_ENABLED 1 (wh_hal.cpp: virtual_worker_start_x_/y_).
    .virtual_worker_start_x = 18,
    .virtual_worker_start_y = 18,
    // Translated Tensix coordinates are contiguous on Wormhole: no gap.
    .noc_x_gap_from = 0,
    .noc_x_gap = 0,
    // tt_metal/soc_descriptors/wormhole_b0_80_arch.yaml: 12 dram_views (kWormholeB0DramBanks).
    .dram_banks = 12,
    .dram_bank_noc = kWormholeB0DramBanks,
    // The same file: dram_view_size 1073741824 (dev_mem_map.h: MEM_DRAM_SIZE 1048576 * 1024).
    .dram_bank_bytes = 1073741824,

    // tt_metal/soc_descriptors/wormhole_b0_80_arch.yaml: worker_l1_size 1499136 (= MEM_L1_SIZE,
    // 1464 KiB, in dev_mem_map.h); tt_metal/impl/program/program.cpp throws when a CB ends past it.
    .l1_size = 1499136,
    // tt_metal/hw/inc/internal/tt-1xx/wormhole/dev_mem_map.h: MEM_MAP_END (the end of the packet
    // header pool) is 33056 = 0x8120.
    .mem_map_end = 33056,
    // tt_metal/llrt/hal/tt-1xx/wormhole/wh_hal_tensix.cpp: default_l1_kernel_config_size 69 * 1024,
    // from MEM_MAP_END; DEFAULT_UNRESERVED starts past it (first_free_l1_address(): 0x19520).
    .kernel_config_size = 69 * 1024,
    // tt_metal/hw/inc/internal/tt-1xx/wormhole/noc/noc_parameters.h: L1_ALIGNMENT 16 (NOC_L1_READ/
    // WRITE_ALIGNMENT_BYTES), DRAM_ALIGNMENT 32 (NOC_DRAM_READ_ALIGNMENT_BYTES).
    .l1_alignment = 16,
    .dram_alignment = 32,
    // tt_metal/llrt/hal.hpp, get_arch_num_circular_buffers: 32 on WORMHOLE_B0 (and
    // tt_metal/api/tt-metalium/circular_buffer_constants.h: NUM_CIRCULAR_BUFFERS 32 when the
    // device build defines ARCH_WORMHOLE, "limited by 2KB TRISC memory"); program.cpp and
    // circular_buffer_config.cpp reject a larger index.
    .num_circular_buffers = 32,

    // The same file: NUM_NOCS 2, NOC_WORD_BYTES = NOC_PAYLOAD_WIDTH / 8 = 32, NOC_MAX_BURST_SIZE =
    // NOC_MAX_BURST_WORDS * NOC_WORD_BYTES = 8192.
    .num_nocs = 2,
    .noc_word_bytes = 32,
    .noc_max_burst_bytes = 8192,
    // tt_metal/soc_descriptors/wormhole_b0_80_arch.yaml: grid 10 x 12; functional_workers in NoC 0
    // columns 1-4 and 6-9 (column 5 and 0 hold DRAM, PCIe and ARC) and rows 1-5 and 7-11 (rows 0
    // and 6 hold Ethernet and DRAM). tenstorrent/tt-isa-documentation (3930471) WormholeB0/NoC/
    // Coordinates.md: translated columns 18-25 are NoC 0 columns 1-4, 6-9 in order, and translated
    // rows 18.. are the rows not fused off, in order, fused-off rows renumbered to the end; which
    // row an n150 fuses off varies from ASIC to ASIC ("assumption": none among the first eight, so
    // logical rows 0-7 sit at NoC 0 rows 1-5, 7-9).
    .noc_size_x = 10,
    .noc_size_y = 12,
    .worker_noc0_x = {1, 2, 3, 4, 6, 7, 8, 9},
    .worker_noc0_y = {1, 2, 3, 4, 5, 7, 8, 9, 10, 11},
    // The same yaml's dram_views: each view's worker_endpoint is the same for NoC 0 and NoC 1, and
    // Wormhole does not translate DRAM coordinates: each bank's router is its NoC coordinate.
    .dram_bank_router = {{kWormholeB0DramBanks, kWormholeB0DramBanks}},

    // ttnn/cpp/ttnn/kernel_lib/dest_helpers.hpp, get_dest_limit: SyncFull 16 tiles with a 16-bit
    // DST, 8 with fp32; SyncHalf 8 and 4.
    .dst_tiles_full_sync_16bit = 16,

    .clock_ghz = {1.0, "GEMM, ME: 'at 1 GHz'"},
    .matmul_tile = {{{16, "GEMM: cycle_per_tile LoFi 16"},
                     {32, "GEMM: HiFi2 32"},
                     {48, "GEMM: HiFi3 48"},
                     {64, "GEMM: HiFi4 64"}}},
    .eltwise_tile = {8, "ME: 8x16 element-wise per cycle (1024 / 128); mul x fidelity phases"},
    .reduce_tile = {4, "ME: 16x16 reduce per cycle (1024 / 256); sum, avg x fidelity phases"},
    .copy_tile = {8, "assumption: a datacopy moves 8x16 per cycle, like an element-wise op"},
    .sfpu_tile = kWormholeB0SfpuCosts,
    // The SFPU calls without an entry in kWormholeB0SfpuCosts: none that ttgen or the baselines
    // emit (tests/unit/emulator/test_sfpu_costs.cpp checks it); relu_max, leaky_relu, ...
    .sfpu_simple_tile = {64, "assumption: 32 rows of 32 lanes, 2 instructions each"},
    .pack_bytes_per_cycle = {64, "assumption: the packer writes 64 B per cycle to L1"},
    .sync_call = {10, "assumption: a few RISC-V loads, compares and stores, and the loop's branch"},
    // tenstorrent/tt-isa-documentation (3930471) WormholeB0/TensixTile/TensixCoprocessor/
    // UNPACR_Regular.md, "Performance": an unpacker fetches from L1 at up to 16, 32 or 64 B per
    // cycle (x1, x2, x4 speed), and when both want x4 and both are fetching, each gets x2; tt-llk
    // asks x4 of both (tt_llk_wormhole_b0/common/inc/cunpack_common.h, throttle_mode = 2). The
    // timing model follows the srcA / srcB banks call by call (timing_params.hpp,
    // matmul_call_cycles), so which unpacker is throttled is never chosen: both are, while both
    // fetch.
    .unpack_bytes_per_cycle = {64, "ISA: UNPACR x4 speed, 'up to 64 bytes per cycle from L1', an "
                                   "unpacker fetching alone"},
    .unpack_shared_bytes_per_cycle = {32, "ISA: both unpackers want x4 and fetch at once: 'each "
                                          "gets x2', 32 B per cycle"},
    .unpack_address = {2, "ISA: UNPACR 'spends at least two cycles calculating the initial input "
                          "address' (exactly two for uncompressed data)"},
    // tt-llk tt_llk_wormhole_b0/llk_lib/llk_unpack_AB_matmul.h, _llk_unpack_AB_matmul_: each turn
    // of its t loop unpacks the shorter side's tile t and, while there is one, tile t + 1 into the
    // other bank ("Let's load one more tile"; t++), then the longer side's tiles (the MOP);
    // llk_math_matmul.h multiplies each longer-side tile with both.
    .matmul_pass_tiles = {2, "tt-llk: tt_llk_wormhole_b0 _llk_unpack_AB_matmul_ unpacks the "
                             "shorter side two tiles per pass of the longer side"},
    // Re-pinned on 2026-11-28 (calib9) after calib8's fix (a multicast's receivers wait for its
    // landing): the value at which the two 12x16 HiFi4 rows (3072x3072x4096 and 3072x4096x4096,
    // in0_block_w 6 and 8) project within 0.1 of GEMM's 91.69% and 92.18% (28 until then).
    .matmul_call = {20, "assumption, pinned by GEMM's N150 HiFi4 rows (in0_block_w 6 and 8)"},
    .init_call = {50, "assumption: a few dozen configuration-register writes"},
    .dst_handoff = {10, "assumption: a semaphore update and a stall on it"},
    .dram_bank_bytes_per_cycle = {15.83, "LLM: interleaved DRAM reads at about 190 GB/s, over 12 "
                                         "banks"},
    // The measuring device's whole grid was 8x7 (56 cores), not the n150's 8x8: the sweep reads
    // 256 x 2 KiB on each core of compute_with_storage_grid_size() (tests/tt_metal/tt_metal/
    // data_movement/noc_estimator_tests/test_noc_estimator.cpp, get_all_cores), and the same yaml's
    // Wormhole L1 sweeps over that grid record 56 cores (ALL_FROM_ALL, ALL_TO_ALL), rows of 8 and
    // columns of 7, and no 8x8 entry (skipped as larger than the device). 56 x 256 x 2048 / 444011
    // = 66.1.
    // The NoC is NoC 1: the sweep runs every DRAM case on NoC 0 and then on NoC 1
    // (dram_accessor_sweep), its CSV names the column "NoC Index" (tests/tt_metal/tt_metal/
    // data_movement/python/stats_reporter.py, test_mappings/test_type_attributes.yaml) where the
    // yaml generator reads "NOC index"
    // (tests/tt_metal/tt_metal/data_movement/noc_estimator/offline/ csv_reader.hpp), so both NoCs'
    // points fall in one group of the default NoC and the generator keeps the last point per
    // transaction size (offline/data_extractor.cpp): NoC 1's. It is one NoC's capacity for
    // interleaved DRAM traffic (docs/timing.md, "Per NoC").
    .dram_read_total_bytes_per_cycle = {66.1, "NOC: ALL_FROM_ALL, 56 cores (the measuring device's"
                                              " 8x7 grid) x 256 x 2 KiB from interleaved DRAM in "
                                              "444011, on NoC 1"},
    // NoC 0 has no such measurement; TT reads DRAM on it ("NOC0 should be used when reading from
    // DRAM", tests/tt_metal/tt_metal/data_movement/multi_interleaved/test_multi_interleaved.cpp;
    // preferred_noc_for_dram_read), and its regression floor for a full grid reading interleaved
    // DRAM (test_bounds.yaml, "Multi Interleaved Read Directed Ideal", >= 1.9 B/cycle a core) is
    // 60% above 66.1: there the banks (LLM's 190 GB/s) and the links bound it.
    .dram_total_nocs = {0b10, "NOC: the ALL_FROM_ALL entries are NoC 1's (the sweep runs NoC 0 "
                              "then NoC 1; the generator reads no NoC column and keeps the last)"},
    .dram_peak_bytes_per_cycle = {288, "DRAM: spec speed 288 GB/s (12 GBps GDDR6)"},
    .port_read_bytes_per_cycle = {30.4, "NOC: one core reads 256 x 2 KiB from interleaved DRAM"
                                        " in 17249"},
    .port_write_bytes_per_cycle = {30.2, "NOC: one core writes 256 x 2 KiB to one core in 17362"},
    .mcast_bytes_per_cycle = {28.0, "NOC: linked multicast of 256 x 2 KiB to 25 cores in 18751"},
    .mcast_line_bytes_per_cycle = {41.0, "NOC: ROW_TO_ROW, 8 linked senders x 256 x 2 KiB into "
                                         "one row in 102229 (one sender: 19209)"},
    // One flit of NOC_WORD_BYTES per cycle on each link (a packet is one header flit and up to
    // 256 data flits, noc_max_burst_bytes): the routes and their queues are docs/timing.md's
    // "NoC links".
    .noc_link_bytes_per_cycle = {32, "ISA NoC/README.md 'Performance': router to neighbouring "
                                     "router, one flit (256 bits) per cycle per axis, per NoC"},
    .dram_read_latency = {397, "NOC: 1 x 64 B read from one DRAM bank"},
    .dram_write_latency = {425, "NOC: 1 x 128 B write to one DRAM bank"},
    .l1_read_latency = {293, "NOC: 1 x 64 B read from another core"},
    .l1_write_latency = {293, "NOC: 1 x 64 B write to another core"},
    .mcast_latency = {536, "NOC: 1 x 64 B linked multicast to 25 cores"},
    .read_issue = {23, "NOC: 256 x 64 B reads from one (sharded) DRAM bank in 5817 (issue-bound)"},
    .write_issue = {26, "NOC: 256 x 128 B writes to one (sharded) DRAM bank in 6773 (issue-bound;"
                        " the 64 B column, 17007, is slower and not issue-bound)"},
    .host_dispatch_us = {3.4, "GEMM: N150 out-of-box 1024^3 bf16, 72388.65 ns without trace, "
                              "68984.03 ns with"},
};

} // namespace tk::arch
