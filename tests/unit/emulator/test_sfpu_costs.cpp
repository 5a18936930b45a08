// The SFPU calls' costs (arch/wormhole_b0.hpp, kWormholeB0SfpuCosts; docs/timing.md, "SFPU
// calls"): each entry is the figure its source states, worked out again here from the source's
// numbers, and the emulator charges a call exactly its entry for the kernel's DST format.
#include <cmath>
#include <optional>
#include <stdexcept>
#include <string>

#include <tk_emulator/emulator.hpp>
#include <tk_emulator/timing_params.hpp>

#include "arch/blackhole.hpp"
#include "arch/wormhole_b0.hpp"
#include "ops/ops.hpp"

#include "emu_program.hpp"

namespace {
using namespace tk::test;
namespace emu = tk::rt::emu;
namespace timing = tk::rt::emu::timing;

struct Timed {
  Timed() { emu::set_timing(true); }
  ~Timed() { emu::set_timing(std::nullopt); }
};

// tt-llk's frame around an SFPU call: 4 faces of 8 rows of 32 lanes, two SETRWCs a face, and the
// start's and the done's 6 instructions.
constexpr double kRows = 32, kFrame = 4 * 2 + 6;

const tk::arch::SfpuCost& entry(std::string_view call) {
  for (const tk::arch::SfpuCost& c : tk::arch::kWormholeB0.sfpu_tile)
    if (c.call == call)
      return c;
  throw std::logic_error("no SFPU cost entry for " + std::string(call));
}

std::string init_templ(const std::string& templ) {
  if (templ.empty())
    return "";
  return templ.find("InputClamping::None") == std::string::npos
             ? "<true>"
             : "<true, 0x3F800000u, InputClamping::None>";
}

// The compute kernel's unpack/math cycles charged to `call` when `op` (its call with the template
// arguments `templ`, its init with <true> when there are any, and the clamping they name) runs on
// `n` tiles through eltwise_sfpu.cpp (copy_tile, the op, pack_tile) with an fp32 DST or a 16-bit
// one.
double unary_cycles(const std::string& op, const std::string& args, bool fp32, std::uint32_t n,
                    const std::string& call, const std::string& templ = "", bool approx = false) {
  Timed timed;
  ProgramBuilder p;
  auto src = p.dram(random_bf16(n * 1024, -2.0f, 2.0f, 31));
  auto dst = p.dram(n);
  p.cb(tt::CBIndex::c_0, 2);
  p.cb(tt::CBIndex::c_16, 2);
  auto r = p.reader("dataflow/read_tile.cpp", {src});
  auto w = p.writer("dataflow/write_tile.cpp", {dst});
  auto k =
      p.compute("compute/eltwise_sfpu.cpp",
                ComputeConfig{.fp32_dest_acc_en = fp32,
                              .math_approx_mode = approx,
                              .defines = {{"SFPU_OP_INIT", op + "_tile_init" + init_templ(templ)},
                                          {"SFPU_OP", op + "_tile" + templ},
                                          {"SFPU_OP_ARGS", args}}});
  SetRuntimeArgs(p.program, r, CoreCoord{0, 0}, {p.addr(src), n});
  SetRuntimeArgs(p.program, w, CoreCoord{0, 0}, {p.addr(dst), n, 0u});
  SetRuntimeArgs(p.program, k, CoreCoord{0, 0}, {n});
  p.run();
  const auto& t = emu::last_timing();
  if (!t || t->kernels.size() != 3)
    throw std::logic_error("no timing of the three kernels");
  return t->kernels[2].busy_by.at(call);
}

// The same for a DST op DST call through binary_sfpu.cpp.
double binary_cycles(const std::string& op, bool fp32, std::uint32_t n,
                     const std::string& args = "") {
  Timed timed;
  ProgramBuilder p;
  auto a = p.dram(random_bf16(n * 1024, -2.0f, 2.0f, 32));
  auto b = p.dram(random_bf16(n * 1024, -2.0f, 2.0f, 33));
  auto dst = p.dram(n);
  for (auto cb : {tt::CBIndex::c_0, tt::CBIndex::c_1, tt::CBIndex::c_16})
    p.cb(cb, 2);
  auto r = p.reader("dataflow/read_tiles.cpp", {a, b});
  auto w = p.writer("dataflow/write_tile.cpp", {dst});
  auto k = p.compute("compute/binary_sfpu.cpp",
                     ComputeConfig{.fp32_dest_acc_en = fp32,
                                   .defines = {{"SFPU_BINARY_INIT", op + "_tile_init"},
                                               {"SFPU_BINARY_OP", op + "_tile"},
                                               {"SFPU_BINARY_ARGS", args}}});
  SetRuntimeArgs(p.program, r, CoreCoord{0, 0}, {p.addr(a), p.addr(b), n});
  SetRuntimeArgs(p.program, w, CoreCoord{0, 0}, {p.addr(dst), n, 0u});
  SetRuntimeArgs(p.program, k, CoreCoord{0, 0}, {n});
  p.run();
  const auto& t = emu::last_timing();
  if (!t || t->kernels.size() != 3)
    throw std::logic_error("no timing of the three kernels");
  return t->kernels[2].busy_by.at(op + "_tile");
}
} // namespace

