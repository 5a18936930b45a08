// Transposes on the emulator: transpose_wh_tile against the element-by-element transpose of bf16
// tiles (exact: data movement only), mm_init's transpose of in1 against A * B^T computed in double,
// and a transposing copy init, which the emulator does not model, is an error.
#include <tt-metalium/tilize_utils.hpp>

#include <tk_emulator/emulator.hpp>

#include "emu_program.hpp"

using namespace tk::test;

namespace {
// Two tiles stacked (64 x 32), element (r, c) = r - c / 2: exact in bf16, and asymmetric, so an
// untransposed tile differs from its transpose off the diagonal.
std::vector<bfloat16> staircase() {
  std::vector<bfloat16> rm(64 * 32);
  for (int r = 0; r < 64; ++r)
    for (int c = 0; c < 32; ++c)
      rm[static_cast<std::size_t>(r * 32 + c)] = bfloat16(static_cast<float>(r) - 0.5f * c);
  return rm;
}
} // namespace

TEST(EmulatorTranspose, TransposeWhTileTransposesEachTile) {
  ProgramBuilder p;
  const std::vector<bfloat16> rm = staircase();
  auto src = p.dram(tilize_nfaces(rm, 64, 32));
  auto dst = p.dram(2);
  p.cb(tt::CBIndex::c_0, 2);
  p.cb(tt::CBIndex::c_16, 2);
  auto r = p.reader("dataflow/read_tile.cpp", {src});
  auto w = p.writer("dataflow/write_tile.cpp", {dst});
  auto k = p.compute("compute/transpose.cpp");
  SetRuntimeArgs(p.program, r, tt::tt_metal::CoreCoord{0, 0}, {p.addr(src), 2u});
  SetRuntimeArgs(p.program, w, tt::tt_metal::CoreCoord{0, 0}, {p.addr(dst), 2u, 0u});
  SetRuntimeArgs(p.program, k, tt::tt_metal::CoreCoord{0, 0}, {2u});
  p.run();
  const std::vector<bfloat16> out = untilize_nfaces(p.read(dst), 64, 32);
  for (int t = 0; t < 2; ++t)
    for (int i = 0; i < 32; ++i)
      for (int j = 0; j < 32; ++j)
        ASSERT_EQ(static_cast<float>(out[static_cast<std::size_t>((t * 32 + i) * 32 + j)]),
                  static_cast<float>(rm[static_cast<std::size_t>((t * 32 + j) * 32 + i)]))
            << "tile " << t << " (" << i << ", " << j << ")";
}

// C (32 x 32) = A (32 x 64) * B^T with B stored 32 x 64: Kt = 2 products of A(0, k) and B(0, k).
TEST(EmulatorTranspose, MatmulInitTransposesIn1) {
  ProgramBuilder p;
  const std::vector<bfloat16> a = random_bf16(32 * 64, -1, 1, 1),
                              b = random_bf16(32 * 64, -1, 1, 2);
  auto src0 = p.dram(tilize_nfaces(a, 32, 64));
  auto src1 = p.dram(tilize_nfaces(b, 32, 64));
  auto dst = p.dram(1);
  for (auto cb : {tt::CBIndex::c_0, tt::CBIndex::c_1, tt::CBIndex::c_16})
    p.cb(cb, 2);
  // The partitioned reader reads A(m, k) and B(k, n) for Mt = Nt = 1; B's page of (k, 0) with
  // Nt = 1 is k, which is B(0, k) of the 32 x 64 B: the tile B^T needs.
  auto reader = p.reader("dataflow/reader_mm_output_tiles_partitioned.cpp", {src0, src1});
  auto writer = p.writer("dataflow/write_tile.cpp", {dst});
  auto compute =
      p.compute("compute/mm.cpp", ComputeConfig{.math_fidelity = tt::tt_metal::MathFidelity::HiFi4,
                                                .fp32_dest_acc_en = true,
                                                .defines = {{"MM_TRANSPOSE", "1"}}});
  SetRuntimeArgs(p.program, reader, tt::tt_metal::CoreCoord{0, 0},
                 {p.addr(src0), p.addr(src1), 1u, 2u, 1u, 0u, 1u});
  SetRuntimeArgs(p.program, writer, tt::tt_metal::CoreCoord{0, 0}, {p.addr(dst), 1u, 0u});
  SetRuntimeArgs(p.program, compute, tt::tt_metal::CoreCoord{0, 0}, {1u, 2u});
  p.run();
  std::vector<float> want(32 * 32);
  for (int i = 0; i < 32; ++i)
    for (int j = 0; j < 32; ++j) {
      double s = 0;
      for (int k = 0; k < 64; ++k)
        s += double(float(a[i * 64 + k])) * double(float(b[j * 64 + k]));
      want[static_cast<std::size_t>(i * 32 + j)] = static_cast<float>(s);
    }
  // bf16 output of an fp32 accumulation: one bf16 rounding.
  expect_close(untilize_nfaces(p.read(dst), 32, 32), want, 1.0 / 128, 1e-3);
}
