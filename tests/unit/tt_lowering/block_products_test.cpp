// block-products (lowering/tt/block_products.hpp): runs of tile products sharing an operand as
// matmul_block calls. The input is examples/attention.tk's IR after insert-cb-protocol (its
// golden), as the chain hands it on, or that text with one index changed.
#include "tests/unit/tt_lowering/tt_test_util.hpp"

#include <gtest/gtest.h>

#include <string>

namespace tk::lower {
namespace {

using test::run_stage;

std::string after_insert_cb_protocol() {
  return tk::test::read_file(tk::test::source_dir() / "tests" / "golden" / "ir" / "attention" /
                             "tt" / "after-insert-cb-protocol.txt");
}

int count(const std::string& text, const std::string& what) {
  int n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
    ++n;
  return n;
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const std::size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos)
    text.replace(at, from.size(), to);
  return text;
}

// The score of a batch of 4 rows: four loops over e, row r's Q tile at (min(qc·q + qrb·4 + r,
// St − 1) − qc·q)·q_cols + e, K's tile e, DST slot r. With the clamp off the rows are q_cols
// apart: one loop of 4×1 blocks (kt_dim = q_cols, K's tile unpacked once for the 4 rows), run
// where the batch's last row is not clamped and q_cols >= 1, the four loops as they were
// otherwise.
TEST(BlockProducts, RunsABatchsScoresAsOneBlockOfRows) {
  const std::string out = run_stage("block-products", after_insert_cb_protocol());
  EXPECT_NE(
      out.find("          if qc * q + (qrb * 4 + 3) <= St - 1 && q_cols >= 1 {\n"
               "            for e in 0 .. stream_kept reduction {\n"
               "              matmul_block(cb_Q_win, cb_K_win, (min(qc * q + qrb * 4, St - 1) "
               "- qc * q) * q_cols + e, e, 0, 1, 1, 4, q_cols)\n"
               "            }\n"
               "          } else {\n"
               "            for e in 0 .. stream_kept reduction {\n"
               "              matmul_tiles.bt(cb_Q_win, cb_K_win, (min(qc * q + qrb * 4, St "
               "- 1) - qc * q) * q_cols + e, e, 0)\n"),
      std::string::npos)
      << out;
  // The batch of 2 likewise, 2×1; the last row alone and the diagonal's rows (one a section)
  // stay matmul_tiles. Below the diagonal the score is there three times (chunk-keys: a chunk's
  // first key tile, its other key tiles, the key tiles after the last whole chunk), on it once.
  EXPECT_EQ(count(out, ", e, 0, 1, 1, 4, q_cols)"), 3) << out;
  EXPECT_EQ(count(out, ", e, 0, 1, 1, 2, q_cols)"), 3) << out;
  EXPECT_EQ(count(out, "matmul_tiles.bt(cb_Q_win, cb_K_win, (i - qc * q) * q_cols + e, e, 0)"), 4)
      << out;
  // The streamed products (one CB page each, popped) are not a block: 4 + 2 + 1 rows in each of
  // the three copies below the diagonal, 1 on it.
  EXPECT_EQ(count(out, "matmul_tiles.bt(cb_Q, cb_K, 0, 0, "), 22) << out;
}

// The output row's update: p's tile times 3 consecutive V tiles into slots 1, 2, 3 is one 1×3
// block (p unpacked once); 2 tiles one 1×2 block; a lone product stays matmul_tiles (in the
// chunk, after the last whole chunk and on the diagonal: those rescale o by c, a DST slot). In the
// chunk each of its 8 key tiles' products is its own block (P's tile kk·q, V's window at 8·kk).
TEST(BlockProducts, RunsTheOutputRowsProductsAsOneBlockOfColumns) {
  const std::string out = run_stage("block-products", after_insert_cb_protocol());
  EXPECT_EQ(count(out, "matmul_block(cb_p, cb_V_win, 0, db * 3, 1, 0, 3, 1, 1)\n"), 1) << out;
  EXPECT_EQ(count(out, "matmul_block(cb_p, cb_V_win, 7 * q, db * 3 + 56, 1, 0, 3, 1, 1)\n"), 1)
      << out;
  EXPECT_EQ(count(out, "matmul_block(cb_p, cb_V_win, 0, d_batched - d_batched % 3 + db_1 * 2, 1, "
                       "0, 2, 1, 1)\n"),
            1)
      << out;
  EXPECT_EQ(count(out, "matmul_block(cb_p, cb_V_win, 7 * q, d_batched - d_batched % 3 + db_1 * 2 "
                       "+ 56, 1, 0, 2, 1, 1)\n"),
            1)
      << out;
  EXPECT_EQ(count(out, "matmul_block(cb_p, cb_V_win, "), 20) << out;
  EXPECT_EQ(count(out, "matmul_tiles(cb_p, cb_V_win, 0, d, 1)\n"), 3) << out;
  EXPECT_EQ(count(out, "matmul_tiles(cb_p, cb_V_win, 7 * q, d + 56, 1)\n"), 1) << out;
  EXPECT_EQ(count(out, "matmul_tiles(cb_p, cb_V_win, 0, db"), 0) << out;
}

// What the stride does not prove stays as it was: row 2 of the batch one tile off its row.
TEST(BlockProducts, LeavesRowsNotAStrideApart) {
  const std::string in =
      replaced(after_insert_cb_protocol(),
               "matmul_tiles.bt(cb_Q_win, cb_K_win, (min(qc * q + (qrb * 4 + 2), St - 1) - qc * "
               "q) * q_cols + e, e, 2)",
               "matmul_tiles.bt(cb_Q_win, cb_K_win, (min(qc * q + (qrb * 4 + 2), St - 1) - qc * "
               "q) * q_cols + e + 1, e, 2)");
  const std::string out = run_stage("block-products", in);
  // Rows 0 and 1 are a block of 2; row 2 breaks the run; row 3 alone is left (in the copy of the
  // score changed; chunk-keys' two other copies keep their block of 4).
  EXPECT_NE(out.find("          if qc * q + (qrb * 4 + 1) <= St - 1 && q_cols >= 1 {\n"),
            std::string::npos)
      << out;
  EXPECT_EQ(count(out, ", e, 0, 1, 1, 4, q_cols)"), 2) << out;
  EXPECT_EQ(count(out, ", e, 0, 1, 1, 2, q_cols)"), 4) << out;
  EXPECT_NE(out.find("q_cols + e + 1, e, 2)\n"), std::string::npos) << out;
  EXPECT_NE(out.find("(min(qc * q + (qrb * 4 + 3), St - 1) - qc * q) * q_cols + e, e, 3)\n"),
            std::string::npos)
      << out;
  // Products into slots out of order are not a block either.
  const std::string swapped = replaced(replaced(in, "db * 3 + 1, 2)", "db * 3 + 1, 3)"),
                                       "db * 3 + 2, 3)", "db * 3 + 2, 2)");
  const std::string out2 = run_stage("block-products", swapped);
  EXPECT_EQ(count(out2, "matmul_block(cb_p, cb_V_win, 0, db * 3,"), 0) << out2;
}

} // namespace
} // namespace tk::lower
