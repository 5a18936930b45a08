// gemm_tile vs a double-precision reference, for every micro-kernel compiled into this build.
#include <tilekit/cpu/gemm.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using tk::cpu::Tile;

struct Shape {
  std::int64_t m, k, n;
};

std::vector<float> random_floats(std::int64_t n, unsigned seed, float lo = -1.0f, float hi = 1.0f) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v(static_cast<std::size_t>(n));
  for (float& x : v)
    x = dist(gen);
  return v;
}

// C = A @ B computed tile by tile through the API generated code uses, on `pool`.
template <class T>
std::vector<float> tile_matmul(const std::vector<T>& a, const std::vector<T>& b, Shape s,
                               tk::cpu::ThreadPool* pool = nullptr) {
  const auto pa = tk::cpu::pack_a(tk::MatrixView<const T>{a.data(), s.m, s.k}, pool);
  const auto pb = tk::cpu::pack_b(tk::MatrixView<const T>{b.data(), s.k, s.n}, pool);
  EXPECT_EQ(pa.k_tiles, pb.k_tiles);
  std::vector<float> c(static_cast<std::size_t>(s.m * s.n));
  tk::MatrixView<float> cv{c.data(), s.m, s.n};
  const std::int64_t nt = pb.n_tiles;
  auto body = [&](std::int64_t begin, std::int64_t end) {
    Tile acc;
    for (std::int64_t w = begin; w < end; ++w) {
      tk::cpu::gemm_tile(pa, pb, w / nt, w % nt, acc);
      tk::cpu::store_tile(acc, cv, w / nt, w % nt);
    }
  };
  if (pool)
    pool->parallel_for(pa.m_tiles * nt, body);
  else
    body(0, pa.m_tiles * nt);
  return c;
}

// Checks every element against a double reference: |c - ref| <= rtol * sum_k |a_ik| |b_kj|.
void expect_close(const std::vector<float>& c, const std::vector<float>& a,
                  const std::vector<float>& b, Shape s, double rtol) {
  int bad = 0;
  for (std::int64_t i = 0; i < s.m; ++i)
    for (std::int64_t j = 0; j < s.n; ++j) {
      double ref = 0, mag = 0;
      for (std::int64_t k = 0; k < s.k; ++k) {
        const double p = static_cast<double>(a[static_cast<std::size_t>(i * s.k + k)]) *
                         b[static_cast<std::size_t>(k * s.n + j)];
        ref += p;
        mag += std::fabs(p);
      }
      const double got = c[static_cast<std::size_t>(i * s.n + j)];
      if (std::fabs(got - ref) > rtol * mag && ++bad <= 5)
        ADD_FAILURE() << "C(" << i << ", " << j << ") = " << got << ", reference " << ref
                      << ", bound " << rtol * mag;
    }
  EXPECT_EQ(bad, 0);
}

class GemmTest : public ::testing::TestWithParam<std::string> {
protected:
  void SetUp() override {
    previous_ = tk::cpu::gemm_kernel();
    ASSERT_TRUE(tk::cpu::select_gemm_kernel(GetParam().c_str()));
  }
  void TearDown() override { tk::cpu::select_gemm_kernel(previous_.c_str()); }
  std::string previous_;
};

const Shape kShapes[] = {{32, 32, 32}, {64, 64, 64}, {32, 544, 64}, {96, 544, 160}, {160, 96, 64}};

TEST_P(GemmTest, F32MatchesDoubleReference) {
  for (const Shape& s : kShapes) {
    SCOPED_TRACE(std::to_string(s.m) + "x" + std::to_string(s.k) + "x" + std::to_string(s.n));
    const auto a = random_floats(s.m * s.k, 11), b = random_floats(s.k * s.n, 12);
    expect_close(tile_matmul(a, b, s), a, b, s, 1e-5);
  }
}

