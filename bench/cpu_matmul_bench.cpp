// The CPU matmul as users get it: the generated run_cpu of examples/matmul.tk (bf16 in and out)
// and examples/matmul_f32.tk (f32), built by tilekit_add_kernel, against OpenBLAS cblas_sgemm on
// the same shapes and thread counts, in one run (bench/vs_openblas.hpp); prints the median times,
// GFLOPS and the ratios. Two more cases split the f32 run into its parts (packing alone, the tile
// loop on packed operands) to show where the time goes.
#include "matmul.hpp"
#include "matmul_f32.hpp"
#include "vs_openblas.hpp"

#include <tilekit/cpu.hpp>

#include <benchmark/benchmark.h>
#include <cblas.h>

#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

namespace {

struct Shape {
  std::int64_t m, k, n;
};
// Square sizes plus one non-square shape whose tile counts do not split evenly over 2 threads.
const Shape kShapes[] = {{256, 256, 256}, {512, 512, 512}, {1024, 1024, 1024}, {352, 800, 1536}};
const int kThreads[] = {1, 2};

std::vector<float> random_floats(std::int64_t n, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> v(static_cast<std::size_t>(n));
  for (float& x : v)
    x = dist(gen);
  return v;
}

// The generated code runs on the default pool; each case sizes it as OpenBLAS's thread count.
void run_generated(tk::MatrixView<const float> a, tk::MatrixView<const float> b,
                   tk::MatrixView<float> c) {
  tk::gen::matmul_f32::run_cpu(a, b, c);
}
void run_generated(tk::MatrixView<const tk::bf16> a, tk::MatrixView<const tk::bf16> b,
                   tk::MatrixView<tk::bf16> c) {
  tk::gen::matmul::run_cpu(a, b, c);
}

double flops(const Shape& s) {
  return 2.0 * static_cast<double>(s.m * s.n * s.k);
}

template <class T>
void bm_tilekit(benchmark::State& state, Shape s, int threads) {
  const auto af = random_floats(s.m * s.k, 1), bf = random_floats(s.k * s.n, 2);
  const std::vector<T> a(af.begin(), af.end()), b(bf.begin(), bf.end());
  std::vector<T> c(static_cast<std::size_t>(s.m * s.n));
  tk::cpu::set_num_threads(threads);
  tk::bench::timed(state, threads, flops(s), [&] {
    run_generated({a.data(), s.m, s.k}, {b.data(), s.k, s.n}, {c.data(), s.m, s.n});
    benchmark::DoNotOptimize(c.data());
  });
}

// The f32 run's parts, through the runtime calls the generated code makes: packing A and B
// alone (`pack`), and the tile loop over operands packed once outside the timing (`tiles`), in
// the generated code's blocked tile order and units or, to show what they buy, row-major a tile
// at a time.
void bm_parts(benchmark::State& state, Shape s, int threads, bool pack, bool blocked) {
  const auto a = random_floats(s.m * s.k, 1), b = random_floats(s.k * s.n, 2);
  std::vector<float> c(static_cast<std::size_t>(s.m * s.n));
  tk::cpu::set_num_threads(threads);
  const tk::MatrixView<const float> av{a.data(), s.m, s.k}, bv{b.data(), s.k, s.n};
  const tk::MatrixView<float> cv{c.data(), s.m, s.n};
  const auto pa = tk::cpu::pack_a(av);
  const auto pb = tk::cpu::pack_b(bv);
  const std::int64_t nt = pb.n_tiles;
  tk::bench::timed(state, threads, flops(s), [&] {
    if (pack) {
      auto qa = tk::cpu::pack_a(av);
      auto qb = tk::cpu::pack_b(bv);
      benchmark::DoNotOptimize(qa.data.get());
      benchmark::DoNotOptimize(qb.data.get());
    } else {
      // Blocked: a unit of tiles at a time (a column block of B where there are enough), as the
      // generated loop goes; row-major: a tile at a time.
      const std::int64_t n = pa.m_tiles * nt;
      const std::int64_t units = blocked ? tk::cpu::gemm_units(pa, pb, n) : n;
      tk::cpu::parallel_for(units, [&](std::int64_t begin, std::int64_t end) {
        tk::cpu::Tile acc;
        for (std::int64_t u = begin; u < end; ++u) {
          const std::int64_t w0 = blocked ? tk::cpu::gemm_unit_begin(pa, pb, n, u) : u;
          const std::int64_t wn = blocked ? tk::cpu::gemm_unit_size(pa, pb, n, u) : 1;
          for (std::int64_t w = w0; w < w0 + wn; ++w) {
            const auto p =
                blocked ? tk::cpu::gemm_tile_pos(pa, pb, w) : tk::cpu::TilePos{w / nt, w % nt};
            tk::cpu::gemm_tile(pa, pb, p.row, p.col, acc);
            tk::cpu::store_tile(acc, cv, p.row, p.col);
          }
        }
      });
    }
  });
}

void bm_openblas(benchmark::State& state, Shape s, int threads) {
  const auto a = random_floats(s.m * s.k, 1), b = random_floats(s.k * s.n, 2);
  std::vector<float> c(static_cast<std::size_t>(s.m * s.n));
  openblas_set_num_threads(threads);
  tk::bench::timed(state, threads, flops(s), [&] {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<int>(s.m),
                static_cast<int>(s.n), static_cast<int>(s.k), 1.0f, a.data(), static_cast<int>(s.k),
                b.data(), static_cast<int>(s.n), 0.0f, c.data(), static_cast<int>(s.n));
    benchmark::DoNotOptimize(c.data());
  });
}

