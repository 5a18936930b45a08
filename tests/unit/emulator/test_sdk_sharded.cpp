// Sharded L1 buffers (DeviceLocalBufferConfig::sharding_args with a ShardSpecBuffer), as tt-metal's
// vecadd_sharding creates them: each page on the core and at the place in its shard where the
// SDK's generate_buffer_page_mapping puts it (tt_metal/impl/buffers/buffer.cpp), a CB placed on
// the buffer (set_globally_allocated_address); and TileSlice printing (api/debug/dprint_tile.h).
#include <cstdlib>

#include <tk_emulator/emulator.hpp>
#include <tt_stl/fmt.hpp>

#include "emu_program.hpp"

using namespace tk::test;
using tt::tt_metal::CoreCoord;

namespace {
// The message of the EmulatorError f() throws ("" if none).
template <class F>
std::string error_of(F f) {
  try {
    f();
  } catch (const tk::rt::emu::EmulatorError& e) {
    return e.what();
  }
  return "";
}

constexpr uint32_t kPages = 16; // a 4x4 tensor of tile pages

std::shared_ptr<distributed::MeshBuffer> sharded_l1(ProgramBuilder& p, TensorMemoryLayout layout,
                                                    const ShardSpecBuffer& spec) {
  return distributed::MeshBuffer::create(
      distributed::ReplicatedBufferConfig{.size = kPages * kBf16Tile},
      distributed::DeviceLocalBufferConfig{.page_size = kBf16Tile,
                                           .buffer_type = BufferType::L1,
                                           .sharding_args = BufferShardingArgs(spec, layout)},
      p.dev.get());
}

// Runs shard_probe.cpp on each core of `cores` (tag = its index in `cores`) over sharded buffers
// of `spec`; page p of the input holds p in every word. Returns word 0 of each output page.
std::vector<uint32_t> probe(TensorMemoryLayout layout, const ShardSpecBuffer& spec,
                            const std::vector<CoreCoord>& cores, uint32_t cb_pages) {
  ProgramBuilder p;
  auto in = sharded_l1(p, layout, spec);
  auto out = sharded_l1(p, layout, spec);
  std::vector<uint32_t> words(kPages * kBf16Tile / 4);
  for (std::size_t i = 0; i < words.size(); ++i)
    words[i] = static_cast<uint32_t>(i / (kBf16Tile / 4));
  distributed::EnqueueWriteMeshBuffer(p.dev->mesh_command_queue(), in, words, false);
  p.cores = spec.grid();
  CreateCircularBuffer(
      p.program, p.cores,
      CircularBufferConfig(cb_pages * kBf16Tile, {{tt::CBIndex::c_0, tt::DataFormat::Float16_b}})
          .set_page_size(tt::CBIndex::c_0, kBf16Tile)
          .set_globally_allocated_address(*in->get_backing_buffer()));
  auto k = p.writer("sdk/shard_probe.cpp", {});
  for (uint32_t i = 0; i < cores.size(); ++i)
    SetRuntimeArgs(p.program, k, cores[i], {ProgramBuilder::addr(out), cb_pages, kBf16Tile, i});
  p.run();
  std::vector<uint32_t> result;
  distributed::EnqueueReadMeshBuffer(p.dev->mesh_command_queue(), result, out, true);
  std::vector<uint32_t> first;
  for (uint32_t page = 0; page < kPages; ++page)
    first.push_back(result[page * kBf16Tile / 4]);
  return first;
}
} // namespace

// HEIGHT_SHARDED: four pages to each core, in order.
TEST(EmulatorSdkSharded, HeightShardedPagesGoToTheCoresInOrder) {
  const tt::tt_metal::CoreRange cores({0, 0}, {3, 0});
  const ShardSpecBuffer spec(cores, {4 * 32, 32}, ShardOrientation::ROW_MAJOR, {32, 32}, {4, 4});
  const auto got =
      probe(TensorMemoryLayout::HEIGHT_SHARDED, spec, {{0, 0}, {1, 0}, {2, 0}, {3, 0}}, 4);
  for (uint32_t p = 0; p < kPages; ++p)
    EXPECT_EQ(got[p], p + 1000 * (p / 4) + 100 * (p % 4)) << "page " << p;
}

