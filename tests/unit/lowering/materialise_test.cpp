// materialise: a computed operand of @ invariant in a parallel index (mlp's hidden tile h) becomes
// a scratch tensor written by one program and read by the next (docs/lowering.md, "Recompute or
// materialise"); anything else, or a program that asks to recompute, comes back identical.
#include "lowering/front/materialise.hpp"
#include "lowering/ir/equal.hpp"
#include "lowering/ir/printer.hpp"
#include "lowering/ir/reader.hpp"
#include "lowering/ir/verifier.hpp"

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
          R"(program mlp attributes {combine = "mlp_after_h", grid = 8x8, signature = ["X", "W1", "b1", "W2", "b2", "Y"]} {
  materialise dram value "h" tensor "mlp_h" by rule why "'h' is invariant in the parallel index 'j': )"),
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

// `text` with the loop `for V in 0 .. E` of extent `literal`.
std::string with_extent(std::string text, const std::string& v, const std::string& e,
                        const std::string& literal) {
  const std::string loop = "for " + v + " in 0 .. " + e + " ";
  const std::size_t at = text.find(loop);
  EXPECT_NE(at, std::string::npos) << loop;
  text.replace(at, loop.size(), "for " + v + " in 0 .. " + literal + " ");
  return text;
}

// The kernel comes back as it was but for the decision, whose printed line is `line`.
void expect_kept(const ir::Module& in, const ir::Module& out, const std::string& line) {
  ASSERT_EQ(out.programs.size(), 1u);
  const ir::Program& p = out.programs[0];
  ASSERT_TRUE(p.materialise);
  EXPECT_EQ(p.materialise->choice, ir::Materialise::Choice::recompute);
  EXPECT_FALSE(p.attrs.count("materialise"));
  EXPECT_EQ(p.functions.at(0).body, in.programs[0].functions.at(0).body); // the same node
  const std::string text = ir::print(out);
  EXPECT_NE(text.find("\n" + line + "\n"), std::string::npos) << text;
}

TEST(Materialise, AJOfOneTileIsRecomputedByTheRule) {
  Diagnostics d;
  const ir::Module in = read(with_extent(mlp(""), "j", "Dt", "1"));
  expect_kept(
      in, materialise_tt(in, d),
      R"(  materialise recompute value "h" by rule why "'h' is invariant in 'j', which spans one tile: nothing to share, materialising would only add the round trip: recompute")");
}

TEST(Materialise, AnOperandThatReadsJIsKept) {
  Diagnostics d;
  const ir::Module in = read(mlp("", "load X[i, d], load W1[d, j]")); // nothing to share
  const ir::Module out = materialise_tt(in, d);
  EXPECT_FALSE(d.has_errors());
  EXPECT_TRUE(ir::identical(in, out)) << ir::print(out);
}

