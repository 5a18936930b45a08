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

TEST(Arch, TheTableIsFoundByName) {
  EXPECT_EQ(&tk::arch::default_arch(), &wh());
  EXPECT_EQ(tk::arch::find("grayskull"), nullptr);
  EXPECT_EQ(tk::arch::names(), "wormhole_b0");
  EXPECT_EQ(tk::arch::describe(wh()), "wormhole_b0 (n150, 8x8)");
  EXPECT_EQ(tk::arch::grid_sides(wh(), " must be"), "each side must be 1 to 8");
  EXPECT_EQ(tk::arch::hex(wh().first_free_l1_address()), "0x19520");
}

} // namespace
