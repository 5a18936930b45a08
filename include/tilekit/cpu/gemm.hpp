// The CPU matmul for generated code: pack A and B once into fp32 panels, then compute whole 32x32
// output tiles (fp32 accumulation over all of K) with a register-blocked micro-kernel, so that a
// tile-parallel loop over (i, j) can apply its fused epilogue to each tile while it is in cache.
//
//   const auto pa = tk::cpu::pack_a(A);
//   const auto pb = tk::cpu::pack_b(B);
//   tk::cpu::parallel_for(mt * nt, [&](std::int64_t b, std::int64_t e) {
//     tk::cpu::Tile acc;
//     for (auto w = b; w < e; ++w) {
//       const auto p = tk::cpu::gemm_tile_pos(pa, pb, w);  // the order that keeps B in L2
//       tk::cpu::gemm_tile(pa, pb, p.row, p.col, acc);     // then the epilogue and store_tile
//     }
//   });
#pragma once

#include <tilekit/cpu/thread_pool.hpp>
#include <tilekit/cpu/tile.hpp>
#include <tilekit/runtime.hpp>

#include <cstdint>
#include <memory>

namespace tk::cpu {

/// 64-byte aligned fp32 storage owned by the packed operands. Freed storage goes to a small
/// cache (at most four blocks of up to 256 MiB) that the next pack reuses, to avoid page faults.
struct AlignedFree {
  void operator()(float* p) const;
};
using AlignedFloats = std::unique_ptr<float[], AlignedFree>;

/// A (M x K) widened to fp32 and zero-padded to whole tiles. Tile row ti is one contiguous panel
/// of 32 x Kp floats, made of micro-panels of `mr` rows (the micro-kernel's: 8 for "avx512" and
/// "portable", 6 for "avx2", whose 32 rows are 6, 6, 6, 6, 6, 2), each stored k-major (mr
/// consecutive floats per k), which is the order the micro-kernel broadcasts them in. A batch of
/// `batch` matrices (packed from a TensorView) is their panels one matrix after the other; m_tiles
/// counts one matrix. gemm_tile requires the selected micro-kernel to take panels of a.mr rows.
struct PackedA {
  AlignedFloats data;
  std::int64_t batch = 1, m_tiles = 0, k_tiles = 0;
  int mr = 8;
  const float* panel(std::int64_t ti) const { return panel(0, ti); }
  const float* panel(std::int64_t b, std::int64_t ti) const {
    return data.get() + (b * m_tiles + ti) * kTile * k_tiles * kTile;
  }
};

namespace detail {
struct DeferredB; // pack.cpp
}

/// B (K x N) widened to fp32 and zero-padded to whole tiles. Tile column tj is one contiguous
/// panel of Kp x 32 floats, k-major (one 32-float row of B per k), read as two vector registers.
/// A batch is its matrices' panels one after the other; n_tiles counts one matrix.
///
/// Where a tile loop can go a column block at a time (B cut into blocks, at least four per
/// thread), pack_b copies nothing: `deferred` is set and `data` is empty. Once gemm_units has
/// been called for it (the loop goes a block at a time), panel() packs a block into a buffer of
/// the calling thread's own, which stays in its L2 while the thread computes the block's tiles,
/// when the thread first asks for one of its panels (a BLAS packs B a block at a time in the same
/// way). Such a PackedB reads B, which must outlive it. Without gemm_units, or once the threads
/// have asked for twice as many blocks as there are (a loop that does not go a block at a time),
/// panel() packs all of B once and reads it from there.
struct PackedB {
  AlignedFloats data;
  std::int64_t batch = 1, k_tiles = 0, n_tiles = 0;
  std::int64_t block_cols = 1; // see gemm_tile_pos: set by pack_b
  std::shared_ptr<detail::DeferredB> deferred;