// Row and column counts that are multiples of neither the tile (32) nor a micro-panel (6 or 8
// rows): the rows of A past M are zero padding, in whichever micro-panel they fall.
TEST_P(GemmTest, RaggedShapesMatchDoubleReference) {
  const Shape ragged[] = {{45, 70, 50}, {1, 33, 7}, {37, 96, 32}, {62, 5, 64}, {91, 130, 33}};
  for (const Shape& s : ragged) {
    SCOPED_TRACE(std::to_string(s.m) + "x" + std::to_string(s.k) + "x" + std::to_string(s.n));
    const auto a = random_floats(s.m * s.k, 13), b = random_floats(s.k * s.n, 14);
    const auto pa = tk::cpu::pack_a(tk::MatrixView<const float>{a.data(), s.m, s.k});
    const auto pb = tk::cpu::pack_b(tk::MatrixView<const float>{b.data(), s.k, s.n});
    // store_tile takes whole tiles (or vectors): copy the part of each tile inside C by hand, and
    // check that the padding rows and columns are zero.
    std::vector<float> c(static_cast<std::size_t>(s.m * s.n));
    Tile acc;
    for (std::int64_t ti = 0; ti < pa.m_tiles; ++ti)
      for (std::int64_t tj = 0; tj < pb.n_tiles; ++tj) {
        tk::cpu::gemm_tile(pa, pb, ti, tj, acc);
        for (int r = 0; r < 32; ++r)
          for (int q = 0; q < 32; ++q) {
            const std::int64_t i = ti * 32 + r, j = tj * 32 + q;
            if (i < s.m && j < s.n)
              c[static_cast<std::size_t>(i * s.n + j)] = acc(r, q);
            else
              ASSERT_EQ(acc(r, q), 0.0f) << i << "," << j;
          }
      }
    expect_close(c, a, b, s, 1e-5);
  }
}

TEST_P(GemmTest, Bf16ProductsAreExact) {
  for (const Shape& s : kShapes) {
    SCOPED_TRACE(std::to_string(s.m) + "x" + std::to_string(s.k) + "x" + std::to_string(s.n));
    const auto af = random_floats(s.m * s.k, 21), bf = random_floats(s.k * s.n, 22);
    const std::vector<tk::bf16> a(af.begin(), af.end()), b(bf.begin(), bf.end());
    // The reference uses the bf16 values widened (exactly), so only fp32 summation differs.
    std::vector<float> aw(a.size()), bw(b.size());
    for (std::size_t i = 0; i < a.size(); ++i)
      aw[i] = static_cast<float>(a[i]);
    for (std::size_t i = 0; i < b.size(); ++i)
      bw[i] = static_cast<float>(b[i]);
    expect_close(tile_matmul(a, b, s), aw, bw, s, 1e-5);
  }
}

TEST_P(GemmTest, SmallIntegersAreExact) {
  // Products and sums of small integers are exact in fp32: the result must be bit-exact.
  const Shape s{64, 544, 96};
  std::mt19937 gen(5);
  std::uniform_int_distribution<int> dist(-8, 8);
  std::vector<tk::bf16> a(static_cast<std::size_t>(s.m * s.k)),
      b(static_cast<std::size_t>(s.k * s.n));
  for (auto& x : a)
    x = tk::bf16(static_cast<float>(dist(gen)));
  for (auto& x : b)
    x = tk::bf16(static_cast<float>(dist(gen)));
  const auto c = tile_matmul(a, b, s);
  for (std::int64_t i = 0; i < s.m; ++i)
    for (std::int64_t j = 0; j < s.n; ++j) {
      float ref = 0;
      for (std::int64_t k = 0; k < s.k; ++k)
        ref += static_cast<float>(a[static_cast<std::size_t>(i * s.k + k)]) *
               static_cast<float>(b[static_cast<std::size_t>(k * s.n + j)]);
      ASSERT_EQ(c[static_cast<std::size_t>(i * s.n + j)], ref) << i << "," << j;
    }
}

// A tile times a tile, added to an accumulator: bit for bit what gemm_tile computes for the same
// 32x32 matrices (the same micro-kernel, k in order), plus the accumulator's start.
TEST_P(GemmTest, TileMatmulAccIsGemmTileOnTiles) {
  const auto a = random_floats(32 * 32, 41), b = random_floats(32 * 32, 42);
  const Shape s{32, 32, 32};
  const auto pa = tk::cpu::pack_a(tk::MatrixView<const float>{a.data(), 32, 32});
  const auto pb = tk::cpu::pack_b(tk::MatrixView<const float>{b.data(), 32, 32});
  Tile ta, tb, start, want, got;
  std::memcpy(ta.data, a.data(), sizeof ta.data);
  std::memcpy(tb.data, b.data(), sizeof tb.data);
  const auto c0 = random_floats(32 * 32, 43);
  std::memcpy(start.data, c0.data(), sizeof start.data);
  want = start;
  tk::cpu::gemm_tile(pa, pb, 0, 0, want, /*accumulate=*/true);
  got = start;
  tk::cpu::tile_matmul_acc(ta, tb, got);
  EXPECT_EQ(0, std::memcmp(got.data, want.data, sizeof got.data));
  // And from zero, against the double reference.
  tk::cpu::fill(got, 0.0f);
  tk::cpu::tile_matmul_acc(ta, tb, got);
  expect_close(std::vector<float>(got.data, got.data + 32 * 32), a, b, s, 1e-5);
}

