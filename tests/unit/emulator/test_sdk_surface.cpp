// The SDK surface shipped tt-metal code relies on (docs/emulator.md, "SDK surface"): kernels that
// use the dataflow API without including it, named compile-time args.
#include <tk_emulator/emulator.hpp>
#include <tt-metalium/system_mesh.hpp>
#include <tt-metalium/tilize_utils.hpp>

#include "emu_program.hpp"

using namespace tk::test;

namespace {

std::vector<uint32_t> fill_pages(const std::unordered_map<std::string, uint32_t>& named,
                                 uint32_t pages) {
  ProgramBuilder p;
  auto out = p.dram(pages);
  p.cb(tt::CBIndex::c_0, 1);
  std::vector<uint32_t> args;
  TensorAccessorArgs(*out).append_to(args);
  auto k = CreateKernel(p.program, kernel("sdk/fill_named.cpp"), CoreCoord{0, 0},
                        DataMovementConfig{.processor = DataMovementProcessor::RISCV_0,
                                           .noc = NOC::RISCV_0_default,
                                           .compile_args = args,
                                           .named_compile_args = named});
  SetRuntimeArgs(p.program, k, CoreCoord{0, 0}, {ProgramBuilder::addr(out)});
  p.run();
  std::vector<uint32_t> words;
  distributed::EnqueueReadMeshBuffer(p.dev->mesh_command_queue(), words, out, true);
  return words;
}

} // namespace

TEST(EmulatorSdkSurface, DataMovementKernelUsesTheDataflowApiWithoutIncludingItAndNamedArgs) {
  const std::vector<uint32_t> words = fill_pages({{"n_pages", 3}, {"fill", 70}}, 3);
  ASSERT_EQ(words.size(), 3u * kBf16Tile / 4);
  for (std::size_t i = 0; i < words.size(); ++i)
    ASSERT_EQ(words[i], 70 + i / (kBf16Tile / 4)) << "word " << i;
}

TEST(EmulatorSdkSurface, NamedArgTheHostDidNotSetDoesNotCompile) {
  try {
    fill_pages({{"n_pages", 1}}, 1);
    FAIL() << "a kernel reading a named arg the host did not set compiled";
  } catch (const tk::rt::emu::EmulatorError& e) {
    EXPECT_NE(std::string(e.what()).find("tk_emu_named_compile_time_arg_not_set_by_the_host"),
              std::string::npos)
        << e.what();
  }
}

// Device 2.0 (experimental::Noc, CircularBuffer and the TensorAccessor endpoint): a copy of three
// tiles through c_0, exact.
TEST(EmulatorSdkSurface, Device2ReaderAndWriterCopyTiles) {
  ProgramBuilder p;
  std::vector<bfloat16> in(3 * 1024);
  for (std::size_t i = 0; i < in.size(); ++i)
    in[i] = bfloat16(static_cast<float>(i % 251) - 125.0f);
  auto src = p.dram(in);
  auto dst = p.dram(3);
  p.cb(tt::CBIndex::c_0, 2);
  auto r = p.reader("sdk/d2_read.cpp", {src});
  SetRuntimeArgs(p.program, r, CoreCoord{0, 0}, {ProgramBuilder::addr(src), 3u});
  auto w = p.writer("sdk/d2_write.cpp", {dst});
  SetRuntimeArgs(p.program, w, CoreCoord{0, 0}, {ProgramBuilder::addr(dst), 3u});
  p.run();
  const std::vector<bfloat16> out = p.read(dst);
  ASSERT_EQ(out.size(), in.size());
  for (std::size_t i = 0; i < in.size(); ++i)
    ASSERT_EQ(static_cast<float>(out[i]), static_cast<float>(in[i])) << "element " << i;
}

