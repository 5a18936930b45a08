// `ttgen check` through the ttgen binary: its output and exit status on the generated kernels, on
// correct hand-written programs (the emulator's test kernels, the SDK matmul baselines) and on one
// broken program per bug class, each the same bug the emulator reports at run time
// (tests/unit/emulator/test_checks.cpp).
#include "tests/support/golden.hpp"

#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <vector>

namespace tk::test {
namespace {

namespace fs = std::filesystem;

struct Checked {
  int code = -1;
  std::string out, err;
};

/// `ttgen check ARGS` in the source tree, so diagnostics name files relative to it.
Checked check(const std::string& args) {
  const fs::path dir = fs::temp_directory_path() / ("tk_check_test_" + std::to_string(getpid()));
  fs::create_directories(dir);
  const std::string cmd = "cd '" + source_dir().string() + "' && '" TTGEN_PATH "' check " + args +
                          " > '" + (dir / "out").string() + "' 2> '" + (dir / "err").string() +
                          "' < /dev/null";
  const int status = std::system(cmd.c_str());
  Checked c;
  c.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  c.out = read_file(dir / "out");
  c.err = read_file(dir / "err");
  // The compiler names the SDK-mirror headers by absolute path: make them relative to the tree.
  const std::string root = source_dir().string() + "/";
  for (std::size_t at; (at = c.err.find(root)) != std::string::npos;)
    c.err.erase(at, root.size());
  fs::remove_all(dir);
  return c;
}

/// The whole result as one golden text: the command, the exit status, stdout, stderr.
void expect_check_golden(const std::string& name, const std::string& args) {
  const Checked c = check(args);
  expect_golden(source_dir() / "tests/golden/ttgen_check" / (name + ".txt"),
                "$ ttgen check " + args + "\nexit " + std::to_string(c.code) + "\n--- stdout\n" +
                    c.out + "--- stderr\n" + c.err);
}

const std::string kBroken = "tests/unit/emulator/kernels/broken/";
const std::string kProgram = kBroken + "reader.cpp " + kBroken + "compute.cpp " +
                             "tests/unit/emulator/kernels/dataflow/write_tile.cpp";

TEST(TtgenCheck, EveryGeneratedKernelIsProved) {
  int programs = 0;
  for (const auto& e : fs::directory_iterator(source_dir() / "generated"))
    for (const auto& k : fs::directory_iterator(e.path() / "kernels")) {
      const std::string dir = fs::relative(k.path(), source_dir()).string() + "/";
      const Checked c = check(dir + "reader.cpp " + dir + "compute.cpp " + dir + "writer.cpp");
      EXPECT_EQ(c.code, 0) << dir << '\n' << c.err;
      EXPECT_EQ(c.err, "") << dir;
      EXPECT_NE(c.out.find("ttgen check: proved: no CB or DST protocol bug on any path\n"),
                std::string::npos)
          << dir << '\n'
          << c.out;
      ++programs;
    }
  EXPECT_GE(programs, 10);
}

// Correct hand-written programs: proved, or proved as far as it goes with warnings that say what
// not (never a false alarm).
TEST(TtgenCheck, CorrectHandWrittenPrograms) {
  expect_check_golden("emulator_copy", kProgram);
  const std::string b = "baselines/kernels/";
  expect_check_golden("baseline_single_core", b + "dataflow/reader_single_core_mm.cpp " + b +
                                                  "compute/mm_single_core.cpp " + b +
                                                  "dataflow/writer_single_core_mm.cpp");
  expect_check_golden("baseline_multi_core",
                      b + "dataflow/reader_mm_output_tiles_partitioned.cpp " + b +
                          "compute/mm_multi_core.cpp " + b +
                          "dataflow/writer_unary_interleaved_start_id.cpp");
  expect_check_golden("baseline_reuse", b + "dataflow/reader_bmm_tile_layout.cpp " + b +
                                            "compute/bmm_large_block_zm.cpp " + b +
                                            "dataflow/writer_bmm_tile_layout.cpp");
  expect_check_golden("baseline_reuse_mcast",
                      b + "dataflow/reader_bmm_tile_layout_in0_sender_in1_sender.cpp " + b +
                          "compute/bmm_large_block_zm.cpp " + b +
                          "dataflow/writer_bmm_tile_layout.cpp");
}

// Every other hand-written kernel of the test suite and of the baselines, alone (with the defines
// its test gives it): never an error. What a lone kernel cannot prove (who pushes what it pops)
// is a warning.
TEST(TtgenCheck, NoFalseAlarmOnAnyHandWrittenKernel) {
  const std::map<std::string, std::string> defines = {
      {"bcast.cpp", "-DBCAST_FN=add_tiles_bcast_rows -DBCAST_INIT=add_bcast_rows_init_short "},
      {"binary_sfpu.cpp",
       "-DSFPU_BINARY_INIT=add_binary_tile_init -DSFPU_BINARY_OP=add_binary_tile "},
      {"reduce.cpp", "-DREDUCE_OP=PoolType::SUM -DREDUCE_DIM=ReduceDim::REDUCE_ROW "},
      // c_40: a Blackhole kernel (64 CBs per core; 32 on Wormhole).
      {"read_tile_high_cb.cpp", "--arch=blackhole "},
      {"write_tile_high_cb.cpp", "--arch=blackhole "}};
  int kernels = 0;
  for (const char* dir :
       {"tests/unit/emulator/kernels/compute", "tests/unit/emulator/kernels/dataflow",
        "baselines/kernels/compute", "baselines/kernels/dataflow"})
    for (const auto& e : fs::directory_iterator(source_dir() / dir)) {
      if (e.path().extension() != ".cpp")
        continue;
      const std::string name = e.path().filename().string();
      const auto d = defines.find(name);
      const Checked c = check((d == defines.end() ? "" : d->second) + dir + "/" + name);
      EXPECT_EQ(c.code, 0) << dir << "/" << name << '\n' << c.err;
      EXPECT_EQ(c.err.find("error:"), std::string::npos) << dir << "/" << name << '\n' << c.err;
      ++kernels;
    }
  EXPECT_GE(kernels, 25);
}

// One broken program per bug class.
TEST(TtgenCheck, Deadlocks) {
  expect_check_golden("deadlock_wait_never_pushed", "-DDEADLOCK " + kProgram);
  expect_check_golden("deadlock_forgotten_push", "-DFORGET_PUSH " + kProgram);
}

TEST(TtgenCheck, CbWindows) {
  expect_check_golden("push_unreserved", "-DPUSH_UNRESERVED " + kBroken + "reader.cpp");
  expect_check_golden("write_outside_reserve", "-DREAD_OUTSIDE_RESERVE " + kProgram);
  expect_check_golden("pack_unreserved", "-DPACK_NO_RESERVE " + kProgram);
  expect_check_golden("read_unwaited", "-DREAD_UNWAITED " + kProgram);
}

// NoC transfers not waited for: a read the kernel can return before (the firmware asserts after
// kernel_main that reads have landed), a page popped while a write may still be sending it; the
// SDK's writer idiom (flush each page, one barrier at the end) is clean.
TEST(TtgenCheck, NocTransfersWaitedFor) {
  expect_check_golden("return_before_read_barrier",
                      "-DRETURN_BEFORE_READ_BARRIER " + kBroken + "reader.cpp");
  expect_check_golden("pop_before_flush", "-DPOP_BEFORE_FLUSH " + kBroken + "reader.cpp " +
                                              kBroken + "compute.cpp " + kBroken + "writer.cpp");
  expect_check_golden("flush_before_pop",
                      kBroken + "reader.cpp " + kBroken + "compute.cpp " + kBroken + "writer.cpp");
}

TEST(TtgenCheck, CbCapacityAndExactWrap) {
  expect_check_golden("wait_beyond_capacity",
                      "--cb c_0=2 -DWAIT_TOO_MANY " + kBroken + "reader.cpp");
  expect_check_golden("exact_wrap", "--cb c_0=3 -DBREAK_EXACT_WRAP " + kBroken + "reader.cpp " +
                                        kBroken + "consumer.cpp");
  expect_check_golden("cb_index", "-DCB_INDEX_OUT_OF_RANGE " + kBroken + "reader.cpp");
}

TEST(TtgenCheck, DstProtocol) {
  expect_check_golden("dst_outside_acquire", "-DDST_OUTSIDE_ACQUIRE " + kProgram);
  expect_check_golden("pack_before_wait", "-DPACK_BEFORE_WAIT " + kProgram);
  expect_check_golden("acquire_without_release", "-DMISSING_RELEASE " + kProgram);
  expect_check_golden("dst_index_bf16", "-DDST_INDEX=8 " + kProgram);
  expect_check_golden("dst_index_fp32", "--fp32-dest-acc -DDST_INDEX=4 " + kProgram);
}

// A CB that is not a constant may be any CB: no balance is claimed, and no deadlock either (the
// compute kernel pops c_0, which this reader may well feed).
TEST(TtgenCheck, CbThatIsNotAConstant) {
  expect_check_golden("variable_cb",
                      "tests/unit/ttgen_check/kernels/variable_cb.cpp " + kBroken +
                          "compute.cpp tests/unit/emulator/kernels/dataflow/write_tile.cpp");
  expect_check_golden("variable_cb_push_c0",
                      "-DPUSH_C0 tests/unit/ttgen_check/kernels/variable_cb.cpp " + kBroken +
                          "compute.cpp tests/unit/emulator/kernels/dataflow/write_tile.cpp");
}

// CB indices and counts from compile-time args: symbols (any CB: nothing balanced, no false
// alarm) without --compile-args; with the host's values, known: balanced, or a deadlock when the
// writer's block is twice the reader's. A role with no kernel is a usage error.
TEST(TtgenCheck, CompileArgs) {
  const std::string k = "tests/unit/ttgen_check/kernels/";
  const std::string program = k + "ct_args_reader.cpp " + k + "ct_args_writer.cpp";
  expect_check_golden("compile_args_unknown", program);
  expect_check_golden("compile_args_balanced",
                      "--compile-args reader=3,2 --compile-args writer=3,2 " + program);
  expect_check_golden("compile_args_deadlock", "--compile-args reader=3,2 --compile-args " + k +
                                                   "ct_args_writer.cpp=3,4 " + program);
  expect_check_golden("compile_args_no_such_role", "--compile-args compute=1 " + program);
}

// A page sent from get_write_ptr after cb_wait_front is the waited page only when the CB holds
// exactly the pages waited for: proved with --cb saying so, a warning without, never an error.
TEST(TtgenCheck, WritePointerOfAFullCb) {
  const std::string program =
      kBroken + "reader.cpp tests/unit/ttgen_check/kernels/send_from_write_ptr.cpp";
  expect_check_golden("write_ptr_of_full_cb_unknown", program);
  expect_check_golden("write_ptr_of_full_cb", "--cb c_0=1 " + program);
}

// acquire_dst() is tile_regs_acquire + tile_regs_wait and release_dst() tile_regs_commit +
// tile_regs_release (reg_api.h): math and pack between them are no false alarm (45 tt-metal and
// TTNN kernel files use them), a missing or extra release_dst is a bug, in the emulator's words.
TEST(TtgenCheck, AcquireDstReleaseDst) {
  const std::string k = "tests/unit/ttgen_check/kernels/acquire_dst.cpp ";
  const std::string program =
      kBroken + "reader.cpp " + k + "tests/unit/emulator/kernels/dataflow/write_tile.cpp";
  expect_check_golden("acquire_dst", program);
  expect_check_golden("acquire_dst_missing_release", "-DMISSING_RELEASE_DST " + program);
  expect_check_golden("release_dst_twice", "-DRELEASE_TWICE " + program);
}

// A helper of an included header is followed with its arguments (push_pages: c_0 balanced); a
// call that reaches CB or DST calls the checker does not model (a helper that calls itself)
// leaves that CB, or every CB, unknown with a warning naming the call: never "proved",
// since a bug inside it (a push with nothing reserved) would otherwise go unseen.
TEST(TtgenCheck, CallsItDoesNotModelAreNeverProved) {
  const std::string rest =
      kBroken + "compute.cpp tests/unit/emulator/kernels/dataflow/write_tile.cpp";
  const std::string k = "tests/unit/ttgen_check/kernels/opaque_call.cpp ";
  expect_check_golden("opaque_call", k + rest);
  expect_check_golden("opaque_call_any_cb", "-DANY_CB " + k + rest);
  expect_check_golden("opaque_call_recursive", "-DRECURSIVE " + k + rest);
}

// A page read through a get_read_ptr pointer after cb_pop_front freed it; a pointer into a page
// still held (two waited for, one popped) is fine.
TEST(TtgenCheck, ReadAfterPop) {
  const std::string k = "tests/unit/ttgen_check/kernels/read_after_pop.cpp";
  const std::string program = kBroken + "reader.cpp " + kBroken + "compute.cpp " + k;
  expect_check_golden("read_after_pop", "-DREAD_AFTER_POP " + program);
  expect_check_golden("read_after_pop_held_page", "-DPOP_ONE_OF_TWO " + k);
  const Checked clean = check(program);
  EXPECT_EQ(clean.code, 0) << clean.err;
  EXPECT_EQ(clean.err, "");
}

// A reader and a compute kernel whose CB calls are in loops it cannot count (`i += chunk`): no
// balance is proved (warnings, no false alarm), but with the reader's push dropped no page of c_0
// is ever pushed, whatever the counts, and the compute kernel's wait is a deadlock (TTNN's
// transposing reduce reader with its push dropped was "proved" before).
TEST(TtgenCheck, ReservedButNeverPushed) {
  const std::string k = "tests/unit/ttgen_check/kernels/";
  const std::string program =
      k + "chunked_reader.cpp " + k +
      "chunked_compute.cpp tests/unit/emulator/kernels/dataflow/write_tile.cpp";
  expect_check_golden("chunked_reader", program);
  expect_check_golden("chunked_reader_push_dropped", "-DDROP_PUSH " + program);
}

// Pages reserved on a path a runtime argument selects and never pushed on it (TTNN softmax's two
// misses, in kernels written here). The correct program, and one that pushes in a second branch
// on the same flag, are proved. With the compute kernel's push of c_24 dropped on the masked
// path, its helper's wait for the row blocks for good: reported at the reserve, the wait in a
// note. A reader that writes and pushes the mask with no reserve (softmax's shipped bug) has two
// errors; with that push dropped too, no kernel pushes c_1 while the compute kernel waits for it.
// A reserve one side of the flag never pushes, while the other side does, is reported at the
// reserve, the branch it leaves in a note.
TEST(TtgenCheck, PagesAPathNeverPushes) {
  const std::string k = "tests/unit/ttgen_check/kernels/";
  const std::string program =
      k + "mask_reader.cpp " + k +
      "mask_compute.cpp tests/unit/emulator/kernels/dataflow/write_tile.cpp";
  const Checked correct = check(program);
  EXPECT_EQ(correct.code, 0) << correct.err;
  EXPECT_EQ(correct.err.find("error:"), std::string::npos) << correct.err;
  expect_check_golden("mask", program);
  expect_check_golden("mask_push_in_second_branch", "-DPUSH_IN_SECOND_BRANCH " + program);
  expect_check_golden("mask_zero_mask", "-DZERO_MASK " + program);
  expect_check_golden("mask_x_push_dropped", "-DDROP_X_PUSH " + program);
  expect_check_golden("mask_no_reserve", "-DNO_MASK_RESERVE " + program);
  expect_check_golden("mask_no_reserve_push_dropped",
                      "-DNO_MASK_RESERVE -DDROP_MASK_PUSH " + program);
  expect_check_golden("mask_zero_mask_push_dropped", "-DZERO_MASK -DDROP_MASK_PUSH " + program);
}

// A helper's CircularBuffer built from its parameter (`auto out =
// experimental::CircularBuffer(cb_out)`) is the CB the call passes: proved (TTNN's softmax got a
// false alarm, a pack into "unreserved" c_6), and its dropped reserve is found.
TEST(TtgenCheck, CircularBufferOfAHelperParameter) {
  const std::string program =
      "tests/unit/emulator/kernels/sdk/d2_read.cpp tests/unit/ttgen_check/kernels/"
      "cb_object_in_helper.cpp tests/unit/emulator/kernels/dataflow/write_tile.cpp";
  expect_check_golden("cb_object_in_helper", program);
  expect_check_golden("cb_object_in_helper_no_reserve", "-DDROP_OUT_RESERVE " + program);
}

// Device 2.0 kernels (experimental::CircularBuffer and Noc methods) are modelled like the calls
// they wrap: the copy is proved balanced, and a dropped reserve_back is found (it was a vacuous
// proof before).
TEST(TtgenCheck, Device2Kernels) {
  const std::string s = "tests/unit/emulator/kernels/sdk/";
  expect_check_golden("device2_copy", s + "d2_read.cpp " + s + "d2_write.cpp");
  expect_check_golden("device2_drop_reserve",
                      "-DDROP_RESERVE " + s + "d2_read.cpp " + s + "d2_write.cpp");
}

TEST(TtgenCheck, RuntimeArgs) {
  expect_check_golden("arg_never_set",
                      "--runtime-args reader=3 -DARG_NEVER_SET " + kBroken + "reader.cpp");
}

// The CB indices are the architecture's (ArchSpec::num_circular_buffers, tt-metal's
// get_arch_num_circular_buffers): a copy through c_40 is proved on Blackhole (64 CBs) and refused
// on Wormhole (32): one error per kernel, at its first call on c_40, and nothing more about the
// CB (no get_write_ptr/get_read_ptr window error beside it).
TEST(TtgenCheck, CbIndexRangeIsTheArchitectures) {
  const std::string d = "tests/unit/emulator/kernels/dataflow/";
  const std::string copy = d + "read_tile_high_cb.cpp " + d + "write_tile_high_cb.cpp";
  expect_check_golden("cb_index_high_blackhole", "--arch=blackhole " + copy);
  expect_check_golden("cb_index_high_wormhole", copy);
  // The reader's first call on c_40 is get_write_ptr: the error is reported there.
  const std::string first = "tests/unit/ttgen_check/kernels/cb_index_ptr_first.cpp ";
  expect_check_golden("cb_index_high_ptr_first", first + d + "write_tile_high_cb.cpp");
}

// --arch: the checked build is the architecture's (its defines reach the kernel), and the kernels
// generated for the P150 are proved under it.
TEST(TtgenCheck, Architecture) {
  const std::string k = "tests/unit/ttgen_check/kernels/arch_build.cpp";
  EXPECT_EQ(check("-DEXPECT_WORMHOLE " + k).code, 0);
  EXPECT_EQ(check("--arch=wormhole_b0 -DEXPECT_WORMHOLE " + k).code, 0);
  EXPECT_EQ(check("--arch=blackhole -DEXPECT_BLACKHOLE " + k).code, 0);
  EXPECT_EQ(check("-DEXPECT_BLACKHOLE " + k).code, 2); // the n150's build: #error
  EXPECT_EQ(check("--arch=blackhole -DEXPECT_WORMHOLE " + k).code, 2);
  expect_check_golden("usage_bad_arch", "--arch=grayskull " + k);
}

// --sdk DIR parses a kernel against the real headers of a tt-metal source tree, as the JIT of
// --arch builds it: an RV32 target (check/jit.cpp, sdk_jit_target_args), so Blackhole's inline
// assembly (risc_common.h clobbers "t1") parses as Wormhole's does. The generated matmul's reader
// and writer for both architectures (its compute kernel needs sfpi.h, which ships with the SFPI
// toolchain, not the tree: docs/check.md). Needs a tree: $TILEKIT_TT_METAL_DIR.
TEST(TtgenCheck, RealHeadersOfBothArchitectures) {
  const char* sdk = std::getenv("TILEKIT_TT_METAL_DIR");
  if (!sdk || !fs::is_directory(fs::path(sdk) / "tt_metal/hw/inc"))
    GTEST_SKIP() << "set TILEKIT_TT_METAL_DIR to a tt-metal source tree (a8c5af0f5a26 or later) "
                    "to parse the generated kernels against its headers";
  const fs::path out = fs::temp_directory_path() / ("tk_check_sdk_" + std::to_string(getpid()));
  for (const char* arch : {"wormhole_b0", "blackhole"}) {
    const fs::path dir = out / arch;
    const std::string gen = "cd '" + source_dir().string() +
                            "' && '" TTGEN_PATH "' examples/matmul.tk --arch=" + arch + " -o '" +
                            dir.string() + "'";
    ASSERT_EQ(std::system(gen.c_str()), 0) << gen;
    const std::string k = (dir / "kernels/matmul").string();
    const Checked c = check("--sdk '" + std::string(sdk) + "' --arch=" + arch + " " + k +
                            "/reader.cpp " + k + "/writer.cpp");
    EXPECT_EQ(c.code, 0) << arch << '\n' << c.err;
    EXPECT_NE(c.out.find(k + "/reader.cpp: reader\n" + k + "/writer.cpp: writer\n"),
              std::string::npos)
        << arch << '\n'
        << c.out;
    // The whole triple: the compute kernel is checked against the mirror (the tree's LLK headers
    // include the SFPI toolchain's sfpi.h), with a note saying so, and the proof is the mirror's.
    const std::string triple = k + "/reader.cpp " + k + "/compute.cpp " + k + "/writer.cpp";
    const Checked whole = check("--sdk '" + std::string(sdk) + "' --arch=" + arch + " " + triple);
    EXPECT_EQ(whole.code, 0) << arch << '\n' << whole.err;
    EXPECT_EQ(whole.err, "note: " + k +
                             "/compute.cpp: checked against TileKit's mirror of the compute API: "
                             "the LLK headers of --sdk include sfpi.h, which ships with the SFPI "
                             "toolchain, not with the tt-metal tree\n")
        << arch;
    const Checked mirror = check(std::string("--arch=") + arch + " " + triple);
    EXPECT_EQ(mirror.err, "") << arch;
    EXPECT_EQ(whole.out, mirror.out) << arch;
    EXPECT_NE(whole.out.find("ttgen check: proved: no CB or DST protocol bug on any path\n"),
              std::string::npos)
        << arch << '\n'
        << whole.out;
    // A bug in the compute kernel is still found under --sdk: its pack without a reserve.
    std::string compute_text;
    {
      std::ifstream in(k + "/compute.cpp");
      compute_text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    }
    const std::size_t reserve = compute_text.find("cb_reserve_back(");
    ASSERT_NE(reserve, std::string::npos) << arch;
    compute_text.replace(reserve, compute_text.find(';', reserve) + 1 - reserve, ";");
    std::ofstream(dir / "compute_no_reserve.cpp") << compute_text;
    const Checked broken =
        check("--sdk '" + std::string(sdk) + "' --arch=" + arch + " " + k + "/reader.cpp " +
              (dir / "compute_no_reserve.cpp").string() + " " + k + "/writer.cpp");
    EXPECT_EQ(broken.code, 1) << arch << '\n' << broken.err;
    EXPECT_EQ(broken.err.find("note: " + (dir / "compute_no_reserve.cpp").string() +
                              ": checked against TileKit's mirror of the compute API"),
              0u)
        << arch << '\n'
        << broken.err;
    // A kernel named by a relative path (check() runs in the source tree): the generated
    // kernel_includes.hpp, in a directory of its own, includes it by its absolute path.
    const std::string rel = fs::relative(dir / "kernels/matmul/reader.cpp", source_dir()).string();
    ASSERT_TRUE(fs::path(rel).is_relative()) << rel;
    const Checked r = check("--sdk '" + std::string(sdk) + "' --arch=" + arch + " " + rel);
    EXPECT_EQ(r.code, 0) << arch << '\n' << r.err;
    EXPECT_EQ(r.out.find(rel + ": reader\n"), 0u) << arch << '\n' << r.out;
    // The parse's target is the core's: 32-bit pointers and long.
    std::ofstream(dir / "rv32.cpp") << "#include \"api/dataflow/dataflow_api.h\"\n"
                                       "static_assert(sizeof(void*) == 4 && sizeof(long) == 4);\n"
                                       "void kernel_main() { cb_reserve_back(0, 1); "
                                       "cb_push_back(0, 1); }\n";
    EXPECT_EQ(
        check("--sdk '" + std::string(sdk) + "' --arch=" + arch + " " + (dir / "rv32.cpp").string())
            .code,
        0)
        << arch;
    // A data-movement kernel sees the generated chlkc_descriptors.h's sections of its own build
    // (through dataflow_api.h): the unpack and pack tile shapes, not the compute thread's
    // DST_SYNC_MODE, under which TTNN's kernel_lib/dest_helpers.hpp takes its compute branch.
    std::ofstream(dir / "dm_descriptors.cpp")
        << "#include \"api/dataflow/dataflow_api.h\"\n"
           "#if defined(DST_SYNC_MODE) || defined(UCK_CHLKC_MATH)\n"
           "#error \"a data-movement kernel sees the compute thread's descriptors\"\n"
           "#endif\n"
           "static_assert(unpack_tile_size[0] == 2048 && pack_tile_size[31] == 2048);\n"
           "void kernel_main() { cb_reserve_back(0, 1); cb_push_back(0, 1); }\n";
    const Checked dm = check("--sdk '" + std::string(sdk) + "' --arch=" + arch + " " +
                             (dir / "dm_descriptors.cpp").string());
    EXPECT_EQ(dm.code, 0) << arch << '\n' << dm.err;
  }
  fs::remove_all(out);
}

TEST(TtgenCheck, UsageErrors) {
  expect_check_golden("usage_bad_cb", "--cb c_0 " + kProgram);
  expect_check_golden("usage_bad_role", "--runtime-args reeder=2 " + kProgram);
  expect_check_golden("usage_does_not_compile", "-DSYNTAX_ERROR " + kBroken + "reader.cpp");
  expect_check_golden("usage_missing_file", kBroken + "no_such_kernel.cpp");
}

} // namespace
} // namespace tk::test

