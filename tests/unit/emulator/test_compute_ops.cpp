// Compute ops on the emulator: SFPU unary ops, broadcast binary ops and reductions, each against a
// plain C++ reference computed from the same bf16 inputs (rtol = atol = 1.6e-2, PCC >= 0.999).
#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>

#include "emu_program.hpp"

#include <tk_emulator/emulator.hpp>

using namespace tk::test;

namespace {
struct UnaryCase {
  std::string name, init, op;
  float lo, hi;
  std::function<float(float)> ref;
  std::string args = ""; // the op's arguments after the DST index, e.g. ", 0x3F800000u"
};

std::vector<bfloat16> run_unary(const UnaryCase& c, const std::vector<bfloat16>& in, uint32_t n) {
  ProgramBuilder p;
  auto src = p.dram(in);
  auto dst = p.dram(n);
  p.cb(tt::CBIndex::c_0, 2);
  p.cb(tt::CBIndex::c_16, 2);
  auto r = p.reader("dataflow/read_tile.cpp", {src});
  auto w = p.writer("dataflow/write_tile.cpp", {dst});
  auto k = p.compute(
      "compute/eltwise_sfpu.cpp",
      ComputeConfig{
          .math_fidelity = tt::tt_metal::MathFidelity::HiFi4,
          .defines = {{"SFPU_OP_INIT", c.init}, {"SFPU_OP", c.op}, {"SFPU_OP_ARGS", c.args}}});
  SetRuntimeArgs(p.program, r, tt::tt_metal::CoreCoord{0, 0}, {p.addr(src), n});
  SetRuntimeArgs(p.program, w, tt::tt_metal::CoreCoord{0, 0}, {p.addr(dst), n, 0u});
  SetRuntimeArgs(p.program, k, tt::tt_metal::CoreCoord{0, 0}, {n});
  p.run();
  return p.read(dst);
}
} // namespace

// gelu_tile and erf_tile default to the SDK's approximations, which the emulator does not compute:
// a kernel calling them is an error, never a silently exact answer (generated code asks for
// <false>, the exact forms).
TEST(EmulatorCompute, ApproximateGeluAndErfAreNotModelled) {
  const std::vector<bfloat16> in(1024, bfloat16(0.5f));
  for (const std::string op : {"gelu", "erf"}) {
    const UnaryCase c{op, op + "_tile_init", op + "_tile", 0, 0, [](float x) { return x; }};
    try {
      run_unary(c, in, 1);
      ADD_FAILURE() << op << "_tile<true> ran";
    } catch (const tk::rt::emu::EmulatorError& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find(": " + op + "_tile_init<true> (the SDK's approximate " + op +
                          ") is not modelled by the emulator"),
                std::string::npos)
          << what;
    }
  }
}

TEST(EmulatorCompute, SfpuUnaryOpsMatchReference) {
  const std::vector<UnaryCase> cases = {
      {"exp", "exp_tile_init", "exp_tile", -2.0f, 2.0f, [](float x) { return std::exp(x); }},
      {"relu", "relu_tile_init", "relu_tile", -2.0f, 2.0f,
       [](float x) { return x > 0 ? x : 0.0f; }},
      {"gelu", "gelu_tile_init<false>", "gelu_tile<false>", -3.0f, 3.0f,
       [](float x) { return 0.5f * x * (1 + std::erf(x / std::sqrt(2.0f))); }},
      {"recip", "recip_tile_init", "recip_tile", 0.5f, 4.0f, [](float x) { return 1.0f / x; }},
      {"sqrt", "sqrt_tile_init", "sqrt_tile", 0.0f, 9.0f, [](float x) { return std::sqrt(x); }},
      {"sigmoid", "sigmoid_tile_init", "sigmoid_tile", -4.0f, 4.0f,
       [](float x) { return 1.0f / (1.0f + std::exp(-x)); }},
      {"tanh", "tanh_tile_init", "tanh_tile", -2.0f, 2.0f, [](float x) { return std::tanh(x); }},
      {"log", "log_tile_init", "log_tile", 0.1f, 8.0f, [](float x) { return std::log(x); }},
      {"square", "square_tile_init", "square_tile", -3.0f, 3.0f, [](float x) { return x * x; }},
      {"abs", "abs_tile_init", "abs_tile", -3.0f, 3.0f, [](float x) { return std::fabs(x); }},
      {"silu", "silu_tile_init", "silu_tile", -6.0f, 6.0f,
       [](float x) { return x / (1.0f + std::exp(-x)); }},
      {"erf", "erf_tile_init<false>", "erf_tile<false>", -3.0f, 3.0f,
       [](float x) { return std::erf(x); }},
      {"hardsigmoid", "hardsigmoid_tile_init", "hardsigmoid_tile", -5.0f, 5.0f,
       [](float x) { return std::clamp(x / 6.0f + 0.5f, 0.0f, 1.0f); }},
      {"exp2", "exp2_tile_init", "exp2_tile", -3.0f, 3.0f, [](float x) { return std::exp2(x); }},
      {"log1p", "log1p_tile_init", "log1p_tile", -0.9f, 3.0f,
       [](float x) { return std::log1p(x); }},
      {"sin", "sin_tile_init", "sin_tile", -7.0f, 7.0f, [](float x) { return std::sin(x); }},
      {"cos", "cos_tile_init", "cos_tile", -7.0f, 7.0f, [](float x) { return std::cos(x); }},
      {"sign", "sign_tile_init", "sign_tile", -3.0f, 3.0f,
       [](float x) { return x > 0   ? 1.0f
                            : x < 0 ? -1.0f
                                    : 0.0f; }},
      {"floor", "rounding_op_tile_init", "floor_tile", -5.0f, 5.0f,
       [](float x) { return std::floor(x); }},
      // beta = 1 (so 1/beta = 1), threshold = 20: log(1 + exp(x)) throughout [-6, 6].
      {"softplus", "softplus_tile_init", "softplus_tile", -6.0f, 6.0f,
       [](float x) { return std::log1p(std::exp(x)); }, ", 0x3F800000u, 0x3F800000u, 0x41A00000u"},
      // slope 0.5 (0x3F000000).
      {"elu", "elu_tile_init", "elu_tile", -4.0f, 3.0f,
       [](float x) { return x < 0 ? 0.5f * std::expm1(x) : x; }, ", 0x3F000000u"},
  };
  constexpr uint32_t n = 4;
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    const auto in = random_bf16(n * 1024, c.lo, c.hi, 7);
    std::vector<float> want(in.size());
    for (std::size_t i = 0; i < in.size(); ++i)
      want[i] = c.ref(static_cast<float>(in[i]));
    expect_close(run_unary(c, in, n), want, 1.6e-2, 1.6e-2);
  }
}