// BLOCK_SHARDED: 2x2-page blocks of the 4x4 pages; ROW_MAJOR deals them to (0,0), (1,0), (0,1),
// (1,1), COL_MAJOR to (0,0), (0,1), (1,0), (1,1); within a block, row by row.
TEST(EmulatorSdkSharded, BlockShardedPagesFollowTheShardOrientation) {
  const tt::tt_metal::CoreRange cores({0, 0}, {1, 1});
  for (const auto orientation : {ShardOrientation::ROW_MAJOR, ShardOrientation::COL_MAJOR}) {
    const ShardSpecBuffer spec(cores, {64, 64}, orientation, {32, 32}, {4, 4});
    const std::vector<CoreCoord> order =
        orientation == ShardOrientation::ROW_MAJOR
            ? std::vector<CoreCoord>{{0, 0}, {1, 0}, {0, 1}, {1, 1}}
            : std::vector<CoreCoord>{{0, 0}, {0, 1}, {1, 0}, {1, 1}};
    const auto got = probe(TensorMemoryLayout::BLOCK_SHARDED, spec, order, 4);
    for (uint32_t p = 0; p < kPages; ++p) {
      const uint32_t i = p / 4, j = p % 4;
      const uint32_t shard = (i / 2) * 2 + j / 2, slot = (i % 2) * 2 + j % 2;
      EXPECT_EQ(got[p], p + 1000 * shard + 100 * slot)
          << "page " << p << ", orientation " << static_cast<int>(orientation);
    }
  }
}

// A CB on a sharded buffer may not hold more than the buffer's bytes per core; a sharded layout
// needs a shard spec (the SDK's messages).
TEST(EmulatorSdkSharded, MisfitsAreRejected) {
  const tt::tt_metal::CoreRange cores({0, 0}, {3, 0});
  const ShardSpecBuffer spec(cores, {4 * 32, 32}, ShardOrientation::ROW_MAJOR, {32, 32}, {4, 4});
  EXPECT_EQ(error_of([&] {
              probe(TensorMemoryLayout::HEIGHT_SHARDED, spec, {{0, 0}, {1, 0}, {2, 0}, {3, 0}}, 5);
            }),
            "CreateCircularBuffer: total size 10240 exceeds the 8192 bytes per core of its "
            "globally allocated buffer");
  ProgramBuilder p;
  EXPECT_EQ(
      error_of([&] {
        distributed::MeshBuffer::create(
            distributed::ReplicatedBufferConfig{.size = kPages * kBf16Tile},
            distributed::DeviceLocalBufferConfig{
                .page_size = kBf16Tile,
                .buffer_type = BufferType::L1,
                .sharding_args =
                    BufferShardingArgs(std::nullopt, TensorMemoryLayout::HEIGHT_SHARDED)},
            p.dev.get());
      }),
      "Buffer was specified as sharded but does not have shard_spec or buffer_distribution_spec "
      "specified");
}

// tt_stl/fmt.hpp formats enums as enchantum::scoped::to_string: "Type::NAME".
TEST(EmulatorSdkSharded, FmtFormatsEnumsByScopedName) {
  EXPECT_EQ(fmt::format("{} {}", TensorMemoryLayout::HEIGHT_SHARDED, ShardOrientation::COL_MAJOR),
            "TensorMemoryLayout::HEIGHT_SHARDED ShardOrientation::COL_MAJOR");
  EXPECT_EQ(fmt::format("[{}]", static_cast<TensorMemoryLayout>(1)), "[]");
}

