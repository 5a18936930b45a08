// elide-configs: the format reconfigurations and inits that set what every path reaching them
// already set are left out; those a path or an intervening writer makes necessary stay.
#include "stage_text.hpp"

namespace tk::lower {
namespace {

using namespace test;

// cb_a, cb_b: Float16_b; cb_c: Float32 (DST is 16-bit: no CB is unpacked to DST).
std::string program(const std::string& body) {
  return R"(// after insert-dst-management
program ec {
  options grid 8x8 cb_depth 2 fp32_acc false math_fidelity "HiFi4"
  tensor x: bf16[M, N] input layout dram interleaved tile 32x32 page 2048
  tensor y: bf16[M, N] output layout dram interleaved tile 32x32 page 2048
  cb cb_a index 0 format Float16_b page 2048 depth 2 role input tensor x
  cb cb_b index 1 format Float16_b page 2048 depth 2 role input tensor x
  cb cb_c index 2 format Float32 page 4096 depth 2 role input tensor x
  cb cb_y index 16 format Float16_b page 2048 depth 2 role output tensor y
  cb cb_f index 24 format Float32 page 4096 depth 2 role intermediate

  func compute ec_compute() runtime_args [count] compile_args [] {
    let count: u32 = get_arg_val(0)
    compute_kernel_hw_startup(cb_a, cb_a, cb_y)
)" + body +
         R"(  }
}
)";
}

std::string compute_after(const std::string& body) {
  return function(after_text(program(body), "elide-configs"), "compute");
}

std::string expected(const std::string& body) {
  return R"(  func compute ec_compute() runtime_args [count] compile_args [] {
    let count: u32 = get_arg_val(0)
    compute_kernel_hw_startup(cb_a, cb_a, cb_y)
)" + body +
         "  }\n";
}

// srcA holds cb_a's Float16_b at the loop head on both edges (the startup, the body's last
// reconfiguration): the switch to cb_b, of the same format, goes; those to cb_c (Float32) and back
// stay. The packer already packs Float16_b: its reconfiguration for cb_y goes.
TEST(ElideConfigs, RemovesAReconfigurationToTheFormatsInPlaceOnEveryPath) {
  EXPECT_EQ(compute_after(R"(    for i in 0 .. count per_core {
      cb_wait_front(cb_b, 1)
      cb_wait_front(cb_c, 1)
      reconfig_data_format_srca(cb_b)
      copy_tile_to_dst_init_short(cb_b)
      tile_regs_acquire()
      copy_tile(cb_b, 0, 0)
      reconfig_data_format_srca(cb_c)
      copy_tile_to_dst_init_short(cb_c)
      copy_tile(cb_c, 0, 1)
      reconfig_data_format_srca(cb_a)
      copy_tile_to_dst_init_short(cb_a)
      copy_tile(cb_b, 0, 2)
      cb_pop_front(cb_b, 1)
      cb_pop_front(cb_c, 1)
      tile_regs_commit()
      tile_regs_wait()
      pack_reconfig_data_format(cb_y)
      cb_reserve_back(cb_y, 1)
      pack_tile(0, cb_y)
      cb_push_back(cb_y, 1)
      tile_regs_release()
    }
)"),
            expected(R"(    for i in 0 .. count per_core {
      cb_wait_front(cb_b, 1)
      cb_wait_front(cb_c, 1)
      copy_tile_to_dst_init_short(cb_b)
      tile_regs_acquire()
      copy_tile(cb_b, 0, 0)
      reconfig_data_format_srca(cb_c)
      copy_tile_to_dst_init_short(cb_c)
      copy_tile(cb_c, 0, 1)
      reconfig_data_format_srca(cb_a)
      copy_tile_to_dst_init_short(cb_a)
      copy_tile(cb_b, 0, 2)
      cb_pop_front(cb_b, 1)
      cb_pop_front(cb_c, 1)
      tile_regs_commit()
      tile_regs_wait()
      cb_reserve_back(cb_y, 1)
      pack_tile(0, cb_y)
      cb_push_back(cb_y, 1)
      tile_regs_release()
    }
)"));
}

// One branch leaves srcA in Float32: after the branches the formats are not known, and the
// reconfiguration back to Float16_b stays; in a loop whose body ends in another format than it
// began, the one at the head stays too (the back edge brings Float32 into the loop head).
TEST(ElideConfigs, KeepsAReconfigurationWhenAPathOrTheBackEdgeDiffers) {
  const std::string body = R"(    for i in 0 .. count per_core {
      cb_wait_front(cb_a, 1)
      cb_wait_front(cb_c, 1)
      tile_regs_acquire()
      if i < 2 {
        reconfig_data_format_srca(cb_c)
        copy_tile_to_dst_init_short(cb_c)
        copy_tile(cb_c, 0, 0)
      } else {
        reconfig_data_format_srca(cb_a)
        copy_tile_to_dst_init_short(cb_a)
        copy_tile(cb_a, 0, 0)
      }
      reconfig_data_format_srca(cb_a)
      copy_tile_to_dst_init_short(cb_a)
      copy_tile(cb_a, 0, 1)
      reconfig_data_format_srca(cb_c)
      copy_tile_to_dst_init_short(cb_c)
      copy_tile(cb_c, 0, 2)
      cb_pop_front(cb_a, 1)
      cb_pop_front(cb_c, 1)
      tile_regs_commit()
      tile_regs_wait()
      cb_reserve_back(cb_y, 1)
      pack_tile(0, cb_y)
      cb_push_back(cb_y, 1)
      tile_regs_release()
    }
)";
  EXPECT_EQ(compute_after(body), expected(body));
}