// The SDK semantics the new ops keep exactly, on chosen bf16 values (the rest of the tile 1.0):
// sign of +-0 is 0 and of a NaN follows its sign bit (the SFPU's v < 0 reads the sign bit);
// floor of negative non-integers steps down, of inf stays; log1p(-1) = -inf, below -1 NaN;
// softplus leaves x from its threshold on; elu leaves x >= 0 unchanged.
TEST(EmulatorCompute, SfpuOpsEdgeValues) {
  constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
  constexpr float kInf = std::numeric_limits<float>::infinity();
  struct Edge {
    UnaryCase op;
    std::vector<float> in, want; // want NaN: any NaN
  };
  const auto nan_neg = bfloat16::from_bits(0xFFC0); // a NaN with its sign bit set
  const std::vector<Edge> edges = {
      {{"sign", "sign_tile_init", "sign_tile"},
       {0.0f, -0.0f, kNaN, 2.5f, -0.125f, -kInf},
       {0, 0, 1, 1, -1, -1}},
      {{"floor", "rounding_op_tile_init", "floor_tile"},
       {-0.5f, -2.0f, -2.5f, 2.75f, kInf, -kInf},
       {-1, -2, -3, 2, kInf, -kInf}},
      {{"log1p", "log1p_tile_init", "log1p_tile"}, {-1.0f, -2.0f, 0.0f}, {-kInf, kNaN, 0.0f}},
      {{"softplus", "softplus_tile_init", "softplus_tile", 0, 0, nullptr,
        ", 0x3F800000u, 0x3F800000u, 0x41A00000u"},
       {20.0f, 24.0f, 100.0f, 0.0f},
       {20.0f, 24.0f, 100.0f, std::log1p(1.0f)}},
      {{"elu", "elu_tile_init", "elu_tile", 0, 0, nullptr, ", 0x3F000000u"},
       {0.0f, 3.0f, -kInf, -1.0f},
       {0.0f, 3.0f, -0.5f, 0.5f * std::expm1(-1.0f)}},
  };
  for (const Edge& e : edges) {
    SCOPED_TRACE(e.op.name);
    std::vector<bfloat16> in(1024, bfloat16(1.0f));
    for (std::size_t i = 0; i < e.in.size(); ++i)
      in[i] = bfloat16(e.in[i]);
    if (e.op.name == "sign")
      in[e.in.size()] = nan_neg;
    const auto got = run_unary(e.op, in, 1);
    for (std::size_t i = 0; i < e.want.size(); ++i) {
      const float g = got[i], w = static_cast<float>(bfloat16(e.want[i]));
      if (std::isnan(w))
        EXPECT_TRUE(std::isnan(g)) << "element " << i;
      else
        EXPECT_EQ(g, w) << "element " << i << " of input " << e.in[i];
    }
    if (e.op.name == "sign") {
      EXPECT_EQ(static_cast<float>(got[e.in.size()]), -1.0f) << "sign of a NaN with its sign bit";
    }
  }
}