// The host surface shipped examples reach through the SDK's headers.
TEST(EmulatorSdkSurface, HostHeadersReachWhatTheSdksDo) {
  // TT_FATAL / TT_THROW: std::runtime_error, "<TYPE> @ <file>:<line>: <condition>", then the
  // formatted message (tt_stl/assert.hpp).
  try {
    const int n = 3;
    TT_FATAL(n == 4, "n is {}", n);
    FAIL() << "TT_FATAL did not throw";
  } catch (const std::runtime_error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("TT_FATAL @ "), std::string::npos) << what;
    EXPECT_NE(what.find(": n == 4\ninfo:\nn is 3\n"), std::string::npos) << what;
  }
  try {
    TT_THROW("failed with {} errors", 2);
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(": tt::exception\ninfo:\nfailed with 2 errors\n"),
              std::string::npos)
        << e.what();
  }
  // fmt::formatter<CoreCoord>, tt::constants through circular_buffer_config.hpp.
  EXPECT_EQ(fmt::format("{}", CoreCoord{1, 2}), "(x=1,y=2)");
  EXPECT_EQ(tt::constants::TILE_HW, 1024u);
  // bfloat16 helpers: first value in the low half.
  EXPECT_EQ(pack_two_bfloat16_into_uint32({bfloat16(1.0f), bfloat16(-2.0f)}), 0xC0003F80u);
  const std::vector<uint32_t> packed = create_random_vector_of_bfloat16(64, 10, 7);
  const std::vector<bfloat16> native = create_random_vector_of_bfloat16_native(64, 10.0f, 7, -5.0f);
  ASSERT_EQ(packed.size(), 16u);
  ASSERT_EQ(native.size(), 32u);
  for (std::size_t i = 0; i < 32; ++i) {
    const float p = static_cast<float>(bfloat16::from_bits(
        static_cast<uint16_t>(i % 2 ? packed[i / 2] >> 16 : packed[i / 2] & 0xffff)));
    const float n = static_cast<float>(native[i]);
    EXPECT_GE(p, 0.0f);
    EXPECT_LE(p, 10.0f);
    // The same seed draws the same floats: the native vector is the packed one shifted by -5
    // (to bfloat16 precision, 0.0625 at magnitudes below 16).
    EXPECT_NEAR(n, p - 5.0f, 0.0625f) << i;
  }
  const std::vector<bfloat16> identity = create_identity_matrix(3, 4, 2);
  ASSERT_EQ(identity.size(), 12u);
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 4; ++c)
      EXPECT_EQ(static_cast<float>(identity[r * 4 + c]), r == c && r < 2 ? 1.0f : 0.0f);
  // A MeshBuffer's backing buffer: the same address, size and pages, and the same accessor args.
  ProgramBuilder b;
  auto buf = b.dram(3);
  const Buffer* backing = buf->get_backing_buffer();
  EXPECT_EQ(backing->address(), buf->address());
  EXPECT_EQ(backing->size(), 3u * kBf16Tile);
  EXPECT_EQ(backing->num_pages(), 3u);
  EXPECT_TRUE(backing->is_dram());
  EXPECT_EQ(buf->get_reference_buffer(), backing);
  EXPECT_EQ(TensorAccessorArgs(*backing).get_compile_time_args(),
            TensorAccessorArgs(*buf).get_compile_time_args());
}

namespace {
std::string run_print(bool enabled) {
  if (enabled)
    setenv("TT_METAL_DPRINT_CORES", "0,0", 1);
  else
    unsetenv("TT_METAL_DPRINT_CORES");
  ProgramBuilder p;
  p.cores = CoreCoord{2, 1};
  auto k = p.writer("sdk/print.cpp", {});
  SetRuntimeArgs(p.program, k, CoreCoord{2, 1}, {42u});
  testing::internal::CaptureStdout();
  p.run();
  unsetenv("TT_METAL_DPRINT_CORES");
  return testing::internal::GetCapturedStdout();
}
} // namespace