// Each figure is its source's numbers: exp with an fp32 DST 73 cycles a row (tt-metal PR #45642)
// in tt-llk's frame; with a 16-bit one the 1161 a tile PR #32968 measured; the others the
// instructions a row counted in the tt-llk kernel, plus what each face loads.
TEST(SfpuCosts, EachFigureIsItsSourcesNumbers) {
  const auto fp32 = [](std::string_view c) { return entry(c).fp32_dst.value; };
  const auto bf16 = [](std::string_view c) { return entry(c).bf16_dst.value; };
  EXPECT_EQ(fp32("exp"), 73 * kRows + kFrame);
  EXPECT_EQ(bf16("exp"), 1161);
  for (std::string_view c : {"add_binary", "sub_binary"}) {
    EXPECT_EQ(fp32(c), 6 * kRows + kFrame) << c;
    EXPECT_EQ(bf16(c), 6 * kRows + kFrame) << c;
  }
  EXPECT_EQ(fp32("mul_binary"), 6 * kRows + kFrame);
  EXPECT_EQ(bf16("mul_binary"), (6 + 9 + 9) * kRows + kFrame);
  for (std::string_view c : {"add_unary", "sub_unary", "mul_unary", "div_unary", "rsub_unary"}) {
    EXPECT_EQ(fp32(c), 5 * kRows + kFrame + 4 * 2) << c;
    EXPECT_EQ(bf16(c), fp32(c)) << c;
  }
  EXPECT_EQ(fp32("exp_approx"), 311.5);
  EXPECT_EQ(bf16("exp_approx"), 189.4);
  EXPECT_EQ(fp32("exp_approx_noclamp"), 4 * 20 + kFrame);
  EXPECT_EQ(fp32("exp_approx_noclamp_32"), 68 + 6);
  EXPECT_EQ(fp32("fill"), 2 * kRows + kFrame + 4 * 2);
  EXPECT_EQ(fp32("where"), 3 * kRows + kFrame + 4 * 4);
  EXPECT_EQ(fp32("square"), 5 * kRows + kFrame);
  EXPECT_EQ(fp32("relu"), 6 * kRows + kFrame + 4 * 2);
  // recip: PR #54938's 139707 cycles for 8 tiles x 16 loops with a 16-bit DST; the fp32 DST's
  // kernel without float_to_fp16b (9 a row), APPROX's also without a Newton step (4 a row).
  EXPECT_EQ(bf16("recip"), std::round(139707.0 / (8 * 16)));
  EXPECT_EQ(fp32("recip"), bf16("recip") - 9 * kRows);
  EXPECT_EQ(fp32("recip_approx"), bf16("recip") - (9 + 4) * kRows);
  EXPECT_EQ(bf16("recip_approx"), fp32("recip_approx"));
  // rsqrt and sqrt: PR #54317's compiled issue slots a row.
  EXPECT_EQ(fp32("rsqrt"), 31 * kRows + kFrame);
  EXPECT_EQ(bf16("rsqrt"), 32 * kRows + kFrame);
  EXPECT_EQ(fp32("sqrt"), 27 * kRows + kFrame);
  EXPECT_EQ(bf16("sqrt"), 28 * kRows + kFrame);
  // binary_max/min: 3 SFPLOADMACRO-paced instructions a row and 3 SFPNOPs a face.
  for (std::string_view c : {"binary_max", "binary_min"}) {
    EXPECT_EQ(fp32(c), 4 * (8 * 3 + 3) + kFrame) << c;
    EXPECT_EQ(bf16(c), fp32(c)) << c;
  }
  // PR #48925's per-tile cycles (16-bit DST) and what the fp32 DST's kernels change.
  EXPECT_EQ(bf16("silu"), 1432.0);
  EXPECT_EQ(bf16("sigmoid"), 1432.0 - 2 * kRows);
  EXPECT_EQ(fp32("sigmoid"), (73 + 21 + 2 + 3) * kRows + kFrame);
  EXPECT_EQ(fp32("silu"), fp32("sigmoid") + 2 * kRows);
  EXPECT_EQ(bf16("tanh"), 792);
  EXPECT_EQ(bf16("exp2"), 860.1);
  EXPECT_EQ(fp32("exp2"), fp32("exp") + 2 * kRows);
  EXPECT_EQ(bf16("sin"), 894.0);
  EXPECT_EQ(fp32("sin"), 894.0 + (2 - 9) * kRows);
  EXPECT_EQ(fp32("cos"), 1021.7 + (2 - 9) * kRows);
  EXPECT_EQ(fp32("floor"), 567.8);
  // PR #54938's cycles for 8 tiles x 16 loops.
  EXPECT_NEAR(bf16("hardsigmoid"), 61883.0 / (8 * 16), 0.05);
  EXPECT_NEAR(bf16("softplus"), 198231.0 / (8 * 16), 0.05);
  EXPECT_NEAR(fp32("softplus"), 198231.0 / (8 * 16) - 9 * kRows, 0.05);
  EXPECT_EQ(fp32("abs"), 4 * kRows + kFrame);
  EXPECT_EQ(fp32("negative"), 4 * kRows + kFrame);
  // Every entry names its source: a published measurement or a count, never an assumption.
  for (const tk::arch::SfpuCost& c : tk::arch::kWormholeB0.sfpu_tile) {
    EXPECT_FALSE(c.call.ends_with("_tile")) << c.call; // the lookup strips a `_tile`
    for (const tk::arch::Param* p : {&c.fp32_dst, &c.bf16_dst}) {
      EXPECT_TRUE(p->source.find("PR #") != std::string_view::npos ||
                  p->source.starts_with("count"))
          << c.call << ": " << p->source;
      EXPECT_EQ(p->source.find("assumption"), std::string_view::npos) << c.call;
      EXPECT_GT(p->value, 0) << c.call;
    }
  }
  // Blackhole's are Wormhole's (an assumption, stated in arch/blackhole.hpp).
  EXPECT_EQ(tk::arch::kBlackhole.sfpu_tile.data(), tk::arch::kWormholeB0.sfpu_tile.data());
}

