// The Wormhole B0 table pinned to tt-metal's own figures (a8c5af0f5a26): each expectation names the
// file it was read from, so a change to the table that is not a change in the SDK fails here.
#include "arch/arch.hpp"

#include <gtest/gtest.h>

#include <set>
#include <utility>

namespace {

using tk::arch::ArchSpec;
using tk::arch::NocCoord;

const ArchSpec& wh() {
  const ArchSpec* a = tk::arch::find("wormhole_b0");
  EXPECT_NE(a, nullptr);
  return *a;
}

TEST(Arch, WormholeL1BudgetIsTheSdks) {
  // soc_descriptors/wormhole_b0_80_arch.yaml: worker_l1_size; dev_mem_map.h: MEM_MAP_END;
  // wh_hal_tensix.cpp: the 69 KiB kernel-config ring, DEFAULT_UNRESERVED rounded up to 32 B.
  EXPECT_EQ(wh().l1_size, 1499136u);
  EXPECT_EQ(wh().mem_map_end, 33056u);
  EXPECT_EQ(wh().kernel_config_size, 69u * 1024u);
  EXPECT_EQ(wh().first_free_l1_address(), 0x19520u);
  EXPECT_EQ(wh().l1_cb_budget(), 1395424u);
}

TEST(Arch, CircularBuffersPerCore) {
  // llrt/hal.hpp, get_arch_num_circular_buffers: 32 on WORMHOLE_B0, else NUM_CIRCULAR_BUFFERS,
  // which api/tt-metalium/circular_buffer_constants.h makes 64 (the host's tables hold that many).
  EXPECT_EQ(wh().num_circular_buffers, 32u);
  ASSERT_NE(tk::arch::find("blackhole"), nullptr);
  EXPECT_EQ(tk::arch::find("blackhole")->num_circular_buffers, 64u);
  EXPECT_EQ(tk::arch::kMaxCircularBuffers, 64u);
}

TEST(Arch, WormholeDstCapacityByMode) {
  // dest_helpers.hpp, get_dest_limit: SyncHalf 8 / 4 (16-bit / fp32), SyncFull 16 / 8.
  EXPECT_EQ(wh().dst_tiles(false), 8u);
  EXPECT_EQ(wh().dst_tiles(true), 4u);
  EXPECT_EQ(wh().dst_tiles(false, true), 16u);
  EXPECT_EQ(wh().dst_tiles(true, true), 8u);
}

TEST(Arch, WormholeGridAndCoordinates) {
  // core_descriptors/wormhole_b0_80_arch.yaml (nebula_x1): 8x8; noc_parameters.h: virtual
  // Tensix coordinates start at (18, 18).
  EXPECT_EQ(wh().grid_x, 8u);
  EXPECT_EQ(wh().grid_y, 8u);
  EXPECT_EQ(wh().worker_noc(0, 0), (NocCoord{18, 18}));
  EXPECT_EQ(wh().worker_noc(7, 7), (NocCoord{25, 25}));
  // soc_descriptors/wormhole_b0_80_arch.yaml: 12 DRAM views; each bank's NoC 0 endpoint is a
  // DRAM core of its channel (x 0 or 5), and no two banks share one.
  ASSERT_EQ(wh().dram_banks, 12u);
  EXPECT_EQ(wh().dram_bank_nocs()[0], (NocCoord{0, 11}));
  EXPECT_EQ(wh().dram_bank_nocs()[11], (NocCoord{5, 7}));
  std::set<std::pair<std::uint32_t, std::uint32_t>> seen;
  for (const NocCoord& c : wh().dram_bank_nocs()) {
    EXPECT_TRUE(c.x == 0 || c.x == 5) << c.x;
    EXPECT_LE(c.y, 11u);
    EXPECT_TRUE(seen.emplace(c.x, c.y).second) << c.x << "," << c.y;
  }
}

TEST(Arch, WormholeAlignmentsNocAndClock) {
  // noc_parameters.h: L1_ALIGNMENT 16, DRAM_ALIGNMENT 32, NOC_WORD_BYTES 32, burst 8 KiB, 2 NoCs.
  EXPECT_EQ(wh().l1_alignment, 16u);
  EXPECT_EQ(wh().dram_alignment, 32u);
  EXPECT_EQ(wh().noc_word_bytes, 32u);
  EXPECT_EQ(wh().noc_max_burst_bytes, 8192u);
  EXPECT_EQ(wh().num_nocs, 2u);
  EXPECT_EQ(wh().clock_ghz.value, 1.0);             // tech_reports/GEMM_FLOPS: "At 1GHz (WH)"
  EXPECT_EQ(wh().firmware_define, "ARCH_WORMHOLE"); // wh_hal.cpp
}

const ArchSpec& bh() {
  const ArchSpec* a = tk::arch::find("blackhole");
  EXPECT_NE(a, nullptr);
  return *a;
}

TEST(Arch, BlackholeL1BudgetIsTheSdks) {
  // soc_descriptors/blackhole_140_arch.yaml: worker_l1_size; blackhole/dev_mem_map.h: MEM_L1_SIZE
  // 1536 KiB, MEM_MAP_END 0x9e00; bh_hal_tensix.cpp: the 69 KiB ring, DEFAULT_UNRESERVED rounded
  // up to 64 B (DRAM_ALIGNMENT).
  EXPECT_EQ(bh().l1_size, 1536u * 1024u);
  EXPECT_EQ(bh().mem_map_end, 0x9e00u);
  EXPECT_EQ(bh().kernel_config_size, 69u * 1024u);
  EXPECT_EQ(bh().first_free_l1_address(), 0x1b200u);
  EXPECT_EQ(bh().l1_cb_budget(), 1461760u);
}

TEST(Arch, BlackholeGridAndCoordinates) {
  // core_descriptors/blackhole_140_arch.yaml: compute_with_storage_grid_range [0,0]..[12,9].
  EXPECT_EQ(bh().grid_x, 13u);
  EXPECT_EQ(bh().grid_y, 10u);
  // noc_parameters.h: virtual Tensix coordinates start at (1, 2); soc_descriptors/
  // blackhole_140_arch.yaml: Tensix columns are NoC x 1-7 and 10-16.
  EXPECT_EQ(bh().worker_noc(0, 0), (NocCoord{1, 2}));
  EXPECT_EQ(bh().worker_noc(6, 9), (NocCoord{7, 11}));
  EXPECT_EQ(bh().worker_noc(7, 0), (NocCoord{10, 2}));
  EXPECT_EQ(bh().worker_noc(12, 9), (NocCoord{15, 11}));
  EXPECT_EQ(bh().worker_noc(13, 0), (NocCoord{16, 2})); // the dispatch column
  for (std::uint32_t x = 0; x < 14; ++x)
    for (std::uint32_t y = 0; y < 10; ++y) {
      const NocCoord n = bh().worker_noc(x, y);
      EXPECT_EQ(bh().worker_at_noc(n.x, n.y), (NocCoord{x, y}));
    }
  EXPECT_EQ(bh().worker_at_noc(8, 2), std::nullopt);
  EXPECT_EQ(bh().worker_at_noc(9, 5), std::nullopt);
  EXPECT_EQ(bh().worker_at_noc(0, 2), std::nullopt);
  EXPECT_EQ(wh().worker_at_noc(25, 18), (NocCoord{7, 0}));
  EXPECT_EQ(wh().worker_at_noc(17, 18), std::nullopt);
  // 8 DRAM views, translated coordinates: channels 0-3 at x 17, 4-7 at x 18, y 12 + 3 * (c % 4)
  // + the view's NoC 0 endpoint; no bank shares a coordinate with a worker.
  ASSERT_EQ(bh().dram_banks, 8u);
  EXPECT_EQ(bh().dram_bank_nocs()[0], (NocCoord{17, 14}));
  EXPECT_EQ(bh().dram_bank_nocs()[1], (NocCoord{17, 15}));
  EXPECT_EQ(bh().dram_bank_nocs()[7], (NocCoord{18, 23}));
  for (const NocCoord& c : bh().dram_bank_nocs()) {
    const std::optional<NocCoord> w = bh().worker_at_noc(c.x, c.y);
    EXPECT_TRUE(!w || w->x >= 14 || w->y >= 10) << c.x << "," << c.y; // the die's 14x10 Tensix
  }
  EXPECT_EQ(bh().dram_bank_bytes, 4278190080u);
}

TEST(Arch, BlackholeAlignmentsNocDstAndClock) {
  // blackhole/noc/noc_parameters.h: L1 16, DRAM 64, NOC_PAYLOAD_WIDTH 512 (64 B words), bursts
  // of 256 words.
  EXPECT_EQ(bh().l1_alignment, 16u);
  EXPECT_EQ(bh().dram_alignment, 64u);
  EXPECT_EQ(bh().noc_word_bytes, 64u);
  EXPECT_EQ(bh().noc_max_burst_bytes, 16384u);
  EXPECT_EQ(bh().num_nocs, 2u);
  EXPECT_EQ(bh().dst_tiles(false), 8u);
  EXPECT_EQ(bh().dst_tiles(true), 4u);
  EXPECT_EQ(bh().clock_ghz.value, 1.35);             // GEMM_FLOPS: "At 1.35GHz (BH)"
  EXPECT_EQ(bh().firmware_define, "ARCH_BLACKHOLE"); // bh_hal.cpp
  // The same matrix engine (matrix_engine.md: the numbers apply to both).
  for (std::size_t i = 0; i < 4; ++i)
    EXPECT_EQ(bh().matmul_tile[i].value, wh().matmul_tile[i].value);
  // tt-llk's matmul unpack: the shorter side two tiles per pass on Wormhole
  // (tt_llk_wormhole_b0/llk_lib/llk_unpack_AB_matmul.h), one on Blackhole (tt_llk_blackhole).
  EXPECT_EQ(wh().matmul_pass_tiles.value, 2);
  EXPECT_EQ(bh().matmul_pass_tiles.value, 1);
  // The unpackers' rates: BlackholeA0's UNPACR page is Wormhole's, its Performance unconditional.
  EXPECT_EQ(bh().unpack_bytes_per_cycle.value, wh().unpack_bytes_per_cycle.value);
  EXPECT_EQ(bh().unpack_shared_bytes_per_cycle.value, wh().unpack_shared_bytes_per_cycle.value);
  EXPECT_EQ(bh().unpack_address.value, wh().unpack_address.value);
}

TEST(Arch, TheTableIsFoundByName) {
  EXPECT_EQ(&tk::arch::default_arch(), &wh());
  EXPECT_EQ(tk::arch::find("grayskull"), nullptr);
  EXPECT_EQ(tk::arch::names(), "wormhole_b0, blackhole");
  EXPECT_EQ(tk::arch::describe(bh()), "blackhole (p150, 13x10)");
  EXPECT_EQ(tk::arch::grid_sides(bh(), " must be"), "x must be 1 to 13 and y 1 to 10");
  EXPECT_EQ(tk::arch::describe(wh()), "wormhole_b0 (n150, 8x8)");
  EXPECT_EQ(tk::arch::grid_sides(wh(), " must be"), "each side must be 1 to 8");
  EXPECT_EQ(tk::arch::hex(wh().first_free_l1_address()), "0x19520");
}

} // namespace
