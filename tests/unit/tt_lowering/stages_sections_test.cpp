// TT stages chunk-rows, peel-mask and batch-sections: the Q chunk's rows, the key steps below the
// diagonal without the mask, and DST sections of one tile run as batches.
#include "stage_text.hpp"

namespace tk::lower {
namespace {

using namespace test;

// batch-sections: FlashAttention's output row, `o[d] = o[d] * bcast_col(c) + p @ V[h, j, d]`, one
// DST section of one tile per d, runs as batches of three tiles in one section (fp32 DST: 4 slots;
// the broadcast of c, which every d reads alike, once per batch in slot 0, o's tiles in 1 to 3),
// each operation once per tile of the batch, the row CB cb_o waited for, popped and packed three
// at a time; two tiles left over run as one batch of two (D = 64), one as the body was. Batches
// run only when cb_o's 64 pages hold whole rows (64 % Dt == 0), so that no batch wraps around the
// CB's end. The loop over the streamed tail of V (a df.read_tile in its body) is left as it was.
TEST(TTStages, BatchSectionsRunsARowLoopOfOneTileSectionsAsBatches) {
  // The example with its Q chunk fixed at one row (the example's own kernel runs these loops
  // inside chunk-rows' loop over the chunk's rows).
  const std::string tk = tk::test::read_file(tk::test::source_dir() / "bench" / "attention_q1.tk");
  const std::string before = after_tk(tk, "chunk-rows");
  const std::string after = after_tk(tk, "batch-sections");
  const std::string one_tile = R"(        for d in 0 .. stream_kept reduction {
          cb_wait_front(cb_o, 1)
          unary_bcast(BroadcastType::COL, cb_c, 0, 0)
          copy_tile(cb_o, 0, 1)
          mul_binary_tile(1, 0, 1)
          matmul_tiles(cb_p, cb_V_win, 0, d, 1)
          cb_pop_front(cb_o, 1)
          pack_tile(1, cb_o)
        }
)";
  ASSERT_NE(before.find(one_tile), std::string::npos) << before;
  EXPECT_EQ(after.find(one_tile), std::string::npos) << after;
  const std::string batched = R"(        let d_batched: i32 = stream_kept * (1 - min(64 % Dt, 1))
        for db in 0 .. d_batched / 3 reduction {
          cb_wait_front(cb_o, 3)
          unary_bcast(BroadcastType::COL, cb_c, 0, 0)
          copy_tile(cb_o, 0, 1)
          copy_tile(cb_o, 1, 2)
          copy_tile(cb_o, 2, 3)
          mul_binary_tile(1, 0, 1)
          mul_binary_tile(2, 0, 2)
          mul_binary_tile(3, 0, 3)
          matmul_tiles(cb_p, cb_V_win, 0, db * 3, 1)
          matmul_tiles(cb_p, cb_V_win, 0, db * 3 + 1, 2)
          matmul_tiles(cb_p, cb_V_win, 0, db * 3 + 2, 3)
          cb_pop_front(cb_o, 3)
          pack_tile(1, cb_o)
          pack_tile(2, cb_o)
          pack_tile(3, cb_o)
        }
        for db_1 in 0 .. d_batched % 3 / 2 reduction {
          cb_wait_front(cb_o, 2)
          unary_bcast(BroadcastType::COL, cb_c, 0, 0)
          copy_tile(cb_o, 0, 1)
          copy_tile(cb_o, 1, 2)
          mul_binary_tile(1, 0, 1)
          mul_binary_tile(2, 0, 2)
          matmul_tiles(cb_p, cb_V_win, 0, d_batched - d_batched % 3 + db_1 * 2, 1)
          matmul_tiles(cb_p, cb_V_win, 0, d_batched - d_batched % 3 + db_1 * 2 + 1, 2)
          cb_pop_front(cb_o, 2)
          pack_tile(1, cb_o)
          pack_tile(2, cb_o)
        }
        for d in d_batched - d_batched % 3 % 2 .. +stream_kept - d_batched + d_batched % 3 % 2 reduction {
          cb_wait_front(cb_o, 1)
          unary_bcast(BroadcastType::COL, cb_c, 0, 0)
          copy_tile(cb_o, 0, 1)
          mul_binary_tile(1, 0, 1)
          matmul_tiles(cb_p, cb_V_win, 0, d, 1)
          cb_pop_front(cb_o, 1)
          pack_tile(1, cb_o)
        }
        for d in stream_kept .. +Dt - stream_kept reduction {
          cb_wait_front(cb_o, 1)
          unary_bcast(BroadcastType::COL, cb_c, 0, 0)
          copy_tile(cb_o, 0, 1)
          mul_binary_tile(1, 0, 1)
          df.read_tile(cb_V, V, (h * St + j) * Dt + d)
)";
  EXPECT_NE(after.find(batched), std::string::npos) << after;
  // After the chain, one section holds the batch: one acquire, one reservation of three pages.
  const std::string compute = function(after_tk(tk, "insert-dst-management"), "compute");
  const std::string packs = R"(          cb_pop_front(cb_o, 3)
          tile_regs_commit()
          tile_regs_wait()
          cb_reserve_back(cb_o, 3)
          pack_tile(1, cb_o)
          pack_tile(2, cb_o)
          pack_tile(3, cb_o)
          cb_push_back(cb_o, 3)
          tile_regs_release()
)";
  EXPECT_NE(compute.find(packs), std::string::npos) << compute;
}

