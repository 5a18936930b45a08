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

// The pad of a key step's slot in P (8 key tiles a chunk, q pages a key tile).
std::string pad() {
  return "        cb_reserve_back(cb_p, q * 7)\n"
         "        cb_push_back(cb_p, q * 7)\n"
         "        cb_wait_front(cb_p, q * 7)\n"
         "        cb_pop_front(cb_p, q * 7)\n";
}

// The pad of V's window after a loop of `n` key steps from `first` (a chunk takes the CB's 64
// pages, a key step 32): a window of no pages read when n is odd.
std::string v_pad(const std::string& pv, const std::string& n, const std::string& first) {
  return "      for " + pv + " in 0 .. " + n +
         " % 2 serial {\n"
         "        df.read_block(cb_V_win, V, (h * St + " +
         first +
         ") * Dt, 1, 32, 1, 1, 1, 0, 32)\n"
         "        cb_wait_front(cb_V_win, 32)\n"
         "        cb_pop_front(cb_V_win, 32)\n"
         "      }\n";
}

// Chunks of 8 key tiles (the largest that fits in L1 here), then the key tiles left one at a time
// as before. In a chunk: the scores and the row max of key tile 0 as before; key tiles 1 .. 7
// read K at jc * 8 + jk and fold their row max into mn (read where m was, the old mn popped
// after); c once; p for each key tile; l once for the chunk; o for key tile 0 as before, for
// 1 .. 7 without the rescale by c (no load of c, no product with it); m = mn once.
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
  // c is read only through bcast_col: its exp runs on VectorMode::C (column_zero_reads.hpp).
  EXPECT_EQ(count(c_part, "exp_tile.col("), 3) << c_part;
  EXPECT_EQ(count(chunk, "pack_tile(0, cb_m)\n"), 3) << chunk; // its batches of 4, 2 and 1
  // p for each of the chunk's key tiles, S's tiles popped as they are read.
  const std::string p_part = between(chunk, "        for jk_1 in 0 .. 8 reduction {\n",
                                     "        cb_wait_front(cb_c, q)\n");
  EXPECT_EQ(count(p_part, "cb_pop_front(cb_s, 2)"), 1) << p_part;
  // l and o once for the chunk (CarriesTheRowSumInDstOverTheChunk,
  // CarriesTheOutputInDstOverTheChunk): no loop over key tiles 1 .. 7 after them.
  EXPECT_EQ(chunk.find("jk_2"), std::string::npos) << chunk;
  // The masked steps on the diagonal keep one key tile at a time, as they were, but for the pad
  // of P's slot (PadsTheKeyStepsOneTileAtATime).
  const std::string diagonal = "      for j in j_below .. +qend - j_below reduction {\n";
  EXPECT_EQ(
      replaced(replaced(between(out, diagonal, "      cb_pop_front(cb_Q_win, 32)\n"), pad(), ""),
               v_pad("pv_1", "(qend - j_below)", "j_below"), ""),
      between(in, diagonal, "      cb_pop_front(cb_Q_win, 32)\n"));
}

// A key step one tile at a time (the j_below % 8 after the chunks, the diagonal's) uses q of
// P's pages and pads the rest of its slot of 8q, pushed and popped unwritten, so each chunk finds
// P's front at a whole slot: its l reads up to 8q - 1 tiles past the front, which must not run
// past P's end. The chunk itself has no pad. V's window is padded once after each loop of key
// steps (CarriesTheOutputInDstOverTheChunk).
TEST(ChunkKeys, PadsTheKeyStepsOneTileAtATime) {
  const std::string out = run_stage("chunk-keys", after_batch_rows());
  const std::string rest =
      between(out, "      for j in j_below / 8 * 8 .. +j_below % 8 reduction {\n",
              "      for pv in 0 .. j_below % 8 % 2 serial {\n");
  ASSERT_FALSE(rest.empty()) << out;
  EXPECT_EQ(count(rest, pad()), 1) << rest;
  EXPECT_EQ(rest.substr(rest.size() - pad().size() - 8), pad() + "      }\n") << rest;
  const std::string diagonal =
      between(out, "      for j in j_below .. +qend - j_below reduction {\n",
              "      cb_pop_front(cb_Q_win, 32)\n");
  EXPECT_EQ(count(diagonal, pad()), 1) << diagonal;
  const std::string chunk = between(out, "      for jc in 0 .. j_below / 8 reduction {\n",
                                    "      for j in j_below / 8 * 8 .. +j_below % 8 reduction {\n");
  EXPECT_EQ(count(chunk, "q * 7"), 1) << chunk; // o's pop of the other key tiles' P
  EXPECT_EQ(count(chunk, pad()), 0) << chunk;
  EXPECT_EQ(count(out, "q * 7"), 9) << out;
  // V's window: once after each loop of key steps, so that the next chunk finds it at its CB's
  // first page; none in the chunk.
  EXPECT_EQ(count(out, v_pad("pv", "j_below % 8", "j_below / 8 * 8") +
                           "      for j in j_below .. +qend - j_below reduction {\n"),
            1)
      << out;
  EXPECT_EQ(count(out, v_pad("pv_1", "(qend - j_below)", "j_below") +
                           "      for qr in 0 .. q serial {\n"),
            1)
      << out;
  EXPECT_EQ(count(out, "0, 32)\n"), 2) << out;
}

