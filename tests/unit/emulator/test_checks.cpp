// Protocol checks: hand-written broken kernels, each caught with an error that names the kernel
// file, the core and the CB (a read not waited for when the kernel returns, a page popped while a
// write may still send it, among others); the deadlock report (with each CB's producer or
// consumer); a kernel compile error; L1 over budget.
#include <tk_emulator/emulator.hpp>

#include "emu_program.hpp"

using namespace tk::test;

namespace {
struct Broken {
  std::map<std::string, std::string> reader_defines;
  std::map<std::string, std::string> compute_defines;
  bool with_compute = true;
  bool fp32_dest = false;
  uint32_t c0_pages = 2;
  uint32_t c0_page = kBf16Tile;
  bool consumer = false;
  std::map<std::string, std::string> consumer_defines;
  uint32_t reader_tiles = 1, compute_tiles = 1, writer_tiles = 1;
  std::string writer = "dataflow/write_tile.cpp";
  std::map<std::string, std::string> writer_defines;
  std::string compute = "broken/compute.cpp";
};

// Runs reader.cpp (+ compute.cpp + write_tile.cpp) on core (0,0) and returns the error text ("" if
// none).
std::string run(const Broken& b) {
  ProgramBuilder p;
  auto src = p.dram(4);
  auto dst = p.dram(4);
  p.cb(tt::CBIndex::c_0, b.c0_pages, b.c0_page);
  p.cb(tt::CBIndex::c_16, 2);
  auto r = p.reader("broken/reader.cpp", {src}, b.reader_defines);
  SetRuntimeArgs(p.program, r, CoreCoord{0, 0}, {p.addr(src), b.reader_tiles, 0u});
  if (b.consumer)
    p.writer("broken/consumer.cpp", {}, b.consumer_defines);
  if (b.with_compute) {
    auto w = p.writer(b.writer, {dst}, b.writer_defines);
    SetRuntimeArgs(p.program, w, CoreCoord{0, 0}, {p.addr(dst), b.writer_tiles, 0u});
    auto k = p.compute(
        b.compute, ComputeConfig{.fp32_dest_acc_en = b.fp32_dest, .defines = b.compute_defines});
    SetRuntimeArgs(p.program, k, CoreCoord{0, 0}, {b.compute_tiles});
  }
  try {
    p.run();
  } catch (const tk::rt::emu::EmulatorError& e) {
    return e.what();
  }
  return "";
}
const std::string reader = kernel("broken/reader.cpp");
const std::string compute = kernel("broken/compute.cpp");
const std::string writer = kernel("dataflow/write_tile.cpp");
const std::string consumer = kernel("broken/consumer.cpp");
const std::string broken_writer = kernel("broken/writer.cpp");
} // namespace

TEST(EmulatorChecks, UnbrokenKernelsRun) {
  EXPECT_EQ(run({}), "");
}

TEST(EmulatorChecks, PushOfPagesNeverReserved) {
  EXPECT_EQ(run({.reader_defines = {{"PUSH_UNRESERVED", "1"}}, .with_compute = false}),
            reader + ": core (0,0): cb_push_back(c_0, 1): pushes 1 page but only 0 pages reserved "
                     "with cb_reserve_back");
}

TEST(EmulatorChecks, PushBreakingExactWrap) {
  EXPECT_EQ(run({.reader_defines = {{"BREAK_EXACT_WRAP", "1"}},
                 .with_compute = false,
                 .c0_pages = 3,
                 .consumer = true}),
            reader + ": core (0,0): cb_push_back(c_0, 2): pushing 2 pages at page 2 runs past the "
                     "end of c_0 (3 pages); "
                     "pushes must add up to exactly 3 per lap of the ring");
}

TEST(EmulatorChecks, WaitForMorePagesThanTheCbHolds) {
  EXPECT_EQ(run({.reader_defines = {{"WAIT_TOO_MANY", "1"}}, .with_compute = false}),
            reader + ": core (0,0): cb_wait_front(c_0, 3): asks for 3 pages but c_0 holds 2 pages");
}