// batch-sections, an output walk: layernorm's `y[i, j] = (x - mean) * r * gamma + beta` over its
// kept row, one DST section of one tile per j in two slots (fp32 DST: 4), packed into an output
// and written, runs as batches of two tiles in one section: each operation, and so each init,
// once per pair; the writes of the pair follow its packs, in the body's order. The output CB
// (two pages, drained tile by tile by the writer) takes the pair a page at a time: each pack
// reserves and pushes its own page in the one section, so that no reservation can run past the
// CB's end.
TEST(TTStages, BatchSectionsRunsAnOutputWalkAsBatchesEachPackItsOwnPage) {
  const std::string tk = tk::test::read_file(tk::test::source_dir() / "examples" / "layernorm.tk");
  const std::string before = after_tk(tk, "peel-mask");
  const std::string after = after_tk(tk, "batch-sections");
  const std::string one_tile = R"(      for j in 0 .. row_mid_1 serial {
        unary_bcast(BroadcastType::COL, cb_mean, 0, 0)
        copy_tile(cb_x_row, j, 1)
        sub_binary_tile(1, 0, 1)
        unary_bcast(BroadcastType::COL, cb_r, 0, 0)
        mul_binary_tile(1, 0, 1)
        unary_bcast(BroadcastType::ROW, cb_gamma_row, j, 0)
        mul_binary_tile(1, 0, 1)
        unary_bcast(BroadcastType::ROW, cb_beta_row, j, 0)
        add_binary_tile(1, 0, 1)
        pack_tile(1, cb_y_by_reader)
        df.write_tile(cb_y_by_reader, y, i * Nt + j)
      }
)";
  ASSERT_NE(before.find(one_tile), std::string::npos) << before;
  EXPECT_EQ(after.find(one_tile), std::string::npos) << after;
  const std::string batched = R"(      let j_batched: i32 = row_mid_1
      for jb in 0 .. j_batched / 2 serial {
        unary_bcast(BroadcastType::COL, cb_mean, 0, 0)
        unary_bcast(BroadcastType::COL, cb_mean, 0, 2)
        copy_tile(cb_x_row, jb * 2, 1)
        copy_tile(cb_x_row, jb * 2 + 1, 3)
        sub_binary_tile(1, 0, 1)
        sub_binary_tile(3, 2, 3)
        unary_bcast(BroadcastType::COL, cb_r, 0, 0)
        unary_bcast(BroadcastType::COL, cb_r, 0, 2)
        mul_binary_tile(1, 0, 1)
        mul_binary_tile(3, 2, 3)
        unary_bcast(BroadcastType::ROW, cb_gamma_row, jb * 2, 0)
        unary_bcast(BroadcastType::ROW, cb_gamma_row, jb * 2 + 1, 2)
        mul_binary_tile(1, 0, 1)
        mul_binary_tile(3, 2, 3)
        unary_bcast(BroadcastType::ROW, cb_beta_row, jb * 2, 0)
        unary_bcast(BroadcastType::ROW, cb_beta_row, jb * 2 + 1, 2)
        add_binary_tile(1, 0, 1)
        add_binary_tile(3, 2, 3)
        pack_tile(1, cb_y_by_reader)
        pack_tile(3, cb_y_by_reader)
        df.write_tile(cb_y_by_reader, y, i * Nt + jb * 2)
        df.write_tile(cb_y_by_reader, y, i * Nt + (jb * 2 + 1))
      }
      for j in j_batched - j_batched % 2 .. +row_mid_1 - j_batched + j_batched % 2 serial {
)";
  EXPECT_NE(after.find(batched), std::string::npos) << after;
  const std::string compute = function(after_tk(tk, "insert-dst-management"), "compute");
  const std::string packs = R"(        add_binary_tile(3, 2, 3)
        tile_regs_commit()
        tile_regs_wait()
        cb_reserve_back(cb_y_by_reader, 1)
        pack_tile(1, cb_y_by_reader)
        cb_push_back(cb_y_by_reader, 1)
        cb_reserve_back(cb_y_by_reader, 1)
        pack_tile(3, cb_y_by_reader)
        cb_push_back(cb_y_by_reader, 1)
        tile_regs_release()
)";
  EXPECT_NE(compute.find(packs), std::string::npos) << compute;
}