// DEVICE_PRINT on stdout when TT_METAL_DPRINT_CORES is set, as the SDK's print server; nothing
// otherwise. The writer runs on core (2,1), RISCV_0 with NoC 0 (ProgramBuilder::writer).
TEST(EmulatorSdkSurface, DevicePrintGoesToStdoutWhenEnabled) {
  EXPECT_EQ(
      run_print(true),
      "n=42 neg=-7 third=0.33333334 bf16=1.5 {literal} 255\ncore 2,1 (relative 2,1)\non NoC 0\n");
  EXPECT_EQ(run_print(false), "");
}

namespace {
std::vector<bfloat16> read_by_bank(uint32_t n_banks) {
  ProgramBuilder p;
  std::vector<bfloat16> in(12 * 1024);
  for (std::size_t i = 0; i < in.size(); ++i)
    in[i] = bfloat16(static_cast<float>(i % 509));
  auto src = p.dram(in);
  auto dst = p.dram(12);
  p.cb(tt::CBIndex::c_0, 1);
  auto k = p.writer("sdk/bank_read.cpp", {dst});
  SetRuntimeArgs(p.program, k, tt::tt_metal::CoreCoord{0, 0},
                 {ProgramBuilder::addr(src), ProgramBuilder::addr(dst), n_banks});
  p.run();
  std::vector<bfloat16> out = p.read(dst);
  for (std::size_t i = 0; i < std::size_t{n_banks} * 1024; ++i)
    EXPECT_EQ(static_cast<float>(out[i]), static_cast<float>(in[i])) << "element " << i;
  return out;
}
} // namespace

// get_noc_addr_from_bank_id<true>(b, address): page b of an interleaved DRAM buffer (its bank b, at
// the buffer's address), on each of the n150's 12 banks; bank 12 does not exist.
TEST(EmulatorSdkSurface, NocAddressFromBankId) {
  read_by_bank(12);
  try {
    read_by_bank(13);
    FAIL() << "read DRAM bank 12 of 12";
  } catch (const tk::rt::emu::EmulatorError& e) {
    EXPECT_NE(std::string(e.what()).find(
                  "get_noc_addr_from_bank_id: DRAM bank 12 does not exist (the device has 12)"),
              std::string::npos)
        << e.what();
  }
}

// Directly addressable L1 (docs/emulator.md, "SDK surface"): a kernel dereferences an L1 buffer's
// address, the same number on every core, and each of four cores reaches its own L1; what it
// writes through the pointer is what its NoC write sends.
TEST(EmulatorSdkSurface, KernelsDereferenceRawL1AddressesOfTheirOwnCore) {
  ProgramBuilder p;
  const uint32_t cores = 4;
  p.cores = CoreRange({0, 0}, {cores - 1, 0});
  auto dram = [&](uint32_t pages) {
    return distributed::MeshBuffer::create(
        distributed::ReplicatedBufferConfig{.size = pages * 16},
        distributed::DeviceLocalBufferConfig{.page_size = 16, .buffer_type = BufferType::DRAM},
        p.dev.get());
  };
  auto src = dram(cores), dst = dram(cores);
  auto l1 = distributed::MeshBuffer::create(
      distributed::ReplicatedBufferConfig{.size = 16},
      distributed::DeviceLocalBufferConfig{.page_size = 16, .buffer_type = BufferType::L1},
      p.dev.get());
  std::vector<uint32_t> in;
  for (uint32_t c = 0; c < cores; ++c)
    in.insert(in.end(), {100 + c, 7 + 3 * c, 0, 0});
  distributed::EnqueueWriteMeshBuffer(p.dev->mesh_command_queue(), src, in, false);
  auto k = CreateKernel(
      p.program, kernel("sdk/raw_l1.cpp"), p.cores,
      DataMovementConfig{.processor = DataMovementProcessor::RISCV_0, .noc = NOC::RISCV_0_default});
  for (uint32_t c = 0; c < cores; ++c) {
    SetRuntimeArgs(
        p.program, k, CoreCoord{c, 0},
        {ProgramBuilder::addr(src), ProgramBuilder::addr(dst), ProgramBuilder::addr(l1), c});
  }
  p.run();
  std::vector<uint32_t> out;
  distributed::EnqueueReadMeshBuffer(p.dev->mesh_command_queue(), out, dst, true);
  ASSERT_EQ(out.size(), 4u * cores);
  for (uint32_t c = 0; c < cores; ++c) {
    const uint32_t a = 100 + c, b = 7 + 3 * c;
    EXPECT_EQ(out[4 * c + 0], a) << "core " << c;
    EXPECT_EQ(out[4 * c + 1], b) << "core " << c;
    EXPECT_EQ(out[4 * c + 2], a + b) << "core " << c;
    EXPECT_EQ(out[4 * c + 3], a * b) << "core " << c;
  }
}