TEST(EmulatorChecks, NocReadIntoCbOutsideReservedPages) {
  EXPECT_EQ(run({.reader_defines = {{"READ_OUTSIDE_RESERVE", "1"}}, .with_compute = false}),
            reader + ": core (0,0): noc_async_read writes bytes [0x0, 0x800) of c_0 outside the "
                     "pages reserved with "
                     "cb_reserve_back (0 pages reserved)");
}

TEST(EmulatorChecks, NocReadOutsideAnyBuffer) {
  EXPECT_EQ(run({.reader_defines = {{"NOC_OUTSIDE_BUFFER", "1"}}, .with_compute = false}),
            reader +
                ": core (0,0): noc_async_read: DRAM bank 4 [0x4040, 0x4840) is outside any buffer");
}

TEST(EmulatorChecks, RuntimeArgNeverSet) {
  EXPECT_EQ(run({.reader_defines = {{"ARG_NEVER_SET", "1"}}, .with_compute = false}),
            reader + ": core (0,0): get_arg_val(5): runtime arg 5 was never set (SetRuntimeArgs "
                     "gave this core 3 args)");
}

TEST(EmulatorChecks, CbIndexOutOfRange) {
  EXPECT_EQ(run({.reader_defines = {{"CB_INDEX_OUT_OF_RANGE", "1"}}, .with_compute = false}),
            reader + ": core (0,0): cb_reserve_back: CB index 32 is out of range (32 CBs on "
                     "wormhole_b0)");
}

// The CB count is the device's architecture's (tt-metal's hal.hpp, get_arch_num_circular_buffers):
// a copy of 6 tiles through c_40 runs on an emulated P150 (64 CBs) and is refused by an n150 (32)
// before any kernel runs.
TEST(EmulatorChecks, CbIndexRangeIsTheArchitectures) {
  auto copy = [](const char* arch, std::vector<bfloat16>* out) {
    setenv("TK_EMULATOR_ARCH", arch, 1);
    ProgramBuilder p;
    unsetenv("TK_EMULATOR_ARCH");
    const auto in = random_bf16(6 * 1024, -4, 4, 40);
    auto src = p.dram(in);
    auto dst = p.dram(6);
    p.cb(tt::CBIndex::c_40, 2);
    auto r = p.reader("dataflow/read_tile_high_cb.cpp", {src});
    SetRuntimeArgs(p.program, r, CoreCoord{0, 0}, {p.addr(src), 6u});
    auto w = p.writer("dataflow/write_tile_high_cb.cpp", {dst});
    SetRuntimeArgs(p.program, w, CoreCoord{0, 0}, {p.addr(dst), 6u});
    try {
      p.run();
    } catch (const tk::rt::emu::EmulatorError& e) {
      return std::string(e.what());
    }
    *out = p.read(dst);
    EXPECT_EQ(*out, in); // a copy: every bit
    return std::string();
  };
  std::vector<bfloat16> out;
  EXPECT_EQ(copy("blackhole", &out), "");
  EXPECT_EQ(out.size(), 6u * 1024u);
  EXPECT_EQ(copy("wormhole_b0", &out),
            "EnqueueMeshWorkload: CB index 40 is out of range (32 CBs on wormhole_b0)");
}

// The emulator compiles kernels with the compiler that built it (TK_EMULATOR_CXX): g++ in the ci
// preset, clang 19 in asan. Its own words are quoted.
#ifdef __clang__
constexpr const char* kStaticAssertIndex = "static assertion failed due to requirement "
                                           "'7U < kernel_compile_time_args.size()': Index out of "
                                           "range";
constexpr const char* kUndeclaredPushBak = "use of undeclared identifier 'cb_push_bak'";
#else
constexpr const char* kStaticAssertIndex = "static assertion failed: Index out of range";
constexpr const char* kUndeclaredPushBak = "'cb_push_bak' was not declared in this scope";
#endif

TEST(EmulatorChecks, CompileTimeArgOutOfRangeFailsToCompile) {
  const std::string err =
      run({.reader_defines = {{"CT_ARG_OUT_OF_RANGE", "1"}}, .with_compute = false});
  EXPECT_EQ(err.rfind(reader + ": kernel compilation failed (" + reader + ")\n", 0), 0u) << err;
  EXPECT_NE(err.find(kStaticAssertIndex), std::string::npos) << err;
}