// batch-sections, a loop inside one open section: layernorm's variance walk keeps v_sum in DST
// across the row and broadcast the mean into slot 1 every tile; nothing else writes slot 1 and
// nothing reads it before, so the broadcast runs once before each of the walk's loops (its init
// and the srcA reconfiguration for x's row then once too). The streamed tail, which waits for
// each tile, keeps it.
TEST(TTStages, BatchSectionsHoistsAnInvariantBroadcastOutOfAnOpenSectionsLoop) {
  const std::string tk = tk::test::read_file(tk::test::source_dir() / "examples" / "layernorm.tk");
  const std::string after = after_tk(tk, "batch-sections");
  EXPECT_NE(after.find(R"(      unary_bcast(BroadcastType::COL, cb_mean, 0, 1)
      for j in 0 .. row_mid reduction {
        copy_tile(cb_x_row, j, 2)
        sub_binary_tile(2, 1, 2)
        square_tile(2)
        add_binary_tile(0, 2, 0)
      }
      unary_bcast(BroadcastType::COL, cb_mean, 0, 1)
      for j in row_mid .. +row_kept - row_mid reduction {
)"),
            std::string::npos)
      << after;
  EXPECT_NE(after.find(R"(      for j in row_kept .. +Nt - row_kept reduction {
        unary_bcast(BroadcastType::COL, cb_mean, 0, 1)
)"),
            std::string::npos)
      << after;
}

// An output walk over a streamed window (stream-rows: the row read as one block, its tiles read
// in place) batches as many tiles as a 16-bit DST holds, 8, then 4 and 2; a loop whose section
// reads tiles from a stream's front (waits for each and pops it: an element-wise kernel's) is
// left as it was, as its CB, two pages deep, may not hold a batch's tiles.
TEST(TTStages, BatchSectionsBatchesAWindowedWalkAndLeavesAStreamedOne) {
  const std::string tk = R"(kernel k(x: bf16[M, N]) -> (y: bf16[M, N]) {
    parallel i in tiles(M) {
        for j in tiles(N) { y[i, j] = exp(x[i, j]) }
    }
}
)";
  const std::string after = after_tk(tk, "batch-sections");
  EXPECT_NE(after.find(R"(      for jb in 0 .. j_batched / 8 serial {
        copy_tile(cb_x_win, jb * 8, 0)
)"),
            std::string::npos)
      << after;
  EXPECT_NE(after.find(R"(        pack_tile(7, cb_y)
        df.write_tile(cb_y, y, i * Nt + jb * 8)
)"),
            std::string::npos)
      << after;
  EXPECT_NE(after.find("      for jb_2 in 0 .. j_batched % 8 % 4 / 2 serial {\n"),
            std::string::npos)
      << after;
  const std::string streamed = R"(kernel e(x: bf16[M, N]) -> (y: bf16[M, N]) {
    parallel i in tiles(M), j in tiles(N) { y[i, j] = exp(x[i, j]) }
}
)";
  const std::string before = after_tk(streamed, "chunk-rows");
  ASSERT_NE(before.find("exp_tile(0)"), std::string::npos) << before;
  EXPECT_EQ(after_tk(streamed, "batch-sections"), before);
}

