// price-q-chunk (lowering/tt/price_q_chunk.hpp): the Q chunk rule's costs are the timing model's
// price of the pieces of examples/attention.tk's compute kernel's work item, not constants. The
// expectations are worked out from the table the emulator charges (tk_emulator/timing_params.hpp,
// arch/wormhole_b0.hpp).
#include "dsl/check.hpp"
#include "lowering/ir/util.hpp"
#include "lowering/pipeline.hpp"
#include "lowering/tt/price_q_chunk.hpp"
#include "lowering/tt/target.hpp"
#include "parser/parse.hpp"
#include "tests/support/golden.hpp"

#include <gtest/gtest.h>
#include <tk_emulator/timing_params.hpp>

#include <optional>
#include <string>

namespace tk::lower {
namespace {

// examples/attention.tk lowered for TT, with `options` put before its kernel (empty: none).
ir::Module attention(const std::string& options = "") {
  const auto path = tk::test::source_dir() / "examples" / "attention.tk";
  SourceFile file(path.string(), options + tk::test::read_file(path));
  Diagnostics diags(&file);
  std::optional<dsl::Module> ast = parser::parse(file, diags);
  EXPECT_TRUE(ast && dsl::check(*ast, diags)) << diags.str();
  std::optional<ir::Module> m;
  if (ast)
    m = run_pipeline(*ast, Target::tt, {}, diags);
  EXPECT_TRUE(m.has_value()) << diags.str();
  return m ? *m : ir::Module{};
}

// The host's tt.q_chunk call.
const ir::Call* rule(const ir::Program& p) {
  const ir::Function* host = ir::find_function(p, ir::FuncKind::host);
  if (host)
    for (const ir::Stmt& s : ir::as<ir::Block>(host->body)->stmts)
      if (const ir::Decl* d = ir::as<ir::Decl>(s))
        if (const ir::Call* c = ir::as<ir::Call>(d->value); c && c->fn == ir::Intrinsic::tt_q_chunk)
          return c;
  return nullptr;
}

std::int64_t arg(const ir::Call& c, std::size_t i) {
  return ir::as<ir::IntImm>(c.args[i])->value;
}

// The host's costs are, for q = 1, 2, 4, 8 and each piece of the work item (its own work, a chunk
// step of 8 key tiles, a single and a diagonal key step, each for the chunk's q rows), the line
// through the piece's prices at D = 64 and D = 128, within a cycle of each.
TEST(PriceQChunk, TheRulesCostsAreThePiecesPricesAtD64AndD128) {
  const ir::Module m = attention();
  ASSERT_EQ(m.programs.size(), 1u);
  const ir::Program& p = m.programs[0];
  const ir::Call* c = rule(p);
  ASSERT_NE(c, nullptr);
  ASSERT_EQ(c->args.size(), 41u);
  EXPECT_EQ(arg(*c, 8), 8); // chunk-keys' k
  for (std::int64_t i = 0; i < 4; ++i) {
    const std::int64_t q = std::int64_t{1} << i;
    const std::optional<tt::QItemPrices> d64 = tt::q_item_prices(p, q, 2),
                                         d128 = tt::q_item_prices(p, q, 4);
    ASSERT_TRUE(d64 && d128) << q;
    EXPECT_EQ(d64->keys, 8);
    const double prices[4][2] = {{d64->item, d128->item},
                                 {d64->chunk, d128->chunk},
                                 {d64->single, d128->single},
                                 {d64->diagonal, d128->diagonal}};
    for (std::size_t piece = 0; piece < 4; ++piece) {
      const std::int64_t fixed = arg(*c, 9 + 8 * i + 2 * piece),
                         per_tile = arg(*c, 10 + 8 * i + 2 * piece);
      EXPECT_NEAR(static_cast<double>(fixed + 2 * per_tile), prices[piece][0], 1.0) << q << piece;
      EXPECT_NEAR(static_cast<double>(fixed + 4 * per_tile), prices[piece][1], 1.0) << q << piece;
      EXPECT_GT(per_tile, 0) << q << piece;
    }
  }
}

// The pieces add up to the whole work item, every loop of it run to its count: chunk 5 of 4 rows
// at St = 64 (item w = 10: the fold's r = 10 is chunk 10 / 2 = 5) has 20 key tiles below its
// diagonal, 2 chunk steps of 8 and 4 single steps, and 4 diagonal steps; chunk 3 of 2 rows (w =
// 6) 6 single steps and 2 diagonal ones; chunk 1 of 8 rows (w = 2), 1 chunk step and 8 diagonal.
// (Chosen so that the reader's V windows, read in pairs, leave no odd one for the compute kernel
// to pop after a key loop: those pops are not among the pieces.)
TEST(PriceQChunk, ThePiecesAddUpToTheWorkItem) {
  const ir::Module m = attention();
  ASSERT_EQ(m.programs.size(), 1u);
  const ir::Program& p = m.programs[0];
  struct Case {
    std::int64_t q, w, chunks, singles, diagonals;
  };
  for (const Case& k : {Case{4, 10, 2, 4, 4}, Case{2, 6, 0, 6, 2}, Case{8, 2, 1, 0, 8}})
    for (std::int64_t Dt : {2, 4}) {
      const std::optional<tt::QItemPrices> pieces = tt::q_item_prices(p, k.q, Dt);
      const std::optional<double> whole = tt::q_work_item_cycles(p, k.q, Dt, k.w);
      ASSERT_TRUE(pieces && whole);
      EXPECT_NEAR(*whole,
                  pieces->item + static_cast<double>(k.chunks) * pieces->chunk +
                      static_cast<double>(k.singles) * pieces->single +
                      static_cast<double>(k.diagonals) * pieces->diagonal,
                  1e-6)
          << "q = " << k.q << ", Dt = " << Dt;
    }
}

// The fidelity changes only what the matrix engine's passes change: per key step, Dt products of
// the score (Q's and K's bf16 windows) and Dt of the output row's update (p, an fp32 tile, by
// V's bf16 window), in matmul_block calls (block-products) priced by matmul_call_cycles. The row
// sum's reduce_tile<SUM> does not move: its math (reduce_tile x phases: 4 x 4 against 4 x 2) hides
// under its unpack (a tile and the scaler's face: at least 40 cycles, timing::fpu_call_cycles),
// nor do exp, the copies, the SFPU ops and the calls around them.
TEST(PriceQChunk, TheFidelityMovesOnlyTheMatmulsAndTheRowSum) {
  const ir::Module hifi4 = attention(), hifi2 = attention("@options(math_fidelity = HiFi2)\n");
  ASSERT_EQ(hifi2.programs.size(), 1u);
  const arch::ArchSpec& a = tt::arch_of(hifi4.programs[0]);
  namespace timing = rt::emu::timing;
  for (std::int64_t Dt : {2, 4}) {
    // HiFi4's 4 phases against HiFi2's 2 for one matmul call of an rt x ct block.
    auto moved = [&](int rt, int ct, double in0, double in1) {
      return timing::matmul_call_cycles(a, 4, rt, ct, in0, in1) -
             timing::matmul_call_cycles(a, 2, rt, ct, in0, in1);
    };
    // A row's share (of the chunk's 4, priced together) of a key tile (chunk-keys: the chunk's 8
    // key tiles priced together, over 8): the score one 4 x 1 block (the batch's 4 rows, bf16 Q x
    // bf16 K) per tile of D; the output row p (fp32) x V (block-products): o carried in DST over
    // the chunk, every key tile's products in the first key tile's section, which rescales o by
    // c (a DST slot), in batches of 3 and 2 V tiles (Dt = 2 one 1 x 2 block, Dt = 4 a 1 x 3 block
    // and a lone product), each key tile its own block.
    const double qk = static_cast<double>(Dt) * moved(4, 1, 2048, 2048) / 4;
    const double pv =
        Dt == 2 ? moved(1, 2, 4096, 2048) : moved(1, 3, 4096, 2048) + moved(1, 1, 4096, 2048);
    const std::optional<double> c4 = tt::key_step_cycles(hifi4.programs[0], Dt);
    const std::optional<double> c2 = tt::key_step_cycles(hifi2.programs[0], Dt);
    ASSERT_TRUE(c4 && c2);
    EXPECT_NEAR(*c4 - *c2, qk + pv, 1e-9) << "Dt = " << Dt; // sums in another order
  }
}

// A program without the rule (a fixed chunk) is left as it is, and has no step to price.
TEST(PriceQChunk, AFixedChunkHasNoRuleToPrice) {
  const ir::Module m = attention("@options(q_chunk = 2)\n");
  ASSERT_EQ(m.programs.size(), 1u);
  EXPECT_EQ(rule(m.programs[0]), nullptr);
  EXPECT_EQ(tt::key_step_cycles(m.programs[0], 4), std::nullopt);
}

} // namespace
} // namespace tk::lower