TEST(EmulatorChecks, CompileErrorReportsCompilerOutputAndPath) {
  const std::string err = run({.reader_defines = {{"SYNTAX_ERROR", "1"}}, .with_compute = false});
  EXPECT_EQ(err.rfind(reader + ": kernel compilation failed (" + reader + ")\n", 0), 0u) << err;
  EXPECT_NE(err.find(reader + ":"), err.rfind(reader + ":"))
      << "the compiler output names the file too: " << err;
  EXPECT_NE(err.find(kUndeclaredPushBak), std::string::npos) << err;
}

TEST(EmulatorChecks, PackWithoutReserve) {
  EXPECT_EQ(run({.compute_defines = {{"PACK_NO_RESERVE", "1"}}}),
            compute + ": core (0,0): pack_tile(0, c_16): packs into page 0 of the back of c_16 but "
                      "only 0 pages are "
                      "reserved with cb_reserve_back");
}

// What the emulator does not model is an error, never a silently untransposed tile.
TEST(EmulatorChecks, TransposingCopyIsNotModelled) {
  EXPECT_EQ(run({.compute_defines = {{"COPY_TRANSPOSED", "1"}}}),
            compute + ": core (0,0): copy_tile_to_dst_init_short with transpose (use "
                      "transpose_wh_tile) is not modelled by the emulator");
}

TEST(EmulatorChecks, DstIndexBeyondCapacity) {
  EXPECT_EQ(run({.compute_defines = {{"DST_INDEX", "8"}}}),
            compute + ": core (0,0): copy_tile: DST index 8 is out of range: 8 tiles fit in DST "
                      "(bf16, half-sync)");
  EXPECT_EQ(run({.compute_defines = {{"DST_INDEX", "4"}}, .fp32_dest = true}),
            compute + ": core (0,0): copy_tile: DST index 4 is out of range: 4 tiles fit in DST "
                      "(fp32, half-sync)");
}

TEST(EmulatorChecks, DstOutsideAcquireOrBeforeWait) {
  EXPECT_EQ(
      run({.compute_defines = {{"DST_OUTSIDE_ACQUIRE", "1"}}}),
      compute +
          ": core (0,0): copy_tile: DST is used outside tile_regs_acquire ... tile_regs_commit");
  EXPECT_EQ(run({.compute_defines = {{"PACK_BEFORE_WAIT", "1"}}}),
            compute + ": core (0,0): pack_tile(0, c_16): DST is read outside tile_regs_wait ... "
                      "tile_regs_release");
}

// The second iteration acquires DST again without a release (ttgen check finds it statically).
TEST(EmulatorChecks, AcquireWithoutRelease) {
  EXPECT_EQ(run({.compute_defines = {{"MISSING_RELEASE", "1"}},
                 .reader_tiles = 2,
                 .compute_tiles = 2,
                 .writer_tiles = 2}),
            compute + ": core (0,0): tile_regs_acquire: DST is already acquired (missing "
                      "tile_regs_release?)");
}

// acquire_dst twice without release_dst, and release_dst with nothing acquired: the words ttgen
// check uses (tests/golden/ttgen_check/acquire_dst_missing_release.txt, release_dst_twice.txt).
TEST(EmulatorChecks, AcquireDstWithoutReleaseDst) {
  const std::string k = "../../ttgen_check/kernels/acquire_dst.cpp";
  EXPECT_EQ(run({.compute_defines = {{"MISSING_RELEASE_DST", "1"}},
                 .reader_tiles = 2,
                 .compute_tiles = 2,
                 .writer_tiles = 2,
                 .compute = k}),
            kernel(k) +
                ": core (0,0): acquire_dst: DST is already acquired (missing release_dst?)");
  EXPECT_EQ(run({.compute_defines = {{"RELEASE_TWICE", "1"}}, .compute = k}),
            kernel(k) + ": core (0,0): release_dst: DST was not acquired with acquire_dst");
  EXPECT_EQ(run({.reader_tiles = 2, .compute_tiles = 2, .writer_tiles = 2, .compute = k}), "");
}