// l = l·c + Σ_kk rowsum(p_kk) in DST: the first key tile's l section waits for the chunk's 8·q
// tiles of P and, after each row sum of P's tile i into l's slot, sums the other key tiles' tiles
// i + kl·q into the same slot; l is loaded and packed once a row and chunk (its batch of 2 rows
// and its lone row: 3 loads, 3 packs), not once a row and key tile.
TEST(ChunkKeys, CarriesTheRowSumInDstOverTheChunk) {
  const std::string out = run_stage("chunk-keys", after_batch_rows());
  const std::string chunk = between(out, "      for jc in 0 .. j_below / 8 reduction {\n",
                                    "      for j in j_below / 8 * 8 .. +j_below % 8 reduction {\n");
  ASSERT_FALSE(chunk.empty()) << out;
  EXPECT_EQ(count(chunk, "copy_tile(cb_l,"), 3) << chunk;
  EXPECT_EQ(count(chunk, ", cb_l)\n"), 3) << chunk;
  const std::string l = between(chunk, "        cb_wait_front(cb_c, q)\n", "        let v_kept");
  ASSERT_FALSE(l.empty()) << chunk;
  EXPECT_NE(l.find("        cb_wait_front(cb_p, q * 8)\n"), std::string::npos) << l;
  EXPECT_NE(l.find("          reduce_tile(PoolType::SUM, ReduceDim::REDUCE_ROW, cb_p, cb_scaler, "
                   "qrb_6 * 2, 0, 0)\n"
                   "          for kl in 1 .. +7 reduction {\n"
                   "            reduce_tile(PoolType::SUM, ReduceDim::REDUCE_ROW, cb_p, cb_scaler, "
                   "qrb_6 * 2 + kl * q, 0, 0)\n"
                   "          }\n"),
            std::string::npos)
      << l;
  EXPECT_NE(l.find("          reduce_tile(PoolType::SUM, ReduceDim::REDUCE_ROW, cb_p, cb_scaler, "
                   "qrb_6 * 2 + 1 + kl_1 * q, 0, 2)\n"),
            std::string::npos)
      << l;
  EXPECT_NE(l.find("            reduce_tile(PoolType::SUM, ReduceDim::REDUCE_ROW, cb_p, cb_scaler, "
                   "qr + kl_2 * q, 0, 0)\n"),
            std::string::npos)
      << l;
  EXPECT_EQ(count(l, "reduce_tile(PoolType::SUM"), 6) << l;
  EXPECT_EQ(count(l, "for kl"), 3) << l;
}

// o = o·c + Σ_kk p_kk @ V_kk in DST: V's window takes the chunk's 8 key tiles, a row of 8 of its
// 64 pages each, read a key tile at a time (its own reservation, barrier and push); each product
// of the first key tile's o section (after the rescale by c) is followed by the other key tiles'
// into the same slot, unrolled so that batch-sections and block-products make each a 1 x ct
// matmul_block; a tile of D past the window's row is streamed per key tile. Then the other key
// tiles' P is popped, and the window's 64 pages. o is loaded and packed once a row and chunk.
TEST(ChunkKeys, CarriesTheOutputInDstOverTheChunk) {
  const std::string out = run_stage("chunk-keys", after_batch_rows());
  const std::string chunk = between(out, "      for jc in 0 .. j_below / 8 reduction {\n",
                                    "      for j in j_below / 8 * 8 .. +j_below % 8 reduction {\n");
  ASSERT_FALSE(chunk.empty()) << out;
  EXPECT_NE(
      chunk.find("        let v_kept: i32 = min(stream_kept, 8)\n"
                 "        for jv in 0 .. 8 serial {\n"
                 "          df.read_block(cb_V_win, V, (h * St + (jc * 8 + jv)) * Dt, 1, 8, 1, "
                 "1, 1, v_kept, 8)\n"
                 "        }\n"
                 "        cb_wait_front(cb_V_win, 64)\n"),
      std::string::npos)
      << chunk;
  std::string products = "            matmul_tiles(cb_p, cb_V_win, 0, d, 1)\n";
  for (int kk = 1; kk < 8; ++kk)
    products += "            matmul_tiles(cb_p, cb_V_win, " +
                (kk == 1 ? std::string("q") : std::to_string(kk) + " * q") + ", d + " +
                std::to_string(8 * kk) + ", 1)\n";
  EXPECT_EQ(count(chunk, products), 1) << chunk;
  EXPECT_EQ(count(chunk, "matmul_tiles(cb_p, cb_V_win"), 8) << chunk;
  EXPECT_NE(chunk.find("            for ko in 1 .. +7 reduction {\n"
                       "              df.read_tile(cb_V, V, (h * St + (jc * 8 + ko)) * Dt + d)\n"
                       "              cb_wait_front(cb_V, 1)\n"
                       "              matmul_tiles(cb_p, cb_V, ko * q, 0, 1)\n"
                       "              cb_pop_front(cb_V, 1)\n"
                       "            }\n"),
            std::string::npos)
      << chunk;
  EXPECT_NE(chunk.find("        cb_pop_front(cb_p, q * 7)\n"
                       "        cb_pop_front(cb_V_win, 64)\n"),
            std::string::npos)
      << chunk;
  // o's tiles loaded and packed once a chunk: two loops over D (the window's and the streamed).
  EXPECT_EQ(count(chunk, "copy_tile(cb_o,"), 2) << chunk;
  EXPECT_EQ(count(chunk, ", cb_o)\n"), 2) << chunk;
  EXPECT_EQ(count(chunk, "cb_V_win, 32"), 0) << chunk;
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