// A packed once by pack_tile_a is pack_a's panel of the same tile, and every product with it
// (packed_tile_matmul_acc, as attention's p @ V[h, j, d] over d) is bit for bit gemm_tile's.
TEST_P(GemmTest, PackedTileAIsPackAAndItsProductsGemmTile) {
  const auto a = random_floats(32 * 32, 51);
  const auto pa = tk::cpu::pack_a(tk::MatrixView<const float>{a.data(), 32, 32});
  Tile ta, packed;
  std::memcpy(ta.data, a.data(), sizeof ta.data);
  tk::cpu::pack_tile_a(ta, packed);
  EXPECT_EQ(0, std::memcmp(packed.data, pa.panel(0), sizeof packed.data));
  for (unsigned seed : {52u, 53u, 54u}) { // three B tiles with the one packed A
    const auto b = random_floats(32 * 32, seed), c0 = random_floats(32 * 32, seed + 10);
    const auto pb = tk::cpu::pack_b(tk::MatrixView<const float>{b.data(), 32, 32});
    Tile tb, want, got;
    std::memcpy(tb.data, b.data(), sizeof tb.data);
    std::memcpy(want.data, c0.data(), sizeof want.data);
    got = want;
    tk::cpu::gemm_tile(pa, pb, 0, 0, want, /*accumulate=*/true);
    tk::cpu::packed_tile_matmul_acc(packed, tb, got);
    EXPECT_EQ(0, std::memcmp(got.data, want.data, sizeof got.data)) << seed;
  }
}

TEST_P(GemmTest, KRangesAccumulate) {
  const Shape s{32, 160, 32}; // 5 K tiles
  const auto a = random_floats(s.m * s.k, 31), b = random_floats(s.k * s.n, 32);
  const auto pa = tk::cpu::pack_a(tk::MatrixView<const float>{a.data(), s.m, s.k});
  const auto pb = tk::cpu::pack_b(tk::MatrixView<const float>{b.data(), s.k, s.n});
  Tile acc;
  tk::cpu::gemm_tile(pa, pb, 0, 0, 2, 5, acc);       // k tiles 2..4
  tk::cpu::gemm_tile(pa, pb, 0, 0, 0, 2, acc, true); // += k tiles 0..1
  for (int i = 0; i < 32; ++i)
    for (int j = 0; j < 32; ++j) {
      double ref = 0, mag = 0;
      for (int k = 0; k < s.k; ++k) {
        const double p = static_cast<double>(a[static_cast<std::size_t>(i * s.k + k)]) *
                         b[static_cast<std::size_t>(k * s.n + j)];
        ref += p;
        mag += std::fabs(p);
      }
      ASSERT_NEAR(acc(i, j), ref, 1e-5 * mag) << i << "," << j;
    }
  // An empty K range gives zeros, or leaves the accumulator alone.
  tk::cpu::gemm_tile(pa, pb, 0, 0, 3, 3, acc, true);
  EXPECT_NE(acc(0, 0), 0.0f);
  tk::cpu::gemm_tile(pa, pb, 0, 0, 3, 3, acc);
  EXPECT_EQ(acc(31, 31), 0.0f);
}