// sfpu_tile_cycles reads the entry for the DST format, with or without `_tile`; a call without an
// entry (none that is emitted: below) costs the assumed sfpu_simple_tile.
TEST(SfpuCosts, LookupByNameAndDstFormat) {
  const tk::arch::ArchSpec& a = tk::arch::kWormholeB0;
  EXPECT_EQ(timing::sfpu_tile_cycles(a, "exp", true), 2350);
  EXPECT_EQ(timing::sfpu_tile_cycles(a, "exp", false), 1161);
  EXPECT_EQ(timing::sfpu_tile_cycles(a, "mul_binary_tile", true), 206);
  EXPECT_EQ(timing::sfpu_tile_cycles(a, "mul_binary_tile", false), 782);
  EXPECT_EQ(timing::sfpu_tile_cycles(a, "where_tile", true), 126);
  EXPECT_EQ(timing::sfpu_tile_cycles(a, "log", true), 3086);
  EXPECT_EQ(timing::sfpu_tile_cycles(a, "log_tile", false), 1902);
  EXPECT_EQ(timing::sfpu_tile_cycles(a, "relu_max", false), a.sfpu_simple_tile.value);
  EXPECT_EQ(timing::tile_op_cycles(a, timing::TileOp::Sfpu, 4, 0, "fill_tile", true), 86);
}

