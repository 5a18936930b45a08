// materialise: a computed operand of @ invariant in a parallel index (mlp's hidden tile h) becomes
// a scratch tensor written by one program and read by the next (docs/lowering.md, "Recompute or
// materialise"); anything else, or a program that asks to recompute, comes back identical.
#include "lowering/front/materialise.hpp"
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

// examples/mlp.tk after infer-layout, with `extra` among its attributes and `h`'s product `hmul`.
std::string mlp(const std::string& extra, const std::string& hmul = "load X[i, d], load W1[d, f]") {
  return R"(program mlp attributes {)" + extra +
         R"(grid = 8x8, signature = ["X", "W1", "b1", "W2", "b2", "Y"]} {
  tensor X: bf16[M, D] input layout dram interleaved tile 32x32 page 2048
  tensor W1: bf16[D, F] input layout dram interleaved tile 32x32 page 2048
  tensor b1: bf16[1, F] input layout dram interleaved tile 32x32 page 2048
  tensor W2: bf16[F, D] input layout dram interleaved tile 32x32 page 2048
  tensor b2: bf16[1, D] input layout dram interleaved tile 32x32 page 2048
  tensor Y: bf16[M, D] output layout dram interleaved tile 32x32 page 2048

  func kernel mlp(X: tensor, W1: tensor, b1: tensor, W2: tensor, b2: tensor, Y: tensor, M: i32, D: i32, F: i32) {
    let Mt: i32 = M / 32
    let Dt: i32 = D / 32
    let Ft: i32 = F / 32
    for i in 0 .. Mt parallel {
      for j in 0 .. Dt parallel {
        let acc: tile<f32> = tile.zeros()
        for f in 0 .. Ft reduction {
          let h: tile<f32> = tile.zeros()
          for d in 0 .. Dt reduction {
            h = tile.matmul_acc(h, )" +
         hmul + R"()
          }
          acc = tile.matmul_acc(acc, tile.gelu(tile.add(h, tile.bcast_row(load b1[0, f]))), load W2[f, j])
        }
        store Y[i, j] = tile.add(tile.add(acc, tile.bcast_row(load b2[0, j])), load X[i, j])
      }
    }
  }
}
)";
}

TEST(Materialise, MlpBecomesTwoMatmuls) {
  Diagnostics d;
  ir::Module out = materialise_tt(read(mlp("")), d);
  EXPECT_FALSE(d.has_errors());
  ASSERT_EQ(out.programs.size(), 2u);
  const std::string text = ir::print(out);
  // The first: h over (i, f), stored through its epilogue into the bf16 scratch tensor.
  EXPECT_NE(
      text.find(
          R"(program mlp attributes {combine = "mlp_after_h", grid = 8x8, materialise = "dram", materialise_tensor = "mlp_h", materialise_value = "h", materialise_why = "'h' is invariant in the parallel index 'j': )"),
      std::string::npos)
      << text;
  EXPECT_NE(
      text.find(R"(  tensor mlp_h: bf16[M, F] output layout dram interleaved tile 32x32 page 2048

  func kernel mlp(X: tensor, W1: tensor, b1: tensor, mlp_h: tensor, M: i32, D: i32, F: i32) {
    let Mt: i32 = M / 32
    let Dt: i32 = D / 32
    let Ft: i32 = F / 32
    for i in 0 .. Mt parallel {
      for f in 0 .. Ft parallel {
        let h: tile<f32> = tile.zeros()
        for d in 0 .. Dt reduction {
          h = tile.matmul_acc(h, load X[i, d], load W1[d, f])
        }
        store mlp_h[i, f] = tile.gelu(tile.add(h, tile.bcast_row(load b1[0, f])))
      }
    }
  }
}
)"),
      std::string::npos)
      << text;
  // The second: a plain matmul reading it, with the bias and residual epilogue.
  EXPECT_NE(
      text.find(
          R"(program mlp_after_h attributes {grid = 8x8, signature = ["mlp_h", "X", "W2", "b2", "Y"]} {
  tensor mlp_h: bf16[M, F] input layout dram interleaved tile 32x32 page 2048
  tensor X: bf16[M, D] input layout dram interleaved tile 32x32 page 2048
  tensor W2: bf16[F, D] input layout dram interleaved tile 32x32 page 2048
  tensor b2: bf16[1, D] input layout dram interleaved tile 32x32 page 2048
  tensor Y: bf16[M, D] output layout dram interleaved tile 32x32 page 2048

  func kernel mlp_after_h(mlp_h: tensor, X: tensor, W2: tensor, b2: tensor, Y: tensor, M: i32, D: i32, F: i32) {
    let Mt: i32 = M / 32
    let Dt: i32 = D / 32
    let Ft: i32 = F / 32
    for i in 0 .. Mt parallel {
      for j in 0 .. Dt parallel {
        let acc: tile<f32> = tile.zeros()
        for f in 0 .. Ft reduction {
          acc = tile.matmul_acc(acc, load mlp_h[i, f], load W2[f, j])
        }
        store Y[i, j] = tile.add(tile.add(acc, tile.bcast_row(load b2[0, j])), load X[i, j])
      }
    }
  }
}
)"),
      std::string::npos)
      << text;
}

TEST(Materialise, TheCpuScratchIsF32) {
  Diagnostics d;
  const std::string text = ir::print(materialise_cpu(read(mlp("")), d));
  EXPECT_NE(
      text.find("  tensor mlp_h: f32[M, F] output layout dram interleaved tile 32x32 page 4096\n"),
      std::string::npos)
      << text;
  EXPECT_NE(text.find("acc = tile.matmul_acc(acc, load mlp_h[i, f], load W2[f, j])"),
            std::string::npos)
      << text;
}

TEST(Materialise, AJOfOneTileIsKept) {
  std::string text = mlp("");
  const std::string loop = "for j in 0 .. Dt parallel";
  text.replace(text.find(loop), loop.size(), "for j in 0 .. 1 parallel");
  Diagnostics d;
  const ir::Module in = read(text);
  const ir::Module out = materialise_tt(in, d);
  EXPECT_TRUE(ir::identical(in, out)) << ir::print(out);
}

TEST(Materialise, AnOperandThatReadsJOrARecomputeRequestIsKept) {
  for (const auto& [attrs, hmul] : std::vector<std::pair<std::string, std::string>>{
           {"", "load X[i, d], load W1[d, j]"}, // h depends on j: nothing to share
           {R"(materialise = "recompute", )", "load X[i, d], load W1[d, f]"}}) {
    SCOPED_TRACE(attrs + hmul);
    Diagnostics d;
    const ir::Module in = read(mlp(attrs, hmul));
    const ir::Module out = materialise_tt(in, d);
    EXPECT_FALSE(d.has_errors());
    EXPECT_TRUE(ir::identical(in, out)) << ir::print(out);
  }
}

} // namespace
} // namespace tk::lower