TEST(EmulatorChecks, CbReadOutsideWaitWindow) {
  EXPECT_EQ(run({.compute_defines = {{"READ_UNWAITED", "1"}}}),
            compute + ": core (0,0): copy_tile: reads tile 0 of c_0 but only 0 pages were waited "
                      "for with cb_wait_front");
}

// Under each blocked kernel, the CB's other side on its core: for cb_wait_front the kernels that
// push the CB, for cb_reserve_back those that pop it, or that none ever did.
TEST(EmulatorChecks, DeadlockNamesEveryBlockedKernel) {
  EXPECT_EQ(run({.compute_defines = {{"DEADLOCK", "1"}}}),
            "deadlock: every kernel is blocked\n"
            "  core (0,0) " +
                writer +
                " waits in cb_wait_front(c_16, 1): 0 pages available\n"
                "    producer of c_16: none (no kernel on core (0,0) called cb_reserve_back or "
                "cb_push_back on it)\n"
                "  core (0,0) " +
                compute +
                " waits in cb_wait_front(c_0, 2): 1 page available\n"
                "    producer of c_0: " +
                reader + ", finished after pushing 1 page in total");
}

TEST(EmulatorChecks, DeadlockNamesAProducerThatReturnedWithoutPushing) {
  EXPECT_EQ(run({.reader_defines = {{"FORGET_PUSH", "1"}}}),
            "deadlock: every kernel is blocked\n"
            "  core (0,0) " +
                writer +
                " waits in cb_wait_front(c_16, 1): 0 pages available\n"
                "    producer of c_16: none (no kernel on core (0,0) called cb_reserve_back or "
                "cb_push_back on it)\n"
                "  core (0,0) " +
                compute +
                " waits in cb_wait_front(c_0, 1): 0 pages available\n"
                "    producer of c_0: " +
                reader + ", finished after pushing 0 pages in total");
}

TEST(EmulatorChecks, DeadlockNamesABlockedProducer) {
  // The reader pushes one tile, compute and writer expect two: compute blocks on c_0 after
  // pushing one tile to c_16, the writer on c_16.
  EXPECT_EQ(run({.compute_tiles = 2, .writer_tiles = 2}),
            "deadlock: every kernel is blocked\n"
            "  core (0,0) " +
                writer +
                " waits in cb_wait_front(c_16, 1): 0 pages available\n"
                "    producer of c_16: " +
                compute +
                ", blocked after pushing 1 page so far\n"
                "  core (0,0) " +
                compute +
                " waits in cb_wait_front(c_0, 1): 0 pages available\n"
                "    producer of c_0: " +
                reader + ", finished after pushing 1 page in total");
}

TEST(EmulatorChecks, DeadlockNamesTheConsumerOfAFullCb) {
  // c_0 holds 2 pages; the consumer pops 2 and returns, so the reader's fifth tile never fits.
  EXPECT_EQ(run({.with_compute = false,
                 .consumer = true,
                 .consumer_defines = {{"ROUNDS", "1"}},
                 .reader_tiles = 5}),
            "deadlock: every kernel is blocked\n"
            "  core (0,0) " +
                reader +
                " waits in cb_reserve_back(c_0, 1): 0 pages free\n"
                "    consumer of c_0: " +
                consumer + ", finished after popping 2 pages in total");
}

TEST(EmulatorChecks, DeadlockSaysWhenNoKernelConsumesAFullCb) {
  EXPECT_EQ(run({.with_compute = false, .reader_tiles = 3}),
            "deadlock: every kernel is blocked\n"
            "  core (0,0) " +
                reader +
                " waits in cb_reserve_back(c_0, 1): 0 pages free\n"
                "    consumer of c_0: none (no kernel on core (0,0) called cb_wait_front or "
                "cb_pop_front on it)");
}

TEST(EmulatorChecks, L1OverBudget) {
  // The first CB address is Wormhole's DEFAULT_UNRESERVED, 0x19520 (arch/wormhole_b0.hpp).
  EXPECT_EQ(run({.c0_pages = 700}), "core (0,0): circular buffer c_0 (1433600 B at 0x19520) ends "
                                    "at 0x177520, beyond the L1 budget (CBs may use "
                                    "0x19520..0x16e000, 1395424 B)");
}