  /// Panel tj of matrix b. Where packing is deferred, in the calling thread's buffer: valid until
  /// the thread asks for a panel of another block (of any PackedB).
  const float* panel(std::int64_t tj) const { return panel(0, tj); }
  const float* panel(std::int64_t b, std::int64_t tj) const;
};

/// Packs on `pool` (nullptr: default_pool()); run serially when called from inside a job. A
/// dimension that is not a multiple of 32 (a vector's 1) is padded with zeros.
PackedA pack_a(MatrixView<const float> a, ThreadPool* pool = nullptr);
PackedA pack_a(MatrixView<const bf16> a, ThreadPool* pool = nullptr);
PackedB pack_b(MatrixView<const float> b, ThreadPool* pool = nullptr);
PackedB pack_b(MatrixView<const bf16> b, ThreadPool* pool = nullptr);
/// Every matrix of a batch, in one pass on the pool: panel(b, t) is tile row (column) t of
/// matrix b.
PackedA pack_a(TensorView<const float> a, ThreadPool* pool = nullptr);
PackedA pack_a(TensorView<const bf16> a, ThreadPool* pool = nullptr);
PackedB pack_b(TensorView<const float> b, ThreadPool* pool = nullptr);
PackedB pack_b(TensorView<const bf16> b, ThreadPool* pool = nullptr);

/// B packed whole, now, on `pool`, never deferred: for a loop that does not go a column block at a
/// time (gemm_units). A deferred B would be packed whole anyway, by the first thread to ask for a
/// panel, alone, while the others wait.
PackedB pack_b_whole(MatrixView<const float> b, ThreadPool* pool = nullptr);
PackedB pack_b_whole(MatrixView<const bf16> b, ThreadPool* pool = nullptr);

/// B = transpose(t) packed, for A @ transpose(t) (attention's Q K^T): t's rows are B's columns,
/// so panel tj holds t's tile row tj, k-major (dst[k * 32 + c] = t[32tj + c, k]). Packed whole,
/// never deferred.
PackedB pack_bt(MatrixView<const float> t, ThreadPool* pool = nullptr);
PackedB pack_bt(MatrixView<const bf16> t, ThreadPool* pool = nullptr);
PackedB pack_bt(TensorView<const float> t, ThreadPool* pool = nullptr);
PackedB pack_bt(TensorView<const bf16> t, ThreadPool* pool = nullptr);

/// A packed A written a tile at a time instead of packed from a tensor: a materialised value
/// (docs/lowering.md "Recompute or materialise") that one loop nest computes and the next reads
/// as the A of its gemm, so it is never stored row-major and packed again. `rows` x `cols`
/// elements, zero-padded to whole tiles; every tile must be stored before the gemm reads it.
PackedA packed_a_alloc(std::int64_t rows, std::int64_t cols);
/// Stores `src` as tile (ti, tk) of `dst` (its rows 32ti.., its k 32tk..), in the micro-panel
/// layout pack_a writes. Distinct tiles are distinct memory: threads may store them concurrently.
void store_packed_a(const Tile& src, PackedA& dst, std::int64_t ti, std::int64_t tk);

/// acc = A_ba[ti, :] @ B_bb[:, tj] over K tiles [kt_begin, kt_end), or acc += that when
/// `accumulate`: matrix `ba` of a batch `a`, matrix `bb` of `b` (0 for a single matrix, or for a
/// batch of one shared by every batch). fp32 products and fp32 accumulation in k order per
/// element. Requires a.k_tiles == b.k_tiles.
void gemm_tile(const PackedA& a, std::int64_t ba, const PackedB& b, std::int64_t bb,
               std::int64_t ti, std::int64_t tj, std::int64_t kt_begin, std::int64_t kt_end,
               Tile& acc, bool accumulate = false);

/// The whole K range.
inline void gemm_tile(const PackedA& a, std::int64_t ba, const PackedB& b, std::int64_t bb,
                      std::int64_t ti, std::int64_t tj, Tile& acc, bool accumulate = false) {
  gemm_tile(a, ba, b, bb, ti, tj, 0, a.k_tiles, acc, accumulate);
}

/// Single matrices (matrix 0 of each).
inline void gemm_tile(const PackedA& a, const PackedB& b, std::int64_t ti, std::int64_t tj,
                      std::int64_t kt_begin, std::int64_t kt_end, Tile& acc,
                      bool accumulate = false) {
  gemm_tile(a, 0, b, 0, ti, tj, kt_begin, kt_end, acc, accumulate);
}
inline void gemm_tile(const PackedA& a, const PackedB& b, std::int64_t ti, std::int64_t tj,
                      Tile& acc, bool accumulate = false) {
  gemm_tile(a, 0, b, 0, ti, tj, 0, a.k_tiles, acc, accumulate);
}

/// acc += a @ b on tiles already at hand (a matmul with a computed operand, as mlp's gelu(h) @
/// W2), with gemm_tile's micro-kernel and numerics: fp32 products and accumulation in k order.
void tile_matmul_acc(const Tile& a, const Tile& b, Tile& acc);

/// The same product with A packed once for several B tiles (attention's p @ V[h, j, d] for every
/// d): pack_tile_a writes `a` into `packed` in pack_a's micro-panel layout for the selected
/// micro-kernel (a Tile is the buffer, not a row-major tile), and packed_tile_matmul_acc(packed, b,
/// acc) is tile_matmul_acc(a, b, acc) without the repacking, the same numerics.
void pack_tile_a(const Tile& a, Tile& packed);
void packed_tile_matmul_acc(const Tile& packed_a, const Tile& b, Tile& acc);

/// The order of the output tiles that keeps B in L2, for a tile-parallel loop over work items
/// w = 0 .. m_tiles * n_tiles: tile columns go in blocks of b.block_cols, as many as fit in half
/// of L2 together (pack_b sets it from K, the L2 size and, where B does not fit, its pool's
/// thread count: at most n_tiles / (4 x threads)), and within a block the tile rows in
/// order, each across the block's columns (the last block may be narrower). The plain row-major
/// order (i = w / n_tiles) streams every B panel from L3 once per tile row as soon as B is larger
/// than L2. For a batch, w counts on across its matrices and is taken modulo m_tiles * n_tiles.
struct TilePos {
  std::int64_t row, col;
};
inline TilePos gemm_tile_pos(const PackedA& a, const PackedB& b, std::int64_t w) {
  const std::int64_t mt = a.m_tiles, nt = b.n_tiles, nb = b.block_cols;
  w %= mt * nt;
  const std::int64_t block = w / (mt * nb), r = w % (mt * nb);
  const std::int64_t width = nt - block * nb < nb ? nt - block * nb : nb;
  return {r / width, block * nb + r % width};
}
inline std::int64_t gemm_row(const PackedA& a, const PackedB& b, std::int64_t w) {
  return gemm_tile_pos(a, b, w).row;
}
inline std::int64_t gemm_col(const PackedA& a, const PackedB& b, std::int64_t w) {
  return gemm_tile_pos(a, b, w).col;
}

/// Units of work for the tile-parallel loop over the n = batch x m_tiles x n_tiles work items
/// of gemm_tile_pos: where B is cut into column blocks, and the blocks of all the matrices are
/// at least four per thread of the default pool, a unit is one block of one matrix (its tiles are
/// consecutive work items), so that a thread computes whole blocks and keeps their B panels in its
/// own L2; otherwise a unit is one work item. Generated code runs `parallel_for(gemm_units(a, b,
/// n), ...)` and, for unit u, the gemm_unit_size(a, b, n, u) items from gemm_unit_begin(a, b, n,
/// u).
std::int64_t gemm_units(const PackedA& a, const PackedB& b, std::int64_t n);
std::int64_t gemm_unit_begin(const PackedA& a, const PackedB& b, std::int64_t n, std::int64_t u);
std::int64_t gemm_unit_size(const PackedA& a, const PackedB& b, std::int64_t n, std::int64_t u);

/// The micro-kernels compiled into this build, best first ("avx512", "avx2", "portable"), and
/// the one gemm_tile uses. select_gemm_kernel switches it (for tests and benchmarks; not while a
/// gemm runs, and operands packed before are packed for the kernel selected then) and returns
/// false for a name that is not compiled in.
const char* const* gemm_kernels(); // nullptr-terminated
const char* gemm_kernel();
bool select_gemm_kernel(const char* name);

} // namespace tk::cpu
