// fold-scale (lowering/tt/fold_scale.cpp): with @options(exp_approx_mode),
// bench/attention_hifi2.tk's `s = where(tril(i, j), s * scale, -inf)` loses its multiply and each
// exp reading the scaled family (s, mn, m) gets the scale instead, as tile.exp_scaled (p's
// approximate exp takes it in its init's constants, c's accurate one multiplies first); and
// every case the rule refuses, with its reason. The end of the chain: the compute kernel's init
// takes the scale as a compile-time arg the host sets through tt.exp_scale_bits (golden).
#include "tests/unit/tt_lowering/tt_test_util.hpp"

#include "dsl/check.hpp"
#include "lowering/tt/fold_scale.hpp"
#include "lowering/tt/verify_kernels.hpp"
#include "parser/parse.hpp"

#include <gtest/gtest.h>

#include <sstream>
#include <string>

namespace tk::lower {
namespace {

// bench/attention_hifi2.tk after stream-rows (ttgen --print-before select-tile-ops).
const char* kAttention = R"(// after stream-rows
module attributes {source = "attention_hifi2.tk"}

program attention_hifi2 attributes {signature = ["Q", "K", "V", "scale", "O"]} {
  options grid 8x8 cb_depth 2 fp32_acc false math_fidelity "HiFi2" exp_approx_mode
  tensor Q: bf16[H, S, D] input layout dram interleaved tile 32x32 page 2048
  tensor K: bf16[H, S, D] input layout dram interleaved tile 32x32 page 2048
  tensor V: bf16[H, S, D] input layout dram interleaved tile 32x32 page 2048
  tensor O: bf16[H, S, D] output layout dram interleaved tile 32x32 page 2048
  accessor Q args [2, 2048]
  accessor K args [2, 2048]
  accessor V args [2, 2048]
  accessor O args [2, 2048]
  cb cb_Q index 0 format Float16_b page 2048 depth 2 role input tensor Q
  cb cb_K index 1 format Float16_b page 2048 depth 2 role input tensor K
  cb cb_V index 2 format Float16_b page 2048 depth 2 role input tensor V
  cb cb_O index 16 format Float16_b page 2048 depth 2 role output tensor O
  cb cb_scaler index 3 format Float16_b page 2048 depth 1 role scaler
  cb cb_mask index 4 format Float16_b page 2048 depth 2 role mask
  cb cb_Q_win index 5 format Float16_b page 2048 depth 64 role input
  cb cb_K_win index 6 format Float16_b page 2048 depth 64 role input
  cb cb_V_win index 7 format Float16_b page 2048 depth 64 role input read_by writer

  func kernel attention_hifi2(Q: tensor, K: tensor, V: tensor, scale: f32, O: tensor, H: i32, S: i32, D: i32, start: u32, count: u32) {
    let St: i32 = S / 32
    let Dt: i32 = D / 32
    let stream_kept: i32 = min(Dt, 32)
    for w in start .. +count per_core {
      let h: i32 = w / St
      let i: i32 = w % St / 2 + w % St % 2 * (St - 1 - 2 * (w % St / 2))
      let m: tile<f32> = tile.fill(-inf)
      let l: tile<f32> = tile.zeros()
      let o: row<f32> = row.alloc(Dt)
      for d in 0 .. Dt reduction {
        o = row.set(o, d, tile.zeros())
      }
      df.read_block(cb_Q_win, Q, (h * St + i) * Dt, 1, 32, 1, 1, 1, stream_kept, 32)
      cb_wait_front(cb_Q_win, 32)
      for j in 0 .. i + 1 reduction {
        let s: tile<f32> = tile.zeros()
        df.read_block(cb_K_win, K, (h * St + j) * Dt, 1, 32, 1, 1, 1, stream_kept, 32)
        cb_wait_front(cb_K_win, 32)
        for e in 0 .. stream_kept reduction {
          s = tile.matmul_acc(s, cb.tile(cb_Q_win, e), tile.transpose(cb.tile(cb_K_win, e)))
        }
        for e in stream_kept .. +Dt - stream_kept reduction {
          s = tile.matmul_acc(s, load Q[h, i, e], tile.transpose(load K[h, j, e]))
        }
        cb_pop_front(cb_K_win, 32)
        s = tile.where(tile.tril(i, j), tile.mul_scalar(s, scale), tile.fill(-inf))
        let mn: tile<f32> = tile.max(m, tile.rowmax(s))
        let c: tile<f32> = tile.exp(tile.sub(m, mn))
        let p: tile<f32> = tile.exp(tile.sub(s, tile.bcast_col(mn)))
        l = tile.add(tile.mul(l, c), tile.rowsum(p))
        df.read_block(cb_V_win, V, (h * St + j) * Dt, 1, 32, 1, 1, 1, stream_kept, 32)
        cb_wait_front(cb_V_win, 32)
        for d in 0 .. stream_kept reduction {
          o = row.set(o, d, tile.add(tile.mul(row.get(o, d), tile.bcast_col(c)), tile.matmul(p, cb.tile(cb_V_win, d))))
        }
        for d in stream_kept .. +Dt - stream_kept reduction {
          o = row.set(o, d, tile.add(tile.mul(row.get(o, d), tile.bcast_col(c)), tile.matmul(p, load V[h, j, d])))
        }
        cb_pop_front(cb_V_win, 32)
        m = mn
      }
      cb_pop_front(cb_Q_win, 32)
      for d in 0 .. Dt serial {
        store O[h, i, d] = tile.mul(row.get(o, d), tile.bcast_col(tile.recip(l)))
      }
    }
  }

  func host attention_hifi2_host(scale: f32, H: u32, S: u32, D: u32) {
    let St: u32 = S / 32u
    let work_items: u32 = H * St
  }

  host_plan {
    split split_work_to_cores items work_items grid 8x8 row_wise false
    per_core start count
  }
}
)";

std::string with(std::string text, const std::string& from, const std::string& to) {
  const std::size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos)
    text.replace(at, from.size(), to);
  return text;
}