// The emulator charges 3 exp tiles 3 x the entry for the kernel's DST format, and so for
// mul_binary_tile; relu_tile and add_binary_tile, whose kernels are the same either way, the same.
TEST(SfpuCosts, EmulatorChargesTheEntryForTheKernelsDst) {
  EXPECT_NEAR(unary_cycles("exp", "", true, 3, "exp"), 3 * 2350.0, 1e-9);
  EXPECT_NEAR(unary_cycles("exp", "", false, 3, "exp"), 3 * 1161.0, 1e-9);
  EXPECT_NEAR(unary_cycles("relu", "", false, 3, "relu"), 3 * 214.0, 1e-9);
  EXPECT_NEAR(binary_cycles("mul_binary", true, 3), 3 * 206.0, 1e-9);
  EXPECT_NEAR(binary_cycles("mul_binary", false, 3), 3 * 782.0, 1e-9);
  EXPECT_NEAR(binary_cycles("add_binary", false, 3), 3 * 206.0, 1e-9);
}

// exp_tile<true> is timed as the approximate kernel its template arguments select (the values are
// its own: test_exp_approx.cpp): clamped, unclamped over 8 rows a face, unclamped over the whole
// tile with VectorMode::None as ttnn's SDPA calls it; an unclamped 32-row call on VectorMode::RC is
// refused.
TEST(SfpuCosts, ApproximateExpIsTimedAsItsKernel) {
  EXPECT_NEAR(unary_cycles("exp", "", true, 2, "exp"), 2 * 2350.0, 1e-9);
  EXPECT_NEAR(unary_cycles("exp", "", true, 2, "exp_approx", "<true>"), 2 * 311.5, 1e-9);
  EXPECT_NEAR(unary_cycles("exp", "", false, 2, "exp_approx", "<true>"), 2 * 189.4, 1e-9);
  EXPECT_NEAR(
      unary_cycles("exp", "", true, 2, "exp_approx_noclamp", "<true, false, InputClamping::None>"),
      2 * 94.0, 1e-9);
  EXPECT_NEAR(unary_cycles("exp", ", (int)VectorMode::None", true, 2, "exp_approx_noclamp_32",
                           "<true, false, InputClamping::None, 32>"),
              2 * 74.0, 1e-9);
  try {
    unary_cycles("exp", "", true, 1, "exp", "<true, false, InputClamping::None, 32>");
    ADD_FAILURE() << "an unclamped 32-row exp on VectorMode::RC ran";
  } catch (const emu::EmulatorError& e) {
    EXPECT_NE(std::string(e.what()).find("exp_tile<true> without clamping: only 8 rows a face, or "
                                         "32 with VectorMode::None"),
              std::string::npos)
        << e.what();
  }
}

