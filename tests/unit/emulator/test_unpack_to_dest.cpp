// UnpackToDestMode on the emulator, as the SDK defines it (tt-metalium/base_types.hpp): a Float32
// CB with UnpackToDestFp32 reaches an fp32 DST through copy_tile at full precision, one without it
// passes through SrcA as TF32 (10 mantissa bits, truncated), and a CB with it cannot feed the FPU.
#include <bit>
#include <cstring>

#include <tt-metalium/circular_buffer_constants.h>

#include "emu_program.hpp"

using namespace tk::test;

namespace {
constexpr uint32_t kF32Tile = 4096;

// |x| through eltwise_sfpu.cpp (copy_tile, abs_tile, pack_tile) on Float32 CBs and an fp32 DST.
std::vector<float> abs_f32(const std::vector<float>& in,
                           std::vector<tt::tt_metal::UnpackToDestMode> modes) {
  ProgramBuilder p;
  auto src = p.dram(1, kF32Tile);
  distributed::EnqueueWriteMeshBuffer(p.dev->mesh_command_queue(), src, in, false);
  auto dst = p.dram(1, kF32Tile);
  p.cb(tt::CBIndex::c_0, 2, kF32Tile, tt::DataFormat::Float32);
  p.cb(tt::CBIndex::c_16, 2, kF32Tile, tt::DataFormat::Float32);
  auto r = p.reader("dataflow/read_tile.cpp", {src});
  auto w = p.writer("dataflow/write_tile.cpp", {dst});
  auto k = p.compute(
      "compute/eltwise_sfpu.cpp",
      ComputeConfig{.fp32_dest_acc_en = true,
                    .unpack_to_dest_mode = std::move(modes),
                    .defines = {{"SFPU_OP_INIT", "abs_tile_init"}, {"SFPU_OP", "abs_tile"}}});
  SetRuntimeArgs(p.program, r, tt::tt_metal::CoreCoord{0, 0}, {p.addr(src), 1u});
  SetRuntimeArgs(p.program, w, tt::tt_metal::CoreCoord{0, 0}, {p.addr(dst), 1u, 0u});
  SetRuntimeArgs(p.program, k, tt::tt_metal::CoreCoord{0, 0}, {1u});
  p.run();
  std::vector<float> out;
  distributed::EnqueueReadMeshBuffer(p.dev->mesh_command_queue(), out, dst, true);
  return out;
}

std::vector<float> inputs() {
  std::vector<float> in(1024);
  for (std::size_t i = 0; i < in.size(); ++i)
    in[i] = 1.0f + static_cast<float>(i) * 0x1p-20f; // below TF32's last mantissa bit
  return in;
}

std::vector<tt::tt_metal::UnpackToDestMode> fp32_for_c0() {
  std::vector<tt::tt_metal::UnpackToDestMode> m(NUM_CIRCULAR_BUFFERS,
                                                tt::tt_metal::UnpackToDestMode::Default);
  m[tt::CBIndex::c_0] = tt::tt_metal::UnpackToDestMode::UnpackToDestFp32;
  return m;
}
} // namespace

TEST(EmulatorUnpackToDest, Fp32ModeKeepsEveryBitThroughCopyTile) {
  EXPECT_EQ(abs_f32(inputs(), fp32_for_c0()), inputs());
}

TEST(EmulatorUnpackToDest, DefaultModeTruncatesToTf32) {
  const std::vector<float> in = inputs(), out = abs_f32(in, {});
  for (std::size_t i = 0; i < in.size(); ++i)
    EXPECT_EQ(std::bit_cast<uint32_t>(out[i]), std::bit_cast<uint32_t>(in[i]) & 0xFFFFE000u) << i;
}

// SDK: "UnpackToDestFp32 ... makes the buffer incompatible with unpacking to SRCA/B".
TEST(EmulatorUnpackToDest, Fp32ModeCbCannotFeedTheFpu) {
  ProgramBuilder p;
  auto a = p.dram(1, kF32Tile), b = p.dram(1, kF32Tile), c = p.dram(1, kF32Tile);
  p.cb(tt::CBIndex::c_0, 2, kF32Tile, tt::DataFormat::Float32);
  p.cb(tt::CBIndex::c_1, 2, kF32Tile, tt::DataFormat::Float32);
  p.cb(tt::CBIndex::c_16, 2, kF32Tile, tt::DataFormat::Float32);
  auto r = p.reader("dataflow/read_tiles.cpp", {a, b});
  auto w = p.writer("dataflow/write_tile.cpp", {c});
  auto k = p.compute("compute/tiles_add.cpp",
                     ComputeConfig{.fp32_dest_acc_en = true, .unpack_to_dest_mode = fp32_for_c0()});
  SetRuntimeArgs(p.program, r, tt::tt_metal::CoreCoord{0, 0}, {p.addr(a), p.addr(b), 1u});
  SetRuntimeArgs(p.program, w, tt::tt_metal::CoreCoord{0, 0}, {p.addr(c), 1u, 0u});
  SetRuntimeArgs(p.program, k, tt::tt_metal::CoreCoord{0, 0}, {1u});
  try {
    p.run();
    FAIL() << "no error";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find(
                  "add_tiles: c_0 is unpacked to DST (UnpackToDestMode::UnpackToDestFp32), so it "
                  "cannot feed SrcA/SrcB; only copy_tile reads it"),
              std::string::npos)
        << e.what();
  }
}

// The SDK's JIT build: TT_FATAL(unpack_to_dest_mode.size() >= buf_formats.size(), ...).
TEST(EmulatorUnpackToDest, ModesMustCoverEveryCb) {
  ProgramBuilder p;
  try {
    p.compute("compute/tiles_add.cpp",
              ComputeConfig{.fp32_dest_acc_en = true,
                            .unpack_to_dest_mode = std::vector<tt::tt_metal::UnpackToDestMode>(8)});
    FAIL() << "no error";
  } catch (const std::exception& e) {
    EXPECT_EQ(std::string(e.what()), "CreateKernel: " + kernel("compute/tiles_add.cpp") +
                                         ": unpack_to_dest_mode vector must have 64 elements");
  }
}
