// The watcher off (TK_EMULATOR_WATCHER=off, docs/emulator.md "The watcher off"): each protocol
// violation that silicon tolerates, in a kernel written here. With the watcher on (the default) the
// run fails with the violation's exact words; with it off the run completes, stderr holds those
// words once per kernel and site as a "watcher off:" warning, and the output is what the chip
// computes (a copy of the input, or the zero the dispatcher writes into an unset runtime arg). A
// violation with no defined silicon behaviour stays an error in both modes.
#include <cstdlib>
#include <sstream>

#include <tk_emulator/emulator.hpp>

#include "emu_program.hpp"

using namespace tk::test;

namespace {
// Sets TK_EMULATOR_WATCHER for one scope.
struct Watcher {
  explicit Watcher(const char* value) { setenv("TK_EMULATOR_WATCHER", value, 1); }
  ~Watcher() { unsetenv("TK_EMULATOR_WATCHER"); }
};

// What a run reports: its error and its watcher's warnings.
struct Reported {
  std::string error;                 // "" when the run completed
  std::vector<std::string> warnings; // the stderr lines that start with "watcher off: "
};

struct Outcome : Reported {
  std::vector<bfloat16> out; // the output buffer, when the run completed
};

std::vector<std::string> warnings_in(const std::string& err) {
  std::vector<std::string> lines;
  std::istringstream in(err);
  for (std::string line; std::getline(in, line);)
    if (line.rfind("watcher off: ", 0) == 0)
      lines.push_back(line);
  return lines;
}

// Runs `p` with stderr captured, then `read_output` (which takes the output into `o`) if the run
// completed; `o` gets the error the run threw and the "watcher off:" lines it printed.
template <class ReadOutput>
void run_reporting(ProgramBuilder& p, Reported& o, ReadOutput read_output) {
  testing::internal::CaptureStderr();
  try {
    p.run();
    read_output();
  } catch (const tk::rt::emu::EmulatorError& e) {
    o.error = e.what();
  }
  o.warnings = warnings_in(testing::internal::GetCapturedStderr());
}

constexpr uint32_t kTiles = 2;
const std::vector<bfloat16> kInput = random_bf16(kTiles * 1024, -4.0f, 4.0f, 7);

// reader.cpp -> compute.cpp -> write_tile.cpp, copying kTiles tiles through c_0 and c_16 (each of
// kTiles pages, so that no page is overwritten before it is consumed, however the kernels
// interleave on the chip).
Outcome copy_through_cbs(std::map<std::string, std::string> reader_defines,
                         std::map<std::string, std::string> compute_defines) {
  ProgramBuilder p;
  auto src = p.dram(kInput);
  auto dst = p.dram(kTiles);
  p.cb(tt::CBIndex::c_0, kTiles);
  p.cb(tt::CBIndex::c_16, kTiles);
  auto r = p.reader("watcher/reader.cpp", {src}, std::move(reader_defines));
  SetRuntimeArgs(p.program, r, CoreCoord{0, 0}, {p.addr(src), kTiles});
  auto w = p.writer("dataflow/write_tile.cpp", {dst});
  SetRuntimeArgs(p.program, w, CoreCoord{0, 0}, {p.addr(dst), kTiles, 0u});
  auto k = p.compute("watcher/compute.cpp", ComputeConfig{.defines = std::move(compute_defines)});
  SetRuntimeArgs(p.program, k, CoreCoord{0, 0}, {kTiles});
  Outcome o;
  run_reporting(p, o, [&] { o.out = p.read(dst); });
  return o;
}

void expect_copy(const Outcome& o) {
  ASSERT_EQ(o.error, "");
  ASSERT_EQ(o.out.size(), kInput.size());
  for (std::size_t i = 0; i < kInput.size(); ++i)
    ASSERT_EQ(static_cast<float>(o.out[i]), static_cast<float>(kInput[i])) << "element " << i;
}

const std::string reader = kernel("watcher/reader.cpp");
const std::string compute = kernel("watcher/compute.cpp");
} // namespace

TEST(EmulatorWatcher, PackAndPushWithoutReserve) {
  const std::string pack = compute + ": core (0,0): pack_tile(0, c_16): packs into page 0 of the "
                                     "back of c_16 but only 0 pages are reserved with "
                                     "cb_reserve_back";
  const std::string push = compute + ": core (0,0): cb_push_back(c_16, 1): pushes 1 page but "
                                     "only 0 pages reserved with cb_reserve_back";
  EXPECT_EQ(copy_through_cbs({}, {{"PACK_UNRESERVED", "1"}}).error, pack);
  Watcher off("off");
  const Outcome o = copy_through_cbs({}, {{"PACK_UNRESERVED", "1"}});
  expect_copy(o);
  EXPECT_EQ(o.warnings, (std::vector<std::string>{"watcher off: " + pack, "watcher off: " + push}));
}