// Every SFPU call ttgen emits (the op table's unary, scalar and compare calls, and the binary,
// select and constant rules' add/sub/mul_binary_tile, binary_max/min_tile, where_tile and
// fill_tile: lowering/tt/select_tile_ops_rules.cpp) and the baselines' (flash_ttnn: recip_tile in
// an approximate kernel, binary_max_tile, exp_tile<true>) has an entry of its own: none is
// priced by the assumed sfpu_simple_tile.
TEST(SfpuCosts, EveryEmittedCallHasAnEntry) {
  const auto has = [](std::string_view call) {
    call = timing::sfpu_call_name(call);
    for (const tk::arch::SfpuCost& c : tk::arch::kWormholeB0.sfpu_tile)
      if (c.call == call)
        return true;
    return false;
  };
  int n = 0;
#define TK_SFPU_CALL(op, surface, args, kind, tt_call, ...)                                        \
  if (std::string_view(#kind) == "unary" || std::string_view(#kind) == "scalar" ||                 \
      std::string_view(#kind) == "compare") {                                                      \
    ++n;                                                                                           \
    EXPECT_TRUE(has(#tt_call)) << #tt_call;                                                        \
  }
  TK_TILE_OPS(TK_SFPU_CALL)
#undef TK_SFPU_CALL
  EXPECT_GE(n, 30);
  for (std::string_view c : {"add_binary_tile", "sub_binary_tile", "mul_binary_tile",
                             "binary_max_tile", "binary_min_tile", "where_tile", "fill_tile",
                             "recip_approx", "exp_approx", "exp_approx_noclamp_32"})
    EXPECT_TRUE(has(c)) << c;
}

// A call on VectorMode::R or C runs the kernel on 2 faces (R: 0 and 1, C: 0 and 2) with 8
// SETRWCs, one on None once with none (tt-llk's _llk_math_eltwise_{unary,binary}_sfpu_params_):
// the emulator charges the entry's per-face kernel that many times and the frame.
TEST(SfpuCosts, PartOfATileIsChargedByItsFaces) {
  const auto face = [](double tile) { return (tile - kFrame) / 4; };
  for (const char* mode : {", (int)VectorMode::R", ", (int)VectorMode::C"}) {
    EXPECT_NEAR(unary_cycles("recip", mode, false, 2, "recip"), 2 * (2 * face(1091) + kFrame), 1e-9)
        << mode;
    EXPECT_NEAR(unary_cycles("recip", mode, true, 2, "recip"), 2 * (2 * face(803) + kFrame), 1e-9)
        << mode;
  }
  EXPECT_NEAR(unary_cycles("recip", ", (int)VectorMode::None", false, 2, "recip"),
              2 * (face(1091) + 6), 1e-9);
  EXPECT_NEAR(unary_cycles("recip", ", (int)VectorMode::RC", false, 2, "recip"), 2 * 1091.0, 1e-9);
  // exp_tile on C (the clamped approximate kernel, as ttnn's SDPA computes its statistics) and the
  // accurate one.
  EXPECT_NEAR(unary_cycles("exp", ", (int)VectorMode::C", false, 2, "exp_approx", "<true>"),
              2 * (2 * face(189.4) + kFrame), 1e-9);
  EXPECT_NEAR(unary_cycles("exp", ", (int)VectorMode::C", true, 2, "exp"),
              2 * (2 * face(2350) + kFrame), 1e-9);
  // binary_max_tile on C: 2 faces of 27.
  EXPECT_NEAR(binary_cycles("binary_max", false, 3, ", (int)VectorMode::C"), 3 * (2 * 27 + kFrame),
              1e-9);
  EXPECT_NEAR(binary_cycles("binary_max", false, 3), 3 * 122.0, 1e-9);
  // A mode the model does not know (RC_custom) is refused.
  try {
    unary_cycles("recip", ", (int)VectorMode::RC_custom", false, 1, "recip");
    ADD_FAILURE() << "recip_tile on VectorMode::RC_custom ran";
  } catch (const emu::EmulatorError& e) {
    EXPECT_NE(std::string(e.what()).find("an SFPU call on VectorMode 6 (only None, R, C and RC)"),
              std::string::npos)
        << e.what();
  }
}

// recip_tile's kernel follows math_approx_mode (APPROX): two Newton steps, no rounding; the other
// calls and the DST formats charge their entries.
TEST(SfpuCosts, RecipInAnApproximateKernelIsTimedAsItsKernel) {
  EXPECT_NEAR(unary_cycles("recip", "", false, 3, "recip_approx", "", true), 3 * 675.0, 1e-9);
  EXPECT_NEAR(unary_cycles("recip", "", true, 3, "recip_approx", "", true), 3 * 675.0, 1e-9);
  EXPECT_NEAR(unary_cycles("recip", "", false, 3, "recip"), 3 * 1091.0, 1e-9);
  EXPECT_NEAR(unary_cycles("recip", "", true, 3, "recip"), 3 * 803.0, 1e-9);
  EXPECT_NEAR(unary_cycles("rsqrt", "", true, 3, "rsqrt"), 3 * 1006.0, 1e-9);
  EXPECT_NEAR(unary_cycles("rsqrt", "", false, 3, "rsqrt"), 3 * 1038.0, 1e-9);
  EXPECT_NEAR(unary_cycles("sqrt", "", false, 3, "sqrt", "", true), 3 * 910.0, 1e-9);
  EXPECT_NEAR(unary_cycles("log", "", false, 2, "log"), 2 * 1902.0, 1e-9);
  EXPECT_NEAR(unary_cycles("log", "", true, 2, "log"), 2 * 3086.0, 1e-9);
}
