// column_zero_reads (lowering/tt/column_zero_reads.hpp): the values a kernel reads only in column
// 0, and select-tile-ops' use of the fact: the SFPU calls on them that take a vector_mode run on
// VectorMode::C (exp_tile.col, recip_tile.col). FlashAttention's statistics are proved; a statistic
// that is also stored, broadcast along a row or summed is refused.
#include "lowering/ir/visitor.hpp"
#include "lowering/tt/column_zero_reads.hpp"
#include "tt_test_util.hpp"

#include <sstream>
#include <string>
#include <vector>

namespace tk::lower {
namespace {

const char* kHead = R"(// after to-core-loop
program k {
  options grid 8x8 cb_depth 2 fp32_acc true math_fidelity "HiFi4"
  tensor x: bf16[M, N] input layout dram interleaved tile 32x32 page 2048
  tensor v: bf16[M, 1] input layout dram interleaved tile 32x32 page 2048
  tensor y: bf16[M, N] output layout dram interleaved tile 32x32 page 2048
  cb cb_x index 0 format Float16_b page 2048 depth 2 role input tensor x
  cb cb_v index 1 format Float16_b page 2048 depth 2 role input tensor v
  cb cb_y index 16 format Float16_b page 2048 depth 2 role output tensor y
  cb cb_scaler index 2 format Float16_b page 2048 depth 1 role scaler
  
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

std::string with_body(const std::string& body) {
  std::string h = kHead;
  h.replace(h.find("BODY"), 4, body);
  return h;
}

// FlashAttention's online softmax over one row of tiles (bench/attention_hifi2.tk): m, mn, c and
// l are row statistics, read only through bcast_col (and each other); p, s and acc are whole tiles.
const std::string kFlash = R"(      let m: tile<f32> = tile.fill(-inf)
      let l: tile<f32> = tile.zeros()
      let acc: tile<f32> = tile.zeros()
      for k in 0 .. Nt reduction {
        let mn: tile<f32> = tile.max(m, tile.rowmax(load x[i, k]))
        let c: tile<f32> = tile.exp(tile.sub(m, mn))
        let p: tile<f32> = tile.exp(tile.sub(load x[i, k], tile.bcast_col(mn)))
        l = tile.add(tile.mul(l, c), tile.rowsum(p))
        acc = tile.add(tile.mul(acc, tile.bcast_col(c)), p)
        m = mn
      }
      store y[i, j] = tile.mul(acc, tile.bcast_col(tile.recip(l)))
)";

// The calls to `fn` in the kernel, in the order they are written.
std::vector<const ir::Call*> calls_to(const ir::Function& f, ir::Intrinsic fn) {
  struct Find : ir::Visitor {
    ir::Intrinsic fn;
    std::vector<const ir::Call*> out;
    void visit_node(const ir::Call& c) override {
      if (c.fn == fn)
        out.push_back(&c);
      ir::Visitor::visit_node(c);
    }
  } find;
  find.fn = fn;
  find.visit(f.body);
  return find.out;
}

struct Proved {
  ir::Module m;
  tt::ColumnZeroReads facts;
  const ir::Function& kernel() const { return m.programs.at(0).functions.at(0); }
  bool var(const std::string& name) const { return facts.vars.count(name) > 0; }
  // Whether the `k`-th call to `fn` is proved.
  bool call(ir::Intrinsic fn, std::size_t k) const {
    const auto cs = calls_to(kernel(), fn);
    EXPECT_LT(k, cs.size());
    return k < cs.size() && facts.calls.count(cs[k]) > 0;
  }
};

Proved prove(const std::string& body) {
  Proved p{test::read_ir(with_body(body)), {}};
  p.facts = tt::column_zero_reads(p.kernel());
  return p;
}

TEST(ColumnZeroReads, FlashAttentionsStatisticsAreColumnVectors) {
  const Proved p = prove(kFlash);
  for (const char* stat : {"m", "mn", "c", "l"})
    EXPECT_TRUE(p.var(stat)) << stat;
  for (const char* whole : {"p", "acc"})
    EXPECT_FALSE(p.var(whole)) << whole;
  EXPECT_EQ(p.facts.vars.size(), 4u);
  // c = exp(m - mn): its exp and its subtraction; p's exp is read whole (rowsum, acc + p).
  EXPECT_TRUE(p.call(ir::Intrinsic::tile_exp, 0));
  EXPECT_FALSE(p.call(ir::Intrinsic::tile_exp, 1));
  EXPECT_TRUE(p.call(ir::Intrinsic::tile_sub, 0));
  EXPECT_FALSE(p.call(ir::Intrinsic::tile_sub, 1));
  // recip(l) only through bcast_col; the product it scales is stored.
  EXPECT_TRUE(p.call(ir::Intrinsic::tile_recip, 0));
  EXPECT_FALSE(p.call(ir::Intrinsic::tile_mul, 2));
}

// Each whole-tile read of a statistic refuses it and, backwards, what it is computed from: a
// store; bcast_row (reads row 0, all columns); a rowsum (sums every column).
TEST(ColumnZeroReads, AWholeTileReadRefusesTheStatistic) {
  for (const std::string& use : {std::string("      store y[i, 0] = l\n"),
                                 std::string("      store y[i, 0] = tile.bcast_row(l)\n"),
                                 std::string("      store y[i, 0] = tile.rowsum(l)\n")}) {
    SCOPED_TRACE(use);
    const Proved p = prove(kFlash + use);
    EXPECT_FALSE(p.var("l"));
    // l = l * c + ...: c is read as l is, and m - mn with it; mn still only through bcast_col and
    // m - mn... which now needs all of mn, and of m.
    EXPECT_FALSE(p.var("c"));
    EXPECT_FALSE(p.var("mn"));
    EXPECT_FALSE(p.var("m"));
    EXPECT_FALSE(p.call(ir::Intrinsic::tile_exp, 0));
    // recip(l)'s own result is still read only through bcast_col.
    EXPECT_TRUE(p.call(ir::Intrinsic::tile_recip, 0));
  }
  // Stored on its own, c alone is refused; l (read only by recip(l) and l * c) stays proved:
  // l * c's result is l, read in column 0.
  std::string c_stored = kFlash;
  c_stored.insert(c_stored.find("        m = mn"), "        store y[i, k] = c\n");
  const Proved c = prove(c_stored);
  EXPECT_FALSE(c.var("c"));
  EXPECT_TRUE(c.var("l"));
  EXPECT_TRUE(c.call(ir::Intrinsic::tile_recip, 0));
  EXPECT_FALSE(c.call(ir::Intrinsic::tile_exp, 0));
}

// How many lines of select-tile-ops' output call `call(`.
int select_calls(const std::string& body, const std::string& call) {
  std::istringstream in(test::run_stage("select-tile-ops", with_body(body)));
  int n = 0;
  for (std::string line; std::getline(in, line);)
    n += line.find(" " + call + "(") != std::string::npos ? 1 : 0;
  return n;
}

TEST(ColumnZeroReads, SelectionRunsProvedStatisticsOnColumns) {
  EXPECT_EQ(select_calls(kFlash, "exp_tile.col"), 1);
  EXPECT_EQ(select_calls(kFlash, "exp_tile"), 1); // p's
  EXPECT_EQ(select_calls(kFlash, "recip_tile.col"), 1);
  EXPECT_EQ(select_calls(kFlash, "recip_tile"), 0);
  const std::string stored = kFlash + "      store y[i, 0] = l\n";
  EXPECT_EQ(select_calls(stored, "exp_tile.col"), 0);
  EXPECT_EQ(select_calls(stored, "exp_tile"), 2);
  EXPECT_EQ(select_calls(stored, "recip_tile.col"), 1);
  // bcast_row(recip(l)): row 0, every column.
  const std::string by_row = R"(      let l: tile<f32> = tile.zeros()
      for k in 0 .. Nt reduction {
        l = tile.add(l, tile.rowsum(load x[i, k]))
      }
      store y[i, j] = tile.mul(load x[i, j], tile.bcast_row(tile.recip(l)))
)";
  EXPECT_EQ(select_calls(by_row, "recip_tile.col"), 0);
  EXPECT_EQ(select_calls(by_row, "recip_tile"), 1);
}

} // namespace
} // namespace tk::lower
