// lower-reductions: a kernel with reduction variables becomes its partials program and its
// combine program (docs/lowering.md, "Whole-tensor reductions"); a kernel without them, or one
// already lowered, comes back identical.
#include "lowering/front/lower_reductions.hpp"
#include "lowering/ir/printer.hpp"
#include "lowering/ir/reader.hpp"

#include <gtest/gtest.h>

namespace tk::lower {
namespace {

ir::Module read(const std::string& text) {
  SourceFile f("in.txt", text);
  Diagnostics d;
  auto m = ir::read_module(f, d);
  EXPECT_TRUE(m) << d.str();
  return m ? *m : ir::Module{};
}

// Two variables (a sum from a scalar start, a min), a 2x2 grid (4 chunks), an output stored
// inside the parallel space and one after it, user names that the new variables must avoid
// (`c`, `lo`), and a size read after the parallel.
const char* kInput = R"(program k attributes {signature = ["x", "a", "r", "y"]} {
  options grid 2x4 cb_depth 2 fp32_acc false math_fidelity "HiFi4"
  tensor x: f32[M, N] input
  tensor r: f32[M, N] output
  tensor y: f32[1, 32] output

  func kernel k(x: tensor, a: f32, r: tensor, y: tensor, M: i32, N: i32) {
    let Mt: i32 = M / 32
    let Nt: i32 = N / 32
    let s: tile<f32> = tile.fill(a)
    let lo: tile<f32> = tile.fill(inf)
    for i in 1 .. +Mt - 1 parallel {
      for j in 0 .. Nt parallel {
        let c: tile<f32> = load x[i, j]
        s = tile.add(s, c)
        lo = tile.min(c, lo)
        store r[i, j] = c
      }
    }
    store y[0, 0] = tile.mul_scalar(tile.add(s, lo), to_f32(M))
  }
}
)";

TEST(LowerReductions, PartialsProgramThenCombineProgram) {
  Diagnostics d;
  ir::Module out = lower_reductions(read(kInput), d);
  EXPECT_FALSE(d.has_errors());
  EXPECT_EQ(ir::print(out),
            R"(program k attributes {combine = "k_combine", signature = ["x", "a", "r", "y"]} {
  options grid 2x4 cb_depth 2 fp32_acc false math_fidelity "HiFi4"
  tensor x: f32[M, N] input
  tensor r: f32[M, N] output
  tensor k_s: f32[256, 32] output
  tensor k_lo: f32[256, 32] output

  func kernel k(x: tensor, a: f32, r: tensor, k_s: tensor, k_lo: tensor, M: i32, N: i32) {
    let Mt: i32 = M / 32
    let Nt: i32 = N / 32
    let items: i32 = (Mt - 1) * Nt
    for c_1 in 0 .. 8 parallel {
      let s: tile<f32> = tile.zeros()
      let lo: tile<f32> = tile.fill(inf)
      let lo_1: i32 = c_1 * items / 8
      let hi: i32 = (c_1 + 1) * items / 8
      for t in 0 .. hi - lo_1 reduction {
        let i: i32 = 1 + (lo_1 + t) / Nt
        let j: i32 = (lo_1 + t) % Nt
        let c: tile<f32> = load x[i, j]
        s = tile.add(s, c)
        lo = tile.min(c, lo)
        store r[i, j] = c
      }
      store k_s[c_1, 0] = s
      store k_lo[c_1, 0] = lo
    }
  }
}

program k_combine attributes {signature = ["k_s", "k_lo", "y", "a"]} {
  options grid 2x4 cb_depth 2 fp32_acc false math_fidelity "HiFi4"
  tensor k_s: f32[256, 32] input
  tensor k_lo: f32[256, 32] input
  tensor y: f32[1, 32] output

  func kernel k_combine(k_s: tensor, k_lo: tensor, y: tensor, a: f32, M: i32) {
    for z in 0 .. 1 parallel {
      let s: tile<f32> = tile.fill(a)
      let lo: tile<f32> = tile.fill(inf)
      for c_1 in 0 .. 8 reduction {
        s = tile.add(s, load k_s[c_1, 0])
        lo = tile.min(lo, load k_lo[c_1, 0])
      }
      store y[0, 0] = tile.mul_scalar(tile.add(s, lo), to_f32(M))
    }
  }
}
)");
  // Already lowered: nothing changes.
  EXPECT_EQ(ir::print(lower_reductions(out, d)), ir::print(out));
}

TEST(LowerReductions, AKernelWithoutReductionVariablesIsUnchanged) {
  const char* text = R"(program p {
  tensor a: bf16[M, N] input
  tensor b: bf16[M, N] output

  func kernel p(a: tensor, b: tensor, M: i32, N: i32) {
    let Mt: i32 = M / 32
    for i in 0 .. Mt parallel {
      store b[i, 0] = load a[i, 0]
    }
  }
}
)";
  Diagnostics d;
  ir::Module in = read(text);
  EXPECT_EQ(ir::print(lower_reductions(in, d)), text);
}

} // namespace
} // namespace tk::lower
