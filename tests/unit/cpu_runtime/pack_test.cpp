// Deferred packing of B: where the tile loop goes a column block at a time, pack_b leaves each
// block to the thread that computes with it. Whatever the loop's order, the tiles must come out
// bit for bit as from B packed whole: every panel holds the same floats either way.
#include <tilekit/cpu/gemm.hpp>

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace {

template <class T>
std::vector<T> random_values(std::int64_t n, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<T> v(static_cast<std::size_t>(n));
  for (T& x : v)
    x = T(dist(gen));
  return v;
}

enum class Order { units, row_major, column_across_batch };

// C = A @ B for every matrix of the batch: through the units (a block at a time, on the default
// pool) as generated code goes; or, on one thread, tile by tile in row-major order, or column by
// column with the same column of every matrix in a row (the same block of each matrix in turn).
template <class T>
std::vector<float> product(const tk::cpu::PackedA& pa, const tk::cpu::PackedB& pb,
                           std::int64_t batch, std::int64_t m, std::int64_t n, Order order) {
  std::vector<float> c(static_cast<std::size_t>(batch * m * n));
  const std::int64_t per = pa.m_tiles * pb.n_tiles, items = batch * per;
  auto tile = [&](std::int64_t w, std::int64_t row, std::int64_t col) {
    tk::cpu::Tile acc;
    const std::int64_t mat = w / per;
    tk::cpu::gemm_tile(pa, mat, pb, pb.batch == 1 ? 0 : mat, row, col, acc);
    tk::cpu::store_tile(acc, tk::MatrixView<float>{c.data() + mat * m * n, m, n}, row, col);
  };
  if (order == Order::row_major) {
    for (std::int64_t w = 0; w < items; ++w)
      tile(w, w % per / pb.n_tiles, w % pb.n_tiles);
    return c;
  }
  if (order == Order::column_across_batch) {
    for (std::int64_t col = 0; col < pb.n_tiles; ++col)
      for (std::int64_t row = 0; row < pa.m_tiles; ++row)
        for (std::int64_t mat = 0; mat < batch; ++mat)
          tile(mat * per, row, col);
    return c;
  }
  tk::cpu::parallel_for(tk::cpu::gemm_units(pa, pb, items), [&](std::int64_t b, std::int64_t e) {
    for (std::int64_t u = b; u < e; ++u) {
      const std::int64_t w0 = tk::cpu::gemm_unit_begin(pa, pb, items, u);
      for (std::int64_t w = w0; w < w0 + tk::cpu::gemm_unit_size(pa, pb, items, u); ++w) {
        const auto p = tk::cpu::gemm_tile_pos(pa, pb, w);
        tile(w, p.row, p.col);
      }
    }
  });
  return c;
}

template <class T>
void expect_deferred_matches_whole(std::int64_t batch, std::int64_t m, std::int64_t k,
                                   std::int64_t n) {
  const int before = tk::cpu::default_pool().num_threads();
  tk::cpu::set_num_threads(2);
  const auto a = random_values<T>(batch * m * k, 1), b = random_values<T>(batch * k * n, 2);
  const tk::TensorView<const T> av{a.data(), batch, m, k}, bv{b.data(), batch, k, n};
  // B is eight tile columns of at least 512 KiB each, more than half of any L2 here together.
  // On two threads that is eight blocks of one column, enough to go round (four per thread),
  // so packing is deferred; on eight, eight blocks of the batch are not enough (32), so B is
  // packed whole.
  tk::cpu::ThreadPool eight(8);
  const auto pa = tk::cpu::pack_a(av);
  const auto whole = tk::cpu::pack_b(bv, &eight);
  const auto deferred = tk::cpu::pack_b(bv);
  ASSERT_FALSE(whole.deferred);
  ASSERT_TRUE(whole.data);
  ASSERT_TRUE(deferred.deferred);
  EXPECT_FALSE(deferred.data);
  const auto want = product<T>(pa, whole, batch, m, n, Order::row_major);
  {
    // Never through gemm_units: B is packed whole on the first panel asked for.
    const auto never_by_units = tk::cpu::pack_b(bv);
    ASSERT_TRUE(never_by_units.deferred);
    const auto got = product<T>(pa, never_by_units, batch, m, n, Order::column_across_batch);
    EXPECT_EQ(0, std::memcmp(got.data(), want.data(), want.size() * sizeof(float)));
  }
  // A block at a time, each thread packing its own blocks; column by column across the batch,
  // which packs each block once per row of tiles; then in row-major order, which asks for every
  // block once per tile row, as many times as there are blocks at least, so that B ends up packed
  // whole.
  for (Order order : {Order::units, Order::column_across_batch, Order::row_major}) {
    const auto got = product<T>(pa, deferred, batch, m, n, order);
    EXPECT_EQ(0, std::memcmp(got.data(), want.data(), want.size() * sizeof(float)))
        << "order " << static_cast<int>(order);
  }
  tk::cpu::set_num_threads(before);
}

TEST(DeferredPackB, BlockByBlockAsWhole) {
  expect_deferred_matches_whole<float>(1, 96, 4096, 256);
}

TEST(DeferredPackB, Bf16) {
  expect_deferred_matches_whole<tk::bf16>(1, 64, 4096, 256);
}

TEST(DeferredPackB, EveryMatrixOfABatch) {
  expect_deferred_matches_whole<float>(3, 64, 4096, 256);
}

} // namespace

