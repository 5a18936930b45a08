// The unpack of non-matmul FPU calls (docs/timing.md, "Operand delivery"): every call that reads
// CB tiles (copy_tile, transpose_wh_tile, unary_bcast, add/sub/mul_tiles and their broadcasts,
// reduce_tile) costs max(its unpack, its math), its unpack from the ISA's UNPACR rates; pinned
// first on the formula with Wormhole B0's figures worked out by hand, then on the emulator's
// charge of each call kind in a run.
#include <cstring>
#include <optional>

#include <tk_emulator/emulator.hpp>
#include <tk_emulator/timing_params.hpp>
#include <tt-metalium/circular_buffer_constants.h>

#include "arch/wormhole_b0.hpp"

#include "emu_program.hpp"

namespace {
using namespace tk::test;
namespace emu = tk::rt::emu;
namespace ut = tk::rt::emu::timing;
using ut::Fetch;
using ut::TileOp;

const ut::Arch& wh() {
  return tk::arch::kWormholeB0;
}

struct Timed {
  Timed() { emu::set_timing(true); }
  ~Timed() { emu::set_timing(std::nullopt); }
};

constexpr double kBf16 = 2048, kFp32 = 4096, kBfp8 = 1088;

// The compute kernel's busy cycles of call kind `kind` in the last run.
double busy(const std::string& kind) {
  const auto& t = emu::last_timing();
  if (!t)
    throw std::runtime_error("no timing");
  for (const auto& k : t->kernels)
    if (k.busy_by.count(kind))
      return k.busy_by.at(kind);
  throw std::runtime_error("no busy cycles of " + kind);
}
} // namespace

// ISA, UNPACR_Regular.md "Performance": 64 B/cycle alone, 32 each while both fetch, 2 cycles per
// UNPACR (one per face).
TEST(UnpackTiming, OneUnpackerFetchesAtSixtyFourBytesPerCycle) {
  EXPECT_DOUBLE_EQ(ut::unpack_call_cycles(wh(), {Fetch::Tile, kBf16}), 2048 / 64.0); // 32
  EXPECT_DOUBLE_EQ(ut::unpack_call_cycles(wh(), {Fetch::Tile, kFp32}), 4096 / 64.0); // 64
  EXPECT_DOUBLE_EQ(ut::unpack_call_cycles(wh(), {Fetch::Tile, kBfp8}), 1088 / 64.0); // 17
  // A COL broadcast fetches faces 0 and 2, a SCALAR one face 0 (tt-llk's MOPs).
  EXPECT_DOUBLE_EQ(ut::unpack_call_cycles(wh(), {Fetch::Col, kBf16}), 1024 / 64.0);
  EXPECT_DOUBLE_EQ(ut::unpack_call_cycles(wh(), {Fetch::Scalar, kBf16}), 512 / 64.0);
  EXPECT_DOUBLE_EQ(ut::unpack_call_cycles(wh(), {Fetch::Row, kBf16}), 2048 / 64.0);
}

TEST(UnpackTiming, TwoUnpackersShareTheFetchAtThirtyTwoBytesEach) {
  // Both fetch 2048 B at 32 B/cycle each: 64 cycles.
  EXPECT_DOUBLE_EQ(ut::unpack_call_cycles(wh(), {Fetch::Tile, kBf16}, {Fetch::Tile, kBf16}), 64);
  // A scalar broadcast's 512 B: shared for 512 / 32 = 16 cycles, then the rest of srcA's 2048 B
  // alone: 1536 / 64 = 24.
  EXPECT_DOUBLE_EQ(ut::unpack_call_cycles(wh(), {Fetch::Tile, kBf16}, {Fetch::Scalar, kBf16}),
                   16 + 24);
  // fp32 + bf16: 2048 shared (64 cycles), 2048 alone (32).
  EXPECT_DOUBLE_EQ(ut::unpack_call_cycles(wh(), {Fetch::Tile, kFp32}, {Fetch::Tile, kBf16}),
                   64 + 32);
}

TEST(UnpackTiming, UnpacrAddressCyclesBoundAFetchOfFewBytes) {
  // 8 UNPACRs of a 64 B page (8 B a face): 8 x 2 cycles of address outlast 64 B / 32 per cycle.
  EXPECT_DOUBLE_EQ(ut::unpack_call_cycles(wh(), {Fetch::Tile, 64}, {Fetch::Tile, 64}), 16);
  EXPECT_EQ(ut::fetched_faces(Fetch::None), 0);
  EXPECT_DOUBLE_EQ(ut::unpack_call_cycles(wh(), {}), 0);
}

