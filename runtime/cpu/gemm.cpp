// The per-tile matmul of <tilekit/cpu/gemm.hpp> (packing is in pack.cpp). A 32x32 output tile is
// computed micro-panel by micro-panel of packed A, each block of output keeping its fp32
// accumulators in registers over all of K while it streams packed A (broadcast a float at a time)
// and rows of packed B: with AVX-512, four 8x32 blocks (16 zmm accumulators); with AVX2, five
// 6x16 pairs (12 ymm accumulators) and a 2x32 block for the last two rows.
#include <tilekit/cpu/gemm.hpp>

#include "gemm_layout.hpp"

#include <algorithm>
#include <cassert>
#include <cstring>
#include <stdexcept>
#include <string>
#include <utility>

#if defined(__AVX512F__) || (defined(__AVX2__) && defined(__FMA__))
#include <immintrin.h>
#endif

namespace tk::cpu {

namespace {

using detail::kNr;
using detail::panel_count;
using detail::panel_offset;
using detail::panel_rows;

// A whole 32x32 output tile: c (row stride 32) = or += the k range [k0, k0 + kc) of tile row `a`
// of packed A (micro-panels of the kernel's mr rows, kp = padded K) times `b`, the panel of packed
// B from row k0 on (b[k * 32 + c]).
using TileKernel = void (*)(std::int64_t kc, const float* a, std::int64_t kp, std::int64_t k0,
                            const float* b, float* c, bool accumulate);

// f(integral_constant<int, 0>) ... f(integral_constant<int, N - 1>), unrolled by the front end,
// so that the accumulator arrays below are indexed by constants only and live in registers.
template <int... I, class F>
inline void unroll_impl(std::integer_sequence<int, I...>, F&& f) {
  (f(std::integral_constant<int, I>{}), ...);
}
template <int N, class F>
inline void unroll(F&& f) {
  unroll_impl(std::make_integer_sequence<int, N>{}, f);
}

// The plain C++ kernel, on 8-row micro-panels: rows x 32 of c from a micro-panel of `rows`.
void micro_portable(std::int64_t kc, const float* a, int rows, const float* b, float* c,
                    bool accumulate) {
  float acc[8][kNr];
  for (int r = 0; r < rows; ++r)
    for (int j = 0; j < kNr; ++j)
      acc[r][j] = accumulate ? c[r * kTile + j] : 0.0f;
  for (std::int64_t k = 0; k < kc; ++k)
    for (int r = 0; r < rows; ++r) {
      const float ar = a[k * rows + r];
      for (int j = 0; j < kNr; ++j)
        acc[r][j] += ar * b[k * kNr + j];
    }
  for (int r = 0; r < rows; ++r)
    std::memcpy(c + r * kTile, acc[r], sizeof acc[r]);
}

void tile_portable(std::int64_t kc, const float* a, std::int64_t kp, std::int64_t k0,
                   const float* b, float* c, bool accumulate) {
  constexpr int mr = 8;
  for (int p = 0; p < panel_count(mr); ++p) {
    const int rows = panel_rows(mr, p);
    micro_portable(kc, a + panel_offset(mr, p, kp) + k0 * rows, rows, b, c + p * mr * kTile,
                   accumulate);
  }
}

#if defined(__AVX2__) && defined(__FMA__)
// acc += a * b, always as vfmadd231ps (the accumulator is the destination): with the intrinsic,
// GCC 12 may write products into the broadcast's register (vfmadd132ps) and move accumulators
// back with register moves, which cost issue slots (see fma231 for AVX-512 below).
inline __m256 fma231(__m256 acc, __m256 a, __m256 b) {
  asm("vfmadd231ps %[a], %[b], %[acc]" : [acc] "+x"(acc) : [a] "x"(a), [b] "x"(b));
  return acc;
}

// 16 ymm registers, the register blocking BLIS uses for sgemm on Haswell and Zen: a 6x16 block of
// c in 12 accumulators, per k two loads of B (16 floats) and six broadcasts of A, one at a time,
// each feeding two FMAs: 15 registers. Per k 12 FMAs for 8 loads, against 8 FMAs for 6 loads in
// a 4x16 block, and B's panel is read 6 times per tile instead of 8. Unrolled by 4 in k.
void micro_avx2_6x16(std::int64_t kc, const float* a, const float* b, float* c, bool accumulate) {
  __m256 acc[6][2];
  unroll<6>([&](auto r) {
    acc[r][0] = accumulate ? _mm256_load_ps(c + r * kTile) : _mm256_setzero_ps();
    acc[r][1] = accumulate ? _mm256_load_ps(c + r * kTile + 8) : _mm256_setzero_ps();
  });
  assert(kc % 4 == 0);
  for (std::int64_t k = 0; k < kc; k += 4) {
    unroll<4>([&](auto u) {
      const __m256 b0 = _mm256_load_ps(b + (k + u) * kNr);
      const __m256 b1 = _mm256_load_ps(b + (k + u) * kNr + 8);
      unroll<6>([&](auto r) {
        const __m256 ar = _mm256_broadcast_ss(a + (k + u) * 6 + r);
        acc[r][0] = fma231(acc[r][0], ar, b0);
        acc[r][1] = fma231(acc[r][1], ar, b1);
      });
    });
  }
  unroll<6>([&](auto r) {
    _mm256_store_ps(c + r * kTile, acc[r][0]);
    _mm256_store_ps(c + r * kTile + 8, acc[r][1]);
  });
}

// The last two rows of a tile (32 = 5 x 6 + 2): a 2x32 block, 8 accumulators (as many as keep
// both FMA pipes busy over the FMA's 4-cycle latency), four loads of B and two broadcasts per k.
void micro_avx2_2x32(std::int64_t kc, const float* a, const float* b, float* c, bool accumulate) {
  __m256 acc[2][4];
  unroll<2>([&](auto r) {
    unroll<4>([&](auto h) {
      acc[r][h] = accumulate ? _mm256_load_ps(c + r * kTile + 8 * h) : _mm256_setzero_ps();
    });
  });
  assert(kc % 4 == 0);
  for (std::int64_t k = 0; k < kc; k += 4) {
    unroll<4>([&](auto u) {
      __m256 bv[4];
      unroll<4>([&](auto h) { bv[h] = _mm256_load_ps(b + (k + u) * kNr + 8 * h); });
      unroll<2>([&](auto r) {
        const __m256 ar = _mm256_broadcast_ss(a + (k + u) * 2 + r);
        unroll<4>([&](auto h) { acc[r][h] = fma231(acc[r][h], ar, bv[h]); });
      });
    });
  }
  unroll<2>([&](auto r) {
    unroll<4>([&](auto h) { _mm256_store_ps(c + r * kTile + 8 * h, acc[r][h]); });
  });
}

// Micro-panels of 6 rows: 6, 6, 6, 6, 6, 2. Each 6-row panel does its two 16-column halves over
// the whole K range in turn (the panel's slice of A, 6 x K floats, stays in L1 for the second).
void tile_avx2(std::int64_t kc, const float* a, std::int64_t kp, std::int64_t k0, const float* b,
               float* c, bool accumulate) {
  constexpr int mr = 6;
  for (int p = 0; p < kTile / mr; ++p) {
    const float* ap = a + panel_offset(mr, p, kp) + k0 * mr;
    micro_avx2_6x16(kc, ap, b, c + p * mr * kTile, accumulate);
    micro_avx2_6x16(kc, ap, b + 16, c + p * mr * kTile + 16, accumulate);
  }
  constexpr int last = kTile / mr;
  static_assert(panel_rows(mr, last) == 2);
  micro_avx2_2x32(kc, a + panel_offset(mr, last, kp) + k0 * 2, b, c + last * mr * kTile,
                  accumulate);
}
#endif

#if defined(__AVX512F__)
// acc += a * b, always as vfmadd231ps (the accumulator is the destination). With the intrinsic,
// GCC 12 writes half of the products into the broadcast's register (vfmadd132ps) and renames the
// accumulators back with register moves, which take FMA port slots: 200 GFLOPS on operands in L1
// instead of 210 (of a 240 GFLOPS FMA peak per core, on an AVX-512 Xeon).
inline __m512 fma231(__m512 acc, __m512 a, __m512 b) {
  asm("vfmadd231ps %[a], %[b], %[acc]" : [acc] "+v"(acc) : [a] "v"(a), [b] "v"(b));
  return acc;
}

// 32 zmm registers: 16 accumulators (8 rows x 2 vectors), 2 for the B row, 1 for the broadcast.
// Unrolled by 4 in k so the loop overhead hides behind 64 FMAs. No software prefetch: the
// hardware's prefetchers already stream packed A and B, and prefetching B 16 rows ahead was
// 1-5% slower.
void micro_avx512(std::int64_t kc, const float* a, const float* b, float* c, bool accumulate) {
  constexpr int mr = 8;
  __m512 acc[mr][2];
  unroll<mr>([&](auto r) {
    acc[r][0] = accumulate ? _mm512_load_ps(c + r * kTile) : _mm512_setzero_ps();
    acc[r][1] = accumulate ? _mm512_load_ps(c + r * kTile + 16) : _mm512_setzero_ps();
  });
  assert(kc % 4 == 0);
  for (std::int64_t k = 0; k < kc; k += 4) {
    unroll<4>([&](auto u) {
      const __m512 b0 = _mm512_load_ps(b + (k + u) * kNr);
      const __m512 b1 = _mm512_load_ps(b + (k + u) * kNr + 16);
      unroll<mr>([&](auto r) {
        const __m512 ar = _mm512_set1_ps(a[(k + u) * mr + r]);
        acc[r][0] = fma231(acc[r][0], ar, b0);
        acc[r][1] = fma231(acc[r][1], ar, b1);
      });
    });
  }
  unroll<mr>([&](auto r) {
    _mm512_store_ps(c + r * kTile, acc[r][0]);
    _mm512_store_ps(c + r * kTile + 16, acc[r][1]);
  });
}

// Four 8-row micro-panels. One call per micro-panel over the whole K range: B's panel streams
// from L2 four times. Chunking K so that a 256 x 32 block of B stayed in L1 for all four was no
// faster on a Xeon with AVX-512 (48 KiB L1), and each chunk reloads the accumulators.
void tile_avx512(std::int64_t kc, const float* a, std::int64_t kp, std::int64_t k0, const float* b,
                 float* c, bool accumulate) {
  constexpr int mr = 8;
  for (int p = 0; p < kTile / mr; ++p)
    micro_avx512(kc, a + panel_offset(mr, p, kp) + k0 * mr, b, c + p * mr * kTile, accumulate);
}
#endif

struct KernelEntry {
  const char* name;
  int mr; // rows of a micro-panel of packed A (PackedA::mr)
  TileKernel fn;
};

constexpr KernelEntry kKernels[] = {
#if defined(__AVX512F__)
    {"avx512", 8, tile_avx512},
#endif
#if defined(__AVX2__) && defined(__FMA__)
    {"avx2", 6, tile_avx2},
#endif
    {"portable", 8, tile_portable},
};

constexpr const char* kKernelNames[] = {
#if defined(__AVX512F__)
    "avx512",
#endif
#if defined(__AVX2__) && defined(__FMA__)
    "avx2",
#endif
    "portable", nullptr};

const KernelEntry* g_kernel = &kKernels[0];

} // namespace

int detail::selected_mr() {
  return g_kernel->mr;
}

void gemm_tile(const PackedA& a, std::int64_t ba, const PackedB& b, std::int64_t bb,
               std::int64_t ti, std::int64_t tj, std::int64_t kt_begin, std::int64_t kt_end,
               Tile& acc, bool accumulate) {
  assert(a.k_tiles == b.k_tiles && 0 <= ti && ti < a.m_tiles && 0 <= tj && tj < b.n_tiles);
  assert(0 <= ba && ba < a.batch && 0 <= bb && bb < b.batch);
  assert(0 <= kt_begin && kt_begin <= kt_end && kt_end <= a.k_tiles);
  if (a.mr != g_kernel->mr)
    throw std::logic_error("gemm_tile: A is packed in " + std::to_string(a.mr) +
                           "-row micro-panels, the '" + g_kernel->name + "' micro-kernel takes " +
                           std::to_string(g_kernel->mr) + " (pack it after select_gemm_kernel)");
  const std::int64_t k0 = kt_begin * kTile, kc = (kt_end - kt_begin) * kTile;
  if (kc > 0)
    g_kernel->fn(kc, a.panel(ba, ti), a.k_tiles * kTile, k0, b.panel(bb, tj) + k0 * kNr, acc.data,
                 accumulate);
  else if (!accumulate)
    fill(acc, 0.0f);
}

void pack_tile_a(const Tile& a, Tile& packed) {
  // The micro-panels of the selected kernel, k-major, as pack_a lays them out (kp = 32).
  // Written in order, panel by panel.
  const int mr = g_kernel->mr;
  float* dst = packed.data;
  for (int p = 0; p < panel_count(mr); ++p) {
    const int rows = panel_rows(mr, p);
    for (int k = 0; k < kTile; ++k)
      for (int r = 0; r < rows; ++r)
        *dst++ = a.data[(p * mr + r) * kTile + k];
  }
}

void packed_tile_matmul_acc(const Tile& packed_a, const Tile& b, Tile& acc) {
  // A tile of B already is a packed panel (dst[k * 32 + c]).
  g_kernel->fn(kTile, packed_a.data, kTile, 0, b.data, acc.data, true);
}

void tile_matmul_acc(const Tile& a, const Tile& b, Tile& acc) {
  Tile packed;
  pack_tile_a(a, packed);
  packed_tile_matmul_acc(packed, b, acc);
}

namespace {
// Column blocks per matrix where the loop goes a block at a time (gemm_units), else 0.
std::int64_t unit_blocks(const PackedA& a, const PackedB& b, std::int64_t n) {
  const std::int64_t per = a.m_tiles * b.n_tiles;
  if (per <= 0 || n % per != 0)
    return 0;
  return detail::blocks_go_round(b, n / per, default_pool().num_threads())
             ? detail::column_blocks(b)
             : 0;
}
} // namespace

std::int64_t gemm_units(const PackedA& a, const PackedB& b, std::int64_t n) {
  const std::int64_t blocks = unit_blocks(a, b, n);
  if (blocks)
    detail::expect_units(b);
  return blocks ? n / (a.m_tiles * b.n_tiles) * blocks : n;
}

std::int64_t gemm_unit_begin(const PackedA& a, const PackedB& b, std::int64_t n, std::int64_t u) {
  const std::int64_t blocks = unit_blocks(a, b, n);
  if (!blocks)
    return u;
  return u / blocks * a.m_tiles * b.n_tiles + u % blocks * a.m_tiles * b.block_cols;
}

std::int64_t gemm_unit_size(const PackedA& a, const PackedB& b, std::int64_t n, std::int64_t u) {
  const std::int64_t blocks = unit_blocks(a, b, n);
  if (!blocks)
    return 1;
  return a.m_tiles * std::min(b.block_cols, b.n_tiles - u % blocks * b.block_cols);
}

const char* const* gemm_kernels() {
  return kKernelNames;
}
const char* gemm_kernel() {
  return g_kernel->name;
}

bool select_gemm_kernel(const char* name) {
  for (const KernelEntry& k : kKernels)
    if (std::strcmp(k.name, name) == 0) {
      g_kernel = &k;
      return true;
    }
  return false;
}

} // namespace tk::cpu