// Every iteration leaves srcA in Float32 and the body opens with srcA's reconfiguration for cb_c
// (only waits before it): it goes before the loop, once, and the body's is left out; so does the
// copy's init, the last (and only) writer of the FPU's part in every iteration.
TEST(ElideConfigs, HoistsAReconfigurationAndAnInitEveryIterationRepeats) {
  EXPECT_EQ(compute_after(R"(    for i in 0 .. count per_core {
      cb_wait_front(cb_c, 1)
      reconfig_data_format_srca(cb_c)
      copy_tile_to_dst_init_short(cb_c)
      tile_regs_acquire()
      copy_tile(cb_c, 0, 0)
      cb_pop_front(cb_c, 1)
      tile_regs_commit()
      tile_regs_wait()
      cb_reserve_back(cb_y, 1)
      pack_tile(0, cb_y)
      cb_push_back(cb_y, 1)
      tile_regs_release()
    }
)"),
            expected(R"(    reconfig_data_format_srca(cb_c)
    copy_tile_to_dst_init_short(cb_c)
    for i in 0 .. count per_core {
      cb_wait_front(cb_c, 1)
      tile_regs_acquire()
      copy_tile(cb_c, 0, 0)
      cb_pop_front(cb_c, 1)
      tile_regs_commit()
      tile_regs_wait()
      cb_reserve_back(cb_y, 1)
      pack_tile(0, cb_y)
      cb_push_back(cb_y, 1)
      tile_regs_release()
    }
)"));
}

// The SFPU's init survives the FPU's (mm_init_short writes the unpacker and the FPU, exp_tile_init
// the SFPU): the second exp_tile_init goes; the copy's init after the matmul's stays. Around the
// loop the copy's and the exp's inits are what the back edge and the entry both bring: both go
// from the body.
TEST(ElideConfigs, RemovesAnInitWhosePartsNoOtherInitWroteSince) {
  EXPECT_EQ(compute_after(R"(    copy_tile_to_dst_init_short(cb_a)
    exp_tile_init()
    for i in 0 .. count per_core {
      cb_wait_front(cb_a, 1)
      cb_wait_front(cb_b, 1)
      tile_regs_acquire()
      mm_init_short(cb_a, cb_b)
      matmul_tiles(cb_a, cb_b, 0, 0, 1)
      exp_tile_init()
      exp_tile(1)
      copy_tile_to_dst_init_short(cb_a)
      copy_tile(cb_a, 0, 0)
      exp_tile_init()
      exp_tile(0)
      cb_pop_front(cb_a, 1)
      cb_pop_front(cb_b, 1)
      tile_regs_commit()
      tile_regs_wait()
      cb_reserve_back(cb_y, 1)
      pack_tile(0, cb_y)
      cb_push_back(cb_y, 1)
      tile_regs_release()
    }
)"),
            expected(R"(    copy_tile_to_dst_init_short(cb_a)
    exp_tile_init()
    for i in 0 .. count per_core {
      cb_wait_front(cb_a, 1)
      cb_wait_front(cb_b, 1)
      tile_regs_acquire()
      mm_init_short(cb_a, cb_b)
      matmul_tiles(cb_a, cb_b, 0, 0, 1)
      exp_tile(1)
      copy_tile_to_dst_init_short(cb_a)
      copy_tile(cb_a, 0, 0)
      exp_tile(0)
      cb_pop_front(cb_a, 1)
      cb_pop_front(cb_b, 1)
      tile_regs_commit()
      tile_regs_wait()
      cb_reserve_back(cb_y, 1)
      pack_tile(0, cb_y)
      cb_push_back(cb_y, 1)
      tile_regs_release()
    }
)"));
}

// Kept: a copy init after binary_max_tile_init (it sets ADDR_MOD_6, the matmul's, so it writes the
// FPU's part too) and an SFPU init after a branch that ran another. The first copy init, whose
// FPU part every iteration ends with (the second one's), goes before the loop.
TEST(ElideConfigs, KeepsAnInitAcrossAnInterveningWriterOrADifferingPath) {
  const std::string head = R"(    for i in 0 .. count per_core {
      cb_wait_front(cb_a, 1)
      tile_regs_acquire()
)";
  const std::string body = R"(      copy_tile(cb_a, 0, 0)
      copy_tile(cb_a, 0, 1)
      binary_max_tile_init()
      binary_max_tile(0, 1, 0)
      copy_tile_to_dst_init_short(cb_a)
      copy_tile(cb_a, 0, 1)
      if i < 2 {
        exp_tile_init()
        exp_tile(0)
      } else {
        recip_tile_init()
        recip_tile(0)
      }
      exp_tile_init()
      exp_tile(1)
      cb_pop_front(cb_a, 1)
      tile_regs_commit()
      tile_regs_wait()
      cb_reserve_back(cb_y, 1)
      pack_tile(0, cb_y)
      cb_push_back(cb_y, 1)
      tile_regs_release()
    }
)";
  EXPECT_EQ(compute_after(head + "      copy_tile_to_dst_init_short(cb_a)\n" + body),
            expected("    copy_tile_to_dst_init_short(cb_a)\n" + head + body));
}

} // namespace
} // namespace tk::lower
