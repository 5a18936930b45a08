// Packing and the per-tile matmul of <tilekit/cpu/gemm.hpp>. A 32x32 output tile is computed as
// four 8x32 micro-tiles; each keeps its 8x32 fp32 accumulators in registers (16 zmm with
// AVX-512) over all of K, streaming an 8-wide slice of packed A and a 32-wide row of packed B.
#include <tilekit/cpu/gemm.hpp>

#include <algorithm>
#include <array>
#include <cassert>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <new>
#include <utility>

#include <unistd.h>

#if defined(__AVX512F__) || (defined(__AVX2__) && defined(__FMA__))
#include <immintrin.h>
#endif

namespace tk::cpu {

namespace {

// Packed operands are large (8 MB for two 1024x1024 f32 matrices) and live for one kernel call.
// Fresh pages cost a page fault each, about as much as the packing itself, so, like a BLAS with
// its persistent pack buffers, the runtime keeps a few freed blocks for the next call. A block
// is 64-byte aligned, with its capacity stored in the 64 bytes before the data.
constexpr std::size_t kHeader = 64;
constexpr std::size_t kMaxCachedBytes = std::size_t{256} << 20;

struct BlockCache {
  std::mutex m;
  std::array<void*, 4> slots{};
};
// Never destroyed: packed operands in static storage may be freed after it would have been.
BlockCache& block_cache() {
  static auto* c = new BlockCache;
  return *c;
}
std::size_t& capacity_of(void* block) {
  return *static_cast<std::size_t*>(block);
}

void* take_block(std::size_t bytes) {
  BlockCache& c = block_cache();
  {
    std::lock_guard lock(c.m);
    void** best = nullptr;
    for (void*& s : c.slots)
      if (s && capacity_of(s) >= bytes && (!best || capacity_of(s) < capacity_of(*best)))
        best = &s;
    if (best)
      return std::exchange(*best, nullptr);
  }
  void* block = std::aligned_alloc(64, bytes + kHeader);
  if (!block)
    throw std::bad_alloc();
  capacity_of(block) = bytes;
  return block;
}

void give_block(void* block) {
  BlockCache& c = block_cache();
  if (capacity_of(block) <= kMaxCachedBytes) {
    std::lock_guard lock(c.m);
    void** smallest = nullptr;
    for (void*& s : c.slots)
      if (!s || !smallest || (*smallest && capacity_of(s) < capacity_of(*smallest)))
        smallest = &s;
    if (!*smallest || capacity_of(*smallest) < capacity_of(block))
      block = std::exchange(*smallest, block); // keep the larger; free what it replaces
  }
  std::free(block);
}

} // namespace

void AlignedFree::operator()(float* p) const {
  give_block(reinterpret_cast<char*>(p) - kHeader);
}

namespace {

constexpr int kMr = 8;  // rows of a micro-tile (one packed-A micro-panel)
constexpr int kNr = 32; // columns of a micro-tile: the whole tile width

AlignedFloats alloc_floats(std::int64_t n) {
  const std::size_t bytes =
      (static_cast<std::size_t>(std::max<std::int64_t>(n, 1)) * 4 + 63) & ~std::size_t{63};
  return AlignedFloats(reinterpret_cast<float*>(static_cast<char*>(take_block(bytes)) + kHeader));
}

std::int64_t tiles_of(std::int64_t n) {
  return (n + kTile - 1) / kTile;
}

// Tile columns of B whose panels fit in half of L2 together (at least 1, at most all): the rest
// of L2 holds the A panel streaming through and the output. Where they do not all fit and the
// tiles run on several threads, at most n_tiles / (4 x threads) columns: a thread's first chunk
// of tiles (a quarter of its share, ThreadPool::parallel_for) is then about one block, so each
// core pulls its own part of B into its L2 instead of both reading the same panels from L3
// (352x800x1536 on two threads: 0.85x OpenBLAS with the wider blocks, 0.94x with these).
std::int64_t block_cols(std::int64_t k_tiles, std::int64_t n_tiles, int threads) {
  static const std::int64_t budget = [] {
    const long l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
    return static_cast<std::int64_t>(l2 > 0 ? l2 : 1L << 20) / 2;
  }();
  const std::int64_t panel = k_tiles * kTile * kTile * static_cast<std::int64_t>(sizeof(float));
  const std::int64_t fit = std::max<std::int64_t>(budget / std::max<std::int64_t>(panel, 1), 1);
  if (fit >= n_tiles)
    return std::max<std::int64_t>(n_tiles, 1);
  return std::max<std::int64_t>(std::min(fit, n_tiles / (4 * std::int64_t{threads})), 1);
}

inline float widen(float x) {
  return x;
}
inline float widen(bf16 x) {
  return static_cast<float>(x);
}

ThreadPool& pool_or_default(ThreadPool* p) {
  return p ? *p : default_pool();
}

// Micro-panel layout: dst[k * 8 + r] = A[row0 + r, k]; rows beyond A and k beyond K are zero.
// `a` is every matrix of the batch, each padded to whole tiles on its own.
template <class T>
PackedA pack_a_impl(TensorView<const T> a, ThreadPool* pool) {
  PackedA p;
  p.batch = a.batch;
  p.m_tiles = tiles_of(a.rows);
  p.k_tiles = tiles_of(a.cols);
  const std::int64_t kp = p.k_tiles * kTile;
  const std::int64_t panels = p.m_tiles * (kTile / kMr); // micro-panels per matrix
  p.data = alloc_floats(p.batch * p.m_tiles * kTile * kp);
  float* base = p.data.get();
  pool_or_default(pool).parallel_for(p.batch * panels, [&](std::int64_t b, std::int64_t e) {
    for (std::int64_t g = b; g < e; ++g) { // one 8-row micro-panel
      float* dst = base + g * kMr * kp;
      const MatrixView<const T> m = a.matrix(g / panels);
      const std::int64_t row0 = g % panels * kMr;
      const int rows = static_cast<int>(std::clamp<std::int64_t>(m.rows - row0, 0, kMr));
      if (rows < kMr || m.cols < kp)
        std::memset(dst, 0, sizeof(float) * kMr * kp);
      if (rows == kMr) { // the common case: write each k's 8 floats contiguously
        const T* src = m.data + row0 * m.cols;
        for (std::int64_t k = 0; k < m.cols; ++k)
          for (int r = 0; r < kMr; ++r)
            dst[k * kMr + r] = widen(src[r * m.cols + k]);
      } else {
        for (int r = 0; r < rows; ++r)
          for (std::int64_t k = 0; k < m.cols; ++k)
            dst[k * kMr + r] = widen(m.data[(row0 + r) * m.cols + k]);
      }
    }
  });
  return p;
}

// Panel layout: dst[k * 32 + c] = B[k, tj * 32 + c]; padding is zero. `b` is every matrix of
// the batch.
template <class T>
PackedB pack_b_impl(TensorView<const T> b, ThreadPool* pool) {
  PackedB p;
  p.batch = b.batch;
  p.k_tiles = tiles_of(b.rows);
  p.n_tiles = tiles_of(b.cols);
  p.block_cols = block_cols(p.k_tiles, p.n_tiles, pool_or_default(pool).num_threads());
  const std::int64_t kp = p.k_tiles * kTile;
  p.data = alloc_floats(p.batch * p.n_tiles * kp * kTile);
  float* base = p.data.get();
  // Split over (k tile, panel) so that a single tall panel (N = 32, large K) uses every thread;
  // column block by column block, k-tile-major within one, so that consecutive items read
  // neighbouring pieces of the same 32 rows of B (panel-major, each item reading 128 bytes from
  // each of 32 rows 4 KiB apart, took 1.5x as long at 1024 x 1024; this runs as fast as a memcpy
  // of B), and so that the thread that packs a block is the one whose share of the tile loop's
  // units computes with it (ThreadPool::parallel_for gives each thread the same share of both).
  const std::int64_t per_block = p.k_tiles * p.block_cols;
  pool_or_default(pool).parallel_for(
      p.batch * p.n_tiles * p.k_tiles, [&](std::int64_t b0, std::int64_t e0) {
        for (std::int64_t w = b0; w < e0; ++w) {
          const std::int64_t mat = w / (p.k_tiles * p.n_tiles), r = w % (p.k_tiles * p.n_tiles);
          const std::int64_t col0_tile = r / per_block * p.block_cols;
          const std::int64_t width = std::min(p.block_cols, p.n_tiles - col0_tile);
          const std::int64_t kt = r % per_block / width;
          const std::int64_t panel = mat * p.n_tiles + col0_tile + r % per_block % width;
          const MatrixView<const T> m = b.matrix(mat);
          float* dst = base + (panel * kp + kt * kTile) * kTile;
          const std::int64_t col0 = panel % p.n_tiles * kTile;
          const int cols = static_cast<int>(std::min<std::int64_t>(m.cols - col0, kTile));
          const int ks = static_cast<int>(std::clamp<std::int64_t>(m.rows - kt * kTile, 0, kTile));
          if (cols < kTile || ks < kTile)
            std::memset(dst, 0, sizeof(float) * kTile * kTile);
          for (int k = 0; k < ks; ++k) {
            const T* src = m.data + (kt * kTile + k) * m.cols + col0;
            for (int c = 0; c < cols; ++c)
              dst[k * kTile + c] = widen(src[c]);
          }
        }
      });
  return p;
}

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

PackedA pack_a(MatrixView<const float> a, ThreadPool* pool) {
  return pack_a_impl<float>({a.data, 1, a.rows, a.cols}, pool);
}
PackedA pack_a(MatrixView<const bf16> a, ThreadPool* pool) {
  return pack_a_impl<bf16>({a.data, 1, a.rows, a.cols}, pool);
}
PackedB pack_b(MatrixView<const float> b, ThreadPool* pool) {
  return pack_b_impl<float>({b.data, 1, b.rows, b.cols}, pool);
}
PackedB pack_b(MatrixView<const bf16> b, ThreadPool* pool) {
  return pack_b_impl<bf16>({b.data, 1, b.rows, b.cols}, pool);
}
PackedA pack_a(TensorView<const float> a, ThreadPool* pool) {
  return pack_a_impl(a, pool);
}
PackedA pack_a(TensorView<const bf16> a, ThreadPool* pool) {
  return pack_a_impl(a, pool);
}
PackedB pack_b(TensorView<const float> b, ThreadPool* pool) {
  return pack_b_impl(b, pool);
}
PackedB pack_b(TensorView<const bf16> b, ThreadPool* pool) {
  return pack_b_impl(b, pool);
}

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

namespace {
// Column blocks per matrix where the loop goes a block at a time (gemm_units), else 0.
std::int64_t unit_blocks(const PackedA& a, const PackedB& b, std::int64_t n) {
  const std::int64_t per = a.m_tiles * b.n_tiles;
  const std::int64_t blocks =
      (b.n_tiles + b.block_cols - 1) / std::max<std::int64_t>(b.block_cols, 1);
  if (per <= 0 || blocks < 2 || n % per != 0)
    return 0;
  return n / per * blocks >= 4 * std::int64_t{default_pool().num_threads()} ? blocks : 0;
}
} // namespace

std::int64_t gemm_units(const PackedA& a, const PackedB& b, std::int64_t n) {
  const std::int64_t blocks = unit_blocks(a, b, n);
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