// get_local_cb_interface (internal/circular_buffer_interface.h): the CB's page size, pages, ring
// and pointers as the SDK's LocalCBInterface holds them, current at each call.
TEST(EmulatorSdkSurface, LocalCbInterfaceReadsTheCbsState) {
  ProgramBuilder p;
  auto out = p.dram(1);
  p.cb(tt::CBIndex::c_0, 3);
  auto k = p.writer("sdk/cb_interface.cpp", {});
  SetRuntimeArgs(p.program, k, CoreCoord{0, 0}, {ProgramBuilder::addr(out)});
  p.run();
  std::vector<uint32_t> words;
  distributed::EnqueueReadMeshBuffer(p.dev->mesh_command_queue(), words, out, true);
  ASSERT_GE(words.size(), 8u);
  EXPECT_EQ(words[0], kBf16Tile);     // fifo_page_size
  EXPECT_EQ(words[1], 3u);            // fifo_num_pages
  EXPECT_EQ(words[2], 3 * kBf16Tile); // fifo_size
  EXPECT_EQ(words[3], 3 * kBf16Tile); // fifo_limit - fifo_wr_ptr at the start
  EXPECT_EQ(words[4], 1u);            // fifo_wr_ptr is get_write_ptr
  EXPECT_EQ(words[5], 1u);            // tiles_received after one push
  EXPECT_EQ(words[6], 0u);            // tiles_acked
  EXPECT_EQ(words[7], kBf16Tile);     // the write pointer moved one page
}

// SystemMesh (tt-metalium/system_mesh.hpp): the emulated system is one chip, a 1x1 mesh, and a
// MeshDevice of its shape opens (tt-metal's programming_examples/tests/mesh_device_test).
TEST(EmulatorSdkSurface, SystemMeshIsOneChip) {
  const auto& system = distributed::SystemMesh::instance();
  EXPECT_EQ(&system, &distributed::SystemMesh::instance());
  EXPECT_EQ(system.shape(), distributed::MeshShape(1, 1));
  EXPECT_EQ(system.local_shape(), distributed::MeshShape(1, 1));
  auto mesh = distributed::MeshDevice::create(distributed::MeshDeviceConfig(system.shape()));
  EXPECT_EQ(mesh->shape(), distributed::MeshShape(1, 1));
}

