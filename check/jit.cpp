// How the SDK's JIT builds a Tensix kernel, as far as `ttgen check` needs it to parse one the same
// way: the translation unit around the kernel, the macros it defines, its include list under a
// tt-metal tree (--sdk) and the generated descriptor header of the math thread. Each fact cites
// the tt-metal file it comes from.
#include "check/jit.hpp"

#include "runtime/tt/include/tk_emulator/chlkc_descriptors.hpp"

#include <bit>

namespace tk::check {

std::string jit_translation_unit(const std::string& kernel_include, bool compute,
                                 bool fp32_dest_acc, const arch::ArchSpec& a) {
  std::string code = "#include <cstdint>\n#define DATA_FORMATS_DEFINED 1\n";
  // Float16_b (5) tiles of 2048 bytes in every CB, MathFidelity::HiFi4 (ComputeConfig's
  // default), half-sync.
  code += rt::emu::chlkc_descriptors(
      std::vector<rt::emu::CbDescriptor>(a.num_circular_buffers, {5, 2048}), compute, fp32_dest_acc,
      false, 4, false);
  // As the firmware build: the dataflow API before a data-movement kernel
  // (tt_metal/hw/firmware/src/tt-1xx/brisck.cc, ncrisck.cc).
  code += compute ? "#include \"api/compute/common.h\"\nusing namespace ckernel;\n"
                  : "#include \"api/dataflow/dataflow_api.h\"\n";
  return code + "#include \"" + kernel_include + "\"\n";
}

std::vector<std::string>
jit_defines(bool compute, const arch::ArchSpec& a,
            const std::optional<std::vector<std::uint32_t>>& compile_args) {
  // The host's compile-time args as the JIT defines them (tt_metal/jit_build/build.cpp:
  // "-DKERNEL_COMPILE_TIME_ARGS={}" with the values joined by ','); without them, placeholder
  // TensorAccessorArgs words (two per interleaved accessor), and ttgen check makes every count
  // that depends on a compile-time argument a symbol, never one of these values.
  std::string ct = "KERNEL_COMPILE_TIME_ARGS=";
  if (compile_args) {
    for (std::size_t i = 0; i < compile_args->size(); ++i)
      ct += (i ? "," : "") + std::to_string((*compile_args)[i]);
  } else {
    ct += "2,2048,2,2048,2,2048,2,2048,2,2048,2,2048,2,2048,2,2048,2,2048,2,2048,2,2048,2,2048,2,"
          "2048,2,2048,2,2048,2,2048";
  }
  return {"KERNEL_BUILD",
          "TENSIX_FIRMWARE",
          "TK_CHECK_PLACEHOLDER_NAMED_ARGS",
          std::string(a.firmware_define),
          "NUM_DRAM_BANKS=" + std::to_string(a.dram_banks),
          "NOC_MODE=0",
          "NOC_INDEX=0",
          ct,
          compute ? "COMPILE_FOR_TRISC=1" : "COMPILE_FOR_NCRISC"};
}

std::vector<std::string> sdk_jit_includes(const std::string& root, const arch::ArchSpec& a) {
  const std::string ck = "tt_metal/hw/ckernels/" + std::string(a.jit_ckernels) + "/metal/";
  const std::string inc = "tt_metal/hw/inc/internal/tt-1xx/" + std::string(a.jit_inc);
  const std::string llk = "tt_metal/tt-llk/" + std::string(a.jit_llk);
  std::vector<std::string> rel = {"",
                                  "ttnn",
                                  "ttnn/cpp",
                                  "tt_metal",
                                  "tt_metal/hw/inc",
                                  "tt_metal/tt-llk/common",
                                  "tt_metal/hostdevcommon/api",
                                  "tt_metal/api",
                                  ck + "common",
                                  ck + "llk_io",
                                  "tt_metal/hw/inc/internal/tt-1xx",
                                  inc,
                                  inc + "/" + std::string(a.jit_inc_defines),
                                  inc + "/noc",
                                  llk + "/common/inc",
                                  llk + "/llk_lib"};
  rel.push_back("tt_metal/hw/firmware/src/tt-1xx");
  std::vector<std::string> dirs;
  for (const std::string& r : rel)
    dirs.push_back(r.empty() ? root : root + "/" + r);
  return dirs;
}

std::vector<std::string> sdk_jit_defines(const arch::ArchSpec& a) {
  const auto pow2 = [](std::uint32_t n) { return n != 0 && (n & (n - 1)) == 0; };
  const auto log2 = [](std::uint32_t n) { return std::to_string(std::bit_width(n) - 1); };
  const std::uint32_t l1_banks = a.num_workers();
  std::vector<std::string> d = {"LOCAL_MEM_EN=0", "NUM_L1_BANKS=" + std::to_string(l1_banks),
                                // The board's PCIe core (arch/: ArchSpec::jit_pcie_core).
                                "PCIE_NOC_X=" + std::to_string(a.jit_pcie_core.x),
                                "PCIE_NOC_Y=" + std::to_string(a.jit_pcie_core.y),
                                // BRISC 0, NCRISC 1, TRISC0..2 2..4 (hw/inc/hostdev/dev_msgs.h).
                                "PROCESSOR_INDEX=1",
                                // A dispatch stream register's address (build.cpp); only its
                                // presence matters to a syntax-level check.
                                "DISPATCH_MESSAGE_ADDR=0"};
  d.push_back(pow2(a.dram_banks) ? "LOG_BASE_2_OF_NUM_DRAM_BANKS=" + log2(a.dram_banks)
                                 : "IS_NOT_POW2_NUM_DRAM_BANKS=1");
  d.push_back(pow2(l1_banks) ? "LOG_BASE_2_OF_NUM_L1_BANKS=" + log2(l1_banks)
                             : "IS_NOT_POW2_NUM_L1_BANKS=1");
  return d;
}

std::vector<std::string> sdk_jit_target_args() {
  // The JIT's compiler is the SFPI toolchain's riscv-tt-elf-g++ (tt_metal/jit_build/build.cpp,
  // BuildEnv::init), with -mcpu=tt-wh-tensix or -mcpu=tt-bh-tensix for a Tensix kernel
  // (tt_metal/llrt/hal/tt-1xx/wormhole/wh_hal.cpp, blackhole/bh_hal.cpp, common_flags): an RV32
  // core. clang has no Tenstorrent CPU, so the parse takes its generic RV32 one: the target sets
  // the type sizes the headers are written for (they cast pointers to uint32_t) and the register
  // names inline assembly may clobber (Blackhole's risc_common.h, set_l1_data_cache: "t1"),
  // which the host target rejects. Given to the compiler proper (-Xclang) after the driver's own
  // -triple, so the driver keeps the host's header search (libstdc++, glibc) and the last -triple
  // wins.
  std::vector<std::string> args;
  for (const char* a : {"-triple", "riscv32-unknown-elf", "-target-cpu", "generic-rv32"}) {
    args.push_back("-Xclang");
    args.push_back(a);
  }
  return args;
}

// The JIT's generated chlkc_descriptors.h for a kernel whose CBs (a.num_circular_buffers, as
// genfiles.cpp sizes the arrays by the HAL's get_arch_num_circular_buffers) hold bfloat16 32x32
// tiles, with
// its sections under their guards (tt_metal/jit_build/genfiles.cpp generate_all_descriptors): the
// math scalars for the math thread, the unpack formats and tile shapes unless packing, the pack
// ones unless math or unpack, the compute scalars (DST_SYNC_MODE) for a compute thread only. A
// data-movement kernel reaches it through dataflow_api.h (`__has_include("chlkc_descriptors.h")`)
// and must not see DST_SYNC_MODE: TTNN's kernel_lib/dest_helpers.hpp then takes the compute
// branch (`DST_SYNC_MODE == DstSync::SyncFull`), which does not compile outside ckernel.
std::string sdk_chlkc_descriptors(const arch::ArchSpec& a) {
  const std::string n = std::to_string(a.num_circular_buffers);
  std::string d = "#pragma once\n#if defined(UCK_CHLKC_MATH)\n#include \"llk_defs.h\"\n"
                  "constexpr ckernel::MathFidelity MATH_FIDELITY = "
                  "static_cast<ckernel::MathFidelity>(4);\nconstexpr bool APPROX = false;\n"
                  "#endif\n";
  const auto array = [&](const char* type, const char* name, int value) {
    d += std::string(type) + " " + name + "[" + n + "] = {";
    for (std::uint32_t i = 0; i < a.num_circular_buffers; ++i)
      d += std::to_string(value) + (i + 1 < a.num_circular_buffers ? "," : "};\n");
  };
  const auto tile_dims = [&](const std::string& p) {
    array("constexpr uint8_t", (p + "tile_num_faces").c_str(), 4);
    array("constexpr uint8_t", (p + "partial_face").c_str(), 0);
    array("constexpr uint8_t", (p + "tile_face_r_dim").c_str(), 16);
    array("constexpr uint8_t", (p + "narrow_tile").c_str(), 0);
    array("constexpr uint8_t", (p + "tile_r_dim").c_str(), 32);
    array("constexpr uint8_t", (p + "tile_c_dim").c_str(), 32);
    array("constexpr uint16_t", (p + "tile_size").c_str(), 2048);
    array("constexpr uint8_t", (p + "num_faces_r_dim").c_str(), 2);
    array("constexpr uint8_t", (p + "num_faces_c_dim").c_str(), 2);
  };
  d += "#if !defined(UCK_CHLKC_PACK)\n";
  array("constexpr std::int32_t", "unpack_src_format", 5); // DataFormat::Float16_b
  array("constexpr std::int32_t", "unpack_dst_format", 5);
  tile_dims("unpack_");
  d += "#endif\n#if !defined(UCK_CHLKC_MATH) && !defined(UCK_CHLKC_UNPACK)\n";
  array("constexpr unsigned char", "pack_src_format", 5);
  array("constexpr unsigned char", "pack_dst_format", 5);
  tile_dims("pack_");
  d += "#if defined(UCK_CHLKC_PACK)\n";
  array("constexpr std::int32_t", "unpack_src_format", 5);
  d += "#endif\n#endif\n";
  return d + "#if defined(UCK_CHLKC_MATH) || defined(UCK_CHLKC_PACK) || defined(UCK_CHLKC_UNPACK) "
             "|| defined(UCK_CHLKC_ISOLATE_SFPU)\nconstexpr bool DST_ACCUM_MODE = false;\n"
             "#define DST_SYNC_MODE DstSync::SyncHalf\n#endif\n";
}

} // namespace tk::check
