// The SDK surface shipped tt-metal code relies on (docs/emulator.md, "SDK surface"): kernels that
// use the dataflow API without including it, named compile-time args.
#include <tk_emulator/emulator.hpp>

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
