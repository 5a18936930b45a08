// The kernel JIT cache: a second launch loads the compiled objects (from memory or disk) instead of
// compiling, and a change to a header the kernel includes forces a recompile.
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <tk_emulator/emulator.hpp>

#include "emu_program.hpp"

using namespace tk::test;
namespace fs = std::filesystem;

namespace {
// out = a op b through compute kernel `compute_path` on one core; returns the output.
std::vector<bfloat16> run_binary(const std::string& compute_path, const std::vector<bfloat16>& a,
                                 const std::vector<bfloat16>& b) {
  ProgramBuilder p;
  const uint32_t n = static_cast<uint32_t>(a.size() / 1024);
  auto sa = p.dram(a), sb = p.dram(b), dst = p.dram(n);
  for (auto cb : {tt::CBIndex::c_0, tt::CBIndex::c_1, tt::CBIndex::c_16})
    p.cb(cb, 2);
  auto r = p.reader("dataflow/read_tiles.cpp", {sa, sb});
  auto w = p.writer("dataflow/write_tile.cpp", {dst});
  auto k = CreateKernel(p.program, compute_path, CoreCoord{0, 0}, ComputeConfig{});
  SetRuntimeArgs(p.program, r, CoreCoord{0, 0}, {p.addr(sa), p.addr(sb), n});
  SetRuntimeArgs(p.program, w, CoreCoord{0, 0}, {p.addr(dst), n, 0u});
  SetRuntimeArgs(p.program, k, CoreCoord{0, 0}, {n});
  p.run();
  return p.read(dst);
}

struct EmulatorJit : ::testing::Test {
  fs::path dir;
  std::string saved;
  void SetUp() override {
    char tmpl[] = "/tmp/tk_emu_jit_XXXXXX";
    dir = mkdtemp(tmpl);
    saved = std::getenv("TT_METAL_EMULATOR_CACHE_DIR") ? std::getenv("TT_METAL_EMULATOR_CACHE_DIR")
                                                       : "";
    setenv("TT_METAL_EMULATOR_CACHE_DIR", (dir / "cache").c_str(), 1);
    tk::rt::emu::forget_loaded_kernels();
  }
  void TearDown() override {
    setenv("TT_METAL_EMULATOR_CACHE_DIR", saved.c_str(), 1);
    tk::rt::emu::forget_loaded_kernels();
    fs::remove_all(dir);
  }
};
} // namespace

TEST_F(EmulatorJit, SecondLaunchHitsTheCache) {
  const auto a = random_bf16(2048, 0.0f, 1.0f, 41), b = random_bf16(2048, 0.0f, 1.0f, 42);
  const auto s0 = tk::rt::emu::jit_stats();
  const auto first = run_binary(kernel("compute/tiles_add.cpp"), a, b);
  const auto s1 = tk::rt::emu::jit_stats();
  EXPECT_EQ(s1.compiled - s0.compiled, 3u); // reader, writer, compute
  EXPECT_EQ(s1.disk_hits - s0.disk_hits, 0u);
  EXPECT_EQ(std::distance(fs::directory_iterator(dir / "cache"), fs::directory_iterator{}), 3);

  EXPECT_EQ(run_binary(kernel("compute/tiles_add.cpp"), a, b), first);
  const auto s2 = tk::rt::emu::jit_stats();
  EXPECT_EQ(s2.compiled, s1.compiled);
  EXPECT_EQ(s2.memory_hits - s1.memory_hits, 3u);

  tk::rt::emu::forget_loaded_kernels(); // as a new process would: only the disk cache is left
  EXPECT_EQ(run_binary(kernel("compute/tiles_add.cpp"), a, b), first);
  const auto s3 = tk::rt::emu::jit_stats();
  EXPECT_EQ(s3.compiled, s1.compiled);
  EXPECT_EQ(s3.disk_hits - s2.disk_hits, 3u);
}

TEST_F(EmulatorJit, ChangingAnIncludedHeaderRecompiles) {
  const fs::path src = dir / "k.cpp";
  std::ofstream(src)
      << "#include <cstdint>\n#include \"api/compute/eltwise_binary.h\"\n#include \"op.h\"\n"
         "void kernel_main() {\n"
         "    const uint32_t n = get_arg_val<uint32_t>(0);\n"
         "    compute_kernel_hw_startup(tt::CBIndex::c_0, tt::CBIndex::c_1, tt::CBIndex::c_16);\n"
         "    OP_INIT(tt::CBIndex::c_0, tt::CBIndex::c_1);\n"
         "    for (uint32_t i = 0; i < n; i++) {\n"
         "        cb_wait_front(tt::CBIndex::c_0, 1); cb_wait_front(tt::CBIndex::c_1, 1);\n"
         "        tile_regs_acquire(); OP(tt::CBIndex::c_0, tt::CBIndex::c_1, 0, 0, 0); "
         "tile_regs_commit();\n"
         "        tile_regs_wait(); cb_reserve_back(tt::CBIndex::c_16, 1); pack_tile(0, "
         "tt::CBIndex::c_16);\n"
         "        cb_push_back(tt::CBIndex::c_16, 1); cb_pop_front(tt::CBIndex::c_0, 1); "
         "cb_pop_front(tt::CBIndex::c_1, 1);\n"
         "        tile_regs_release();\n"
         "    }\n}\n";
  const std::vector<bfloat16> a(1024, bfloat16(3.0f)), b(1024, bfloat16(1.0f));
  std::ofstream(dir / "op.h") << "#define OP_INIT add_tiles_init\n#define OP add_tiles\n";
  EXPECT_EQ(static_cast<float>(run_binary(src, a, b)[5]), 4.0f);
  const auto s1 = tk::rt::emu::jit_stats();
  std::ofstream(dir / "op.h") << "#define OP_INIT sub_tiles_init\n#define OP sub_tiles\n";
  EXPECT_EQ(static_cast<float>(run_binary(src, a, b)[5]), 2.0f);
  EXPECT_EQ(tk::rt::emu::jit_stats().compiled - s1.compiled, 1u); // only the compute kernel changed
}
