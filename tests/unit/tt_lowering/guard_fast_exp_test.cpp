// guard-fast-exp: the packs of tt-llk's unclamped approximate exp with the packer's ReLU on and
// off again before any other pack; the clamped exp instead where something but a pack would read
// its DST slot.
#include "tt_test_util.hpp"

#include <string>

namespace tk::lower {
namespace {

const char* kProgram = R"(// after insert-dst-management
program k attributes {dst_fp32 = true, signature = ["x", "y"]} {
  options grid 8x8 cb_depth 2 fp32_acc true math_fidelity "HiFi4" exp_approx_mode
  tensor x: bf16[M, N] input layout dram interleaved tile 32x32 page 2048
  tensor y: bf16[M, N] output layout dram interleaved tile 32x32 page 2048
  cb cb_x index 0 format Float16_b page 2048 depth 2 role input tensor x
  cb cb_y index 16 format Float16_b page 2048 depth 2 role output tensor y

  func compute k_compute() runtime_args [count] compile_args [] {
    let count: u32 = get_arg_val(0)
    compute_kernel_hw_startup(cb_x, cb_x, cb_y)
    for w in 0 .. count per_core {
      cb_wait_front(cb_x, 2)
      copy_tile_to_dst_init_short(cb_x)
      tile_regs_acquire()
      copy_tile(cb_x, 0, 0)
      copy_tile(cb_x, 1, 1)
      cb_pop_front(cb_x, 2)
      exp_tile_init.approx_noclamp()
      exp_tile.approx_noclamp(0)
BETWEEN      tile_regs_commit()
      tile_regs_wait()
      cb_reserve_back(cb_y, 3)
      pack_tile(1, cb_y)
      pack_tile(0, cb_y)
      pack_tile(1, cb_y)
      cb_push_back(cb_y, 3)
      tile_regs_release()
    }
  }
}
)";

std::string run(const std::string& between) {
  std::string p = kProgram;
  p.replace(p.find("BETWEEN"), 7, between);
  return test::run_stage("guard-fast-exp", p);
}

TEST(GuardFastExp, TheExpsPacksAloneRunWithThePackersRelu) {
  const std::string out = run("");
  EXPECT_NE(out.find(R"(      exp_tile_init.approx_noclamp()
      exp_tile.approx_noclamp(0)
      tile_regs_commit()
      tile_regs_wait()
      cb_reserve_back(cb_y, 3)
      pack_tile(1, cb_y)
      pack_relu_config.zero_relu()
      pack_tile(0, cb_y)
      pack_relu_config.no_relu()
      pack_tile(1, cb_y)
      cb_push_back(cb_y, 3)
      tile_regs_release()
)"),
            std::string::npos)
      << out;
}

TEST(GuardFastExp, ReluOffAtTheEndOfTheSection) {
  std::string p = kProgram;
  p.replace(p.find("BETWEEN"), 7, "");
  // The exp's pack last: ReLU off before the release.
  const std::string last = "      pack_tile(1, cb_y)\n      cb_push_back";
  p.replace(p.find(last), last.size(), "      pack_tile(0, cb_y)\n      cb_push_back");
  const std::string out = test::run_stage("guard-fast-exp", p);
  EXPECT_NE(out.find(R"(      pack_tile(1, cb_y)
      pack_relu_config.zero_relu()
      pack_tile(0, cb_y)
      pack_tile(0, cb_y)
      cb_push_back(cb_y, 3)
      pack_relu_config.no_relu()
      tile_regs_release()
)"),
            std::string::npos)
      << out;
}

TEST(GuardFastExp, AnythingButAPackReadingTheSlotFallsBackToTheClampedExp) {
  for (const std::string between : {"      binop_with_scalar_tile_init()\n"
                                    "      mul_unary_tile(0, 1056964608u)\n",
                                    "      add_binary_tile_init()\n"
                                    "      add_binary_tile(1, 0, 1)\n",
                                    "      exp_tile.approx_noclamp(0)\n"}) {
    const std::string out = run(between);
    EXPECT_EQ(out.find("approx_noclamp"), std::string::npos) << out;
    EXPECT_EQ(out.find("pack_relu_config"), std::string::npos) << out;
    EXPECT_NE(out.find("      exp_tile_init.approx()\n      exp_tile.approx(0)\n"),
              std::string::npos)
        << out;
  }
}

} // namespace
} // namespace tk::lower
