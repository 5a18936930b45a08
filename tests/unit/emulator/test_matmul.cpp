// Matmul host programs in the SDK's style (matmul_single_core, matmul_multi_core) on the emulator,
// checked against a double-precision reference of the bf16 inputs; plus the 512^3 timing on the 8x8
// grid.
#include <algorithm>
#include <chrono>

#include <tt-metalium/tilize_utils.hpp>
#include <tt-metalium/work_split.hpp>

#include <tk_emulator/emulator.hpp>

#include "emu_program.hpp"

using namespace tk::test;

namespace {
std::vector<float> reference(const std::vector<bfloat16>& a, const std::vector<bfloat16>& b,
                             uint32_t M, uint32_t N, uint32_t K) {
  std::vector<float> c(std::size_t{M} * N);
  for (uint32_t i = 0; i < M; ++i)
    for (uint32_t j = 0; j < N; ++j) {
      double s = 0;
      for (uint32_t k = 0; k < K; ++k)
        s += double(float(a[i * K + k])) * double(float(b[k * N + j]));
      c[std::size_t{i} * N + j] = static_cast<float>(s);
    }
  return c;
}

// matmul_multi_core.cpp's flow: split the Mt*Nt output tiles over the grid (column-major, two
// groups). With single_core, every output tile goes to core (0,0) (matmul_single_core.cpp).
std::vector<bfloat16> run_matmul(const std::vector<bfloat16>& a, const std::vector<bfloat16>& b,
                                 uint32_t M, uint32_t N, uint32_t K, bool single_core,
                                 bool fp32_dest = false) {
  ProgramBuilder p;
  const uint32_t Mt = M / 32, Nt = N / 32, Kt = K / 32;
  auto src0 = p.dram(tilize_nfaces(a, M, K));
  auto src1 = p.dram(tilize_nfaces(b, K, N));
  auto dst = p.dram(Mt * Nt);
  const tt::tt_metal::CoreCoord grid =
      single_core ? tt::tt_metal::CoreCoord{1, 1} : p.dev->compute_with_storage_grid_size();
  auto [num_cores, all_cores, group_1, group_2, per_core_1, per_core_2] =
      split_work_to_cores(grid, Mt * Nt);
  p.cores = all_cores;
  for (auto cb : {tt::CBIndex::c_0, tt::CBIndex::c_1, tt::CBIndex::c_16})
    p.cb(cb, 2);
  auto reader = p.reader("dataflow/reader_mm_output_tiles_partitioned.cpp", {src0, src1});
  auto writer = p.writer("dataflow/write_tile.cpp", {dst});
  auto compute =
      p.compute("compute/mm.cpp", ComputeConfig{.math_fidelity = tt::tt_metal::MathFidelity::HiFi4,
                                                .fp32_dest_acc_en = fp32_dest});
  uint32_t work_offset = 0;
  for (const auto& [group, per_core] :
       {std::pair{group_1, per_core_1}, std::pair{group_2, per_core_2}}) {
    for (const auto& range : group.ranges()) {
      for (const tt::tt_metal::CoreCoord core : range) {
        SetRuntimeArgs(p.program, reader, core,
                       {p.addr(src0), p.addr(src1), Mt, Kt, Nt, work_offset, per_core});
        SetRuntimeArgs(p.program, writer, core, {p.addr(dst), per_core, work_offset});
        SetRuntimeArgs(p.program, compute, core, {per_core, Kt});
        work_offset += per_core;
      }
    }
  }
  EXPECT_EQ(work_offset, Mt * Nt);
  (void)num_cores;
  p.run();
  return untilize_nfaces(p.read(dst), M, N);
}

// bf16 DST accumulation loses about 2^-9 relative per partial sum, so the element-wise bound is
// rtol = atol = 1.6e-2 relative to the scale of the result (max |ref|), plus PCC >= 0.999.
void check(const std::vector<bfloat16>& got, const std::vector<float>& want) {
  float scale = 0;
  for (float w : want)
    scale = std::max(scale, std::fabs(w));
  expect_close(got, want, 1.6e-2, 1.6e-2 * scale);
}
} // namespace

TEST(EmulatorMatmul, SingleCoreSmall) {
  constexpr uint32_t M = 64, N = 96, K = 128;
  const auto a = random_bf16(M * K, -1.0f, 1.0f, 21), b = random_bf16(K * N, -1.0f, 1.0f, 22);
  check(run_matmul(a, b, M, N, K, true), reference(a, b, M, N, K));
}