TEST_P(GemmTest, VectorOperandsArePaddedWithZeros) {
  // A row vector [1, K] @ B [K, N]: row 0 of the tile is the product, the other rows are 0.
  const std::int64_t k = 64, n = 32;
  const auto v = random_floats(k, 41), b = random_floats(k * n, 42);
  const auto pa = tk::cpu::pack_a(tk::MatrixView<const float>{v.data(), 1, k});
  const auto pb = tk::cpu::pack_b(tk::MatrixView<const float>{b.data(), k, n});
  EXPECT_EQ(pa.m_tiles, 1);
  Tile acc;
  tk::cpu::gemm_tile(pa, pb, 0, 0, acc);
  for (int j = 0; j < 32; ++j) {
    double ref = 0, mag = 0;
    for (int kk = 0; kk < k; ++kk) {
      ref += static_cast<double>(v[static_cast<std::size_t>(kk)]) *
             b[static_cast<std::size_t>(kk * n + j)];
      mag += std::fabs(static_cast<double>(v[static_cast<std::size_t>(kk)]) *
                       b[static_cast<std::size_t>(kk * n + j)]);
    }
    EXPECT_NEAR(acc(0, j), ref, 1e-5 * mag) << j;
    for (int i = 1; i < 32; ++i)
      ASSERT_EQ(acc(i, j), 0.0f);
  }
  // An outer product: column vector [M, 1] @ row vector [1, N]; K = 1 is padded to one tile.
  const auto x = random_floats(32, 43), y = random_floats(32, 44);
  const auto px = tk::cpu::pack_a(tk::MatrixView<const float>{x.data(), 32, 1});
  const auto py = tk::cpu::pack_b(tk::MatrixView<const float>{y.data(), 1, 32});
  tk::cpu::gemm_tile(px, py, 0, 0, acc);
  for (int i = 0; i < 32; ++i)
    for (int j = 0; j < 32; ++j)
      ASSERT_EQ(acc(i, j), x[static_cast<std::size_t>(i)] * y[static_cast<std::size_t>(j)]);
}

TEST_P(GemmTest, ParallelEqualsSerialBitForBit) {
  const Shape s{96, 544, 160};
  const auto a = random_floats(s.m * s.k, 51), b = random_floats(s.k * s.n, 52);
  tk::cpu::ThreadPool pool(3);
  EXPECT_EQ(tile_matmul(a, b, s, &pool), tile_matmul(a, b, s));
}

// A batch packed in one pass gives, for every matrix, bit for bit what packing that matrix alone
// gives: its own rows (a ragged row count is padded per matrix, not across the batch boundary),
// against the other operand's matching matrix, a batch of one, or a single matrix.
TEST_P(GemmTest, BatchesPackEachMatrixOnItsOwn) {
  const std::int64_t batch = 3, m = 40, k = 288, n = 64; // 40 rows: two tiles, the second ragged
  const auto a = random_floats(batch * m * k, 61), x = random_floats(batch * k * n, 62);
  const auto w = random_floats(k * n, 63);
  tk::cpu::ThreadPool pool(2);
  const auto pa = tk::cpu::pack_a(tk::TensorView<const float>{a.data(), batch, m, k}, &pool);
  const auto px = tk::cpu::pack_b(tk::TensorView<const float>{x.data(), batch, k, n}, &pool);
  const auto pw1 = tk::cpu::pack_b(tk::TensorView<const float>{w.data(), 1, k, n}, &pool);
  const auto pw = tk::cpu::pack_b(tk::MatrixView<const float>{w.data(), k, n});
  EXPECT_EQ(pa.batch, batch);
  EXPECT_EQ(pa.m_tiles, 2);
  EXPECT_EQ(px.batch, batch);
  EXPECT_EQ(px.n_tiles, 2);
  EXPECT_EQ(pw1.batch, 1);
  for (std::int64_t b = 0; b < batch; ++b) {
    SCOPED_TRACE("matrix " + std::to_string(b));
    const auto a1 = tk::cpu::pack_a(tk::MatrixView<const float>{a.data() + b * m * k, m, k});
    const auto x1 = tk::cpu::pack_b(tk::MatrixView<const float>{x.data() + b * k * n, k, n});
    for (std::int64_t ti = 0; ti < 2; ++ti)
      for (std::int64_t tj = 0; tj < 2; ++tj) {
        Tile got, want;
        tk::cpu::gemm_tile(pa, b, px, b, ti, tj, got);
        tk::cpu::gemm_tile(a1, x1, ti, tj, want);
        ASSERT_EQ(0, std::memcmp(got.data, want.data, sizeof got.data)) << ti << "," << tj;
        tk::cpu::gemm_tile(pa, b, pw1, 0, ti, tj, got);
        tk::cpu::gemm_tile(a1, pw, ti, tj, want);
        ASSERT_EQ(0, std::memcmp(got.data, want.data, sizeof got.data)) << ti << "," << tj;
        tk::cpu::gemm_tile(pa, b, pw, 0, ti, tj, got);
        ASSERT_EQ(0, std::memcmp(got.data, want.data, sizeof got.data)) << ti << "," << tj;
      }
    // And against the double reference, so the comparison above is not of two wrong results.
    Tile acc;
    tk::cpu::gemm_tile(pa, b, px, b, 1, 1, acc);
    for (int i = 0; i < 32; ++i)
      for (int j = 0; j < 32; ++j) {
        const std::int64_t r = 32 + i, c = 32 + j;
        double ref = 0, mag = 0;
        for (std::int64_t kk = 0; kk < k && r < m; ++kk) { // rows past m are padding: zero
          const double p = static_cast<double>(a[static_cast<std::size_t>((b * m + r) * k + kk)]) *
                           x[static_cast<std::size_t>((b * k + kk) * n + c)];
          ref += p;
          mag += std::fabs(p);
        }
        ASSERT_NEAR(acc(i, j), ref, 1e-5 * mag) << i << "," << j;
      }
  }
}