namespace {

// Where the panels come from: B packed whole keeps every panel at its own place; a block at a
// time, every block starts at the thread's buffer. A deferred B is packed whole unless
// gemm_units said a loop goes a block at a time.
TEST(DeferredPackB, PacksABlockAtATimeOnlyForUnits) {
  const int before = tk::cpu::default_pool().num_threads();
  tk::cpu::set_num_threads(2);
  const auto a = random_values<float>(64 * 4096, 1), b = random_values<float>(4096 * 256, 2);
  const tk::MatrixView<const float> av{a.data(), 64, 4096}, bv{b.data(), 4096, 256};
  const auto pa = tk::cpu::pack_a(av);
  const std::int64_t panel_floats = 4096 * 32;
  for (bool units : {false, true}) {
    const auto pb = tk::cpu::pack_b(bv);
    ASSERT_TRUE(pb.deferred);
    ASSERT_EQ(pb.block_cols, 1);
    if (units) {
      EXPECT_EQ(tk::cpu::gemm_units(pa, pb, pa.m_tiles * pb.n_tiles), 8); // one block each
    }
    const float* first = pb.panel(0, 0);
    const float* third = pb.panel(0, 2);
    EXPECT_EQ(third, units ? first : first + 2 * panel_floats) << "units " << units;
    EXPECT_EQ(third[0], b[2 * 32]); // B[0, 64], the first value of panel 2
  }
  tk::cpu::set_num_threads(before);
}

} // namespace

// A packed A stored a tile at a time (a materialised value) holds the same floats as pack_a of
// the same matrix, in any order of the stores.
static void expect_stored_as_packed(std::int64_t m, std::int64_t k) {
  const std::vector<float> a = random_values<float>(m * k, 7);
  const tk::MatrixView<const float> view{a.data(), m, k};
  const tk::cpu::PackedA packed = tk::cpu::pack_a(view);
  tk::cpu::PackedA stored = tk::cpu::packed_a_alloc(m, k);
  ASSERT_EQ(stored.m_tiles, packed.m_tiles);
  ASSERT_EQ(stored.k_tiles, packed.k_tiles);
  for (std::int64_t kt = stored.k_tiles - 1; kt >= 0; --kt) // columns last to first
    for (std::int64_t ti = 0; ti < stored.m_tiles; ++ti) {
      tk::cpu::Tile t;
      tk::cpu::load_tile(view, ti, kt, t);
      tk::cpu::store_packed_a(t, stored, ti, kt);
    }
  const std::size_t n = static_cast<std::size_t>(stored.m_tiles * stored.k_tiles * 32 * 32);
  EXPECT_EQ(std::memcmp(stored.data.get(), packed.data.get(), n * sizeof(float)), 0);
}

