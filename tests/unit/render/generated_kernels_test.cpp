// The checked-in generated TT kernels (generated/<example>/kernels/<K>/*.cpp) parsed with Clang
// LibTooling against the emulator's SDK-mirror headers, the way the SDK's JIT wraps them: every
// kernel compiles with -Wall and no diagnostic at all (the SDK builds kernels with -Wall -Werror),
// and the data-movement kernels call only functions of the pinned dataflow API
// (docs/tt_metal.md §3.4) or functions defined in the kernel file itself.
#include "check/frontend.hpp"
#include "check/jit.hpp"

#include <clang/AST/RecursiveASTVisitor.h>
#include <clang/Basic/SourceManager.h>
#include <clang/Frontend/ASTUnit.h>
#include <clang/Frontend/TextDiagnosticPrinter.h>
#include <clang/Tooling/Tooling.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <unistd.h>
#include <vector>

namespace {

namespace fs = std::filesystem;

// docs/tt_metal.md §3.4 (tt-metal's api/dataflow/dataflow_api.h, dataflow_api_addrgen.h,
// api/tensor/tensor_accessor.h): the functions a data-movement kernel may call.
const std::set<std::string> kDataflowApi = {
    // arguments, §1.2 (get_compile_time_arg_val is the SDK's macro over get_ct_arg)
    "get_arg_val", "get_common_arg_val", "get_ct_arg",
    // circular buffers, §2.2
    "cb_reserve_back", "cb_push_back", "cb_wait_front", "cb_pop_front",
    "cb_pages_reservable_at_back", "cb_pages_available_at_front", "get_write_ptr", "get_read_ptr",
    "get_tile_size", "get_dataformat", "get_tile_hw", "get_tile_num_faces",
    // NoC transfers, barriers, multicast and semaphores, §3.3
    "noc_async_read", "noc_async_write", "noc_async_read_page", "noc_async_write_page",
    "noc_async_read_barrier", "noc_async_write_barrier", "noc_async_writes_flushed",
    "noc_async_full_barrier", "noc_async_atomic_barrier", "noc_async_write_multicast",
    "get_semaphore", "noc_semaphore_wait", "noc_semaphore_wait_min", "noc_semaphore_set",
    "noc_semaphore_set_multicast", "noc_semaphore_inc",
    // addresses
    "get_noc_addr", "get_noc_multicast_addr",
    // TensorAccessor / TensorAccessorArgs members, §3.2
    "TensorAccessorArgs::next_compile_time_args_offset", "TensorAccessor::get_noc_addr",
    "TensorAccessor::get_aligned_page_size", "TensorAccessor::get_shard_noc_addr",
    "TensorAccessor::is_local_page",
    // the C++ standard library's <algorithm>: a block's rows and columns inside the tensor
    "std::min", "std::max"};

struct Parsed {
  std::unique_ptr<clang::ASTUnit> ast;
  std::string diagnostics; // every diagnostic, one per line
};

// The translation unit the SDK's JIT builds around a kernel (check/frontend.hpp, shared with
// ttgen check), compiled with the SDK's warnings.
Parsed parse_kernel(const fs::path& kernel, bool compute) {
  const std::string code = tk::check::jit_translation_unit(kernel.string(), compute);
  std::vector<std::string> args = {
      "-std=c++17", "-fsyntax-only", "-Wall", "-Wextra", "-Wno-unused-parameter",
      // The JIT's descriptors (MATH_FIDELITY, APPROX, ...) are a
      // generated header in the SDK, where clang does not warn about
      // an unused constant; jit_translation_unit writes them into the
      // wrapper itself. The kernel files are included, so this
      // warning never applied to them.
      "-Wno-unused-const-variable", "-Werror=deprecated-declarations", "-resource-dir",
      TILEKIT_CLANG_RESOURCE_DIR, "-I" TK_EMULATOR_INCLUDE_DIR};
  for (const std::string& d : tk::check::jit_defines(compute))
    args.push_back("-D" + d);
  Parsed out;
  std::string diag_text;
  llvm::raw_string_ostream diag_os(diag_text);
  auto opts = llvm::makeIntrusiveRefCnt<clang::DiagnosticOptions>();
  clang::TextDiagnosticPrinter printer(diag_os, opts.get());
  out.ast = clang::tooling::buildASTFromCodeWithArgs(
      code, args, "tk_kernel_wrapper.cpp", "tilekit-kernel-check",
      std::make_shared<clang::PCHContainerOperations>(),
      clang::tooling::getClangStripDependencyFileAdjuster(), clang::tooling::FileContentMappings(),
      &printer);
  diag_os.flush();
  out.diagnostics = diag_text;
  return out;
}

// Qualified names of the functions called in `file` (not in the headers it includes), with whether
// each callee is defined in that same file.
struct Callees : clang::RecursiveASTVisitor<Callees> {
  clang::SourceManager& sm;
  std::string file;
  std::set<std::string> sdk, local;
  Callees(clang::SourceManager& s, std::string f) : sm(s), file(std::move(f)) {}
  bool in_file(clang::SourceLocation loc) const {
    loc = sm.getExpansionLoc(loc);
    return loc.isValid() && sm.getFilename(loc) == file;
  }
  bool VisitCallExpr(clang::CallExpr* call) {
    if (!in_file(call->getBeginLoc()))
      return true;
    const clang::FunctionDecl* fn = call->getDirectCallee();
    std::string name = fn ? fn->getQualifiedNameAsString() : "<indirect call>";
    // A member of a class template instance is named by the template: TensorAccessorArgs::f.
    if (const auto* m = llvm::dyn_cast_or_null<clang::CXXMethodDecl>(fn))
      name = m->getParent()->getQualifiedNameAsString() + "::" + m->getNameAsString();
    const clang::FunctionDecl* def = fn ? fn->getDefinition() : nullptr;
    (def && in_file(def->getLocation()) ? local : sdk).insert(name);
    return true;
  }
};

std::vector<fs::path> generated_kernels(const std::string& role) {
  std::vector<fs::path> out;
  for (const auto& e : fs::recursive_directory_iterator(fs::path(TK_SOURCE_DIR) / "generated"))
    if (e.is_regular_file() && e.path().filename() == role + ".cpp" &&
        e.path().parent_path().parent_path().filename() == "kernels")
      out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

// Calls outside the allowlist in one data-movement kernel ("" when there are none).
std::string disallowed_calls(const fs::path& kernel) {
  Parsed p = parse_kernel(kernel, false);
  if (!p.ast || p.ast->getDiagnostics().hasErrorOccurred())
    return "does not compile:\n" + p.diagnostics;
  Callees v(p.ast->getSourceManager(), kernel.string());
  v.TraverseDecl(p.ast->getASTContext().getTranslationUnitDecl());
  std::string bad;
  for (const std::string& name : v.sdk)
    if (!kDataflowApi.count(name))
      bad += (bad.empty() ? "" : ", ") + name;
  if (v.sdk.empty())
    return "calls nothing: the visitor saw no call (wrong file filter?)";
  return bad;
}

// One program per example, two for a whole-tensor reduction (kernels/<K>/ and
// kernels/<K>_combine/), each with its reader, compute and writer.
TEST(GeneratedKernels, EveryExampleHasItsThreeKernels) {
  std::size_t programs = 0, examples = 0;
  for (const auto& e : fs::directory_iterator(fs::path(TK_SOURCE_DIR) / "examples")) {
    if (e.path().extension() != ".tk")
      continue;
    ++examples;
    const fs::path dir = fs::path(TK_SOURCE_DIR) / "generated" / e.path().stem() / "kernels";
    EXPECT_TRUE(fs::is_directory(dir / e.path().stem())) << dir;
    for (const auto& k : fs::directory_iterator(dir))
      programs += k.is_directory();
  }
  ASSERT_GE(examples, 9u);
  EXPECT_GT(programs, examples); // tensor_max has a combine program
  EXPECT_EQ(generated_kernels("reader").size(), programs);
  EXPECT_EQ(generated_kernels("compute").size(), programs);
  EXPECT_EQ(generated_kernels("writer").size(), programs);
}

TEST(GeneratedKernels, CompileWithoutAnyDiagnostic) {
  for (const char* role : {"reader", "compute", "writer"})
    for (const fs::path& k : generated_kernels(role)) {
      Parsed p = parse_kernel(k, std::string(role) == "compute");
      ASSERT_TRUE(p.ast) << k;
      EXPECT_EQ(p.diagnostics, "") << k;
    }
}

TEST(GeneratedKernels, DataMovementCallsOnlyTheDataflowApi) {
  for (const char* role : {"reader", "writer"})
    for (const fs::path& k : generated_kernels(role))
      EXPECT_EQ(disallowed_calls(k), "") << k;
}

// The check itself: a kernel calling the emulator's own entry point (named like the SDK's
// cb_pop_front, but not it), memcpy, and a helper it defines is flagged for the first two only.
TEST(GeneratedKernels, AllowlistCheckFlagsForeignCalls) {
  fs::path dir = fs::temp_directory_path() / ("tk_kernel_check_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  fs::path k = dir / "reader.cpp";
  std::ofstream(k) << "#include <cstring>\n#include \"api/dataflow/dataflow_api.h\"\n"
                      "static void helper(uint32_t a) { cb_push_back(0, a); }\n"
                      "void kernel_main() {\n"
                      "  const uint32_t n = get_arg_val<uint32_t>(0);\n"
                      "  cb_reserve_back(0, n);\n"
                      "  helper(n);\n"
                      "  uint32_t x = 0, y = n;\n"
                      "  std::memcpy(&x, &y, 4);\n"
                      "  tk::rt::emu::cb_pop_front(0, x);\n"
                      "}\n";
  EXPECT_EQ(disallowed_calls(k), "memcpy, tk::rt::emu::cb_pop_front");
  fs::remove_all(dir);
}

// ttgen check --sdk builds a kernel as the JIT of its architecture does: the HAL's folders
// (tt_metal/llrt/hal/tt-1xx/wormhole/wh_hal.cpp, blackhole/bh_hal.cpp, includes()) and its PCIe
// core (tt_metal/tools/precompile_fw/precompile_fw.cpp, pcie_core_map), from arch/.
TEST(GeneratedKernels, SdkJitIncludesAndDefinesFollowTheArchitecture) {
  auto under = [](const std::vector<std::string>& dirs) {
    std::vector<std::string> out;
    for (const std::string& d : dirs)
      if (d.rfind("R/tt_metal/hw/ckernels/", 0) == 0 ||
          d.rfind("R/tt_metal/tt-llk/tt_llk", 0) == 0 ||
          d.rfind("R/tt_metal/hw/inc/internal/tt-1xx/", 0) == 0)
        out.push_back(d.substr(2));
    return out;
  };
  EXPECT_EQ(under(tk::check::sdk_jit_includes("R", tk::arch::kBlackhole)),
            (std::vector<std::string>{"tt_metal/hw/ckernels/blackhole/metal/common",
                                      "tt_metal/hw/ckernels/blackhole/metal/llk_io",
                                      "tt_metal/hw/inc/internal/tt-1xx/blackhole",
                                      "tt_metal/hw/inc/internal/tt-1xx/blackhole/blackhole_defines",
                                      "tt_metal/hw/inc/internal/tt-1xx/blackhole/noc",
                                      "tt_metal/tt-llk/tt_llk_blackhole/common/inc",
                                      "tt_metal/tt-llk/tt_llk_blackhole/llk_lib"}));
  EXPECT_EQ(
      under(tk::check::sdk_jit_includes("R", tk::arch::kWormholeB0)),
      (std::vector<std::string>{"tt_metal/hw/ckernels/wormhole_b0/metal/common",
                                "tt_metal/hw/ckernels/wormhole_b0/metal/llk_io",
                                "tt_metal/hw/inc/internal/tt-1xx/wormhole",
                                "tt_metal/hw/inc/internal/tt-1xx/wormhole/wormhole_b0_defines",
                                "tt_metal/hw/inc/internal/tt-1xx/wormhole/noc",
                                "tt_metal/tt-llk/tt_llk_wormhole_b0/common/inc",
                                "tt_metal/tt-llk/tt_llk_wormhole_b0/llk_lib"}));
  auto has = [](const std::vector<std::string>& v, const std::string& x) {
    return std::find(v.begin(), v.end(), x) != v.end();
  };
  const std::vector<std::string> bh = tk::check::sdk_jit_defines(tk::arch::kBlackhole);
  EXPECT_TRUE(has(bh, "PCIE_NOC_X=19") && has(bh, "PCIE_NOC_Y=24") && has(bh, "NUM_L1_BANKS=130") &&
              has(bh, "LOG_BASE_2_OF_NUM_DRAM_BANKS=3"));
  const std::vector<std::string> wh = tk::check::sdk_jit_defines(tk::arch::kWormholeB0);
  EXPECT_TRUE(has(wh, "PCIE_NOC_X=0") && has(wh, "PCIE_NOC_Y=3") && has(wh, "NUM_L1_BANKS=64") &&
              has(wh, "IS_NOT_POW2_NUM_DRAM_BANKS=1"));
}

} // namespace