// The blocked tile order visits every tile of every matrix exactly once, block by block of
// block_cols columns (the last one narrower), rows in order inside a block.
TEST(Gemm, TileOrderIsABijectionBlockByBlock) {
  for (std::int64_t mt : {1, 3, 7})
    for (std::int64_t nt : {1, 5, 19})
      for (std::int64_t nb : {1, 2, 4, 19, 25}) {
        SCOPED_TRACE(std::to_string(mt) + "x" + std::to_string(nt) + " nb " + std::to_string(nb));
        tk::cpu::PackedA a;
        a.m_tiles = mt;
        tk::cpu::PackedB b;
        b.n_tiles = nt;
        b.block_cols = std::min(nb, nt);
        std::vector<int> seen(static_cast<std::size_t>(mt * nt), 0);
        tk::cpu::TilePos prev{-1, -1};
        for (std::int64_t w = 0; w < 2 * mt * nt; ++w) { // two matrices of a batch
          const auto p = tk::cpu::gemm_tile_pos(a, b, w);
          EXPECT_EQ(p.row, tk::cpu::gemm_row(a, b, w));
          EXPECT_EQ(p.col, tk::cpu::gemm_col(a, b, w));
          ASSERT_TRUE(0 <= p.row && p.row < mt && 0 <= p.col && p.col < nt) << w;
          if (w < mt * nt)
            ++seen[static_cast<std::size_t>(p.row * nt + p.col)];
          else // the second matrix repeats the first one's order
            EXPECT_EQ(p.col, tk::cpu::gemm_col(a, b, w - mt * nt));
          if (w % (mt * nt) != 0 && p.col / b.block_cols == prev.col / b.block_cols) {
            // Inside a block: across the row, then down to the next row.
            const bool next_in_row = p.row == prev.row && p.col == prev.col + 1;
            const bool next_row = p.row == prev.row + 1 && p.col % b.block_cols == 0;
            EXPECT_TRUE(next_in_row || next_row) << w;
          }
          prev = p;
        }
        for (int n : seen)
          ASSERT_EQ(n, 1);
      }
}

// The units of a gemm loop cover every work item once, in order. With enough column blocks (at
// least four per thread of the default pool) a unit is one block of one matrix: its items are
// that block's tiles, so one thread computes it whole; otherwise a unit is one item.
TEST(Gemm, UnitsAreWholeBlocksWhenThereAreEnough) {
  const int threads = tk::cpu::default_pool().num_threads();
  tk::cpu::set_num_threads(2);
  for (std::int64_t mt : {1, 3})
    for (std::int64_t nt : {5, 19})
      for (std::int64_t nb : {1, 2, 4, 19})
        for (std::int64_t batch : {1, 3}) {
          SCOPED_TRACE(std::to_string(mt) + "x" + std::to_string(nt) + " nb " + std::to_string(nb) +
                       " batch " + std::to_string(batch));
          tk::cpu::PackedA a;
          a.m_tiles = mt;
          tk::cpu::PackedB b;
          b.n_tiles = nt;
          b.block_cols = std::min(nb, nt);
          const std::int64_t n = batch * mt * nt, blocks = (nt + b.block_cols - 1) / b.block_cols;
          const std::int64_t units = tk::cpu::gemm_units(a, b, n);
          const bool by_block = blocks > 1 && batch * blocks >= 8;
          EXPECT_EQ(units, by_block ? batch * blocks : n);
          std::int64_t next = 0;
          for (std::int64_t u = 0; u < units; ++u) {
            const std::int64_t first = tk::cpu::gemm_unit_begin(a, b, n, u);
            const std::int64_t size = tk::cpu::gemm_unit_size(a, b, n, u);
            ASSERT_EQ(first, next) << u;
            ASSERT_GE(size, 1) << u;
            next = first + size;
            // Every tile of a unit is in one column block of one matrix.
            const auto p0 = tk::cpu::gemm_tile_pos(a, b, first);
            for (std::int64_t w = first; w < next; ++w) {
              EXPECT_EQ(w / (mt * nt), first / (mt * nt)) << w;
              EXPECT_EQ(tk::cpu::gemm_col(a, b, w) / b.block_cols, p0.col / b.block_cols) << w;
            }
            if (by_block) {
              EXPECT_EQ(size, mt * std::min(b.block_cols, nt - p0.col)) << u;
            }
          }
          EXPECT_EQ(next, n);
        }
  tk::cpu::set_num_threads(threads);
}

