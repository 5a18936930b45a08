// chunk-keys (lowering/tt/chunk_keys.hpp): the online softmax's key loop below the diagonal over
// chunks of k key tiles. The input is examples/attention.tk's IR after batch-rows (its golden),
// as the chain hands it on.
#include "tests/unit/tt_lowering/tt_test_util.hpp"

#include <gtest/gtest.h>

#include <string>

namespace tk::lower {
namespace {

using test::run_stage;

std::string after_batch_rows() {
  return tk::test::read_file(tk::test::source_dir() / "tests" / "golden" / "ir" / "attention" /
                             "tt" / "after-batch-rows.txt");
}

int count(const std::string& text, const std::string& what) {
  int n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
    ++n;
  return n;
}

// The text from `from` to `to` (exclusive), or empty.
std::string between(const std::string& text, const std::string& from, const std::string& to) {
  const std::size_t a = text.find(from);
  const std::size_t b = a == std::string::npos ? a : text.find(to, a + from.size());
  return b == std::string::npos ? "" : text.substr(a, b - a);
}

std::string replaced(std::string text, const std::string& what, const std::string& by) {
  const std::size_t at = text.find(what);
  return at == std::string::npos ? "" : text.replace(at, what.size(), by);
}

// Chunks of 8 key tiles (the largest that fits in L1 here), then the key tiles left one at a time
// as before. In a chunk: the scores and the row max of key tile 0 as before; key tiles 1 .. 7
// read K at jc * 8 + jk and fold their row max into mn (read where m was, the old mn popped
// after); c once; p for each key tile; l and o for key tile 0 as before, for 1 .. 7 without the
// rescale by c (no load of c, no product with it); m = mn once.
TEST(ChunkKeys, RunsTheOnlineSoftmaxOverChunksOfKeyTiles) {
  const std::string in = after_batch_rows();
  const std::string out = run_stage("chunk-keys", in);
  const std::string chunk = between(out, "      for jc in 0 .. j_below / 8 reduction {\n",
                                    "      for j in j_below / 8 * 8 .. +j_below % 8 reduction {\n");
  ASSERT_FALSE(chunk.empty()) << out;
  // The scores: key tile 0, then 1 .. 7, each reading its K block and popping it after.
  EXPECT_NE(chunk.find("        df.read_block(cb_K_win, K, (h * St + jc * 8) * Dt, 1, 32, 1, 1, 1, "
                       "stream_kept, 32)\n"),
            std::string::npos)
      << chunk;
  const std::string more = between(chunk, "        for jk in 1 .. +7 reduction {\n",
                                   "        cb_wait_front(cb_mn, q)\n        for qrb_4");
  ASSERT_FALSE(more.empty()) << chunk;
  EXPECT_NE(
      more.find("          df.read_block(cb_K_win, K, (h * St + (jc * 8 + jk)) * Dt, 1, 32, 1, "
                "1, 1, stream_kept, 32)\n"),
      std::string::npos)
      << more;
  EXPECT_EQ(count(more, "cb_pop_front(cb_K_win, 32)"), 1) << more;
  // The folded row max: mn where m was, waited for, the old mn popped a page at a time.
  EXPECT_NE(more.find("          cb_wait_front(cb_mn, q)\n"
                      "          cb_wait_front(cb_tmp0, q)\n"),
            std::string::npos)
      << more;
  EXPECT_NE(more.find("            copy_tile(cb_mn, qrb_2 * 4, 0)\n"), std::string::npos) << more;
  EXPECT_EQ(more.find("cb_m,"), std::string::npos) << more;
  EXPECT_NE(more.find("          for r in 0 .. q serial {\n"
                      "            cb_pop_front(cb_mn, 1)\n"
                      "          }\n"),
            std::string::npos)
      << more;
  // c = exp(m - mn) and m = mn once a chunk: exp twice outside the loops over key tiles (c's two
  // batches), the copies of mn into m once.
  const std::string c_part = between(chunk, "        cb_wait_front(cb_mn, q)\n        for qrb_4",
                                     "        for jk_1 in 0 .. 8 reduction {\n");
  EXPECT_EQ(count(c_part, "exp_tile("), 3) << c_part;
  EXPECT_EQ(count(chunk, "pack_tile(0, cb_m)\n"), 3) << chunk; // its batches of 4, 2 and 1
  // p for each of the chunk's key tiles, S's tiles popped as they are read.
  const std::string p_part = between(chunk, "        for jk_1 in 0 .. 8 reduction {\n",
                                     "        cb_wait_front(cb_c, q)\n");
  EXPECT_EQ(count(p_part, "cb_pop_front(cb_s, 2)"), 1) << p_part;
  // l and o of key tiles 1 .. 7: V's block at jc * 8 + jk_2, no rescale.
  const std::string rest = between(chunk, "        for jk_2 in 1 .. +7 reduction {\n",
                                   "        for qrb_7 in 0 .. q / 4 serial {\n");
  ASSERT_FALSE(rest.empty()) << chunk;
  EXPECT_NE(
      rest.find("          df.read_block(cb_V_win, V, (h * St + (jc * 8 + jk_2)) * Dt, 1, 32, "
                "1, 1, 1, stream_kept, 32)\n"),
      std::string::npos)
      << rest;
  EXPECT_EQ(rest.find("cb_c"), std::string::npos) << rest;
  EXPECT_EQ(rest.find("mul_binary_tile"), std::string::npos) << rest;
  EXPECT_EQ(count(rest, "reduce_tile(PoolType::SUM"), 3) << rest;
  EXPECT_EQ(count(rest, "matmul_tiles(cb_p, cb_V_win, 0, d, 1)"), 1) << rest;
  EXPECT_EQ(count(rest, "matmul_tiles(cb_p, cb_V, 0, 0, 1)"), 1) << rest;
  // The masked steps on the diagonal keep one key tile at a time, as they were.
  const std::string diagonal = "      for j in j_below .. +qend - j_below reduction {\n";
  EXPECT_EQ(between(out, diagonal, "      cb_pop_front(cb_Q_win, 32)\n"),
            between(in, diagonal, "      cb_pop_front(cb_Q_win, 32)\n"));
}

// The CBs do not fit in L1 with chunks of 8 (the output row's CB made 4 pages deeper, 16 KiB
// more, where 8 key tiles leave 13 KiB): chunks of 4.
TEST(ChunkKeys, TakesTheLargestChunkWhoseCircularBuffersFit) {
  const std::string in =
      replaced(after_batch_rows(), "cb cb_o index 8 format Float32 page 4096 depth 64",
               "cb cb_o index 8 format Float32 page 4096 depth 68");
  ASSERT_FALSE(in.empty());
  const std::string out = run_stage("chunk-keys", in);
  EXPECT_NE(out.find("      for jc in 0 .. j_below / 4 reduction {\n"), std::string::npos) << out;
  EXPECT_EQ(out.find("j_below / 8"), std::string::npos) << out;
}

// The key index read by the compute kernel (here by c's copy of m) is not the recurrence over
// the key tiles alone: the loop stays as it was.
TEST(ChunkKeys, LeavesAKeyLoopWhoseIndexTheComputeKernelReads) {
  const std::string in = replaced(after_batch_rows(), "          copy_tile(cb_m, qrb_4 * 2, 0)\n",
                                  "          copy_tile(cb_m, qrb_4 * 2 + j - j, 0)\n");
  ASSERT_FALSE(in.empty());
  const std::string out = run_stage("chunk-keys", in);
  EXPECT_EQ(out.find("for jc in"), std::string::npos) << out;
  EXPECT_NE(out.find("      for j in 0 .. j_below reduction {\n"), std::string::npos) << out;
}

// C read by a section other than c, l and o (m's section copies it): not chunked.
TEST(ChunkKeys, LeavesAKeyLoopThatReadsCElsewhere) {
  const std::string in =
      replaced(after_batch_rows(), "          copy_tile(cb_mn, 0, 0)\n",
               "          copy_tile(cb_mn, 0, 0)\n          copy_tile(cb_c, 0, 5)\n");
  ASSERT_FALSE(in.empty());
  const std::string out = run_stage("chunk-keys", in);
  EXPECT_EQ(out.find("for jc in"), std::string::npos) << out;
}

} // namespace
} // namespace tk::lower