// The LLK halves of a matmul as TTNN's kernel_lib calls them (llk_unpack_AB_matmul then
// llk_math_matmul, after state_configure and the raw LLK inits), in a kernel that reads the JIT's
// descriptors (a value other than the host's config does not compile) and the CB interface in the
// compute kernel's 16-byte words: two 32x32 products of 0/1 matrices, exact (sums of at most 32
// ones are exact in bfloat16).
TEST(EmulatorSdkSurface, LlkMatmulHalvesAndTheJitDescriptors) {
  constexpr uint32_t n = 2;
  std::vector<bfloat16> a(n * 1024), b(n * 1024);
  for (uint32_t t = 0; t < n; ++t)
    for (uint32_t r = 0; r < 32; ++r)
      for (uint32_t c = 0; c < 32; ++c) {
        a[t * 1024 + r * 32 + c] = bfloat16(static_cast<float>((r + c + t) % 2));
        b[t * 1024 + r * 32 + c] = bfloat16(static_cast<float>((r * c + t) % 3 == 0));
      }
  ProgramBuilder p;
  auto tiled = [](const std::vector<bfloat16>& m) {
    std::vector<bfloat16> out;
    for (uint32_t t = 0; t < n; ++t) {
      std::vector<bfloat16> one(m.begin() + t * 1024, m.begin() + (t + 1) * 1024);
      auto tile = tilize_nfaces(one, 32, 32);
      out.insert(out.end(), tile.begin(), tile.end());
    }
    return out;
  };
  auto src0 = p.dram(tiled(a));
  auto src1 = p.dram(tiled(b));
  auto dst = p.dram(n);
  for (auto cb : {tt::CBIndex::c_0, tt::CBIndex::c_1, tt::CBIndex::c_16})
    p.cb(cb, 2);
  auto reader = p.reader("dataflow/read_tiles.cpp", {src0, src1});
  auto writer = p.writer("dataflow/write_tile.cpp", {dst});
  auto compute = p.compute("sdk/llk_matmul.cpp",
                           ComputeConfig{.math_fidelity = tt::tt_metal::MathFidelity::HiFi2});
  SetRuntimeArgs(p.program, reader, CoreCoord{0, 0}, {p.addr(src0), p.addr(src1), n});
  SetRuntimeArgs(p.program, writer, CoreCoord{0, 0}, {p.addr(dst), n, 0});
  SetRuntimeArgs(p.program, compute, CoreCoord{0, 0}, {n});
  p.run();
  const std::vector<bfloat16> got = p.read(dst);
  ASSERT_EQ(got.size(), n * 1024u);
  for (uint32_t t = 0; t < n; ++t) {
    std::vector<bfloat16> one(got.begin() + t * 1024, got.begin() + (t + 1) * 1024);
    const std::vector<bfloat16> rows = untilize_nfaces(one, 32, 32);
    for (uint32_t r = 0; r < 32; ++r)
      for (uint32_t c = 0; c < 32; ++c) {
        float want = 0;
        for (uint32_t k = 0; k < 32; ++k)
          want += static_cast<float>(a[t * 1024 + r * 32 + k]) *
                  static_cast<float>(b[t * 1024 + k * 32 + c]);
        ASSERT_EQ(static_cast<float>(rows[r * 32 + c]), want)
            << "tile " << t << " (" << r << "," << c << ")";
      }
  }
}

// TTNN's zero_tile: NoC reads of the core's hardware zeros region (MEM_ZEROS_BASE) through
// Noc::set_async_read_state / async_read_with_state, a UnicastEndpoint and a CoreLocalMem, over a
// page of ones; then the data-movement kernel's JIT descriptors (tile rows 32, tile size 2048,
// pack format Float16_b = 5) written through the CoreLocalMem.
TEST(EmulatorSdkSurface, ZerosRegionReadWithNocReadState) {
  ProgramBuilder p;
  auto out = p.dram(1);
  p.cb(tt::CBIndex::c_0, 1);
  auto k = p.writer("sdk/zeros_read.cpp", {});
  SetRuntimeArgs(p.program, k, CoreCoord{0, 0}, {ProgramBuilder::addr(out)});
  p.run();
  std::vector<uint32_t> words;
  distributed::EnqueueReadMeshBuffer(p.dev->mesh_command_queue(), words, out, true);
  ASSERT_EQ(words.size(), 512u);
  for (uint32_t i = 0; i < 512; ++i) {
    const uint32_t want = i == 5 ? 32 : i == 6 ? 2048 : i == 7 ? 5 : 0;
    ASSERT_EQ(words[i], want) << "word " << i;
  }
}