// pack_b sizes the column blocks from K: at least one panel, never more than there are.
TEST(Gemm, BlockColumnsFollowK) {
  std::vector<float> b(static_cast<std::size_t>(4096 * 64), 1.0f);
  const auto tall = tk::cpu::pack_b(tk::MatrixView<const float>{b.data(), 4096, 64});
  EXPECT_GE(tall.block_cols, 1);
  EXPECT_LE(tall.block_cols, 2);
  const auto flat = tk::cpu::pack_b(tk::MatrixView<const float>{b.data(), 32, 4096 * 2});
  EXPECT_GE(flat.block_cols, 1);
  EXPECT_LE(flat.block_cols, flat.n_tiles);
  const auto shallow = tk::cpu::pack_b(tk::MatrixView<const float>{b.data(), 64, 4096});
  const auto deep = tk::cpu::pack_b(tk::MatrixView<const float>{b.data(), 4096, 64});
  EXPECT_LE(deep.block_cols, shallow.block_cols);
}

// Where B does not fit in L2, a pool of several threads gets blocks of at most n_tiles / (4 x
// threads) columns, so the threads' first chunks fall in different blocks; a B that fits is one
// block whatever the thread count.
TEST(Gemm, BlockColumnsFollowTheThreads) {
  std::vector<float> b(static_cast<std::size_t>(1024 * 1536), 1.0f);
  tk::cpu::ThreadPool one(1), two(2);
  const tk::MatrixView<const float> big{b.data(), 1024, 1536}; // 6 MB: more than any L2 half
  const auto serial = tk::cpu::pack_b(big, &one);
  const auto parallel = tk::cpu::pack_b(big, &two);
  EXPECT_LT(serial.block_cols, serial.n_tiles);
  EXPECT_LE(parallel.block_cols, 48 / 8);
  EXPECT_LE(parallel.block_cols, serial.block_cols);
  EXPECT_GE(parallel.block_cols, 1);
  const tk::MatrixView<const float> small{b.data(), 64, 256}; // 64 KB
  EXPECT_EQ(tk::cpu::pack_b(small, &one).block_cols, 8);
  EXPECT_EQ(tk::cpu::pack_b(small, &two).block_cols, 8);
}

std::vector<std::string> compiled_kernels() {
  std::vector<std::string> names;
  for (const char* const* k = tk::cpu::gemm_kernels(); *k; ++k)
    names.emplace_back(*k);
  return names;
}

INSTANTIATE_TEST_SUITE_P(Kernels, GemmTest, ::testing::ValuesIn(compiled_kernels()),
                         [](const ::testing::TestParamInfo<std::string>& p) { return p.param; });