namespace tk::test {
namespace {
// `text` with mutation `kind` planted at line `line` (1-based), as scripts/ttnn_check.sh plants it:
// a drop_* blanks the line; a swap exchanges it with the next line holding `partner`. Empty when
// there is no partner.
std::string plant(const std::string& text, const std::string& kind, std::size_t line,
                  const std::string& partner) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  for (std::size_t nl; (nl = text.find('\n', start)) != std::string::npos; start = nl + 1)
    lines.push_back(text.substr(start, nl - start));
  if (kind.rfind("drop_", 0) == 0) {
    lines[line - 1].clear();
  } else {
    std::size_t other = line;
    while (other < lines.size() && lines[other].find(partner) == std::string::npos)
      ++other;
    if (other == lines.size())
      return "";
    std::swap(lines[line - 1], lines[other]);
  }
  std::string out;
  for (const std::string& l : lines)
    out += l + "\n";
  return out;
}
} // namespace

// The mutations scripts/ttnn_check.sh plants in TTNN's kernels, planted in a program written here
// (a Device 2.0 reader, a compute kernel on experimental::CircularBuffer, a writer on the dataflow
// API): every dropped reserve, push, wait and pop (call or method) and the swapped
// tile_regs_commit / tile_regs_wait is found (exit 1); the program as written is proved (exit 0).
TEST(TtgenCheck, EveryPlantedMutationIsFound) {
  const std::vector<std::string> files = {"tests/unit/emulator/kernels/sdk/d2_read.cpp",
                                          "tests/unit/emulator/kernels/sdk/d2_compute.cpp",
                                          "tests/unit/emulator/kernels/dataflow/write_tile.cpp"};
  const auto program = [&](std::size_t replaced, const std::string& with) {
    std::string args;
    for (std::size_t i = 0; i < files.size(); ++i)
      args += (i == replaced ? with : files[i]) + " ";
    return args;
  };
  ASSERT_EQ(check(program(files.size(), "")).code, 0);
  // kind, what a line must contain to be a site, the partner of a swap
  const std::vector<std::array<std::string, 3>> kinds = {
      {"drop_reserve", "reserve_back(", ""},
      {"drop_push", "push_back(", ""},
      {"drop_wait", "wait_front(", ""},
      {"drop_pop", "pop_front(", ""},
      {"swap_commit_wait", "tile_regs_commit();", "tile_regs_wait();"}};
  const fs::path dir = fs::temp_directory_path() / ("tk_mutants_" + std::to_string(getpid()));
  int planted = 0;
  for (std::size_t f = 0; f < files.size(); ++f) {
    const std::string text = read_file(source_dir() / files[f]);
    std::size_t line = 0, start = 0;
    for (std::size_t nl; (nl = text.find('\n', start)) != std::string::npos; start = nl + 1) {
      ++line;
      const std::string l = text.substr(start, nl - start);
      if (l.find("//") != std::string::npos && l.find("//") < l.find_first_not_of(" "))
        continue;
      for (const auto& [kind, site, partner] : kinds) {
        if (l.find(site) == std::string::npos || l.find("//") == l.find_first_not_of(" "))
          continue;
        const std::string mutant = plant(text, kind, line, partner);
        if (mutant.empty())
          continue;
        const fs::path out = dir / kind / std::to_string(line) / fs::path(files[f]).filename();
        fs::create_directories(out.parent_path());
        std::ofstream(out) << mutant;
        const Checked c = check(program(f, out.string()));
        EXPECT_EQ(c.code, 1) << kind << " at " << files[f] << ":" << line << '\n' << c.err;
        ++planted;
      }
    }
  }
  fs::remove_all(dir);
  EXPECT_EQ(planted, 9); // the reader's reserve and push, the compute kernel's 5, the writer's 2
}
} // namespace tk::test