std::string shape_name(const Shape& s, int threads) {
  return std::to_string(s.m) + "x" + std::to_string(s.k) + "x" + std::to_string(s.n) +
         "/threads:" + std::to_string(threads);
}

// Before timing anything: the generated f32 kernel must agree with OpenBLAS on every shape.
bool check_against_openblas() {
  bool ok = true;
  for (const Shape& s : kShapes) {
    const auto a = random_floats(s.m * s.k, 1), b = random_floats(s.k * s.n, 2);
    std::vector<float> ours(static_cast<std::size_t>(s.m * s.n)), ref(ours.size());
    tk::cpu::set_num_threads(2);
    run_generated({a.data(), s.m, s.k}, {b.data(), s.k, s.n}, {ours.data(), s.m, s.n});
    openblas_set_num_threads(1);
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<int>(s.m),
                static_cast<int>(s.n), static_cast<int>(s.k), 1.0f, a.data(), static_cast<int>(s.k),
                b.data(), static_cast<int>(s.n), 0.0f, ref.data(), static_cast<int>(s.n));
    double worst = 0;
    for (std::size_t i = 0; i < ours.size(); ++i)
      worst = std::max(worst, static_cast<double>(std::fabs(ours[i] - ref[i])));
    std::printf(
        "check %-14s max |tilekit - openblas| = %.3g\n",
        (std::to_string(s.m) + "x" + std::to_string(s.k) + "x" + std::to_string(s.n)).c_str(),
        worst);
    ok = ok && worst < 1e-3 * static_cast<double>(s.k);
  }
  return ok;
}

} // namespace

int main(int argc, char** argv) {
  std::printf("TileKit micro-kernel: %s\n", tk::cpu::gemm_kernel());
  tk::bench::Table table{
      "shape (MxKxN)/threads", {}, "openblas_sgemm", {"tilekit_f32", "tilekit_bf16"}};
  for (const Shape& s : kShapes)
    for (int t : kThreads) {
      const std::string n = shape_name(s, t);
      table.cases.push_back(n);
      tk::bench::add("tilekit_f32", n,
                     [s, t](benchmark::State& st) { bm_tilekit<float>(st, s, t); });
      tk::bench::add("tilekit_bf16", n,
                     [s, t](benchmark::State& st) { bm_tilekit<tk::bf16>(st, s, t); });
      tk::bench::add("openblas_sgemm", n, [s, t](benchmark::State& st) { bm_openblas(st, s, t); });
      tk::bench::add("f32_pack", n,
                     [s, t](benchmark::State& st) { bm_parts(st, s, t, true, true); });
      tk::bench::add("f32_tiles", n,
                     [s, t](benchmark::State& st) { bm_parts(st, s, t, false, true); });
      tk::bench::add("f32_tiles_rowmajor", n,
                     [s, t](benchmark::State& st) { bm_parts(st, s, t, false, false); });
    }
  tk::bench::Reporter reporter;
  if (const int rc = tk::bench::run(argc, argv, table, check_against_openblas, reporter); rc != 0)
    return rc;

  // Where the f32 run's wall time goes (medians): packing, the tile loop, and the rest (the
  // pool's wake-ups, shape checks); OpenBLAS's time for scale, and the tile loop in row-major
  // order.
  std::printf(
      "\nf32 wall time in ms: run_cpu = pack + tiles + rest\n%-24s %9s %9s %9s %9s %9s %9s\n",
      "shape (MxKxN)/threads", "openblas", "run_cpu", "pack", "tiles", "rest", "rowmajor");
  for (const std::string& n : table.cases) {
    auto ms = [&](const std::string& impl) {
      auto it = reporter.ms.find(impl + "/" + n);
      return it == reporter.ms.end() ? 0.0 : it->second.median;
    };
    const double run = ms("tilekit_f32"), pack = ms("f32_pack"), tiles = ms("f32_tiles");
    if (run > 0 && pack > 0 && tiles > 0)
      std::printf("%-24s %9.3f %9.3f %9.3f %9.3f %9.3f %9.3f\n", n.c_str(), ms("openblas_sgemm"),
                  run, pack, tiles, run - pack - tiles, ms("f32_tiles_rowmajor"));
  }
  return 0;
}
