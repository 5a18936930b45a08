// The per-tile matmul of <tilekit/cpu/gemm.hpp> (packing is in pack.cpp). A 32x32 output tile is
// four 8x32 micro-tiles; each keeps its 8x32 fp32 accumulators in registers (16 zmm with
// AVX-512) over all of K, streaming an 8-wide slice of packed A and a 32-wide row of packed B.
#include <tilekit/cpu/gemm.hpp>

#include "gemm_layout.hpp"

#include <algorithm>
#include <cassert>
#include <cstring>
#include <utility>

#if defined(__AVX512F__) || (defined(__AVX2__) && defined(__FMA__))
#include <immintrin.h>
#endif

namespace tk::cpu {

namespace {

using detail::kMr;
using detail::kNr;

// c[8 x 32] (row stride 32) = or += sum over k < kc of a[k * 8 + r] * b[k * 32 + c].
using MicroKernel = void (*)(std::int64_t kc, const float* a, const float* b, float* c,
                             bool accumulate);

void micro_portable(std::int64_t kc, const float* a, const float* b, float* c, bool accumulate) {
  float acc[kMr][kNr];
  for (int r = 0; r < kMr; ++r)
    for (int j = 0; j < kNr; ++j)
      acc[r][j] = accumulate ? c[r * kTile + j] : 0.0f;
  for (std::int64_t k = 0; k < kc; ++k)
    for (int r = 0; r < kMr; ++r) {
      const float ar = a[k * kMr + r];
      for (int j = 0; j < kNr; ++j)
        acc[r][j] += ar * b[k * kNr + j];
    }
  for (int r = 0; r < kMr; ++r)
    std::memcpy(c + r * kTile, acc[r], sizeof acc[r]);
}

#if defined(__AVX2__) && defined(__FMA__)
// 16 ymm registers: the 8x32 micro-tile is done as four 4x16 blocks (8 accumulators each).
void micro_avx2(std::int64_t kc, const float* a, const float* b, float* c, bool accumulate) {
  for (int r0 = 0; r0 < kMr; r0 += 4)
    for (int j0 = 0; j0 < kNr; j0 += 16) {
      __m256 acc[4][2];
      for (int r = 0; r < 4; ++r)
        for (int h = 0; h < 2; ++h)
          acc[r][h] =
              accumulate ? _mm256_load_ps(c + (r0 + r) * kTile + j0 + 8 * h) : _mm256_setzero_ps();
      for (std::int64_t k = 0; k < kc; ++k) {
        const __m256 b0 = _mm256_load_ps(b + k * kNr + j0);
        const __m256 b1 = _mm256_load_ps(b + k * kNr + j0 + 8);
        for (int r = 0; r < 4; ++r) {
          const __m256 ar = _mm256_broadcast_ss(a + k * kMr + r0 + r);
          acc[r][0] = _mm256_fmadd_ps(ar, b0, acc[r][0]);
          acc[r][1] = _mm256_fmadd_ps(ar, b1, acc[r][1]);
        }
      }
      for (int r = 0; r < 4; ++r)
        for (int h = 0; h < 2; ++h)
          _mm256_store_ps(c + (r0 + r) * kTile + j0 + 8 * h, acc[r][h]);
    }
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

// f(integral_constant<int, 0>) ... f(integral_constant<int, N - 1>), unrolled by the front end,
// so that the accumulator array below is indexed by constants only and lives in registers.
template <int... I, class F>
inline void unroll_impl(std::integer_sequence<int, I...>, F&& f) {
  (f(std::integral_constant<int, I>{}), ...);
}
template <int N, class F>
inline void unroll(F&& f) {
  unroll_impl(std::make_integer_sequence<int, N>{}, f);
}

// 32 zmm registers: 16 accumulators (8 rows x 2 vectors), 2 for the B row, 1 for the broadcast.
// Unrolled by 4 in k so the loop overhead hides behind 64 FMAs. No software prefetch: the
// hardware's prefetchers already stream packed A and B, and prefetching B 16 rows ahead was
// 1-5% slower.
void micro_avx512(std::int64_t kc, const float* a, const float* b, float* c, bool accumulate) {
  __m512 acc[kMr][2];
  unroll<kMr>([&](auto r) {
    acc[r][0] = accumulate ? _mm512_load_ps(c + r * kTile) : _mm512_setzero_ps();
    acc[r][1] = accumulate ? _mm512_load_ps(c + r * kTile + 16) : _mm512_setzero_ps();
  });
  assert(kc % 4 == 0);
  for (std::int64_t k = 0; k < kc; k += 4) {
    unroll<4>([&](auto u) {
      const __m512 b0 = _mm512_load_ps(b + (k + u) * kNr);
      const __m512 b1 = _mm512_load_ps(b + (k + u) * kNr + 16);
      unroll<kMr>([&](auto r) {
        const __m512 ar = _mm512_set1_ps(a[(k + u) * kMr + r]);
        acc[r][0] = fma231(acc[r][0], ar, b0);
        acc[r][1] = fma231(acc[r][1], ar, b1);
      });
    });
  }
  unroll<kMr>([&](auto r) {
    _mm512_store_ps(c + r * kTile, acc[r][0]);
    _mm512_store_ps(c + r * kTile + 16, acc[r][1]);
  });
}
#endif

struct KernelEntry {
  const char* name;
  MicroKernel fn;
};

constexpr KernelEntry kKernels[] = {
#if defined(__AVX512F__)
    {"avx512", micro_avx512},
#endif
#if defined(__AVX2__) && defined(__FMA__)
    {"avx2", micro_avx2},
#endif
    {"portable", micro_portable},
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

void gemm_tile(const PackedA& a, std::int64_t ba, const PackedB& b, std::int64_t bb,
               std::int64_t ti, std::int64_t tj, std::int64_t kt_begin, std::int64_t kt_end,
               Tile& acc, bool accumulate) {
  assert(a.k_tiles == b.k_tiles && 0 <= ti && ti < a.m_tiles && 0 <= tj && tj < b.n_tiles);
  assert(0 <= ba && ba < a.batch && 0 <= bb && bb < b.batch);
  assert(0 <= kt_begin && kt_begin <= kt_end && kt_end <= a.k_tiles);
  const std::int64_t kp = a.k_tiles * kTile;
  const float* ap = a.panel(ba, ti);
  const float* bp = b.panel(bb, tj);
  // One micro-kernel call per 8-row micro-panel over the whole K range: B's panel streams from
  // L2 four times. Chunking K so that a 256 x 32 block of B stayed in L1 for all four was no
  // faster on a Xeon with AVX-512 (48 KiB L1), and each chunk reloads the accumulators.
  const std::int64_t k0 = kt_begin * kTile, kc = (kt_end - kt_begin) * kTile;
  if (kc > 0)
    for (int mp = 0; mp < kTile / kMr; ++mp)
      g_kernel->fn(kc, ap + (mp * kp + k0) * kMr, bp + k0 * kNr, acc.data + mp * kMr * kTile,
                   accumulate);
  if (kt_begin == kt_end && !accumulate)
    fill(acc, 0.0f);
}

void pack_tile_a(const Tile& a, Tile& packed) {
  // Four 8-row micro-panels, k-major, as pack_a lays them out.
  for (int mp = 0; mp < kTile / kMr; ++mp)
    for (int k = 0; k < kTile; ++k)
      for (int r = 0; r < kMr; ++r)
        packed.data[(mp * kTile + k) * kMr + r] = a.data[(mp * kMr + r) * kTile + k];
}

void packed_tile_matmul_acc(const Tile& packed_a, const Tile& b, Tile& acc) {
  // A tile of B already is a packed panel (dst[k * 32 + c]).
  for (int mp = 0; mp < kTile / kMr; ++mp)
    g_kernel->fn(kTile, packed_a.data + mp * kTile * kMr, b.data, acc.data + mp * kMr * kTile,
                 true);
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
