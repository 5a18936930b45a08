// Several cores at once: multicast with semaphores between cores (interleaved fibers), and the grid
// size knob.
#include <tk_emulator/emulator.hpp>

#include "emu_program.hpp"

using namespace tk::test;

TEST(EmulatorMulticore, MulticastWithSemaphoresReachesEveryReceiver) {
  ProgramBuilder p;
  const auto in = random_bf16(1024, -1.0f, 1.0f, 51);
  auto src = p.dram(in);
  auto dst = p.dram(3);
  const tt::tt_metal::CoreRange all({0, 0}, {2, 0});
  p.cores = tt::tt_metal::CoreRangeSet(all);
  p.cb(tt::CBIndex::c_0, 1);
  const uint32_t sender_sem = CreateSemaphore(p.program, all, 0);
  const uint32_t receiver_sem = CreateSemaphore(p.program, all, 0);
  std::vector<uint32_t> cta;
  TensorAccessorArgs(*src).append_to(cta);
  auto sender =
      CreateKernel(p.program, kernel("dataflow/mcast_sender.cpp"), tt::tt_metal::CoreCoord{0, 0},
                   DataMovementConfig{.processor = DataMovementProcessor::RISCV_1,
                                      .noc = NOC::RISCV_0_default,
                                      .compile_args = cta});
  auto receiver = CreateKernel(
      p.program, kernel("dataflow/mcast_receiver.cpp"), tt::tt_metal::CoreRange({1, 0}, {2, 0}),
      DataMovementConfig{.processor = DataMovementProcessor::RISCV_1, .noc = NOC::RISCV_1_default});
  auto writer = p.writer("dataflow/write_cb0.cpp", {dst});
  const tt::tt_metal::CoreCoord s = p.dev->worker_core_from_logical_core({0, 0});
  const tt::tt_metal::CoreCoord r0 = p.dev->worker_core_from_logical_core({1, 0}),
                                r1 = p.dev->worker_core_from_logical_core({2, 0});
  SetRuntimeArgs(p.program, sender, tt::tt_metal::CoreCoord{0, 0},
                 {p.addr(src), uint32_t(r0.x), uint32_t(r0.y), uint32_t(r1.x), uint32_t(r1.y), 2u,
                  sender_sem, receiver_sem});
  SetRuntimeArgs(p.program, receiver, tt::tt_metal::CoreRange({1, 0}, {2, 0}),
                 {uint32_t(s.x), uint32_t(s.y), sender_sem, receiver_sem});
  for (uint32_t x = 0; x < 3; ++x)
    SetRuntimeArgs(p.program, writer, tt::tt_metal::CoreCoord{x, 0}, {p.addr(dst), x});
  p.run();
  const auto out = p.read(dst);
  for (uint32_t t = 0; t < 3; ++t) {
    for (int i = 0; i < 1024; ++i)
      ASSERT_EQ(out[t * 1024 + i], in[i]) << "tile " << t << " element " << i;
  }
}

