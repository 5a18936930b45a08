// fission-rows and batch-rows (lowering/tt/fission_rows.hpp, batch_rows.hpp): a Q chunk's row
// loop in a key loop runs one DST section at a time for all the chunk's rows, then the rows of a
// one-section loop in batches of as many as DST holds. The input is examples/attention.tk's IR
// after peel-mask (its golden), as the chain hands it on.
#include "tests/unit/tt_lowering/tt_test_util.hpp"

#include <gtest/gtest.h>

#include <string>

namespace tk::lower {
namespace {

using test::run_stage;

std::string after_peel_mask() {
  return tk::test::read_file(tk::test::source_dir() / "tests" / "golden" / "ir" / "attention" /
                             "tt" / "after-peel-mask.txt");
}

int count(const std::string& text, const std::string& what) {
  int n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
    ++n;
  return n;
}

// The key loop below the diagonal (peel-mask's first), from its header to the next key loop.
std::string below_diagonal(const std::string& text) {
  const std::size_t from = text.find("      for j in 0 .. j_below reduction {\n");
  const std::size_t to = text.find("      for j in j_below ..");
  if (from == std::string::npos || to == std::string::npos)
    return "";
  return text.substr(from, to - from);
}

// Seven sections, seven loops over the rows: the score (Q·Kᵀ, scaled), the row max, c, p, l, the
// output row's update and m = mn. A tile a section hands a later one is read at the row's index,
// waited for once for all q rows before the first piece that reads it there (m, the rows' state,
// before the row max; tmp0 is read where it is popped, at the front, waited for before it); the
// rows' own waits after their packs are gone.
TEST(FissionRows, RunsEachSectionForAllTheChunksRows) {
  const std::string out = run_stage("fission-rows", after_peel_mask());
  const std::string step = below_diagonal(out);
  ASSERT_FALSE(step.empty()) << out;
  EXPECT_EQ(count(step, "        for qr in 0 .. q serial {\n"), 7) << step;
  for (const char* piece :
       {"        cb_wait_front(cb_m, q)\n"
        "        cb_wait_front(cb_tmp0, q)\n"
        "        for qr in 0 .. q serial {\n"
        "          copy_tile(cb_m, qr, 0)\n"
        "          reduce_tile(PoolType::MAX, ReduceDim::REDUCE_ROW, cb_tmp0, cb_scaler, 0, 0, 0)\n"
        "          cb_pop_front(cb_tmp0, 1)\n"
        "          pack_tile(0, cb_mn)\n"
        "        }\n",
        "        cb_wait_front(cb_mn, q)\n"
        "        for qr in 0 .. q serial {\n"
        "          copy_tile(cb_m, qr, 0)\n"
        "          copy_tile(cb_mn, qr, 1)\n",
        "          copy_tile(cb_c, qr, 1)\n"
        "          mul_binary_tile(0, 1, 0)\n"
        "          reduce_tile(PoolType::SUM, ReduceDim::REDUCE_ROW, cb_p, cb_scaler, qr, 0, 0)\n"
        "          cb_pop_front(cb_l, 1)\n"
        "          pack_tile(0, cb_l)\n"
        "          cb_wait_front(cb_l, 1)\n"
        "        }\n",
        "        for qr in 0 .. q serial {\n"
        "          copy_tile(cb_mn, 0, 0)\n"
        "          cb_pop_front(cb_m, 1)\n"
        "          pack_tile(0, cb_m)\n"
        "          cb_wait_front(cb_m, 1)\n"
        "          cb_pop_front(cb_mn, 1)\n"
        "        }\n"})
    EXPECT_NE(step.find(piece), std::string::npos) << piece << "\n--- in ---\n" << step;
  EXPECT_EQ(step.find("cb_wait_front(cb_s, 1)"), std::string::npos) << step;
  EXPECT_EQ(step.find("cb_wait_front(cb_tmp0, 1)"), std::string::npos) << step;
  // The row's index, where the score's products name it.
  EXPECT_NE(step.find("        for qr in 0 .. q serial {\n"
                      "          let i: i32 = min(qc * q + qr, St - 1)\n"
                      "          dst.assume_zero(0)\n"),
            std::string::npos)
      << step;
  // The rows' own loops before and after the key loops are not in one (none is cut).
  EXPECT_EQ(count(out, "\n      for qr in 0 .. q serial {\n"), 2) << out;
}

// A section that reads what an earlier one popped would read another row's tile once the rows run
// section by section: the pieces from the first to the last that touch that CB stay one loop
// (here c's section reads tmp0, which the score's section pushes and the row max's pops: the
// three sections run row by row, the others still section by section).
TEST(FissionRows, KeepsInOnePieceWhatAReadAfterAPopSpans) {
  std::string in = after_peel_mask();
  const std::string c = "          copy_tile(cb_m, 0, 0)\n"
                        "          copy_tile(cb_mn, 0, 1)\n"
                        "          sub_binary_tile(0, 1, 0)\n";
  const std::size_t at = in.find(c);
  ASSERT_NE(at, std::string::npos);
  in.replace(at, c.size(),
             "          copy_tile(cb_m, 0, 0)\n"
             "          copy_tile(cb_tmp0, 0, 1)\n"
             "          sub_binary_tile(0, 1, 0)\n");
  const std::string step = below_diagonal(run_stage("fission-rows", in));
  EXPECT_EQ(count(step, "        for qr in 0 .. q serial {\n"), 5) << step;
  EXPECT_NE(
      step.find("          pack_tile(0, cb_s)\n"
                "          cb_wait_front(cb_tmp0, 1)\n"
                "          copy_tile(cb_m, qr, 0)\n"
                "          reduce_tile(PoolType::MAX, ReduceDim::REDUCE_ROW, cb_tmp0, cb_scaler, "
                "0, 0, 0)\n"
                "          cb_pop_front(cb_tmp0, 1)\n"
                "          pack_tile(0, cb_mn)\n"
                "          copy_tile(cb_m, qr, 0)\n"
                "          copy_tile(cb_tmp0, 0, 1)\n"),
      std::string::npos)
      << step;
}

// A chunk's rows in batches: four rows a batch where a row uses one DST slot (the score, the row
// max, m = mn), two where it uses two (c, p, l), then the rows left; a batch's reads of a CB it
// pops at the front move one tile a row and its pops are one; where nothing waited for the
// front's tiles (l, the rows' state), the batch waits for its own, and a row's wait for its own
// new state tile after its pack is left out (m = mn). The diagonal's score uses three
// slots (the mask, -inf, the score): one row a section, as before.
TEST(BatchRows, RunsAChunksRowsInBatchesOfWhatDstHolds) {
  const std::string out = run_stage("batch-rows", run_stage("fission-rows", after_peel_mask()));
  const std::string step = below_diagonal(out);
  ASSERT_FALSE(step.empty()) << out;
  for (const char* piece :
       {"        for qrb in 0 .. q / 4 serial {\n"
        "          dst.assume_zero(0)\n"
        "          dst.assume_zero(1)\n"
        "          dst.assume_zero(2)\n"
        "          dst.assume_zero(3)\n",
        "          mul_unary_tile(3, float_bits(scale))\n"
        "          pack_tile(0, cb_tmp0)\n"
        "          pack_tile(1, cb_tmp0)\n"
        "          pack_tile(2, cb_tmp0)\n"
        "          pack_tile(3, cb_tmp0)\n"
        "          pack_tile(0, cb_s)\n",
        "          copy_tile(cb_m, qrb_2 * 4 + 3, 3)\n"
        "          reduce_tile(PoolType::MAX, ReduceDim::REDUCE_ROW, cb_tmp0, cb_scaler, 0, 0, 0)\n"
        "          reduce_tile(PoolType::MAX, ReduceDim::REDUCE_ROW, cb_tmp0, cb_scaler, 1, 0, "
        "1)\n",
        "          cb_pop_front(cb_tmp0, 4)\n",
        "        for qrb_4 in 0 .. q / 2 serial {\n"
        "          copy_tile(cb_m, qrb_4 * 2, 0)\n"
        "          copy_tile(cb_m, qrb_4 * 2 + 1, 2)\n"
        "          copy_tile(cb_mn, qrb_4 * 2, 1)\n"
        "          copy_tile(cb_mn, qrb_4 * 2 + 1, 3)\n",
        "          cb_wait_front(cb_l, 2)\n"
        "          copy_tile(cb_l, 0, 0)\n"
        "          copy_tile(cb_l, 1, 2)\n",
        "        for qr in q - q % 2 .. +q % 2 serial {\n",
        // m = mn: no row waits for its own new m after the batch's packs
        "          pack_tile(3, cb_m)\n"
        "          cb_pop_front(cb_mn, 4)\n"
        "        }\n"})
    EXPECT_NE(step.find(piece), std::string::npos) << piece << "\n--- in ---\n" << step;
  // The output row's update is several sections (batch-sections batches its tiles): one row at a
  // time.
  EXPECT_NE(step.find("        for qr in 0 .. q serial {\n"
                      "          for d in 0 .. stream_kept reduction {\n"),
            std::string::npos)
      << step;
  const std::string diagonal = out.substr(out.find("      for j in j_below .."));
  EXPECT_NE(diagonal.find("        for qr in 0 .. q serial {\n"
                          "          let i: i32 = min(qc * q + qr, St - 1)\n"),
            std::string::npos)
      << diagonal;
  EXPECT_EQ(diagonal.find("for qrb in 0 .. q / 4 serial {\n"
                          "          dst.assume_zero(0)\n"
                          "          dst.assume_zero(1)\n"
                          "          dst.assume_zero(2)\n"
                          "          dst.assume_zero(3)\n"
                          "          fill_tile"),
            std::string::npos)
      << diagonal;
}

} // namespace
} // namespace tk::lower