// peel-mask: `s = where(tril(i, j), s * scale, fill(-inf))` is `s * scale` for every key step
// below the row's diagonal (j < i), so the key loop `for j in 0 .. i + 1` runs as `for j in 0 ..
// j_below` without the mask group (no fill, no mask tile from the reader, no wait, copy, pop or
// where; the scaled score packed from its own slot, to the copy for rowmax and to s's CB) and `for
// j in j_below .. +i + 1 - j_below` as before. With the Q chunk, i is `min(qc * 4 + qr, St - 1)`
// inside `for qr in 0 .. 4`: the bound below every row of the chunk is min(qc * 4, St - 1).
// (bench/attention_q1.tk is the example with its chunk fixed at one row: the example's own kernel
// is chunked by the host's rule.)
TEST(TTStages, PeelMaskRunsTheStepsBelowTheDiagonalWithoutTheMask) {
  const std::string tk = tk::test::read_file(tk::test::source_dir() / "bench" / "attention_q1.tk");
  const std::string after = after_tk(tk, "peel-mask");
  EXPECT_NE(after.find("      let j_below: i32 = max(min(i, i + 1), 0)\n"
                       "      for j in 0 .. j_below reduction {\n"),
            std::string::npos)
      << after;
  EXPECT_NE(after.find("      for j in j_below .. +i + 1 - j_below reduction {\n"),
            std::string::npos)
      << after;
  const std::size_t below = after.find("      for j in 0 .. j_below reduction {\n");
  const std::size_t diagonal = after.find("      for j in j_below ..");
  ASSERT_LT(below, diagonal);
  const std::string unmasked = after.substr(below, diagonal - below);
  EXPECT_EQ(unmasked.find("tril"), std::string::npos) << unmasked;
  EXPECT_EQ(unmasked.find("where_tile"), std::string::npos) << unmasked;
  EXPECT_EQ(unmasked.find("fill_tile"), std::string::npos) << unmasked;
  // Both packs of the score (the copy rowmax reads, then s's own CB) from the scaled slot.
  EXPECT_NE(unmasked.find("        mul_unary_tile(0, float_bits(scale))\n"
                          "        pack_tile(0, cb_tmp0)\n"
                          "        pack_tile(0, cb_s)\n"),
            std::string::npos)
      << unmasked;
  const std::string masked = after.substr(diagonal);
  EXPECT_NE(masked.find("        df.tril_tile(cb_mask, DataFormat::Float16_b, 32 * (j - i))\n"),
            std::string::npos)
      << masked;

  const std::string q4 = after_tk(
      tk::test::read_file(tk::test::source_dir() / "bench" / "attention_q4.tk"), "peel-mask");
  EXPECT_NE(q4.find("      let j_below: i32 = max(min(min(qc * 4, St - 1), qend), 0)\n"),
            std::string::npos)
      << q4;
}

// chunk-rows without @options(q_chunk): the host's rule chooses q at run time. The kernel lets q
// = tt.q_chunk(H, St, Dt, the rule's constant inputs: the 8x8 grid's 64 cores, Q's window of 32
// pages, chunks of at most 8 rows, a 2048-byte page, wormhole_b0's 66.1 DRAM bytes per cycle as
// 66100 per 1000 cycles, then the key tiles of a chunk step and the 32 compute costs of q = 1, 2,
// 4, 8, all 0 here: price-q-chunk prices them from the final compute kernel,
// price_q_chunk_test.cpp), the window's pages per
// row W / q and the chunks per head; the host computes the same q before its work items (H *
// chunks); every loop over the chunk's rows runs to q; the row's state CBs hold the largest chunk's
// rows. A kernel without a row-bounded key loop is left as it is (no error, unlike a fixed q > 1).
TEST(TTStages, ChunkRowsLetsTheHostsRuleChooseQ) {
  std::string no_costs = "0"; // keys, then 32 costs
  for (int i = 0; i < 32; ++i)
    no_costs += ", 0";
  const std::string tk = tk::test::read_file(tk::test::source_dir() / "examples" / "attention.tk");
  const std::string after = after_tk(tk, "chunk-rows");
  for (const std::string& line : std::vector<std::string>{
           "    let Dt: i32 = D / 32\n"
           "    let q: i32 = tt.q_chunk(H, St, Dt, 64, 32, 8, 2048, 66100, " +
               no_costs +
               ")\n"
               "    let q_cols: i32 = 32 / q\n"
               "    let chunks: i32 = (St + q - 1) / q\n",
           "      let qend: i32 = min(qc * q + q, St)\n"
           "      for qr in 0 .. q serial {\n",
           "      df.read_block(cb_Q_win, Q, (h * St + qc * q) * Dt, q, q_cols, Dt, 1, qend - qc * "
           "q, "
           "stream_kept, 32)\n",
           "            matmul_tiles.bt(cb_Q_win, cb_K_win, (i - qc * q) * q_cols + e, e, 0)\n",
           "    let St: u32 = S / 32u\n"
           "    let Dt: u32 = D / 32u\n"
           "    let q: u32 = tt.q_chunk(H, St, Dt, 64, 32, 8, 2048, 66100, " +
               no_costs +
               ")\n"
               "    let chunks: u32 = (St + q - 1u) / q\n"
               "    let work_items: u32 = H * chunks\n"})
    EXPECT_NE(after.find(line), std::string::npos) << line << "\n" << after;
  const std::string cbs = after_tk(tk, "assign-cbs");
  EXPECT_NE(cbs.find("  cb cb_m index 24 format Float32 page 4096 depth 8 role intermediate\n"),
            std::string::npos)
      << cbs;
  EXPECT_NE(cbs.find("  cb cb_l index 25 format Float32 page 4096 depth 8 role intermediate\n"),
            std::string::npos)
      << cbs;
  const std::string softmax =
      tk::test::read_file(tk::test::source_dir() / "examples" / "softmax.tk");
  EXPECT_EQ(after_tk(softmax, "chunk-rows"), after_tk(softmax, "select-tile-ops"));
}

} // namespace
} // namespace tk::lower