// An A packed for one micro-kernel's panel height is refused by a kernel that takes another,
// with the reason, rather than read wrongly.
TEST(Gemm, APackedForAnotherKernelIsRefused) {
  const std::string previous = tk::cpu::gemm_kernel();
  const std::vector<float> a(32 * 32, 1.0f), b(32 * 32, 1.0f);
  const auto pb = tk::cpu::pack_b(tk::MatrixView<const float>{b.data(), 32, 32});
  for (const char* const* first = tk::cpu::gemm_kernels(); *first; ++first)
    for (const char* const* second = tk::cpu::gemm_kernels(); *second; ++second) {
      ASSERT_TRUE(tk::cpu::select_gemm_kernel(*first));
      const auto pa = tk::cpu::pack_a(tk::MatrixView<const float>{a.data(), 32, 32});
      ASSERT_TRUE(tk::cpu::select_gemm_kernel(*second));
      const auto pa2 = tk::cpu::pack_a(tk::MatrixView<const float>{a.data(), 32, 32});
      Tile acc;
      if (pa.mr == pa2.mr) {
        tk::cpu::gemm_tile(pa, pb, 0, 0, acc);
        EXPECT_EQ(acc(31, 31), 32.0f) << *first << " then " << *second;
        continue;
      }
      try {
        tk::cpu::gemm_tile(pa, pb, 0, 0, acc);
        ADD_FAILURE() << *first << " then " << *second << ": no error";
      } catch (const std::logic_error& e) {
        EXPECT_EQ(std::string(e.what()), "gemm_tile: A is packed in " + std::to_string(pa.mr) +
                                             "-row micro-panels, the '" + *second +
                                             "' micro-kernel takes " + std::to_string(pa2.mr) +
                                             " (pack it after select_gemm_kernel)");
      }
    }
  tk::cpu::select_gemm_kernel(previous.c_str());
}

#if defined(__AVX2__) && defined(__FMA__) && !defined(__AVX512F__)
// On an AVX2 machine the 6x16 kernel is the default, and packs A in 6-row micro-panels.
TEST(Gemm, Avx2PacksSixRowPanels) {
  EXPECT_STREQ(tk::cpu::gemm_kernels()[0], "avx2");
  const std::string previous = tk::cpu::gemm_kernel();
  ASSERT_TRUE(tk::cpu::select_gemm_kernel("avx2"));
  std::vector<float> a(32 * 64);
  for (std::size_t e = 0; e < a.size(); ++e)
    a[e] = static_cast<float>(e); // A[r, k] = 64r + k
  const auto pa = tk::cpu::pack_a(tk::MatrixView<const float>{a.data(), 32, 64});
  EXPECT_EQ(pa.mr, 6);
  const float* p = pa.panel(0);
  EXPECT_EQ(p[0], 0.0f);                 // A[0, 0]
  EXPECT_EQ(p[5], 5.0f * 64);            // A[5, 0]: the sixth float of k = 0
  EXPECT_EQ(p[6], 1.0f);                 // A[0, 1]
  EXPECT_EQ(p[6 * 64], 6.0f * 64);       // A[6, 0]: the second panel, after 6 x 64 floats
  EXPECT_EQ(p[30 * 64 + 1], 31.0f * 64); // A[31, 0]: the last panel has two rows
  EXPECT_EQ(p[30 * 64 + 2 * 63 + 1], 31.0f * 64 + 63); // A[31, 63], the tile row's last float
  tk::cpu::select_gemm_kernel(previous.c_str());
}
#endif

TEST(Gemm, KernelSelection) {
  EXPECT_STREQ(tk::cpu::gemm_kernel(), tk::cpu::gemm_kernels()[0]); // best one by default
  EXPECT_FALSE(tk::cpu::select_gemm_kernel("sse1"));
  EXPECT_STREQ(tk::cpu::gemm_kernel(), tk::cpu::gemm_kernels()[0]);
  EXPECT_EQ(compiled_kernels().back(), "portable");
#if TK_CPU_NATIVE && defined(__x86_64__)
  // Built with -march=native on a machine with AVX-512 (Zen 5 here and in CI), the AVX-512 kernel
  // must be the one in use: a lost flag would otherwise only show up as a slow benchmark.
  if (__builtin_cpu_supports("avx512f")) {
    EXPECT_STREQ(tk::cpu::gemm_kernel(), "avx512");
  }
#endif
}

} // namespace

namespace {

TEST(Gemm, FreedPackBuffersAreReused) {
  // Repeated kernel calls must not pay page faults for fresh pack buffers every time.
  const std::vector<float> a(64 * 64, 1.0f);
  const float* first = nullptr;
  {
    const auto pa = tk::cpu::pack_a(tk::MatrixView<const float>{a.data(), 64, 64});
    first = pa.panel(0);
  }
  const auto again = tk::cpu::pack_a(tk::MatrixView<const float>{a.data(), 64, 64});
  EXPECT_EQ(again.panel(0), first);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(again.panel(0)) % 64, 0u);
  // A smaller request may reuse a larger block; the contents are fully rewritten.
  const std::vector<float> small(32 * 32, 2.0f);
  const auto pb = tk::cpu::pack_b(tk::MatrixView<const float>{small.data(), 32, 32});
  EXPECT_EQ(pb.panel(0)[0], 2.0f);
  EXPECT_EQ(pb.panel(0)[32 * 32 - 1], 2.0f);
}

} // namespace