TEST(EmulatorWatcher, NocReadIntoUnreservedPagesAndPushWithoutReserve) {
  const std::string read = reader + ": core (0,0): noc_async_read writes bytes [0x0, 0x800) of "
                                    "c_0 outside the pages reserved with cb_reserve_back (0 pages "
                                    "reserved)";
  const std::string push = reader + ": core (0,0): cb_push_back(c_0, 1): pushes 1 page but only 0 "
                                    "pages reserved with cb_reserve_back";
  EXPECT_EQ(copy_through_cbs({{"READ_UNRESERVED", "1"}}, {}).error, read);
  Watcher off("off");
  const Outcome o = copy_through_cbs({{"READ_UNRESERVED", "1"}}, {});
  expect_copy(o);
  EXPECT_EQ(o.warnings, (std::vector<std::string>{"watcher off: " + read, "watcher off: " + push}));
}

TEST(EmulatorWatcher, UnpackAndPopWithoutWait) {
  const std::string read = compute + ": core (0,0): copy_tile: reads tile 0 of c_0 but only 0 "
                                     "pages were waited for with cb_wait_front";
  const std::string pop = compute + ": core (0,0): cb_pop_front(c_0, 2): pops 2 pages but only 0 "
                                    "pages waited for with cb_wait_front";
  EXPECT_EQ(copy_through_cbs({}, {{"READ_AFTER_POP", "1"}}).error, read);
  Watcher off("off");
  const Outcome o = copy_through_cbs({}, {{"READ_AFTER_POP", "1"}});
  expect_copy(o);
  EXPECT_EQ(o.warnings, (std::vector<std::string>{"watcher off: " + read, "watcher off: " + pop}));
}

TEST(EmulatorWatcher, ReleaseDstWithoutAcquireDst) {
  const std::string release =
      compute + ": core (0,0): release_dst: DST was not acquired with acquire_dst";
  EXPECT_EQ(copy_through_cbs({}, {{"RELEASE_DST_UNACQUIRED", "1"}}).error, release);
  Watcher off("off");
  const Outcome o = copy_through_cbs({}, {{"RELEASE_DST_UNACQUIRED", "1"}});
  expect_copy(o);
  EXPECT_EQ(o.warnings, std::vector<std::string>{"watcher off: " + release});
}

namespace {
// l1_copy.cpp: kTiles tiles DRAM -> L1 offset 0x100000 (above the CBs, below the L1 buffers: no
// buffer holds it) -> DRAM.
Outcome copy_through_l1(std::map<std::string, std::string> defines) {
  ProgramBuilder p;
  auto src = p.dram(kInput);
  auto dst = p.dram(kTiles);
  p.cb(tt::CBIndex::c_0, 1);
  std::vector<uint32_t> ct;
  TensorAccessorArgs(*src).append_to(ct);
  TensorAccessorArgs(*dst).append_to(ct);
  auto k = CreateKernel(p.program, kernel("watcher/l1_copy.cpp"), CoreCoord{0, 0},
                        DataMovementConfig{.processor = DataMovementProcessor::RISCV_1,
                                           .noc = NOC::RISCV_1_default,
                                           .compile_args = ct,
                                           .defines = std::move(defines)});
  SetRuntimeArgs(p.program, k, CoreCoord{0, 0}, {p.addr(src), p.addr(dst), kTiles, 0x100000u});
  Outcome o;
  run_reporting(p, o, [&] { o.out = p.read(dst); });
  return o;
}
const std::string l1_copy = kernel("watcher/l1_copy.cpp");
} // namespace

TEST(EmulatorWatcher, L1OutsideAnyBuffer) {
  const std::string read = l1_copy + ": core (0,0): noc_async_read: L1 [0x100000, 0x100800) is "
                                     "outside any circular buffer, semaphore or L1 buffer";
  const std::string write = l1_copy + ": core (0,0): noc_async_write: L1 [0x100000, 0x100800) is "
                                      "outside any circular buffer, semaphore or L1 buffer";
  EXPECT_EQ(copy_through_l1({}).error, read);
  Watcher off("off");
  const Outcome o = copy_through_l1({});
  expect_copy(o);
  EXPECT_EQ(o.warnings,
            (std::vector<std::string>{"watcher off: " + read, "watcher off: " + write}));
}

