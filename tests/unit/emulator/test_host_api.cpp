// Host-side API semantics: bfloat16 rounding, tilize layout, core ranges, split_work_to_cores,
// accessor args.
#include <type_traits>

#include <hostdevcommon/common_values.hpp>
#include <tt-metalium/bfloat16.hpp>
#include <tt-metalium/core_coord.hpp>
#include <tt-metalium/distributed.hpp>
#include <tt-metalium/host_api.hpp>
#include <tt-metalium/tensor_accessor_args.hpp>
#include <tt-metalium/tilize_utils.hpp>
#include <tt-metalium/work_split.hpp>

#include <tk_emulator/emulator.hpp>

#include "emu_test_util.hpp"

using namespace tt::tt_metal;

TEST(EmulatorHostApi, Bfloat16RoundsToNearestEven) {
  EXPECT_EQ(bfloat16(1.0f).to_uint16(), 0x3f80);
  // 1 + 2^-8 is exactly halfway between bf16 1.0 and 1.0078125: ties go to the even mantissa (1.0).
  EXPECT_EQ(bfloat16(1.00390625f).to_uint16(), 0x3f80);
  // 1.0078125 + 2^-8 is halfway between odd 0x3f81 and even 0x3f82: rounds up to even.
  EXPECT_EQ(bfloat16(1.01171875f).to_uint16(), 0x3f82);
  EXPECT_EQ(bfloat16::truncate(1.01171875f).to_uint16(), 0x3f81);
  EXPECT_EQ(static_cast<float>(bfloat16(-2.5f)), -2.5f);
}

TEST(EmulatorHostApi, TilizeUsesFourFacesPerTile) {
  std::vector<int> rm(64 * 32);
  for (std::size_t i = 0; i < rm.size(); ++i)
    rm[i] = static_cast<int>(i);
  const auto t = tilize_nfaces(rm, 64, 32);
  EXPECT_EQ(t[0], 0);              // (0,0)
  EXPECT_EQ(t[16], 1 * 32 + 0);    // face 0 row 1
  EXPECT_EQ(t[256], 16);           // face 1 starts at (0,16)
  EXPECT_EQ(t[512], 16 * 32);      // face 2 starts at (16,0)
  EXPECT_EQ(t[768], 16 * 32 + 16); // face 3
  EXPECT_EQ(t[1024], 32 * 32);     // tile 1 = rows 32..63
  EXPECT_EQ(untilize_nfaces(t, 64, 32), rm);
  EXPECT_THROW(tilize_nfaces(rm, 48, 32), std::invalid_argument);
}

TEST(EmulatorHostApi, CoreRangeIteratesRowMajor) {
  std::vector<tt::tt_metal::CoreCoord> seen;
  for (const tt::tt_metal::CoreCoord c : tt::tt_metal::CoreRange({1, 2}, {2, 3}))
    seen.push_back(c);
  EXPECT_EQ(seen, (std::vector<tt::tt_metal::CoreCoord>{{1, 2}, {2, 2}, {1, 3}, {2, 3}}));
  EXPECT_EQ(tt::tt_metal::CoreRangeSet(
                std::vector<tt::tt_metal::CoreRange>{tt::tt_metal::CoreRange({0, 0}, {7, 6}),
                                                     tt::tt_metal::CoreRange({0, 7}, {3, 7})})
                .num_cores(),
            60u);
}

// Host code written as the SDK now asks (tt::tt_metal::CoreCoord, …) compiles; the global names
// are, as in the SDK, [[deprecated]] aliases of the same types (this test silences the warning).
TEST(EmulatorHostApi, GlobalCoreTypesAreDeprecatedAliases) {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
  static_assert(std::is_same_v<tt::tt_metal::CoreCoord, ::CoreCoord>);
  static_assert(std::is_same_v<tt::tt_metal::CoreRange, ::CoreRange>);
  static_assert(std::is_same_v<tt::tt_metal::CoreRangeSet, ::CoreRangeSet>);
  static_assert(std::is_same_v<tt::tt_metal::MathFidelity, ::MathFidelity>);
  const std::vector<tt::tt_metal::CoreCoord> global =
      ::corerange_to_cores(tt::tt_metal::CoreRange({0, 0}, {1, 0}));
#pragma GCC diagnostic pop
  const tt::tt_metal::CoreRangeSet set(tt::tt_metal::CoreRange({0, 0}, {1, 1}));
  const std::vector<tt::tt_metal::CoreCoord> cores =
      tt::tt_metal::corerange_to_cores(set, std::nullopt, true);
  EXPECT_EQ(cores, (std::vector<tt::tt_metal::CoreCoord>{{0, 0}, {1, 0}, {0, 1}, {1, 1}}));
  EXPECT_EQ(global, (std::vector<tt::tt_metal::CoreCoord>{{0, 0}, {1, 0}}));
}

// The semaphore flags the SDK's multicast kernels and hosts use (CreateSemaphore(…, INVALID)).
TEST(EmulatorHostApi, CommonValuesHoldTheSemaphoreFlags) {
  static_assert(INVALID == 0 && VALID == 1);
  EXPECT_EQ(DEFAULT_L1_SMALL_SIZE, 0u);
}

