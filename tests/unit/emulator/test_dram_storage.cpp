// The emulator's DRAM (runtime/tt/src/device.cpp): address space reserved without backing store,
// so a buffer takes memory only where something is stored; and without the arithmetic
// (TK_EMULATOR_MATH=off, set_math(false)) nothing is: host and NoC transfers to and from DRAM move
// no bytes (docs/timing.md, "Projections without the arithmetic"), while L1 keeps its bytes.
#include <unistd.h>

#include <cstdio>
#include <memory>

#include <tk_emulator/emulator.hpp>

#include "emu_program.hpp"

using namespace tk::test;

namespace {
// The process's resident set, in bytes (/proc/self/statm: size, resident, ... in pages).
std::size_t resident_bytes() {
  std::FILE* f = std::fopen("/proc/self/statm", "r");
  unsigned long size = 0, resident = 0;
  const int n = f != nullptr ? std::fscanf(f, "%lu %lu", &size, &resident) : 0;
  if (f != nullptr)
    std::fclose(f);
  EXPECT_EQ(n, 2);
  return resident * static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
}

// One tile from `src` through c_0 of core (0,0) to `dst`: a reader's NoC read from DRAM into L1
// and a writer's NoC write from L1 into DRAM.
void copy_tile(ProgramBuilder& p, const std::shared_ptr<distributed::MeshBuffer>& src,
               const std::shared_ptr<distributed::MeshBuffer>& dst) {
  p.cb(tt::CBIndex::c_0, 1);
  const auto reader = p.reader("dataflow/read_tile.cpp", {src});
  const auto writer = p.writer("dataflow/write_cb0.cpp", {dst});
  SetRuntimeArgs(p.program, reader, CoreCoord{0, 0}, {ProgramBuilder::addr(src), 1u});
  SetRuntimeArgs(p.program, writer, CoreCoord{0, 0}, {ProgramBuilder::addr(dst), 0u});
  p.run();
}
} // namespace

// 1 GiB of DRAM buffers (on Wormhole, 12 banks of 1 GiB) costs no memory until written, and a
// write of all of it without the arithmetic stores nothing: the resident set grows by less than
// 64 MiB through both (it grew by the whole GiB when each bank was a zero-filled vector).
TEST(EmulatorDram, BuffersTakeNoMemoryUntilWrittenAndNoneWithoutTheArithmetic) {
  ProgramBuilder p;
  constexpr std::size_t kBytes = std::size_t{1} << 30;
  const std::size_t before = resident_bytes();
  auto big = p.dram(static_cast<uint32_t>(kBytes / kBf16Tile));
  EXPECT_LT(resident_bytes(), before + (std::size_t{64} << 20));
  // Host data the write would read: allocated, never touched (so itself not resident).
  const std::unique_ptr<std::uint8_t[]> host(new std::uint8_t[kBytes]);
  tk::rt::emu::set_math(false);
  p.dev->mesh_command_queue().enqueue_write_mesh_buffer(big, host.get(), true);
  tk::rt::emu::set_math(std::nullopt);
  EXPECT_LT(resident_bytes(), before + (std::size_t{64} << 20));
}

// With the arithmetic a tile goes host -> DRAM -> L1 -> DRAM -> host unchanged; without it the
// same program runs (every check, the same timing: tests/e2e/test_math_off.cpp) but DRAM stores
// nothing: the host's write, the reader's read into L1 and the writer's write back are all
// dropped, and the buffers read back (with the arithmetic on again) as the fresh device's zeros.
TEST(EmulatorDram, WithoutTheArithmeticDramStoresNothing) {
  const auto in = random_bf16(1024, 0.5f, 1.0f, 61); // no zeros among them
  {
    ProgramBuilder p;
    auto src = p.dram(in);
    auto dst = p.dram(1);
    copy_tile(p, src, dst);
    EXPECT_EQ(p.read(dst), in);
  }
  ProgramBuilder p;
  tk::rt::emu::set_math(false);
  auto src = p.dram(in);
  auto dst = p.dram(1);
  copy_tile(p, src, dst);
  tk::rt::emu::set_math(std::nullopt);
  const std::vector<bfloat16> zeros(1024, bfloat16(0.0f));
  EXPECT_EQ(p.read(src), zeros);
  EXPECT_EQ(p.read(dst), zeros);
}