TEST(EmulatorMatmul, MultiCoreUneven96x160x64) {
  constexpr uint32_t M = 96, N = 160, K = 64;
  const auto a = random_bf16(M * K, -1.0f, 1.0f, 23), b = random_bf16(K * N, -1.0f, 1.0f, 24);
  check(run_matmul(a, b, M, N, K, false), reference(a, b, M, N, K));
}

// Without the arithmetic (TK_EMULATOR_MATH=off) the same program runs but computes nothing: the
// packer writes no page, so what reaches the output is the fresh device's L1, zeros.
TEST(EmulatorMatmul, WithoutTheArithmeticNothingIsComputed) {
  constexpr uint32_t M = 96, N = 160, K = 64;
  const auto a = random_bf16(M * K, 0.5f, 1.0f, 23), b = random_bf16(K * N, 0.5f, 1.0f, 24);
  tk::rt::emu::set_math(false);
  const std::vector<bfloat16> got = run_matmul(a, b, M, N, K, false);
  tk::rt::emu::set_math(std::nullopt);
  ASSERT_EQ(got.size(), std::size_t{M} * N);
  EXPECT_EQ(std::count(got.begin(), got.end(), bfloat16(0.0f)), M * N);
  // On again: every output is a sum of 64 products in [0.25, 1].
  const std::vector<bfloat16> on = run_matmul(a, b, M, N, K, false);
  EXPECT_EQ(std::count_if(on.begin(), on.end(), [](bfloat16 v) { return float(v) >= 16.0f; }),
            M * N);
}

TEST(EmulatorMatmul, MultiCoreTwoGroups640Cubed) {
  constexpr uint32_t M = 640, N = 640,
                     K = 640; // 400 output tiles over 64 cores: 16 cores x 7, 48 x 6
  const auto a = random_bf16(M * K, -1.0f, 1.0f, 25), b = random_bf16(K * N, -1.0f, 1.0f, 26);
  check(run_matmul(a, b, M, N, K, false), reference(a, b, M, N, K));
}

TEST(EmulatorMatmul, Fp32DestAccumulationIsTighter) {
  constexpr uint32_t M = 64, N = 64, K = 512;
  const auto a = random_bf16(M * K, -1.0f, 1.0f, 27), b = random_bf16(K * N, -1.0f, 1.0f, 28);
  const auto want = reference(a, b, M, N, K);
  auto max_err = [&](const std::vector<bfloat16>& got) {
    double e = 0;
    for (std::size_t i = 0; i < got.size(); ++i)
      e = std::max(e, std::fabs(double(float(got[i])) - want[i]));
    return e;
  };
  const double e16 = max_err(run_matmul(a, b, M, N, K, true, false));
  const double e32 = max_err(run_matmul(a, b, M, N, K, true, true));
  double scale = 0;
  for (float w : want)
    scale = std::max(scale, double(std::fabs(w)));
  EXPECT_LT(e32, e16);         // 16-bit DST rounds every partial sum, fp32 DST only the final pack
  EXPECT_LE(e32, scale / 256); // at most half a bf16 ulp of the largest result
}

// The number reported in docs/emulator.md: 512x512x512 bf16 on 8x8, first run (JIT) and cached.
TEST(EmulatorMatmul, Timing512Cubed) {
  constexpr uint32_t M = 512, N = 512, K = 512;
  const auto a = random_bf16(M * K, -1.0f, 1.0f, 29), b = random_bf16(K * N, -1.0f, 1.0f, 30);
  const auto want = reference(a, b, M, N, K);
  for (const char* label : {"first", "second"}) {
    const auto t0 = std::chrono::steady_clock::now();
    const auto got = run_matmul(a, b, M, N, K, false);
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    const auto s = tk::rt::emu::jit_stats();
    std::printf("512^3 matmul on 8x8 (%s run): %.1f ms (jit: %llu compiled, %llu disk hits, %llu "
                "memory hits)\n",
                label, ms, static_cast<unsigned long long>(s.compiled),
                static_cast<unsigned long long>(s.disk_hits),
                static_cast<unsigned long long>(s.memory_hits));
    check(got, want);
  }
}
