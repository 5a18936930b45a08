// prove_nonpositive.hpp: which exp arguments are proved at most 0, on kernels in IR text; and
// select-tile-ops lowering exactly those (under @options(exp_approx_mode), and not an exp that
// stays accurate) to tt-llk's unclamped exp_tile.approx_noclamp.
#include "lowering/ir/printer.hpp"
#include "lowering/ir/util.hpp"
#include "lowering/tt/prove_nonpositive.hpp"
#include "tt_test_util.hpp"

#include <sstream>
#include <string>
#include <vector>

namespace tk::lower {
namespace {

const char* kHead = R"(// after to-core-loop
program k {
  options grid 8x8 cb_depth 2 fp32_acc true math_fidelity "HiFi4" exp_approx_mode
  tensor x: bf16[M, N] input layout dram interleaved tile 32x32 page 2048
  tensor v: bf16[M, 1] input layout dram interleaved tile 32x32 page 2048
  tensor y: bf16[M, N] output layout dram interleaved tile 32x32 page 2048
  cb cb_x index 0 format Float16_b page 2048 depth 2 role input tensor x
  cb cb_v index 1 format Float16_b page 2048 depth 2 role input tensor v
  cb cb_y index 16 format Float16_b page 2048 depth 2 role output tensor y
  cb cb_scaler index 2 format Float16_b page 2048 depth 1 role scaler
  cb cb_mask index 3 format Float16_b page 2048 depth 2 role mask

  func kernel k(x: tensor, v: tensor, alpha: f32, y: tensor, M: i32, N: i32, start: u32, count: u32) {
    let Mt: i32 = M / 32
    let Nt: i32 = N / 32
    for w in start .. +count per_core {
      let i: i32 = w / Nt
      let j: i32 = w % Nt
BODY    }
  }
}
)";

std::string program(const std::string& body) {
  std::string h = kHead;
  h.replace(h.find("BODY"), 4, body);
  return h;
}

// The arguments of the exps proved, printed, in program order.
std::vector<std::string> proved(const std::string& body) {
  const ir::Module m = test::read_ir(program(body));
  if (m.programs.empty())
    return {};
  const ir::Function& kernel = m.programs.at(0).functions.at(0);
  const std::set<const ir::Call*> p = tt::exps_of_nonpositive(kernel);
  std::vector<std::string> out;
  for (const ir::Call* c : ir::calls_of(kernel.body, ir::Intrinsic::tile_exp))
    if (p.count(c))
      out.push_back(ir::print(c->args[0]));
  return out;
}

// FlashAttention's step: s masked with -inf, mn = max(m, rowmax(s)), p = exp(s - bcast_col(mn)).
std::string attention(const std::string& mn, const std::string& p_arg) {
  return R"(      let m: tile<f32> = tile.fill(-inf)
      let l: tile<f32> = tile.zeros()
      for k in 0 .. Nt reduction {
        let s: tile<f32> = tile.where(tile.tril(i, k), tile.mul_scalar(load x[i, k], alpha), tile.fill(-inf))
        let mn: tile<f32> = )" +
         mn + R"(
        let c: tile<f32> = tile.exp(tile.sub(m, mn))
        let p: tile<f32> = tile.exp()" +
         p_arg + R"()
        l = tile.add(tile.mul(l, c), tile.rowsum(p))
        m = mn
      }
      store y[i, j] = l
)";
}

TEST(ProveNonpositive, ScoresMinusABroadcastBoundOnTheirRowMax) {
  // p's argument, and c's: m - max(m, ...) is at most 0 element by element.
  EXPECT_EQ(proved(attention("tile.max(m, tile.rowmax(s))", "tile.sub(s, tile.bcast_col(mn))")),
            (std::vector<std::string>{"tile.sub(m, mn)", "tile.sub(s, tile.bcast_col(mn))"}));
  // rowmax(s) itself, and the max with its operands the other way round.
  EXPECT_EQ(proved(attention("tile.max(tile.rowmax(s), m)", "tile.sub(s, tile.bcast_col(mn))")),
            (std::vector<std::string>{"tile.sub(m, mn)", "tile.sub(s, tile.bcast_col(mn))"}));
  EXPECT_EQ(proved(attention("tile.rowmax(s)", "tile.sub(s, tile.bcast_col(tile.rowmax(s)))")),
            (std::vector<std::string>{"tile.sub(s, tile.bcast_col(tile.rowmax(s)))"}));
}

TEST(ProveNonpositive, RefusesWhatItCannotProve) {
  // s + bcast_col(mn): not a difference.
  EXPECT_EQ(proved(attention("tile.max(m, tile.rowmax(s))", "tile.add(s, tile.bcast_col(mn))")),
            (std::vector<std::string>{"tile.sub(m, mn)"}));
  // mn below the row max (a min), or the max of another tile.
  EXPECT_EQ(proved(attention("tile.min(m, tile.rowmax(s))", "tile.sub(s, tile.bcast_col(mn))")),
            std::vector<std::string>{});
  EXPECT_EQ(proved(attention("tile.max(m, tile.rowmax(load x[i, 0]))",
                             "tile.sub(s, tile.bcast_col(mn))")),
            (std::vector<std::string>{"tile.sub(m, mn)"}));
  // A column max does not bound the rows; a row broadcast is not the column's.
  EXPECT_EQ(proved(attention("tile.max(m, tile.colmax(s))", "tile.sub(s, tile.bcast_col(mn))")),
            (std::vector<std::string>{"tile.sub(m, mn)"}));
  EXPECT_EQ(proved(attention("tile.max(m, tile.rowmax(s))", "tile.sub(s, tile.bcast_row(mn))")),
            (std::vector<std::string>{"tile.sub(m, mn)"}));
}

