// `ttgen report`'s static estimate against the emulator's timing counters on every example with a
// TT target: the DRAM bytes, the tile products and the compute cycles are the same counts, made
// once from the IR and once by running the generated program (each program of a whole-tensor
// reduction's two); and the projected time is never below the estimate's roofline bound nor its
// DRAM floor.
#include "arch/arch.hpp"
#include "dsl/check.hpp"
#include "lowering/ir/visitor.hpp"
#include "lowering/pipeline.hpp"
#include "lowering/tt/call_cost.hpp"
#include "parser/parse.hpp"
#include "report/estimate.hpp"
#include "tests/e2e/cases.hpp"

#include <tk_emulator/emulator.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <vector>

namespace tk::e2e {
namespace {

std::vector<ir::Program> lowered(const std::string& name) {
  const std::string path = std::string(TK_E2E_EXAMPLES_DIR) + "/" + name + ".tk";
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  SourceFile file(path, text.str());
  Diagnostics diags(&file);
  std::optional<dsl::Module> m = parser::parse(file, diags);
  if (m)
    dsl::check(*m, diags);
  EXPECT_TRUE(m && !diags.has_errors()) << path;
  std::optional<ir::Module> ir = lower::run_pipeline(*m, lower::Target::tt, {}, diags);
  EXPECT_TRUE(ir && !diags.has_errors()) << path;
  return ir->programs; // one, or a whole-tensor reduction's two, in launch order
}

TEST(StaticReport, MatchesTheEmulatorsCounters) {
  // Work that does not divide the grid (90 tiles), and one over 512 in every dimension.
  const Shape shapes[] = {{288, 320, 96}, {544, 576, 608}};
  rt::emu::set_timing(true);
  // The counters without the tile arithmetic: the same figures (MathOff.EveryExamplesTimingIs
  // TheSameWithoutTheArithmetic), in a fraction of the time; the outputs are undefined.
  rt::emu::set_math(false);
  for (const Example& ex : examples()) {
    if (!ex.tt_generated)
      continue;
    const std::vector<ir::Program> programs = lowered(ex.name);
    for (const Shape& s : shapes) {
      SCOPED_TRACE(ex.name + " at " + to_string(s, ex.uses_k));
      // The e2e shape's m, n, k by dimension name (mlp's model width D is n, its hidden F is k).
      // batched_matmul's batch B is 2 (cases_matmul.cpp); attention's sequence S is m, its heads
      // H are 2, attention_gqa's over HK = 1 key/value head and S at most 288
      // (cases_attention.cpp).
      std::map<std::string, std::int64_t> size = {{"M", s.m}, {"N", s.n}, {"D", s.n},
                                                  {"K", s.k}, {"F", s.k}, {"B", 2},
                                                  {"S", s.m}, {"H", 2},   {"HK", 2}};
      if (ex.name == "attention_gqa") {
        size["HK"] = 1;
        size["S"] = std::min<std::int64_t>(s.m, 288);
      }
      const std::size_t before = rt::emu::timings().size();
      (void)ex.run(Backend::tt, s);
      // Each program run_tt launched, against its own estimate.
      ASSERT_EQ(rt::emu::timings().size() - before, programs.size());
      for (std::size_t k = 0; k < programs.size(); ++k) {
        const ir::Program& p = programs[k];
        SCOPED_TRACE(p.name);
        report::Shape dims;
        for (const std::string& d : report::dimension_names(p))
          dims[d] = size.at(d);
        const report::Estimate est = report::estimate(p, dims);
        const rt::emu::ProgramTiming& t = rt::emu::timings()[before + k];
        EXPECT_EQ(t.dram_bytes_read, static_cast<std::uint64_t>(est.dram_bytes_read));
        EXPECT_EQ(t.dram_bytes_written, static_cast<std::uint64_t>(est.dram_bytes_written));
        EXPECT_EQ(t.matmul_tiles, static_cast<std::uint64_t>(est.matmul_tiles));
        EXPECT_NEAR(t.compute_cycles, est.compute_cycles, 1e-9 * est.compute_cycles);
        EXPECT_NEAR(t.ideal_matmul_cycles, est.ideal_matmul_cycles, 1e-9 * est.ideal_matmul_cycles);
        EXPECT_GE(t.device_cycles, est.bound_cycles());
        // The floor (the banks, and each NoC's bytes on its DRAM queue where it has one) holds
        // for any plan: the emulator charges both (docs/timing.md, "DRAM floor").
        EXPECT_GE(t.device_cycles, est.dram_floor_cycles);
      }
    }
  }
  rt::emu::set_math(std::nullopt);
  rt::emu::set_timing(std::nullopt);
}

// Every call in a function's body.
struct Calls : ir::Visitor {
  std::vector<const ir::Call*> found;
  void visit_node(const ir::Call& c) override {
    found.push_back(&c);
    ir::Visitor::visit_node(c);
  }
};

// The emulator's name for a non-matmul FPU call (its busy_by kind, runtime/tt/src/compute_fpu.cpp),
// or "" for another call.
std::string emulator_kind(const ir::Call& c) {
  auto bcast = [&](std::size_t i) -> std::string {
    const ir::EnumImm* b = ir::as<ir::EnumImm>(c.args[i]);
    return b->value == ir::EnumConst::bcast_row   ? "row"
           : b->value == ir::EnumConst::bcast_col ? "col"
                                                  : "scalar";
  };
  switch (c.fn) {
  case ir::Intrinsic::copy_tile:
    return "copy";
  case ir::Intrinsic::transpose_wh_tile:
    return "transpose";
  case ir::Intrinsic::unary_bcast:
    return "bcast_" + bcast(0);
  case ir::Intrinsic::add_tiles:
    return "add";
  case ir::Intrinsic::sub_tiles:
    return "sub";
  case ir::Intrinsic::mul_tiles:
    return "mul";
  case ir::Intrinsic::add_tiles_bcast:
    return "add_bcast_" + bcast(0);
  case ir::Intrinsic::sub_tiles_bcast:
    return "sub_bcast_" + bcast(0);
  case ir::Intrinsic::mul_tiles_bcast:
    return "mul_bcast_" + bcast(0);
  case ir::Intrinsic::reduce_tile: {
    const ir::EnumImm* pool = ir::as<ir::EnumImm>(c.args[0]);
    return pool->value == ir::EnumConst::pool_sum   ? "reduce_sum"
           : pool->value == ir::EnumConst::pool_avg ? "reduce_avg"
           : pool->value == ir::EnumConst::pool_max ? "reduce_max"
                                                    : "reduce_min";
  }
  default:
    return "";
  }
}

// Lowering's price of each non-matmul FPU call (tt::math_thread_cycles: the unpack of its CB
// tiles against its math, timing::fpu_call_cycles) is what the emulator charges that call in the
// generated program: per call kind, the compute kernels' busy cycles of that kind over its count,
// on every example where all calls of the kind have one price (their CBs' formats agree).
TEST(StaticReport, FpuCallPricesAreTheEmulatorsCharges) {
  const Shape shape{288, 320, 96};
  rt::emu::set_timing(true);
  rt::emu::set_math(false);
  int compared = 0;
  for (const Example& ex : examples()) {
    if (!ex.tt_generated)
      continue;
    SCOPED_TRACE(ex.name);
    const std::vector<ir::Program> programs = lowered(ex.name);
    const std::size_t before = rt::emu::timings().size();
    (void)ex.run(Backend::tt, shape);
    ASSERT_EQ(rt::emu::timings().size() - before, programs.size());
    for (std::size_t k = 0; k < programs.size(); ++k) {
      const ir::Program& p = programs[k];
      std::map<std::string, std::set<double>> priced;
      for (const ir::Function& f : p.functions) {
        if (!f.config || !f.config->compute)
          continue;
        const int phases = static_cast<int>(f.config->compute->math_fidelity) + 1;
        Calls calls;
        calls.visit(f.body);
        for (const ir::Call* c : calls.found)
          if (const std::string kind = emulator_kind(*c); !kind.empty())
            priced[kind].insert(lower::tt::math_thread_cycles(p, *c, phases));
      }
      const rt::emu::ProgramTiming& t = rt::emu::timings()[before + k];
      for (const auto& [kind, prices] : priced) {
        if (prices.size() != 1)
          continue;
        double cycles = 0, calls = 0;
        for (const auto& kt : t.kernels) {
          if (auto it = kt.busy_by.find(kind); it != kt.busy_by.end())
            cycles += it->second;
          for (const auto& [op, n] : kt.tile_ops)
            if (op == kind || op.rfind(kind + " ", 0) == 0)
              calls += static_cast<double>(n);
        }
        if (calls == 0)
          continue; // in a branch this shape does not take
        EXPECT_NEAR(cycles / calls, *prices.begin(), 1e-9) << p.name << ": " << kind;
        ++compared;
      }
    }
  }
  EXPECT_GT(compared, 10);
  rt::emu::set_math(std::nullopt);
  rt::emu::set_timing(std::nullopt);
}

} // namespace
} // namespace tk::e2e