TEST(EmulatorCompute, BroadcastRowsColsScalar) {
  struct Case {
    std::string fn, init;
    std::function<float(float, float)> op;
    int mode; // 0 rows, 1 cols, 2 scalar
  };
  const std::vector<Case> cases = {
      {"add_tiles_bcast_rows", "add_bcast_rows_init_short", std::plus<float>(), 0},
      {"sub_tiles_bcast_cols", "sub_bcast_cols_init_short", std::minus<float>(), 1},
      {"mul_tiles_bcast_scalar", "mul_tiles_bcast_scalar_init_short", std::multiplies<float>(), 2},
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
                       ComputeConfig{.defines = {{"BCAST_FN", c.fn}, {"BCAST_INIT", c.init}}});
    SetRuntimeArgs(p.program, r, tt::tt_metal::CoreCoord{0, 0}, {p.addr(sa), p.addr(sb), n});
    SetRuntimeArgs(p.program, w, tt::tt_metal::CoreCoord{0, 0}, {p.addr(dst), n, 0u});
    SetRuntimeArgs(p.program, k, tt::tt_metal::CoreCoord{0, 0}, {n});
    p.run();
    std::vector<float> want(a.size());
    for (uint32_t t = 0; t < n; ++t)
      for (int row = 0; row < 32; ++row)
        for (int col = 0; col < 32; ++col) {
          const float bv = c.mode == 0   ? b[at(t, 0, col)]
                           : c.mode == 1 ? b[at(t, row, 0)]
                                         : b[at(t, 0, 0)];
          want[at(t, row, col)] = c.op(a[at(t, row, col)], bv);
        }
    expect_close(p.read(dst), want, 1.6e-2, 1.6e-2);
  }
}

// add/sub/mul_binary_tile (api/compute/eltwise_binary_sfpu.h): DST[0] = DST[0] op DST[1], element
// by element; bf16 inputs, bf16 DST, so the only rounding is the bf16 result (within one ulp, 2^-8
// relative).
TEST(EmulatorCompute, SfpuBinaryOpsCombineTwoDstTiles) {
  struct Case {
    std::string op;
    std::function<float(float, float)> ref;
  };
  const std::vector<Case> cases = {
      {"add", std::plus<float>()}, {"sub", std::minus<float>()}, {"mul", std::multiplies<float>()}};
  constexpr uint32_t n = 3;
  const auto a = random_bf16(n * 1024, -2.0f, 2.0f, 21);
  const auto b = random_bf16(n * 1024, -2.0f, 2.0f, 22);
  for (const auto& c : cases) {
    SCOPED_TRACE(c.op);
    ProgramBuilder p;
    auto sa = p.dram(a), sb = p.dram(b), dst = p.dram(n);
    for (auto cb : {tt::CBIndex::c_0, tt::CBIndex::c_1, tt::CBIndex::c_16})
      p.cb(cb, 2);
    auto r = p.reader("dataflow/read_tiles.cpp", {sa, sb});
    auto w = p.writer("dataflow/write_tile.cpp", {dst});
    auto k = p.compute("compute/binary_sfpu.cpp",
                       ComputeConfig{.defines = {{"SFPU_BINARY_INIT", c.op + "_binary_tile_init"},
                                                 {"SFPU_BINARY_OP", c.op + "_binary_tile"}}});
    SetRuntimeArgs(p.program, r, tt::tt_metal::CoreCoord{0, 0}, {p.addr(sa), p.addr(sb), n});
    SetRuntimeArgs(p.program, w, tt::tt_metal::CoreCoord{0, 0}, {p.addr(dst), n, 0u});
    SetRuntimeArgs(p.program, k, tt::tt_metal::CoreCoord{0, 0}, {n});
    p.run();
    const auto got = p.read(dst);
    ASSERT_EQ(got.size(), a.size());
    for (std::size_t i = 0; i < a.size(); ++i) {
      const float want = c.ref(static_cast<float>(a[i]), static_cast<float>(b[i]));
      ASSERT_EQ(static_cast<float>(got[i]), static_cast<float>(bfloat16(want))) << "element " << i;
    }
  }
}