// A call costs the slower thread: max(unpack, math); an unpack to DST costs its unpack.
TEST(UnpackTiming, CallCostsTheSlowerOfUnpackAndMath) {
  // add: 8 cycles of math, 64 of unpack.
  EXPECT_DOUBLE_EQ(
      ut::fpu_call_cycles(wh(), TileOp::AddSub, 4, {Fetch::Tile, kBf16}, {Fetch::Tile, kBf16}), 64);
  // mul at HiFi4: 8 x 4 = 32 of math, 64 of unpack; with bfp8_b operands 34 of unpack.
  EXPECT_DOUBLE_EQ(
      ut::fpu_call_cycles(wh(), TileOp::Mul, 4, {Fetch::Tile, kBf16}, {Fetch::Tile, kBf16}), 64);
  EXPECT_DOUBLE_EQ(
      ut::fpu_call_cycles(wh(), TileOp::Mul, 4, {Fetch::Tile, kBfp8}, {Fetch::Tile, kBfp8}), 34);
  EXPECT_DOUBLE_EQ(
      ut::fpu_call_cycles(wh(), TileOp::Mul, 2, {Fetch::Tile, kBfp8}, {Fetch::Tile, kBfp8}), 34);
  // reduce sum at HiFi4: 16 of math, the tile and the scaler's face 40.
  EXPECT_DOUBLE_EQ(
      ut::fpu_call_cycles(wh(), TileOp::ReduceSum, 4, {Fetch::Tile, kBf16}, {Fetch::Scalar, kBf16}),
      40);
  // copy: 8 of math, 32 of unpack; an fp32 tile to DST: its 64 cycles of unpack.
  EXPECT_DOUBLE_EQ(ut::fpu_call_cycles(wh(), TileOp::Copy, 4, {Fetch::Tile, kBf16}), 32);
  EXPECT_DOUBLE_EQ(ut::fpu_call_cycles(wh(), TileOp::Copy, 4, {Fetch::Tile, kFp32}, {}, true), 64);
  // Math slower than the unpack: a 64 B page's mul at HiFi4 is its 32 cycles of math.
  EXPECT_DOUBLE_EQ(ut::fpu_call_cycles(wh(), TileOp::Mul, 4, {Fetch::Tile, 64}, {Fetch::Tile, 64}),
                   32);
}

// The emulator charges each call kind this formula: n calls of each in a run.
TEST(UnpackTiming, EmulatorChargesBroadcastCallsTheirUnpack) {
  Timed timed;
  struct Case {
    std::string fn, init, kind;
    double cycles;
  };
  const std::vector<Case> cases = {
      {"add_tiles_bcast_rows", "add_bcast_rows_init_short", "add_bcast_row", 64},
      {"sub_tiles_bcast_cols", "sub_bcast_cols_init_short", "sub_bcast_col",
       1024 / 32.0 + 1024 / 64.0},
      {"mul_tiles_bcast_scalar", "mul_tiles_bcast_scalar_init_short", "mul_bcast_scalar", 40},
  };
  constexpr uint32_t n = 3;
  const auto a = random_bf16(n * 1024, -1.0f, 1.0f, 3);
  const auto b = random_bf16(n * 1024, -1.0f, 1.0f, 4);
  for (const auto& c : cases) {
    SCOPED_TRACE(c.fn);
    ProgramBuilder p;
    auto sa = p.dram(a), sb = p.dram(b), dst = p.dram(n);
    for (auto cb : {tt::CBIndex::c_0, tt::CBIndex::c_1, tt::CBIndex::c_16})
      p.cb(cb, 2);
    auto r = p.reader("dataflow/read_tiles.cpp", {sa, sb});
    auto w = p.writer("dataflow/write_tile.cpp", {dst});
    auto k = p.compute("compute/bcast.cpp",
                       ComputeConfig{.math_fidelity = tt::tt_metal::MathFidelity::HiFi4,
                                     .defines = {{"BCAST_FN", c.fn}, {"BCAST_INIT", c.init}}});
    SetRuntimeArgs(p.program, r, tt::tt_metal::CoreCoord{0, 0}, {p.addr(sa), p.addr(sb), n});
    SetRuntimeArgs(p.program, w, tt::tt_metal::CoreCoord{0, 0}, {p.addr(dst), n, 0u});
    SetRuntimeArgs(p.program, k, tt::tt_metal::CoreCoord{0, 0}, {n});
    p.run();
    EXPECT_DOUBLE_EQ(busy(c.kind), n * c.cycles);
  }
}

