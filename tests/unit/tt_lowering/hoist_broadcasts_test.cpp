// select_tile_ops_hoist.cpp: a broadcast operand a serial loop computes from values it does not
// change is declared once before the loop (FlashAttention's `o[d] * bcast_col(recip(l))`); an
// operand that reads the loop's index, a variable the loop assigns, or a load stays in the loop,
// and so does any operand of a reduction loop.
#include "lowering/ir/util.hpp"
#include "lowering/tt/select_tile_ops_state.hpp"
#include "tt_test_util.hpp"

#include <string>

namespace tk::lower {
namespace {

const char* kHead = R"(// after to-core-loop
program k {
  options grid 8x8 cb_depth 2 fp32_acc true math_fidelity "HiFi4"
  tensor x: bf16[M, N] input layout dram interleaved tile 32x32 page 2048
  tensor y: bf16[M, N] output layout dram interleaved tile 32x32 page 2048
  cb cb_x index 0 format Float16_b page 2048 depth 2 role input tensor x
  cb cb_y index 16 format Float16_b page 2048 depth 2 role output tensor y
  cb cb_scaler index 2 format Float16_b page 2048 depth 1 role scaler

  func kernel k(x: tensor, y: tensor, M: i32, N: i32, start: u32, count: u32) {
    let Mt: i32 = M / 32
    let Nt: i32 = N / 32
    for w in start .. +count per_core {
      let i: i32 = w / Nt
      let l: tile<f32> = tile.rowsum(load x[i, 0])
BODY    }
  }
}
)";

// The kernel's body after the hoist, printed.
std::string hoisted(const std::string& body) {
  std::string h = kHead;
  h.replace(h.find("BODY"), 4, body);
  ir::Module m = test::read_ir(h);
  ir::Program& p = m.programs.at(0);
  ir::Function* k = ir::find_function(p, ir::FuncKind::kernel);
  k->body = tt::hoist_invariant_broadcasts(p, k->body);
  return ir::print(m);
}

TEST(HoistBroadcasts, TheReciprocalOfARowStatisticIsComputedOnceBeforeTheLoop) {
  const std::string out = hoisted(R"(      for d in 0 .. Nt serial {
        store y[i, d] = tile.mul(load x[i, d], tile.bcast_col(tile.recip(l)))
      }
)");
  EXPECT_NE(out.find("      let bc: tile<f32> = tile.recip(l)\n"
                     "      for d in 0 .. Nt serial {\n"
                     "        store y[i, d] = tile.mul(load x[i, d], tile.bcast_col(bc))\n"),
            std::string::npos)
      << out;
}

TEST(HoistBroadcasts, OperandsThatChangeInTheLoopStay) {
  for (const char* body : {
           // the loop's index (through a load)
           "      for d in 0 .. Nt serial {\n"
           "        store y[i, d] = tile.bcast_col(tile.recip(load x[i, d]))\n"
           "      }\n",
           // a variable the loop assigns
           "      for d in 0 .. Nt serial {\n"
           "        l = tile.add(l, l)\n"
           "        store y[i, d] = tile.mul(l, tile.bcast_col(tile.recip(l)))\n"
           "      }\n",
           // a reduction loop (its body is a carried recurrence, left to the selection)
           "      for d in 0 .. Nt reduction {\n"
           "        store y[i, d] = tile.mul(load x[i, d], tile.bcast_col(tile.exp(l)))\n"
           "      }\n",
       }) {
    const std::string out = hoisted(body);
    EXPECT_EQ(out.find("let bc"), std::string::npos) << out;
  }
}

} // namespace
} // namespace tk::lower