TEST(ProveNonpositive, AReassignedOperandBreaksTheProof) {
  // s changes between mn's definition and p's: mn bounds the old s only.
  const std::string body = R"(      let s: tile<f32> = load x[i, j]
      let mn: tile<f32> = tile.rowmax(s)
      s = tile.mul_scalar(s, alpha)
      let p: tile<f32> = tile.exp(tile.sub(s, tile.bcast_col(mn)))
      store y[i, j] = p
)";
  EXPECT_EQ(proved(body), std::vector<std::string>{});
  // Assigned in a loop after the definition: at the loop's next iteration the fact is gone.
  const std::string loop = R"(      let s: tile<f32> = load x[i, j]
      let mn: tile<f32> = tile.rowmax(s)
      for k in 0 .. Nt reduction {
        let p: tile<f32> = tile.exp(tile.sub(s, tile.bcast_col(mn)))
        s = tile.add(s, p)
      }
      store y[i, j] = s
)";
  EXPECT_EQ(proved(loop), std::vector<std::string>{});
  // Unchanged in the loop: the fact holds in it.
  const std::string kept = R"(      let s: tile<f32> = load x[i, j]
      let mn: tile<f32> = tile.rowmax(s)
      let acc: tile<f32> = tile.zeros()
      for k in 0 .. Nt reduction {
        let p: tile<f32> = tile.exp(tile.sub(s, tile.bcast_col(mn)))
        acc = tile.add(acc, p)
      }
      store y[i, j] = acc
)";
  EXPECT_EQ(proved(kept), (std::vector<std::string>{"tile.sub(s, tile.bcast_col(mn))"}));
}

TEST(ProveNonpositive, ConstantsAndMasks) {
  // -inf and other constants at most 0; where of two such; min with one such.
  const std::string body = R"(      let a: tile<f32> = tile.exp(tile.fill(-inf))
      let b: tile<f32> = tile.exp(tile.fill(-2.5))
      let c: tile<f32> = tile.exp(tile.fill(0.5))
      let d: tile<f32> = tile.exp(tile.where(tile.tril(i, j), tile.fill(0.0), tile.fill(-inf)))
      let e: tile<f32> = tile.exp(tile.where(tile.tril(i, j), load x[i, j], tile.fill(-inf)))
      let f: tile<f32> = tile.exp(tile.min(load x[i, j], tile.fill(-1.0)))
      store y[i, j] = tile.add(tile.add(tile.add(a, b), tile.add(c, d)), tile.add(e, f))
)";
  EXPECT_EQ(proved(body), (std::vector<std::string>{
                              "tile.fill(-inf)", "tile.fill(-2.5)",
                              "tile.where(tile.tril(i, j), tile.fill(0.0), tile.fill(-inf))",
                              "tile.min(load x[i, j], tile.fill(-1.0))"}));
}

TEST(ProveNonpositive, OnlyAWholeDefinitionIsProved) {
  // An exp inside a larger expression is not selected to the unclamped form: its consumer would
  // read it in DST.
  const std::string body = R"(      let mn: tile<f32> = tile.rowmax(load x[i, j])
      store y[i, j] = tile.exp(tile.sub(load x[i, j], tile.bcast_col(mn)))
)";
  EXPECT_EQ(proved(body), std::vector<std::string>{});
}

// select-tile-ops: how many lines of its output call `call(`.
int calls(const std::string& body, const std::string& call) {
  std::istringstream in(test::run_stage("select-tile-ops", program(body)));
  int n = 0;
  for (std::string line; std::getline(in, line);)
    n += line.find(" " + call + "(") != std::string::npos ? 1 : 0;
  return n;
}

TEST(ProveNonpositive, SelectsTheUnclampedExpWhereProvedButNotForAnAccurateOne) {
  // p unclamped; c proved too, but it rescales l, so it stays the accurate exp_tile.
  const std::string body =
      attention("tile.max(m, tile.rowmax(s))", "tile.sub(s, tile.bcast_col(mn))");
  EXPECT_EQ(calls(body, "exp_tile.approx_noclamp"), 1);
  EXPECT_EQ(calls(body, "exp_tile"), 1);
  EXPECT_EQ(calls(body, "exp_tile.approx"), 0);
  const std::string refused =
      attention("tile.max(m, tile.rowmax(s))", "tile.add(s, tile.bcast_col(mn))");
  EXPECT_EQ(calls(refused, "exp_tile.approx_noclamp"), 0);
  EXPECT_EQ(calls(refused, "exp_tile.approx"), 1);
}

} // namespace
} // namespace tk::lower