TEST(EmulatorWatcher, NocCoordinateOffTheGridStaysAnError) {
  const std::string error =
      l1_copy + ": core (0,0): noc_async_read: NoC (1,0) is not a DRAM bank or a worker core of "
                "the grid";
  EXPECT_EQ(copy_through_l1({{"BAD_NOC", "1"}}).error, error);
  Watcher off("off");
  const Outcome o = copy_through_l1({{"BAD_NOC", "1"}});
  EXPECT_EQ(o.error, error);
  EXPECT_TRUE(o.warnings.empty());
}

namespace {
// arg_to_dram.cpp on cores (0,0) and (1,0): (0,0) is given 3 runtime args, (1,0) 2; each writes
// its arg `arg` into the first word of page x of the output. With `own_group`, core (1,0) also
// runs idle.cpp, which puts it in a kernel group of its own.
struct ArgOutcome : Reported {
  std::vector<uint32_t> words; // the first word of each core's page
};
ArgOutcome arg_of_each_core(int arg, bool own_group = false) {
  ProgramBuilder p;
  p.cores = CoreRange({0, 0}, {1, 0});
  auto dst = p.dram(2);
  p.cb(tt::CBIndex::c_0, 1);
  auto k = p.writer("watcher/arg_to_dram.cpp", {dst}, {{"ARG", std::to_string(arg)}});
  SetRuntimeArgs(p.program, k, CoreCoord{0, 0}, {p.addr(dst), 0u, 42u});
  SetRuntimeArgs(p.program, k, CoreCoord{1, 0}, {p.addr(dst), 1u});
  if (own_group) {
    CreateKernel(p.program, kernel("watcher/idle.cpp"), CoreCoord{1, 0},
                 DataMovementConfig{.processor = DataMovementProcessor::RISCV_1,
                                    .noc = NOC::RISCV_1_default});
  }
  ArgOutcome o;
  run_reporting(p, o, [&] {
    std::vector<uint32_t> all;
    distributed::EnqueueReadMeshBuffer(p.dev->mesh_command_queue(), all, dst, true);
    o.words = {all.at(0), all.at(kBf16Tile / 4)};
  });
  return o;
}
const std::string arg_to_dram = kernel("watcher/arg_to_dram.cpp");
} // namespace

// The dispatcher sends each core of a kernel as many runtime args as the core given the most, the
// rest zero (tt_metal/impl/program/dispatch.cpp): core (1,0) reads 0 for its arg 2.
TEST(EmulatorWatcher, RuntimeArgSetOnAnotherCoreReadsZero) {
  const std::string error = arg_to_dram + ": core (1,0): get_arg_val(2): runtime arg 2 was never "
                                          "set (SetRuntimeArgs gave this core 2 args)";
  EXPECT_EQ(arg_of_each_core(2).error, error);
  Watcher off("off");
  const ArgOutcome o = arg_of_each_core(2);
  ASSERT_EQ(o.error, "");
  EXPECT_EQ(o.words, (std::vector<uint32_t>{42u, 0u}));
  EXPECT_EQ(o.warnings, std::vector<std::string>{"watcher off: " + error});
}

// The slots are the kernel group's: core (1,0), with a kernel more than (0,0), is a group of its
// own, whose most args are its 2; past them lie the next kernel's args or stale L1.
TEST(EmulatorWatcher, RuntimeArgSetOnlyInAnotherKernelGroupStaysAnError) {
  const std::string error = arg_to_dram + ": core (1,0): get_arg_val(2): runtime arg 2 was never "
                                          "set (SetRuntimeArgs gave this core 2 args)";
  EXPECT_EQ(arg_of_each_core(2, true).error, error);
  Watcher off("off");
  const ArgOutcome o = arg_of_each_core(2, true);
  EXPECT_EQ(o.error, error);
  EXPECT_TRUE(o.warnings.empty());
}

// Past the most args any core of the kernel was given lie the next kernel's args or stale L1.
TEST(EmulatorWatcher, RuntimeArgPastEveryCoresArgsStaysAnError) {
  const std::string error = arg_to_dram + ": core (0,0): get_arg_val(3): runtime arg 3 was never "
                                          "set (SetRuntimeArgs gave this core 3 args)";
  EXPECT_EQ(arg_of_each_core(3).error, error);
  Watcher off("off");
  const ArgOutcome o = arg_of_each_core(3);
  EXPECT_EQ(o.error, error);
  EXPECT_TRUE(o.warnings.empty());
}

TEST(EmulatorWatcher, UnknownValueIsAnError) {
  Watcher maybe("maybe");
  EXPECT_EQ(copy_through_cbs({}, {}).error, "TK_EMULATOR_WATCHER=maybe: expected on or off");
}