TEST(UnpackTiming, EmulatorChargesReduceItsTileAndScalerFace) {
  Timed timed;
  constexpr uint32_t Ht = 2, Wt = 3;
  ProgramBuilder p;
  auto src = p.dram(random_bf16(Ht * Wt * 1024, -1.0f, 1.0f, 11));
  auto dst = p.dram(Ht);
  p.cb(tt::CBIndex::c_0, 2);
  p.cb(tt::CBIndex::c_2, 1);
  p.cb(tt::CBIndex::c_16, 2);
  auto r = p.reader("dataflow/reader_reduce.cpp", {src});
  auto w = p.writer("dataflow/write_tile.cpp", {dst});
  auto k = p.compute("compute/reduce.cpp",
                     ComputeConfig{.math_fidelity = tt::tt_metal::MathFidelity::HiFi4,
                                   .defines = {{"REDUCE_OP", "PoolType::SUM"},
                                               {"REDUCE_DIM", "ReduceDim::REDUCE_ROW"}}});
  const float scaler = 1.0f;
  uint32_t bits;
  std::memcpy(&bits, &scaler, 4);
  SetRuntimeArgs(p.program, r, tt::tt_metal::CoreCoord{0, 0}, {p.addr(src), Ht, Wt, bits, 0u});
  SetRuntimeArgs(p.program, w, tt::tt_metal::CoreCoord{0, 0}, {p.addr(dst), Ht, 0u});
  SetRuntimeArgs(p.program, k, tt::tt_metal::CoreCoord{0, 0}, {Ht, Wt});
  p.run();
  // 6 reduces: max(4 x 4 = 16 of math, 512 / 32 + 1536 / 64 = 40 of unpack).
  EXPECT_DOUBLE_EQ(busy("reduce_sum"), Ht * Wt * 40.0);
}

TEST(UnpackTiming, EmulatorChargesTransposeItsTile) {
  Timed timed;
  constexpr uint32_t n = 2;
  ProgramBuilder p;
  auto src = p.dram(random_bf16(n * 1024, -1.0f, 1.0f, 5));
  auto dst = p.dram(n);
  p.cb(tt::CBIndex::c_0, 2);
  p.cb(tt::CBIndex::c_16, 2);
  auto r = p.reader("dataflow/read_tile.cpp", {src});
  auto w = p.writer("dataflow/write_tile.cpp", {dst});
  auto k = p.compute("compute/transpose.cpp");
  SetRuntimeArgs(p.program, r, tt::tt_metal::CoreCoord{0, 0}, {p.addr(src), n});
  SetRuntimeArgs(p.program, w, tt::tt_metal::CoreCoord{0, 0}, {p.addr(dst), n, 0u});
  SetRuntimeArgs(p.program, k, tt::tt_metal::CoreCoord{0, 0}, {n});
  p.run();
  EXPECT_DOUBLE_EQ(busy("transpose"), n * 32.0); // max(8, 2048 / 64)
}

// copy_tile of a Float32 tile: through SrcA (TF32) max(8, 4096 / 64) = 64; to DST
// (UnpackToDestFp32) its unpack, 64 as well: the same bytes, no math to overlap.
TEST(UnpackTiming, EmulatorChargesCopyTileItsUnpackOnEitherPath) {
  for (bool to_dest : {false, true}) {
    SCOPED_TRACE(to_dest);
    Timed timed;
    ProgramBuilder p;
    auto src = p.dram(1, 4096);
    std::vector<float> in(1024, 1.5f);
    distributed::EnqueueWriteMeshBuffer(p.dev->mesh_command_queue(), src, in, false);
    auto dst = p.dram(1, 4096);
    p.cb(tt::CBIndex::c_0, 2, 4096, tt::DataFormat::Float32);
    p.cb(tt::CBIndex::c_16, 2, 4096, tt::DataFormat::Float32);
    std::vector<tt::tt_metal::UnpackToDestMode> modes(NUM_CIRCULAR_BUFFERS,
                                                      tt::tt_metal::UnpackToDestMode::Default);
    if (to_dest)
      modes[tt::CBIndex::c_0] = tt::tt_metal::UnpackToDestMode::UnpackToDestFp32;
    auto r = p.reader("dataflow/read_tile.cpp", {src});
    auto w = p.writer("dataflow/write_tile.cpp", {dst});
    auto k = p.compute(
        "compute/eltwise_sfpu.cpp",
        ComputeConfig{.fp32_dest_acc_en = true,
                      .unpack_to_dest_mode = modes,
                      .defines = {{"SFPU_OP_INIT", "abs_tile_init"}, {"SFPU_OP", "abs_tile"}}});
    SetRuntimeArgs(p.program, r, tt::tt_metal::CoreCoord{0, 0}, {p.addr(src), 1u});
    SetRuntimeArgs(p.program, w, tt::tt_metal::CoreCoord{0, 0}, {p.addr(dst), 1u, 0u});
    SetRuntimeArgs(p.program, k, tt::tt_metal::CoreCoord{0, 0}, {1u});
    p.run();
    EXPECT_DOUBLE_EQ(busy("copy"), 64.0);
  }
}