TEST(Materialise, ARequestDecides) {
  Diagnostics d;
  const ir::Module in = read(mlp(R"(materialise = "recompute", )"));
  expect_kept(
      in, materialise_tt(in, d),
      R"X(  materialise recompute value "h" by request why "requested (materialise = \"recompute\"; ttgen report prices the alternatives so)")X");
  // Asked to materialise a j of one tile, which the rule would recompute.
  const ir::Module one = read(with_extent(mlp(R"(materialise = "dram", )"), "j", "Dt", "1"));
  const ir::Module out = materialise_tt(one, d);
  ASSERT_EQ(out.programs.size(), 2u);
  ASSERT_TRUE(out.programs[0].materialise);
  EXPECT_EQ(out.programs[0].materialise->choice, ir::Materialise::Choice::dram);
  EXPECT_EQ(out.programs[0].materialise->basis, ir::Materialise::Basis::request);
  EXPECT_FALSE(out.programs[0].attrs.count("materialise"));
}

// Every extent a literal tile count: the timing model's table (Wormhole, 64 cores, HiFi4, bf16
// pages of 2,048 B, a tile product max(64, 28 + 4096 / 160) + 28 = 92 cycles, DRAM reads at
// 66.1 B/cycle) decides. 1 x 2 x 1 x 1 tiles: recomputing is 2 work items of 2 products and 7
// pages (compute 184 cycles, reads 28,672 B / 66.1 = 434), materialising 92.95 + 247.9 cycles of
// reads and a second launch (3.4 us = 3,400 cycles): 3,741: recompute. 64 x 64 x 64 x 64 tiles:
// recomputing repeats each 64-product d-sum 64 times and reads 70 GB (1.06 G cycles), the two
// materialised programs read 2 x 4,096 x ~130 pages (33 M cycles): dram.
TEST(Materialise, LiteralExtentsAreDecidedByTheModel) {
  auto literal = [](const std::string& i, const std::string& j, const std::string& f,
                    const std::string& dd) {
    std::string t = with_extent(mlp(""), "i", "Mt", i);
    t = with_extent(t, "j", "Dt", j);
    t = with_extent(t, "f", "Ft", f);
    return read(with_extent(t, "d", "Dt", dd));
  };
  Diagnostics d;
  const ir::Module small = literal("1", "2", "1", "1");
  expect_kept(
      small, materialise_tt(small, d),
      R"(  materialise recompute value "h" by model why "every extent is known (i 1, j 2, f 1, d 1 tiles): by the timing model of wormhole_b0 (64 cores, per-tile form), recomputing 'h' takes 434 cycles, materialising it 3741 (its two programs and a second launch of 3400): recompute")");
  const ir::Module big = literal("64", "64", "64", "64");
  const ir::Module out = materialise_tt(big, d);
  ASSERT_EQ(out.programs.size(), 2u);
  const std::string text = ir::print(out);
  EXPECT_NE(
      text.find(
          R"(  materialise dram value "h" tensor "mlp_h" by model why "every extent is known (i 64, j 64, f 64, d 64 tiles): by the timing model of wormhole_b0 (64 cores, per-tile form), )"),
      std::string::npos)
      << text;
  // The scratch tensor takes the literal sizes.
  EXPECT_NE(text.find("  tensor mlp_h: bf16[2048, 2048] output"), std::string::npos) << text;
  // The CPU chain decides alike (one entry point launches the same programs on both targets).
  EXPECT_NE(ir::print(materialise_cpu(big, d)).find(R"(tensor "mlp_h" by model why)"),
            std::string::npos);
  expect_kept(
      small, materialise_cpu(small, d),
      R"(  materialise recompute value "h" by model why "every extent is known (i 1, j 2, f 1, d 1 tiles): by the timing model of wormhole_b0 (64 cores, per-tile form), recomputing 'h' takes 434 cycles, materialising it 3741 (its two programs and a second launch of 3400): recompute")");
}

// The decision is printed, read back and verified.
TEST(Materialise, TheDecisionRoundTripsAndIsVerified) {
  Diagnostics d;
  const ir::Module out = materialise_tt(read(mlp("")), d);
  const ir::Module back = read(ir::print(out));
  EXPECT_TRUE(ir::equal(out, back));
  EXPECT_EQ(ir::find_ir_error(out), std::nullopt);
  ir::Module bad = out;
  bad.programs[0].materialise->tensor = "nowhere";
  EXPECT_EQ(ir::find_ir_error(bad).value_or(""),
            "the materialise decision's scratch tensor 'nowhere' is not an output of 'mlp'");
  bad = out;
  bad.programs[0].materialise->choice = ir::Materialise::Choice::recompute;
  EXPECT_EQ(ir::find_ir_error(bad).value_or(""),
            "the materialise decision recomputes 'h' but names a scratch tensor 'mlp_h'");
  // An unknown basis is a located reading error.
  std::string text = ir::print(out);
  text.replace(text.find(" by rule "), 9, " by guess ");
  SourceFile f("in.txt", text);
  Diagnostics rd;
  EXPECT_FALSE(ir::read_module(f, rd));
  EXPECT_NE(rd.str().find("unknown materialise basis 'guess'"), std::string::npos) << rd.str();
}

} // namespace
} // namespace tk::lower