// TileSlice through DEVICE_PRINT, as the SDK's print server shows it
// (tt_metal/impl/debug/dprint_parser.cpp): elements [0:32:16, 0:32:16] of a tile whose element at
// memory index i is i, row-major (0, 16, 512, 528) and untilized (face by face: 0, 256, 512, 768);
// without endl_rows no newline between rows; a TileSlice<8> keeps four bf16 values.
TEST(EmulatorSdkSharded, TileSlicePrintsAsTheSdksPrintServer) {
  setenv("TT_METAL_DPRINT_CORES", "(0,0)", 1);
  ProgramBuilder p;
  p.cb(tt::CBIndex::c_0, 1);
  p.writer("sdk/tile_slice.cpp", {});
  testing::internal::CaptureStdout();
  p.run();
  unsetenv("TT_METAL_DPRINT_CORES");
  EXPECT_EQ(testing::internal::GetCapturedStdout(),
            "0 16\n512 528\n"
            "0 256\n512 768\n"
            "[0 16512 528]\n"
            "0 1 2 3 <TileSlice data truncated due to exceeding max count (4)>\n");
}

// A TileSlice of Bfp8_b and Bfp4_b tiles, as the SDK's print server shows it: each datum its code
// against its face row's shared exponent (convert_bfp_to_u32, blockfloat_common.cpp), taken
// row-major (exponent of the 16-element group) or untilized (of the face row); two bytes a datum,
// so a TileSlice<8> keeps four. The values follow from the bytes the kernel writes
// (sdk/tile_slice_bfp.cpp): Bfp8_b m * 2^(r % 3), Bfp4_b m.
TEST(EmulatorSdkSharded, TileSliceOfBfpTiles) {
  setenv("TT_METAL_DPRINT_CORES", "(0,0)", 1);
  ProgramBuilder p;
  p.cb(tt::CBIndex::c_0, 1, 1088, tt::DataFormat::Bfp8_b);
  p.cb(tt::CBIndex::c_1, 1, 576, tt::DataFormat::Bfp4_b);
  p.writer("sdk/tile_slice_bfp.cpp", {});
  testing::internal::CaptureStdout();
  p.run();
  unsetenv("TT_METAL_DPRINT_CORES");
  EXPECT_EQ(testing::internal::GetCapturedStdout(),
            "1 4\n132 34\n"  // Bfp8_b row-major: (0,0) 1, (0,16) 2*2, (16,0) 33*4, (16,16) 34
            "1 34\n132 49\n" // untilized: faces 0..3, rows 0, 16, 32, 48
            "1 2\n5 6\n"     // Bfp4_b row-major
            "1 -3\n5 7\n"    // untilized: face 1's row 0 is face row 16, negative
            "1 1 1 1 <TileSlice data truncated due to exceeding max count (4)>\n");
}

// experimental::CircularBuffer in a compute kernel (the compute CB calls, as in TTNN's kernels and
// tt_metal/kernels/compute/eltwise_binary.cpp), api/compute/softmax.h and api/debug/assert.h:
// 1 / exp(x) of two tiles, within bf16 rounding of each step.
TEST(EmulatorSdkSharded, Device2CircularBufferInAComputeKernel) {
  ProgramBuilder p;
  const std::vector<bfloat16> in = random_bf16(2 * 1024, -3.0f, 3.0f, 11);
  auto src = p.dram(in);
  auto dst = p.dram(2);
  p.cb(tt::CBIndex::c_0, 2);
  p.cb(tt::CBIndex::c_16, 2);
  auto r = p.reader("sdk/d2_read.cpp", {src});
  SetRuntimeArgs(p.program, r, CoreCoord{0, 0}, {ProgramBuilder::addr(src), 2u});
  auto c = p.compute("sdk/d2_compute.cpp");
  SetRuntimeArgs(p.program, c, CoreCoord{0, 0}, {2u});
  auto w = p.writer("dataflow/write_tile.cpp", {dst});
  SetRuntimeArgs(p.program, w, CoreCoord{0, 0}, {ProgramBuilder::addr(dst), 2u, 0u});
  p.run();
  std::vector<float> want;
  for (const bfloat16 x : in)
    want.push_back(std::exp(-static_cast<float>(x)));
  expect_close(p.read(dst), want, 0.02, 1e-3);
}
