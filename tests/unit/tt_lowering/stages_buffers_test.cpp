// TT stages from plan-buffers to to-core-loop: the CBs and the scaler, the accessors' compile-time
// args, the host function and plan, and the per-core loop (stage_text.hpp says how).
#include "stage_text.hpp"

namespace tk::lower {
namespace {

using namespace test;

TEST(TTStages, PlanBuffersGivesEveryTensorACbAndTheScaler) {
  EXPECT_EQ(cb_lines(after_text(kColnorm, "plan-buffers")),
            R"(  cb cb_x index 0 format Float32 page 4096 depth 3 role input tensor x
  cb cb_v index 1 format Float16_b page 2048 depth 3 role input tensor v
  cb cb_y index 16 format Float32 page 4096 depth 3 role output tensor y
  cb cb_scaler index 2 format Float16_b page 2048 depth 1 role scaler
)");
}

TEST(TTStages, AttachAccessorsListsCompileTimeArgs) {
  std::string text = after_text(kColnorm, "attach-accessors");
  EXPECT_EQ(lines(text, "  accessor "), R"(  accessor x args [2, 4096]
  accessor v args [2, 2048]
  accessor y args [0, 4096]
)");
  EXPECT_EQ(first_line(text), "program colnorm {\n");
  EXPECT_EQ(lines(text, "  options "),
            "  options grid 4x2 cb_depth 3 fp32_acc true math_fidelity \"HiFi2\"\n");
}

TEST(TTStages, PartitionWorkAddsTheHostFunctionAndPlan) {
  std::string text = after_text(kColnorm, "partition-work");
  EXPECT_EQ(function(text, "host"), R"(  func host colnorm_host(M: u32) {
    let Mt: u32 = M / 32u
    let work_items: u32 = Mt
  }
)");
  EXPECT_EQ(plan(text), R"(  host_plan {
    split split_work_to_cores items work_items grid 4x2 row_wise false
  }
)");
}

TEST(TTStages, ToCoreLoopDecodesOffsetIndices) {
  EXPECT_EQ(lines(after_text(kColnorm, "to-core-loop"), "    per_core "),
            "    per_core start count\n");
  EXPECT_EQ(
      function(after_text(kColnorm, "to-core-loop"), "kernel"),
      R"(  func kernel colnorm(x: tensor, v: tensor, y: tensor, M: i32, start: u32, count: u32) {
    let Mt: i32 = M / 32
    for w in start .. +count per_core {
      let i: i32 = w / 1
      let j: i32 = w % 1 + 1
      store y[i, j] = tile.mul(load x[i, j], tile.bcast_row(tile.colmax(load v[0, j])))
    }
  }
)");
}

TEST(TTStages, PlanBuffersRejectsANinthOutput) {
  std::string tk = "kernel k(x: bf16[M, N]) -> (";
  for (int o = 0; o < 9; ++o)
    tk += std::string(o ? ", " : "") + "y" + std::to_string(o) + ": bf16[M, N]";
  tk += ") {\n    parallel i in tiles(M), j in tiles(N) {\n";
  for (int o = 0; o < 9; ++o)
    tk += "        y" + std::to_string(o) + "[i, j] = x[i, j]\n";
  tk += "    }\n}\n";
  EXPECT_EQ(first_line(after_tk(tk, "plan-buffers")),
            "k.tk:1:157: error: kernel 'k' has more than 8 output tensors; a Tensix core has 8 "
            "output circular buffers (indices 16-23)\n");
}

} // namespace
} // namespace tk::lower