// tt-metal's firmware asserts after kernel_main that the RISC's reads have landed.
TEST(EmulatorChecks, ReturnWithAReadNotWaitedFor) {
  EXPECT_EQ(run({.reader_defines = {{"RETURN_BEFORE_READ_BARRIER", "1"}}, .with_compute = false}),
            reader + ": core (0,0): kernel returned with 1 NoC read not waited for "
                     "(noc_async_read_barrier)");
}

// A page is released to its producer only once the write sending it has been flushed; the SDK's
// writers flush each page and wait for every write once, at the end.
TEST(EmulatorChecks, FlushBeforePopRuns) {
  EXPECT_EQ(run({.reader_tiles = 3,
                 .compute_tiles = 3,
                 .writer_tiles = 3,
                 .writer = "broken/writer.cpp"}),
            "");
}

TEST(EmulatorChecks, PopOfAPageAWriteMayStillSend) {
  EXPECT_EQ(run({.writer = "broken/writer.cpp", .writer_defines = {{"POP_BEFORE_FLUSH", "1"}}}),
            broken_writer + ": core (0,0): cb_pop_front(c_16, 1): pops pages that a NoC write of "
                            "this kernel may still be sending from [0x1a520, 0x1ad20) "
                            "(noc_async_writes_flushed or noc_async_write_barrier before "
                            "cb_pop_front)");
}

// Without the arithmetic (TK_EMULATOR_MATH=off, set_math(false)) every compute check above still
// fails the same way: only the values are skipped (docs/timing.md, "Projections without the
// arithmetic").
TEST(EmulatorChecks, ComputeChecksHoldWithoutTheArithmetic) {
  const Broken cases[] = {
      {},
      {.compute_defines = {{"PACK_NO_RESERVE", "1"}}},
      {.compute_defines = {{"DST_INDEX", "8"}}},
      {.compute_defines = {{"DST_INDEX", "4"}}, .fp32_dest = true},
      {.compute_defines = {{"DST_OUTSIDE_ACQUIRE", "1"}}},
      {.compute_defines = {{"PACK_BEFORE_WAIT", "1"}}},
      {.compute_defines = {{"READ_UNWAITED", "1"}}},
      {.compute_defines = {{"MISSING_RELEASE", "1"}},
       .reader_tiles = 2,
       .compute_tiles = 2,
       .writer_tiles = 2},
  };
  for (const Broken& b : cases) {
    const std::string with = run(b);
    tk::rt::emu::set_math(false);
    const std::string without = run(b);
    tk::rt::emu::set_math(std::nullopt);
    EXPECT_EQ(without, with);
    EXPECT_EQ(with.empty(), b.compute_defines.empty()) << with;
  }
}

TEST(EmulatorChecks, MathSwitchReadsTheEnvironment) {
  unsetenv("TK_EMULATOR_MATH");
  EXPECT_TRUE(tk::rt::emu::math_enabled());
  setenv("TK_EMULATOR_MATH", "off", 1);
  EXPECT_FALSE(tk::rt::emu::math_enabled());
  tk::rt::emu::set_math(true);
  EXPECT_TRUE(tk::rt::emu::math_enabled());
  tk::rt::emu::set_math(std::nullopt);
  setenv("TK_EMULATOR_MATH", "0", 1);
  EXPECT_FALSE(tk::rt::emu::math_enabled());
  setenv("TK_EMULATOR_MATH", "on", 1);
  EXPECT_TRUE(tk::rt::emu::math_enabled());
  setenv("TK_EMULATOR_MATH", "of", 1);
  try {
    tk::rt::emu::math_enabled();
    ADD_FAILURE() << "TK_EMULATOR_MATH=of was accepted";
  } catch (const tk::rt::emu::EmulatorError& e) {
    EXPECT_STREQ(e.what(), "TK_EMULATOR_MATH=of: expected on or off");
  }
  unsetenv("TK_EMULATOR_MATH");
}
