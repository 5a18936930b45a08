// Packing for <tilekit/cpu/gemm.hpp>: A into micro-panels of the micro-kernel's row count, B into
// 32-column panels, both widened to fp32 and padded to whole tiles, in 64-byte aligned blocks that
// a small cache hands back to the next call. B is packed whole, or, where the tile loop goes a
// column block at a time (gemm_units), one block at a time by the thread that computes with it.
#include <tilekit/cpu/gemm.hpp>

#include "gemm_layout.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <new>
#include <type_traits>
#include <utility>

#include <unistd.h>

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

namespace detail {
// What a deferred pack_b keeps: B itself (one of the two views), a serial number that tells
// thread buffers apart, and all of B packed, if a loop needs it.
struct DeferredB {
  std::uint64_t id = 0;
  TensorView<const float> f32_src{};
  TensorView<const bf16> bf16_src{};
  std::atomic<bool> by_units{false}; // gemm_units said a loop goes a block at a time
  std::atomic<std::int64_t> packs{0};
  std::once_flag once;
  AlignedFloats all;
  std::atomic<bool> ready{false};
};
} // namespace detail

namespace {

using detail::panel_count;
using detail::panel_offset;
using detail::panel_rows;

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
// tiles run on several threads, at most n_tiles / (4 x threads) columns: then there are at
// least four blocks per thread, the tile loop goes a block at a time (gemm_units), and each
// core pulls its own blocks of B into its L2 instead of both reading the same panels from L3.
// On two threads, at most n_tiles / (2 x threads) made 352x800x1536 0.89x OpenBLAS instead of
// 0.98-1.01x, and n_tiles / (8 x threads) made 1024^3 0.96x instead of 1.03x.
// Half of L2: what a block of panels that should stay in L2 may take (the rest holds what
// streams through). 1 MiB of L2 where sysconf does not know (it returns 0 in some containers):
// the L2 of a core of the AMD EPYC (Zen 4) machines these figures come from.
std::int64_t l2_budget() {
  static const std::int64_t budget = [] {
    const long l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
    return static_cast<std::int64_t>(l2 > 0 ? l2 : 1L << 20) / 2;
  }();
  return budget;
}

std::int64_t block_cols(std::int64_t k_tiles, std::int64_t n_tiles, int threads) {
  const std::int64_t budget = l2_budget();
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

// One micro-panel of `rows` (a compile-time count in the common cases, so the inner loop is
// unrolled): dst[k * rows + r] = src[r * ld + k] for k < cols.
template <int Rows, class T>
void pack_rows(const T* src, std::int64_t ld, std::int64_t cols, float* dst) {
  for (std::int64_t k = 0; k < cols; ++k)
    for (int r = 0; r < Rows; ++r)
      dst[k * Rows + r] = widen(src[r * ld + k]);
}

// Micro-panel layout (gemm_layout.hpp): tile row ti's micro-panel p holds rows
// 32ti + p * mr .. (panel_rows(mr, p) of them), dst[k * rows + r] = A[row0 + r, k]; rows beyond A
// and k beyond K are zero. `a` is every matrix of the batch, each padded to whole tiles on its
// own.
template <class T>
PackedA pack_a_impl(TensorView<const T> a, ThreadPool* pool) {
  PackedA p;
  p.batch = a.batch;
  p.m_tiles = tiles_of(a.rows);
  p.k_tiles = tiles_of(a.cols);
  p.mr = detail::selected_mr();
  const int mr = p.mr, per_tile = panel_count(mr);
  const std::int64_t kp = p.k_tiles * kTile;
  const std::int64_t panels = p.m_tiles * per_tile; // micro-panels per matrix
  p.data = alloc_floats(p.batch * p.m_tiles * kTile * kp);
  float* base = p.data.get();
  pool_or_default(pool).parallel_for(p.batch * panels, [&](std::int64_t b, std::int64_t e) {
    for (std::int64_t g = b; g < e; ++g) { // one micro-panel
      // Its tile row, counted over the batch.
      const std::int64_t tile_row = g / per_tile;
      const int mp = static_cast<int>(g % per_tile), h = panel_rows(mr, mp);
      float* dst = base + tile_row * kTile * kp + panel_offset(mr, mp, kp);
      const MatrixView<const T> m = a.matrix(g / panels);
      const std::int64_t row0 = (tile_row % p.m_tiles) * kTile + mp * mr;
      const int rows = static_cast<int>(std::clamp<std::int64_t>(m.rows - row0, 0, h));
      if (rows < h || m.cols < kp)
        std::memset(dst, 0, sizeof(float) * static_cast<std::size_t>(h * kp));
      const T* src = m.data + row0 * m.cols;
      if (rows == h && h == 8) // the common cases: write each k's floats contiguously
        pack_rows<8>(src, m.cols, m.cols, dst);
      else if (rows == h && h == 6)
        pack_rows<6>(src, m.cols, m.cols, dst);
      else
        for (int r = 0; r < rows; ++r)
          for (std::int64_t k = 0; k < m.cols; ++k)
            dst[k * h + r] = widen(src[r * m.cols + k]);
    }
  });
  return p;
}

// One 32 x 32 piece of a B panel: dst[k * 32 + c] = B[kt * 32 + k, col_tile * 32 + c], zero
// beyond B.
template <class T>
void pack_b_piece(MatrixView<const T> m, std::int64_t kt, std::int64_t col_tile, float* dst) {
  const std::int64_t col0 = col_tile * kTile;
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

// Panel layout: dst[k * 32 + c] = B[k, tj * 32 + c]; padding is zero. `b` is every matrix of
// the batch, packed into `base` on `pool`.
template <class T>
void pack_b_all(TensorView<const T> b, const PackedB& p, float* base, ThreadPool& pool) {
  const std::int64_t kp = p.k_tiles * kTile;
  // Split over (k tile, panel) so that a single tall panel (N = 32, large K) uses every thread;
  // column block by column block, k-tile-major within one, so that consecutive items read
  // neighbouring pieces of the same 32 rows of B (panel-major, each item reading 128 bytes from
  // each of 32 rows 4 KiB apart, took 1.5x as long at 1024 x 1024; this runs as fast as a memcpy
  // of B), and so that the thread that packs a block is the one whose share of the tile loop's
  // units computes with it (ThreadPool::parallel_for gives each thread the same share of both).
  const std::int64_t per_block = p.k_tiles * p.block_cols;
  pool.parallel_for(p.batch * p.n_tiles * p.k_tiles, [&](std::int64_t b0, std::int64_t e0) {
    for (std::int64_t w = b0; w < e0; ++w) {
      const std::int64_t mat = w / (p.k_tiles * p.n_tiles), r = w % (p.k_tiles * p.n_tiles);
      const std::int64_t col0_tile = r / per_block * p.block_cols;
      const std::int64_t width = std::min(p.block_cols, p.n_tiles - col0_tile);
      const std::int64_t kt = r % per_block / width, tj = col0_tile + r % per_block % width;
      pack_b_piece(b.matrix(mat), kt, tj,
                   base + ((mat * p.n_tiles + tj) * kp + kt * kTile) * kTile);
    }
  });
}

// The panels of tile columns [c0, c0 + width) of one matrix, one after the other from `dst`,
// on the calling thread; k tile by k tile, so that it reads B row by row.
template <class T>
void pack_b_block(MatrixView<const T> m, std::int64_t k_tiles, std::int64_t c0, std::int64_t width,
                  float* dst) {
  const std::int64_t kp = k_tiles * kTile;
  for (std::int64_t kt = 0; kt < k_tiles; ++kt)
    for (std::int64_t j = 0; j < width; ++j)
      pack_b_piece(m, kt, c0 + j, dst + (j * kp + kt * kTile) * kTile);
}

std::atomic<std::uint64_t> g_next_deferred{1};

template <class T>
PackedB pack_b_impl(TensorView<const T> b, ThreadPool* pool, bool may_defer = true) {
  PackedB p;
  p.batch = b.batch;
  p.k_tiles = tiles_of(b.rows);
  p.n_tiles = tiles_of(b.cols);
  ThreadPool& on = pool_or_default(pool);
  p.block_cols = block_cols(p.k_tiles, p.n_tiles, on.num_threads());
  if (may_defer && detail::blocks_go_round(p, p.batch, on.num_threads())) {
    // The tile loop will go a block at a time (gemm_units): leave each block to the thread
    // that computes with it (PackedB::panel).
    auto d = std::make_shared<detail::DeferredB>();
    d->id = g_next_deferred.fetch_add(1, std::memory_order_relaxed);
    if constexpr (std::is_same_v<T, bf16>)
      d->bf16_src = b;
    else
      d->f32_src = b;
    p.deferred = std::move(d);
    return p;
  }
  p.data = alloc_floats(p.batch * p.n_tiles * p.k_tiles * kTile * kTile);
  pack_b_all(b, p, p.data.get(), on);
  return p;
}

// The block of B that a thread packed last, in a buffer of its own that stays in its L2 while
// it computes the block's tiles.
struct ThreadBlock {
  std::uint64_t id = 0; // the DeferredB it is a block of; 0: none
  std::int64_t mat = 0, block = 0;
  AlignedFloats data;
  std::int64_t capacity = 0; // floats
};
thread_local ThreadBlock t_block;

// f(B's view), whichever element type B has.
template <class F>
void with_source(const detail::DeferredB& d, F&& f) {
  if (d.bf16_src.data)
    f(d.bf16_src);
  else
    f(d.f32_src);
}

} // namespace

void detail::expect_units(const PackedB& b) {
  if (b.deferred)
    b.deferred->by_units.store(true, std::memory_order_relaxed);
}

const float* PackedB::panel(std::int64_t b, std::int64_t tj) const {
  const std::int64_t panel_floats = k_tiles * kTile * kTile;
  if (!deferred)
    return data.get() + (b * n_tiles + tj) * panel_floats;
  detail::DeferredB& d = *deferred;
  if (d.ready.load(std::memory_order_acquire))
    return d.all.get() + (b * n_tiles + tj) * panel_floats;
  const std::int64_t block = tj / block_cols;
  ThreadBlock& t = t_block;
  if (t.id != d.id || t.mat != b || t.block != block) {
    // No loop goes a block at a time, or, once twice as many blocks have been packed as there
    // are, this one does not (a thread asks again for blocks it packed before): pack all of B
    // once, as when packing is not deferred, and read it from there.
    if (!d.by_units.load(std::memory_order_relaxed) ||
        d.packs.fetch_add(1, std::memory_order_relaxed) >=
            2 * batch * detail::column_blocks(*this)) {
      std::call_once(d.once, [&] {
        d.all = alloc_floats(batch * n_tiles * panel_floats);
        with_source(d, [&](auto src) { pack_b_all(src, *this, d.all.get(), default_pool()); });
        d.ready.store(true, std::memory_order_release);
      });
      return d.all.get() + (b * n_tiles + tj) * panel_floats;
    }
    const std::int64_t c0 = block * block_cols, width = std::min(block_cols, n_tiles - c0);
    if (t.capacity < block_cols * panel_floats) {
      t.data = alloc_floats(block_cols * panel_floats);
      t.capacity = block_cols * panel_floats;
    }
    with_source(d,
                [&](auto src) { pack_b_block(src.matrix(b), k_tiles, c0, width, t.data.get()); });
    t.id = d.id;
    t.mat = b;
    t.block = block;
  }
  return t.data.get() + (tj - block * block_cols) * panel_floats;
}

// transpose(t) as B: panel tj of matrix b is t's tile row tj, dst[k * 32 + c] = t[32tj + c, k],
// zero beyond t. One task per panel: it reads 32 whole rows of t.
template <class T>
PackedB pack_bt_impl(TensorView<const T> t, ThreadPool* pool) {
  PackedB p;
  p.batch = t.batch;
  p.k_tiles = tiles_of(t.cols);
  p.n_tiles = tiles_of(t.rows);
  ThreadPool& on = pool_or_default(pool);
  p.block_cols = block_cols(p.k_tiles, p.n_tiles, on.num_threads());
  const std::int64_t kp = p.k_tiles * kTile;
  p.data = alloc_floats(p.batch * p.n_tiles * kp * kTile);
  float* base = p.data.get();
  on.parallel_for(p.batch * p.n_tiles, [&](std::int64_t b, std::int64_t e) {
    for (std::int64_t g = b; g < e; ++g) {
      const MatrixView<const T> m = t.matrix(g / p.n_tiles);
      const std::int64_t row0 = g % p.n_tiles * kTile;
      const int rows = static_cast<int>(std::min<std::int64_t>(m.rows - row0, kTile));
      float* dst = base + g * kp * kTile;
      if (rows < kTile || m.cols < kp)
        std::memset(dst, 0, sizeof(float) * static_cast<std::size_t>(kp * kTile));
      for (int c = 0; c < rows; ++c) {
        const T* src = m.data + (row0 + c) * m.cols;
        for (std::int64_t k = 0; k < m.cols; ++k)
          dst[k * kTile + c] = widen(src[k]);
      }
    }
  });
  return p;
}

PackedB pack_bt(MatrixView<const float> t, ThreadPool* pool) {
  return pack_bt_impl<float>({t.data, 1, t.rows, t.cols}, pool);
}
PackedB pack_bt(MatrixView<const bf16> t, ThreadPool* pool) {
  return pack_bt_impl<bf16>({t.data, 1, t.rows, t.cols}, pool);
}
PackedB pack_bt(TensorView<const float> t, ThreadPool* pool) {
  return pack_bt_impl(t, pool);
}
PackedB pack_bt(TensorView<const bf16> t, ThreadPool* pool) {
  return pack_bt_impl(t, pool);
}

PackedA packed_a_alloc(std::int64_t rows, std::int64_t cols) {
  PackedA p;
  p.m_tiles = tiles_of(rows);
  p.k_tiles = tiles_of(cols);
  p.mr = detail::selected_mr();
  const std::int64_t n = p.m_tiles * p.k_tiles * kTile * kTile;
  p.data = alloc_floats(n);
  // The padding must be zero, as pack_a leaves it; whole tiles are all written by stores.
  if (rows % kTile != 0 || cols % kTile != 0)
    std::memset(p.data.get(), 0, sizeof(float) * static_cast<std::size_t>(n));
  return p;
}

// Tile (ti, tk) is, in each of panel ti's micro-panels, the 32 k values from 32tk on:
// A[32ti + r, k] in micro-panel r / mr at k * rows + r % mr, as pack_a_impl writes them.
void store_packed_a(const Tile& src, PackedA& dst, std::int64_t ti, std::int64_t tk) {
  const int mr = dst.mr;
  const std::int64_t kp = dst.k_tiles * kTile;
  float* panel = dst.data.get() + ti * kTile * kp;
  for (int mp = 0; mp < panel_count(mr); ++mp) {
    const int h = panel_rows(mr, mp);
    float* micro = panel + panel_offset(mr, mp, kp) + tk * kTile * h;
    for (int k = 0; k < kTile; ++k)
      for (int r = 0; r < h; ++r)
        micro[k * h + r] = src(mp * mr + r, k);
  }
}

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
PackedB pack_b_whole(MatrixView<const float> b, ThreadPool* pool) {
  return pack_b_impl<float>({b.data, 1, b.rows, b.cols}, pool, false);
}
PackedB pack_b_whole(MatrixView<const bf16> b, ThreadPool* pool) {
  return pack_b_impl<bf16>({b.data, 1, b.rows, b.cols}, pool, false);
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

} // namespace tk::cpu