namespace {
std::vector<bfloat16> run_reduce(const std::vector<bfloat16>& in, uint32_t Ht, uint32_t Wt,
                                 float scaler, bool col, const std::string& op) {
  ProgramBuilder p;
  auto src = p.dram(in);
  const uint32_t n_out = col ? Wt : Ht;
  auto dst = p.dram(n_out);
  p.cb(tt::CBIndex::c_0, 2);
  p.cb(tt::CBIndex::c_2, 1);
  p.cb(tt::CBIndex::c_16, 2);
  auto r = p.reader("dataflow/reader_reduce.cpp", {src});
  auto w = p.writer("dataflow/write_tile.cpp", {dst});
  auto k = p.compute("compute/reduce.cpp",
                     ComputeConfig{.defines = {{"REDUCE_OP", op},
                                               {"REDUCE_DIM", col ? "ReduceDim::REDUCE_COL"
                                                                  : "ReduceDim::REDUCE_ROW"}}});
  uint32_t bits;
  std::memcpy(&bits, &scaler, 4);
  SetRuntimeArgs(p.program, r, tt::tt_metal::CoreCoord{0, 0},
                 {p.addr(src), Ht, Wt, bits, col ? 1u : 0u});
  SetRuntimeArgs(p.program, w, tt::tt_metal::CoreCoord{0, 0}, {p.addr(dst), n_out, 0u});
  SetRuntimeArgs(p.program, k, tt::tt_metal::CoreCoord{0, 0}, {n_out, col ? Ht : Wt});
  p.run();
  return p.read(dst);
}
} // namespace

TEST(EmulatorCompute, ReduceRowSumGivesColumnVectorInColumnZero) {
  constexpr uint32_t Ht = 2, Wt = 3;
  const auto in = random_bf16(Ht * Wt * 1024, -1.0f, 1.0f, 11);
  const auto out = run_reduce(in, Ht, Wt, 0.5f, false, "PoolType::SUM");
  std::vector<float> want(out.size(), 0.0f);
  for (uint32_t h = 0; h < Ht; ++h)
    for (int row = 0; row < 32; ++row) {
      double s = 0;
      for (uint32_t w = 0; w < Wt; ++w)
        for (int col = 0; col < 32; ++col)
          s += static_cast<float>(in[at(h * Wt + w, row, col)]);
      want[at(h, row, 0)] = static_cast<float>(0.5 * s);
    }
  expect_close(out, want, 1.6e-2, 1.6e-2);
}

TEST(EmulatorCompute, ReduceColMaxGivesRowVectorInRowZero) {
  constexpr uint32_t Ht = 3, Wt = 2;
  const auto in = random_bf16(Ht * Wt * 1024, -1.0f, 1.0f, 12);
  const auto out = run_reduce(in, Ht, Wt, 1.0f, true, "PoolType::MAX");
  std::vector<float> want(out.size(), 0.0f);
  for (uint32_t w = 0; w < Wt; ++w)
    for (int col = 0; col < 32; ++col) {
      float m = -INFINITY;
      for (uint32_t h = 0; h < Ht; ++h)
        for (int row = 0; row < 32; ++row)
          m = std::max(m, static_cast<float>(in[at(h * Wt + w, row, col)]));
      want[at(w, 0, col)] = m;
    }
  // MAX is exact: compare bit for bit.
  for (std::size_t i = 0; i < out.size(); ++i)
    ASSERT_EQ(static_cast<float>(out[i]), want[i]) << "element " << i;
}

// reduce_init sets the packer's edge mask (tt-llk _llk_pack_reduce_mask_config_) until
// reduce_uninit: packs keep column 0 (REDUCE_ROW) or row 0 (REDUCE_COL) and write zeros elsewhere.
TEST(EmulatorCompute, ReduceInitMasksEveryPackUntilReduceUninit) {
  const auto in = random_bf16(1024, 1.0f, 2.0f, 13); // no zeros: a kept element is never 0
  ProgramBuilder p;
  auto src = p.dram(in);
  auto dst = p.dram(3);
  p.cb(tt::CBIndex::c_0, 1);
  p.cb(tt::CBIndex::c_16, 1);
  auto r = p.reader("dataflow/read_tile.cpp", {src});
  auto w = p.writer("dataflow/write_tile.cpp", {dst});
  auto k = p.compute("compute/pack_mask.cpp", ComputeConfig{});
  SetRuntimeArgs(p.program, r, tt::tt_metal::CoreCoord{0, 0}, {p.addr(src), 1u});
  SetRuntimeArgs(p.program, w, tt::tt_metal::CoreCoord{0, 0}, {p.addr(dst), 3u, 0u});
  SetRuntimeArgs(p.program, k, tt::tt_metal::CoreCoord{0, 0}, {});
  p.run();
  const auto out = p.read(dst);
  for (int row = 0; row < 32; ++row)
    for (int col = 0; col < 32; ++col) {
      const float x = static_cast<float>(in[at(0, row, col)]);
      EXPECT_EQ(static_cast<float>(out[at(0, row, col)]), col == 0 ? x : 0.0f) << row << "," << col;
      EXPECT_EQ(static_cast<float>(out[at(1, row, col)]), row == 0 ? x : 0.0f) << row << "," << col;
      EXPECT_EQ(static_cast<float>(out[at(2, row, col)]), x) << row << "," << col;
    }
}