namespace {
// One tile from core (0,0) to cores (1,0) and (2,0), the sender kernel on `noc`; the rectangle is
// given from `first` to `last` (logical cores). Returns the three tiles written back.
std::vector<bfloat16> multicast_row(NOC noc, tt::tt_metal::CoreCoord first,
                                    tt::tt_metal::CoreCoord last, const std::vector<bfloat16>& in) {
  ProgramBuilder p;
  auto src = p.dram(in);
  auto dst = p.dram(3);
  const tt::tt_metal::CoreRange all({0, 0}, {2, 0});
  p.cores = tt::tt_metal::CoreRangeSet(all);
  p.cb(tt::CBIndex::c_0, 1);
  const uint32_t sender_sem = CreateSemaphore(p.program, all, 0);
  const uint32_t receiver_sem = CreateSemaphore(p.program, all, 0);
  std::vector<uint32_t> cta;
  TensorAccessorArgs(*src).append_to(cta);
  auto sender = CreateKernel(
      p.program, kernel("dataflow/mcast_sender.cpp"), tt::tt_metal::CoreCoord{0, 0},
      DataMovementConfig{
          .processor = DataMovementProcessor::RISCV_1, .noc = noc, .compile_args = cta});
  auto receiver = CreateKernel(
      p.program, kernel("dataflow/mcast_receiver.cpp"), tt::tt_metal::CoreRange({1, 0}, {2, 0}),
      DataMovementConfig{.processor = DataMovementProcessor::RISCV_1, .noc = NOC::RISCV_1_default});
  auto writer = p.writer("dataflow/write_cb0.cpp", {dst});
  const tt::tt_metal::CoreCoord s = p.dev->worker_core_from_logical_core({0, 0});
  const tt::tt_metal::CoreCoord a = p.dev->worker_core_from_logical_core(first),
                                b = p.dev->worker_core_from_logical_core(last);
  SetRuntimeArgs(p.program, sender, tt::tt_metal::CoreCoord{0, 0},
                 {p.addr(src), uint32_t(a.x), uint32_t(a.y), uint32_t(b.x), uint32_t(b.y), 2u,
                  sender_sem, receiver_sem});
  SetRuntimeArgs(p.program, receiver, tt::tt_metal::CoreRange({1, 0}, {2, 0}),
                 {uint32_t(s.x), uint32_t(s.y), sender_sem, receiver_sem});
  for (uint32_t x = 0; x < 3; ++x)
    SetRuntimeArgs(p.program, writer, tt::tt_metal::CoreCoord{x, 0}, {p.addr(dst), x});
  p.run();
  return p.read(dst);
}

std::string multicast_error(NOC noc, tt::tt_metal::CoreCoord first, tt::tt_metal::CoreCoord last) {
  try {
    multicast_row(noc, first, last, random_bf16(1024, -1.0f, 1.0f, 53));
  } catch (const tk::rt::emu::EmulatorError& e) {
    return e.what();
  }
  return "no error";
}
} // namespace

// NOC 1 runs the other way: its rectangles start at the largest corner (the SDK's mcast matmul
// readers on NOC 1 pass the far end of the row as the start).
TEST(EmulatorMulticore, MulticastOnNoc1StartsAtTheLargestCorner) {
  const auto in = random_bf16(1024, -1.0f, 1.0f, 52);
  const auto out = multicast_row(NOC::RISCV_1_default, {2, 0}, {1, 0}, in);
  for (uint32_t t = 0; t < 3; ++t) {
    for (int i = 0; i < 1024; ++i)
      ASSERT_EQ(out[t * 1024 + i], in[i]) << "tile " << t << " element " << i;
  }
}

TEST(EmulatorMulticore, MulticastRectangleInTheWrongOrderForItsNocIsAnError) {
  // Logical (1,0) and (2,0) are NoC (19,18) and (20,18) (Wormhole's virtual coordinates).
  const std::string n1 = multicast_error(NOC::RISCV_1_default, {1, 0}, {2, 0});
  EXPECT_NE(n1.find("noc_async_write_multicast: on NOC 1 a rectangle runs from largest to "
                    "smallest (x, y); (19,18)-(20,18) does not"),
            std::string::npos)
      << n1;
  const std::string n0 = multicast_error(NOC::RISCV_0_default, {2, 0}, {1, 0});
  EXPECT_NE(n0.find("noc_async_write_multicast: on NOC 0 a rectangle runs from smallest to "
                    "largest (x, y); (20,18)-(19,18) does not"),
            std::string::npos)
      << n0;
}

TEST(EmulatorMulticore, GridSizeComesFromTheEnvironment) {
  setenv("TT_METAL_EMULATOR_GRID", "2x3", 1);
  auto dev = distributed::MeshDevice::create_unit_mesh(0);
  EXPECT_EQ(dev->compute_with_storage_grid_size(), tt::tt_metal::CoreCoord(3, 2));
  setenv("TT_METAL_EMULATOR_GRID", "0x3", 1);
  EXPECT_THROW(distributed::MeshDevice::create_unit_mesh(0), tk::rt::emu::EmulatorError);
  unsetenv("TT_METAL_EMULATOR_GRID");
  EXPECT_EQ(distributed::MeshDevice::create_unit_mesh(0)->compute_with_storage_grid_size(),
            tt::tt_metal::CoreCoord(8, 8));
}