namespace {

// What generated code for matmul_bias_relu does with this runtime: check shapes, pack, one
// tile-parallel loop with the epilogue fused on the fp32 tile, bf16 store.
void matmul_bias_relu(tk::MatrixView<const tk::bf16> a, tk::MatrixView<const tk::bf16> b,
                      tk::MatrixView<const tk::bf16> bias, tk::MatrixView<tk::bf16> c) {
  tk::check_shape("matmul_bias_relu", "A", a, tk::kAnyTiles, tk::kAnyTiles);
  tk::check_shape("matmul_bias_relu", "B", b, tk::kAnyTiles, tk::kAnyTiles);
  tk::check_shape("matmul_bias_relu", "bias", bias, 1, tk::kAnyTiles);
  tk::check_same_dim("matmul_bias_relu", "K", "A", "cols", a.cols, "B", "rows", b.rows);
  tk::check_same_dim("matmul_bias_relu", "N", "B", "cols", b.cols, "bias", "cols", bias.cols);
  const auto pa = tk::cpu::pack_a(a);
  const auto pb = tk::cpu::pack_b(b);
  const std::int64_t nt = pb.n_tiles;
  tk::cpu::parallel_for(pa.m_tiles * nt, [&](std::int64_t begin, std::int64_t end) {
    Tile acc, v;
    for (std::int64_t w = begin; w < end; ++w) {
      const std::int64_t i = w / nt, j = w % nt;
      tk::cpu::gemm_tile(pa, pb, i, j, acc);
      tk::cpu::load_tile(bias, 0, j, v);
      tk::cpu::bcast_row(v, v);
      for (int e = 0; e < tk::cpu::kTileElems; ++e)
        acc.data[e] = std::max(acc.data[e] + v.data[e], 0.0f);
      tk::cpu::store_tile(acc, c, i, j);
    }
  });
}

TEST(Gemm, FusedEpilogueLikeGeneratedCode) {
  const std::int64_t m = 64, k = 96, n = 96;
  const auto af = random_floats(m * k, 61), bf = random_floats(k * n, 62),
             vf = random_floats(n, 63);
  const std::vector<tk::bf16> a(af.begin(), af.end()), b(bf.begin(), bf.end()),
      bias(vf.begin(), vf.end());
  std::vector<tk::bf16> c(static_cast<std::size_t>(m * n));
  matmul_bias_relu({a.data(), m, k}, {b.data(), k, n}, {bias.data(), 1, n}, {c.data(), m, n});
  int negatives_clamped = 0;
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      double ref = static_cast<float>(bias[static_cast<std::size_t>(j)]);
      for (std::int64_t kk = 0; kk < k; ++kk)
        ref += static_cast<double>(static_cast<float>(a[static_cast<std::size_t>(i * k + kk)])) *
               static_cast<float>(b[static_cast<std::size_t>(kk * n + j)]);
      negatives_clamped += ref < 0;
      ref = std::max(ref, 0.0);
      const double got = static_cast<float>(c[static_cast<std::size_t>(i * n + j)]);
      // One bf16 rounding of the fp32 result (half an ulp is 2^-9 relative; allow 2^-8), plus
      // the fp32 summation error near zero (96 terms of magnitude < 1: well below 1e-5).
      ASSERT_NEAR(got, ref, std::fabs(ref) * 0x1p-8 + 1e-5) << i << "," << j;
    }
  EXPECT_GT(negatives_clamped, 0); // the relu did something
  // And a wrong bias shape is a tk::Error naming the parameter, not a crash.
  try {
    matmul_bias_relu({a.data(), m, k}, {b.data(), k, n}, {bias.data(), 1, 64}, {c.data(), m, n});
    FAIL() << "no error";
  } catch (const tk::Error& e) {
    EXPECT_STREQ(e.what(),
                 "matmul_bias_relu: dimension N mismatch: B.cols = 96 but bias.cols = 64");
  }
}

} // namespace