TEST(EmulatorHostApi, SplitWorkToCoresUnevenIsColumnMajorWithTwoGroups) {
  // 15 output tiles of a 96x160 matmul over 8x8: 15 cores with one tile each (even split).
  auto [n, all, g1, g2, u1, u2] = split_work_to_cores(tt::tt_metal::CoreCoord{8, 8}, 15);
  EXPECT_EQ(n, 15u);
  EXPECT_EQ(all.str(), "{[(x=0,y=0) - (x=0,y=7)], [(x=1,y=0) - (x=1,y=6)]}");
  EXPECT_EQ(g1, all);
  EXPECT_TRUE(g2.empty());
  EXPECT_EQ(u1, 1u);
  EXPECT_EQ(u2, 0u);
  // 100 units over 64 cores: 36 cores do 2, 28 do 1; column-major: group 1 = columns 0..3 + 4 cores
  // of column 4.
  std::tie(n, all, g1, g2, u1, u2) = split_work_to_cores(tt::tt_metal::CoreCoord{8, 8}, 100);
  EXPECT_EQ(n, 64u);
  EXPECT_EQ(g1.num_cores(), 36u);
  EXPECT_EQ(g2.num_cores(), 28u);
  EXPECT_EQ(u1, 2u);
  EXPECT_EQ(u2, 1u);
  EXPECT_EQ(g1.str(), "{[(x=0,y=0) - (x=3,y=7)], [(x=4,y=0) - (x=4,y=3)]}");
  EXPECT_EQ(g2.str(), "{[(x=4,y=4) - (x=4,y=7)], [(x=5,y=0) - (x=7,y=7)]}");
  // Row-wise: x fastest.
  std::tie(n, all, g1, g2, u1, u2) = split_work_to_cores(tt::tt_metal::CoreCoord{8, 8}, 10, true);
  EXPECT_EQ(all.str(), "{[(x=0,y=0) - (x=7,y=0)], [(x=0,y=1) - (x=1,y=1)]}");
}

TEST(EmulatorHostApi, InterleavedDramBufferMapsPagesToTwelveBanks) {
  auto dev = distributed::MeshDevice::create_unit_mesh(0);
  EXPECT_EQ(dev->compute_with_storage_grid_size(), tt::tt_metal::CoreCoord(8, 8));
  // Wormhole's virtual (harvesting-free) Tensix coordinates start at (18, 18).
  EXPECT_EQ(dev->worker_core_from_logical_core({0, 0}), tt::tt_metal::CoreCoord(18, 18));
  EXPECT_EQ(dev->worker_core_from_logical_core({4, 5}), tt::tt_metal::CoreCoord(22, 23));
  EXPECT_EQ(dev->num_dram_channels(), 12u);
  EXPECT_EQ(dev->l1_size_per_core(), 1499136u);
  // A 1000-byte page is stored with a 1024-byte (32-aligned) stride; TensorAccessor args say so.
  auto buf = distributed::MeshBuffer::create(
      distributed::ReplicatedBufferConfig{.size = 1000 * 25},
      distributed::DeviceLocalBufferConfig{.page_size = 1000, .buffer_type = BufferType::DRAM},
      dev.get());
  EXPECT_EQ(buf->aligned_page_size(), 1024u);
  EXPECT_EQ(buf->address() % 32, 0u);
  EXPECT_EQ(TensorAccessorArgs(*buf).get_compile_time_args(), (std::vector<uint32_t>{2, 1024}));
  std::vector<uint8_t> bytes(25000);
  for (std::size_t i = 0; i < bytes.size(); ++i)
    bytes[i] = static_cast<uint8_t>(i * 7);
  distributed::EnqueueWriteMeshBuffer(dev->mesh_command_queue(), buf, bytes);
  std::vector<uint8_t> back;
  distributed::EnqueueReadMeshBuffer(dev->mesh_command_queue(), back, buf);
  EXPECT_EQ(back, bytes);
}

TEST(EmulatorHostApi, RuntimeArgsAreLimitedTo341) {
  Program program = CreateProgram();
  auto k = CreateKernel(program, tk::test::kernel("dataflow/write_tile.cpp"),
                        tt::tt_metal::CoreCoord{0, 0}, WriterDataMovementConfig{});
  SetRuntimeArgs(program, k, tt::tt_metal::CoreCoord{0, 0}, std::vector<uint32_t>(341, 7));
  EXPECT_EQ(GetRuntimeArgs(program, k, {0, 0}).size(), 341u);
  EXPECT_EQ(GetRuntimeArgs(program, k, {0, 0})[340], 7u);
  try {
    SetRuntimeArgs(program, k, tt::tt_metal::CoreCoord{0, 0}, std::vector<uint32_t>(342, 7));
    FAIL() << "expected an error";
  } catch (const tk::rt::emu::EmulatorError& e) {
    EXPECT_EQ(std::string(e.what()), "SetRuntimeArgs: 342 runtime args (+0 common) for kernel " +
                                         tk::test::kernel("dataflow/write_tile.cpp") +
                                         " on core (x=0,y=0) exceed the limit of 341");
  }
}