TEST(StorePackedA, SameFloatsAsPackA) {
  // For every micro-kernel's panel height (6 rows for avx2, 8 for the others).
  const std::string previous = tk::cpu::gemm_kernel();
  for (const char* const* k = tk::cpu::gemm_kernels(); *k; ++k) {
    SCOPED_TRACE(*k);
    ASSERT_TRUE(tk::cpu::select_gemm_kernel(*k));
    expect_stored_as_packed(96, 160);
    expect_stored_as_packed(32, 224);
  }
  tk::cpu::select_gemm_kernel(previous.c_str());
}

// Not whole tiles: the padding no tile store reaches is zero, as pack_a leaves it.
TEST(StorePackedA, PaddingIsZero) {
  const tk::cpu::PackedA p = tk::cpu::packed_a_alloc(40, 50);
  ASSERT_EQ(p.m_tiles, 2);
  ASSERT_EQ(p.k_tiles, 2);
  for (std::int64_t e = 0; e < 2 * 2 * 32 * 32; ++e)
    ASSERT_EQ(p.data.get()[e], 0.0f) << e;
}

// pack_bt(T) is transpose(T) packed as B: A @ transpose(T) through it is, bit for bit, A @ B with
// B = transpose(T) written out and packed by pack_b; for every matrix of a batch too.
TEST(PackBt, SameFloatsAsPackBOfTheTranspose) {
  const std::int64_t batch = 2, rows = 96, cols = 64; // T: [batch, rows, cols]
  const std::vector<tk::bf16> t = random_values<tk::bf16>(batch * rows * cols, 11);
  std::vector<tk::bf16> tt(t.size());
  for (std::int64_t b = 0; b < batch; ++b)
    for (std::int64_t r = 0; r < rows; ++r)
      for (std::int64_t c = 0; c < cols; ++c)
        tt[static_cast<std::size_t>((b * cols + c) * rows + r)] =
            t[static_cast<std::size_t>((b * rows + r) * cols + c)];
  const tk::cpu::PackedB bt =
      tk::cpu::pack_bt(tk::TensorView<const tk::bf16>{t.data(), batch, rows, cols});
  ASSERT_EQ(bt.k_tiles, cols / 32);
  ASSERT_EQ(bt.n_tiles, rows / 32);
  for (std::int64_t b = 0; b < batch; ++b) {
    const tk::cpu::PackedB want =
        tk::cpu::pack_b(tk::MatrixView<const tk::bf16>{tt.data() + b * rows * cols, cols, rows});
    for (std::int64_t tj = 0; tj < bt.n_tiles; ++tj)
      EXPECT_EQ(std::memcmp(bt.panel(b, tj), want.panel(0, tj),
                            sizeof(float) * static_cast<std::size_t>(cols * 32)),
                0)
          << "matrix " << b << " panel " << tj;
  }
}

// pack_b_whole never defers: data holds every panel at once, the same floats pack_b's panels
// hold, even for a B that pack_b would leave to the tile loop's threads (64 column tiles, K = 512:
// eight blocks of eight on two threads).
TEST(PackBWhole, NeverDeferredSameFloats) {
  tk::cpu::set_num_threads(2);
  const std::int64_t k = 512, n = 2048;
  const std::vector<tk::bf16> b = random_values<tk::bf16>(k * n, 12);
  const tk::MatrixView<const tk::bf16> view{b.data(), k, n};
  const tk::cpu::PackedB deferred = tk::cpu::pack_b(view);
  const tk::cpu::PackedB whole = tk::cpu::pack_b_whole(view);
  ASSERT_TRUE(deferred.deferred); // what this case is about
  EXPECT_FALSE(whole.deferred);
  ASSERT_NE(whole.data.get(), nullptr);
  for (std::int64_t tj = 0; tj < n / 32; ++tj)
    ASSERT_EQ(std::memcmp(whole.panel(tj), deferred.panel(tj),
                          sizeof(float) * static_cast<std::size_t>(k * 32)),
              0)
        << tj;
}