std::string refusal(const std::string& text) {
  const ir::Module m = test::read_ir(text);
  const ir::Program& p = m.programs.at(0);
  for (const ir::Function& f : p.functions)
    if (f.kind == ir::FuncKind::kernel)
      return tt::scale_fold_refusal(p, f);
  return "no kernel";
}

TEST(FoldScale, AttentionsScaleMovesIntoItsExps) {
  EXPECT_EQ(refusal(kAttention), "");
  const std::string out = test::run_stage("fold-scale", kAttention);
  EXPECT_NE(out.find("        s = tile.where(tile.tril(i, j), s, tile.fill(-inf))\n"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("let c: tile<f32> = tile.exp_scaled(tile.sub(m, mn), scale)\n"),
            std::string::npos)
      << out;
  EXPECT_NE(
      out.find("let p: tile<f32> = tile.exp_scaled(tile.sub(s, tile.bcast_col(mn)), scale)\n"),
      std::string::npos)
      << out;
  EXPECT_EQ(out.find("tile.mul_scalar(s, scale)"), std::string::npos) << out;
}

TEST(FoldScale, APlainMultiplyGoes) {
  const std::string in = with(
      kAttention, "s = tile.where(tile.tril(i, j), tile.mul_scalar(s, scale), tile.fill(-inf))",
      "s = tile.mul_scalar(s, scale)");
  EXPECT_EQ(refusal(in), "");
  const std::string out = test::run_stage("fold-scale", in);
  EXPECT_EQ(out.find("s = tile.mul_scalar(s, scale)"), std::string::npos) << out;
  EXPECT_EQ(out.find("        s = s\n"), std::string::npos) << out;
  EXPECT_NE(out.find("tile.exp_scaled(tile.sub(s, tile.bcast_col(mn)), scale)"), std::string::npos);
}

// The refusals leave the stage's input as it was.
void expect_refused(const std::string& in, const std::string& why) {
  EXPECT_EQ(refusal(in), why);
  const std::string out = test::run_stage("fold-scale", in);
  EXPECT_NE(out.find("tile.mul_scalar(s, scale)"), std::string::npos) << out;
  EXPECT_EQ(out.find("tile.exp_scaled"), std::string::npos) << out;
}

TEST(FoldScale, OnlyWithTheApproximateExp) {
  expect_refused(with(kAttention, " exp_approx_mode\n", "\n"),
                 "the approximate exp is off (@options(exp_approx_mode))");
}

TEST(FoldScale, RefusesAScoreReadOutsideAnExp) {
  // rowsum(s) is not f times anything the fold could compute from the unscaled s.
  expect_refused(with(kAttention, "tile.rowsum(p)", "tile.rowsum(s)"),
                 "'s', a multiple of the scale, is read by `l = tile.add(tile.mul(l, c), "
                 "tile.rowsum(s))`");
}

TEST(FoldScale, RefusesAStoredStatistic) {
  expect_refused(with(kAttention,
                      "store O[h, i, d] = tile.mul(row.get(o, d), tile.bcast_col(tile.recip(l)))",
                      "store O[h, i, d] = tile.mul(row.get(o, d), tile.bcast_col(tile.recip(m)))"),
                 "'m', a multiple of the scale, is read by `store O[h, i, d] = tile.mul(row.get(o, "
                 "d), tile.bcast_col(tile.recip(m)))`");
}

TEST(FoldScale, RefusesAProductInTheStatistics) {
  // A product is not among the rule's operations: mn (and m = mn) leave the scaled family, and
  // its definition reads s outside an exp.
  expect_refused(
      with(kAttention, "let mn: tile<f32> = tile.max(m, tile.rowmax(s))",
           "let mn: tile<f32> = tile.mul(tile.max(m, tile.rowmax(s)), tile.fill(2.0))"),
      "'s', a multiple of the scale, is read by `let mn: tile<f32> = tile.mul(tile.max(m, "
      "tile.rowmax(s)), tile.fill(2.0))`");
}

TEST(FoldScale, RefusesALiteralScaleAndAMaskThatIsNotAConstant) {
  const std::string none = "no `x = x * f` (or `x = where(m, x * f, z)`) with f an f32 parameter "
                           "and x declared in the same block";
  EXPECT_EQ(refusal(with(kAttention, "tile.mul_scalar(s, scale)", "tile.mul_scalar(s, 0.125)")),
            none);
  EXPECT_EQ(refusal(with(kAttention, "tile.mul_scalar(s, scale), tile.fill(-inf))",
                         "tile.mul_scalar(s, scale), tile.fill(-1.0))")),
            none);
}

TEST(FoldScale, RefusesAStatisticComputedBeforeTheMultiply) {
  expect_refused(
      with(with(kAttention, "        let mn: tile<f32> = tile.max(m, tile.rowmax(s))\n", ""),
           "        s = tile.where(",
           "        let mn: tile<f32> = tile.max(m, tile.rowmax(s))\n        s = tile.where("),
      "'mn' is computed from 's' before its multiply by 'scale'");
}

// The whole chain on bench/attention_hifi2.tk: the compute kernel's p calls
// exp_tile.approx_noclamp_scaled after exp_tile_init.approx_noclamp_scaled on a compile-time arg,
// the host sets it from tt.exp_scale_bits(scale) (golden: the IR after the last stage).
TEST(FoldScale, AttentionHifi2EndToEndIR) {
  const std::string path = (tk::test::source_dir() / "bench" / "attention_hifi2.tk").string();
  SourceFile file(path, tk::test::read_file(path));
  Diagnostics diags(&file);
  std::optional<dsl::Module> ast = parser::parse(file, diags);
  ASSERT_TRUE(ast && dsl::check(*ast, diags)) << diags.str();
  std::optional<ir::Module> m = run_pipeline(*ast, Target::tt, {}, diags);
  ASSERT_TRUE(m) << diags.str();
  const std::string text = ir::print(*m);
  // p's argument is proved <= 0 (prove_nonpositive.hpp): the unclamped form
  EXPECT_NE(text.find("exp_tile_init.approx_noclamp_scaled(scale_bits_ct)"), std::string::npos);
  EXPECT_NE(text.find("let scale_bits_ct: u32 = get_compile_time_arg_val(0)"), std::string::npos);
  EXPECT_NE(text.find("let scale_bits_ct: u32 = tt.exp_scale_bits(scale)"), std::string::npos);
  EXPECT_NE(text.find("compile_values [scale_bits_ct]"), std::string::npos);
  tk::test::expect_golden(tk::test::source_dir() / "tests/golden/ir/fold_scale/attention_hifi2.txt",
                          text);
}

// verify-kernels checks the compile-time values: set by the host, read by name at their word.
std::string verify_error(const std::string& text) {
  ir::Module m = test::read_ir(text);
  Diagnostics diags;
  try {
    verify_kernels(m, diags);
  } catch (const InternalError& e) {
    return e.what();
  }
  return "";
}

TEST(FoldScale, VerifyChecksTheCompileTimeValues) {
  const std::string lowered = tk::test::read_file(tk::test::source_dir() /
                                                  "tests/golden/ir/fold_scale/attention_hifi2.txt");
  ASSERT_FALSE(lowered.empty());
  EXPECT_EQ(verify_error(lowered), "");
  EXPECT_EQ(
      verify_error(with(lowered, "compile_values [scale_bits_ct]", "compile_values [nowhere]")),
      "internal error: compile-time value 'nowhere' of 'attention_hifi2_compute' is never set "
      "by the host plan after verify-kernels");
  EXPECT_EQ(
      verify_error(with(lowered, "compile_values [scale_bits_ct]", "compile_values [scale_bits]")),
      "internal error: 'attention_hifi2_compute' reads compile-time arg 0 as 'scale_bits_ct', "
      "which its compile_values do not put there after verify-kernels");
}

} // namespace
} // namespace tk::lower
