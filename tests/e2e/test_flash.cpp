// FlashAttention-2 with a row of tiles (tests/unit/interp/attention_flash.tk: the output row
// o[d in tiles(D)] carried across the key loop, updated element-wise and by `@`, stored) end to end
// on the CPU and on TT (the emulator), against a double reference (the bf16 bound, PCC and bias of
// harness.hpp) and the interpreter, at shapes with an odd number of key tiles and D = 32, 64 and
// 128; and a row of loaded tiles read by a triangular loop (tests/e2e/rows.tk).
#include "tests/e2e/attention_reference.hpp"
#include "tests/e2e/harness.hpp"

#include "dsl/check.hpp"
#include "lowering/pipeline.hpp"
#include "parser/parse.hpp"

#include "attention.hpp"
#include "attention_flash.hpp"
#include "attention_q4.hpp"
#include "rows.hpp"
#include "rows_sweep.hpp"

#include <gtest/gtest.h>
#include <tilekit/q_chunk.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>

namespace tk::e2e {
namespace {

using Shape = std::tuple<Backend, std::int64_t, std::int64_t, std::int64_t>; // backend, H, S, D

class Flash : public ::testing::TestWithParam<Shape> {};

TEST_P(Flash, MatchesTheReference) {
  const auto [b, H, S, D] = GetParam();
  Rng rng(0xf1a + static_cast<std::uint64_t>(H * 1000 + S * 10 + D));
  // Scores of either sign and spread enough that the running max changes along a row.
  const auto Q = random_bf16(H * S, D, -1, 1, rng);
  const auto K = random_bf16(H * S, D, -1, 1, rng);
  const auto V = random_bf16(H * S, D, -1, 1, rng);
  const float scale = 2.0f / std::sqrt(static_cast<float>(D));
  Matrix<bf16> O(H * S, D);
  const TensorView<const bf16> q{Q.data.data(), H, S, D}, k{K.data.data(), H, S, D},
      v{V.data.data(), H, S, D};
  const TensorView<bf16> o{O.data.data(), H, S, D};
  launch(
      b, [&] { gen::attention_flash::run_cpu(q, k, v, scale, o); },
      [&] { gen::attention_flash::run_tt(device(), q, k, v, scale, o); });
  const Reference ref = causal_attention(Q, K, V, H, S, D, 1, static_cast<double>(scale));
  const Outcome out =
      verify_kernel(TK_E2E_FLASH_FILE, "attention_flash",
                    {{{"Q", batch(Q, H, S)}, {"K", batch(K, H, S)}, {"V", batch(V, H, S)}},
                     {{"scale", static_cast<double>(scale)}},
                     {}},
                    "O", O, ref);
  EXPECT_TRUE(out.ok) << out.detail;
  EXPECT_LE(std::abs(out.bias), out.bias_bound);
  std::printf("attention_flash %s H = %lld, S = %lld, D = %lld: max |err| %.3g, PCC %.6f, bias "
              "%.3g (bound %.3g)\n",
              b == Backend::cpu ? "cpu" : "tt", static_cast<long long>(H),
              static_cast<long long>(S), static_cast<long long>(D), out.max_abs_err, out.pcc,
              out.bias, out.bias_bound);
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, Flash,
    ::testing::Values(Shape{Backend::cpu, 1, 32, 32}, Shape{Backend::cpu, 2, 96, 64},
                      Shape{Backend::cpu, 2, 160, 128}, Shape{Backend::cpu, 3, 224, 64},
                      Shape{Backend::tt, 1, 32, 32}, Shape{Backend::tt, 2, 96, 64},
                      Shape{Backend::tt, 2, 160, 128}, Shape{Backend::tt, 3, 224, 64},
                      // D = 1056: 33 tiles, one past the 32-tile windows stream-rows reads Q, K
                      // and V into, so the last tile of each row is streamed (docs/lowering.md,
                      // "Rows in blocks").
                      Shape{Backend::cpu, 1, 64, 1056}, Shape{Backend::tt, 1, 64, 1056}));

// The Q chunk (bench/attention_q4.tk: attention.tk with @options(q_chunk = 4), docs/lowering.md,
// "The Q chunk") on TT: four query tile rows per work item share each key step's K and V windows,
// their m, l and o cycling through their CBs. S = 96 is one chunk of three rows (the fourth
// clamped to the last row), 160 and 224 end in a partial chunk, 256 is two whole chunks per head;
// D = 256 is the longest row a chunk's share of the Q window holds (8 tiles).
class FlashChunk
    : public ::testing::TestWithParam<std::tuple<std::int64_t, std::int64_t, std::int64_t>> {
}; // H, S, D

TEST_P(FlashChunk, MatchesTheReference) {
  const auto [H, S, D] = GetParam();
  Rng rng(0xf1c + static_cast<std::uint64_t>(H * 1000 + S * 10 + D));
  const auto Q = random_bf16(H * S, D, -1, 1, rng);
  const auto K = random_bf16(H * S, D, -1, 1, rng);
  const auto V = random_bf16(H * S, D, -1, 1, rng);
  const float scale = 2.0f / std::sqrt(static_cast<float>(D));
  Matrix<bf16> O(H * S, D);
  const TensorView<const bf16> q{Q.data.data(), H, S, D}, k{K.data.data(), H, S, D},
      v{V.data.data(), H, S, D};
  const TensorView<bf16> o{O.data.data(), H, S, D};
  gen::attention_q4::run_tt(device(), q, k, v, scale, o);
  const Reference ref = causal_attention(Q, K, V, H, S, D, 1, static_cast<double>(scale));
  const Outcome out =
      verify_kernel(TK_E2E_FLASH_Q4_FILE, "attention_q4",
                    {{{"Q", batch(Q, H, S)}, {"K", batch(K, H, S)}, {"V", batch(V, H, S)}},
                     {{"scale", static_cast<double>(scale)}},
                     {}},
                    "O", O, ref);
  EXPECT_TRUE(out.ok) << out.detail;
  EXPECT_LE(std::abs(out.bias), out.bias_bound);
  std::printf("attention_q4 tt H = %lld, S = %lld, D = %lld: max |err| %.3g, PCC %.6f, bias %.3g "
              "(bound %.3g)\n",
              static_cast<long long>(H), static_cast<long long>(S), static_cast<long long>(D),
              out.max_abs_err, out.pcc, out.bias, out.bias_bound);
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, FlashChunk,
    ::testing::Values(std::tuple<std::int64_t, std::int64_t, std::int64_t>{1, 96, 32},
                      std::tuple<std::int64_t, std::int64_t, std::int64_t>{2, 160, 128},
                      std::tuple<std::int64_t, std::int64_t, std::int64_t>{3, 224, 64},
                      std::tuple<std::int64_t, std::int64_t, std::int64_t>{2, 256, 256}));

// The Q chunk rule's inputs as the compiler fixes them for examples/attention.tk on the n150
// (chunk-rows, price-q-chunk): the constant arguments of the host's tt.q_chunk call after lowering
// the example, read through tk::tt_host::q_chunk_limits as the generated host reads them.
tk::tt_host::QChunkLimits compiled_q_chunk_limits() {
  std::ifstream in(TK_E2E_ATTENTION_FILE);
  std::stringstream text;
  text << in.rdbuf();
  SourceFile file(TK_E2E_ATTENTION_FILE, text.str());
  Diagnostics diags(&file);
  std::optional<dsl::Module> ast = parser::parse(file, diags);
  EXPECT_TRUE(ast && dsl::check(*ast, diags)) << diags.str();
  std::optional<ir::Module> m;
  if (ast)
    m = lower::run_pipeline(*ast, lower::Target::tt, {}, diags);
  EXPECT_TRUE(m.has_value()) << diags.str();
  std::vector<std::int64_t> a;
  if (m)
    for (const ir::Function& f : m->programs.at(0).functions)
      if (f.kind == ir::FuncKind::host)
        for (const ir::Stmt& s : ir::as<ir::Block>(f.body)->stmts)
          if (const ir::Decl* d = ir::as<ir::Decl>(s))
            if (const ir::Call* c = ir::as<ir::Call>(d->value);
                c && c->fn == ir::Intrinsic::tt_q_chunk)
              for (std::size_t i = 3; i < c->args.size(); ++i)
                a.push_back(ir::as<ir::IntImm>(c->args[i])->value);
  EXPECT_EQ(a.size(), static_cast<std::size_t>(tk::tt_host::kQChunkArgs))
      << "the host of examples/attention.tk calls tt.q_chunk";
  a.resize(tk::tt_host::kQChunkArgs, 0);
  return tk::tt_host::q_chunk_limits(a.data());
}

// The Q chunk the host's rule chooses at run time (examples/attention.tk without the option:
// docs/lowering.md, "The compiler applies the rule at run time") on TT, at shapes where the rule
// chooses more than one row: 16 x 480 x 128 (chunks of two rows, 15 rows per head: a last chunk
// shorter than the others) and 64 x 128 x 256 (chunks of two rows at D = 256). Since the rule
// prices the single and diagonal key steps by their own cost (2026-11-29) it chooses two rows at
// both (until then 32 x 224 x 128 chose two, 64 x 128 x 256 four; 32 x 224 x 128 now one).
// Since the SFPU calls are priced by their own costs (the accurate exp dominates a row's key step,
// and no row shares it) and every FPU call pays its unpack, the rule chooses at most two rows at
// D = 128 (16 x 224 x 128 chose two until then, 64 x 128 x 128 four), four at D = 256. The rule's
// choice is worked out with the inputs the compiler gives it (compiled_q_chunk_limits), so that the
// test runs the chunked path it names.
class FlashRule
    : public ::testing::TestWithParam<std::tuple<std::int64_t, std::int64_t, std::int64_t>> {
}; // H, S, D

TEST_P(FlashRule, MatchesTheReference) {
  const auto [H, S, D] = GetParam();
  static const tk::tt_host::QChunkLimits limits = compiled_q_chunk_limits();
  EXPECT_EQ(limits.cores, 64);
  for (const tk::tt_host::QChunkCosts& c : limits.costs) // q = 1, 2, 4, 8: priced
    EXPECT_TRUE(c.item.at(2) > 0 && c.chunk.at(2) > 0 && c.single.at(2) > 0 &&
                c.diagonal.at(2) > 0);
  const std::int64_t chosen = tk::tt_host::choose_q_chunk(H, S / 32, D / 32, limits);
  // the rule's projections (include/tilekit/q_chunk.hpp) at these limits: 16 x 480 x 128 least at
  // q = 2 (0.294 M cycles against q = 1's 0.296 M), 64 x 128 x 256 at q = 2 too (0.198 M against
  // q = 4's 0.245 M: docs/lowering.md, "Single key steps in the rule")
  EXPECT_EQ(chosen, 2);
  Rng rng(0xf1d + static_cast<std::uint64_t>(H * 1000 + S * 10 + D));
  const auto Q = random_bf16(H * S, D, -1, 1, rng);
  const auto K = random_bf16(H * S, D, -1, 1, rng);
  const auto V = random_bf16(H * S, D, -1, 1, rng);
  const float scale = 2.0f / std::sqrt(static_cast<float>(D));
  Matrix<bf16> O(H * S, D);
  const TensorView<const bf16> q{Q.data.data(), H, S, D}, k{K.data.data(), H, S, D},
      v{V.data.data(), H, S, D};
  const TensorView<bf16> o{O.data.data(), H, S, D};
  gen::attention::run_tt(device(), q, k, v, scale, o);
  const Reference ref = causal_attention(Q, K, V, H, S, D, 1, static_cast<double>(scale));
  const Outcome out =
      verify_kernel(TK_E2E_ATTENTION_FILE, "attention",
                    {{{"Q", batch(Q, H, S)}, {"K", batch(K, H, S)}, {"V", batch(V, H, S)}},
                     {{"scale", static_cast<double>(scale)}},
                     {}},
                    "O", O, ref);
  EXPECT_TRUE(out.ok) << out.detail;
  EXPECT_LE(std::abs(out.bias), out.bias_bound);
  std::printf("attention (q = %lld by the rule) tt H = %lld, S = %lld, D = %lld: max |err| %.3g, "
              "PCC %.6f, bias %.3g (bound %.3g)\n",
              static_cast<long long>(chosen), static_cast<long long>(H), static_cast<long long>(S),
              static_cast<long long>(D), out.max_abs_err, out.pcc, out.bias, out.bias_bound);
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, FlashRule,
    ::testing::Values(std::tuple<std::int64_t, std::int64_t, std::int64_t>{16, 480, 128},
                      std::tuple<std::int64_t, std::int64_t, std::int64_t>{64, 128, 256}));

// What a generated run_tt throws for one head of 32 rows at head size D (its tk::Error's text),
// before it touches the device.
template <class RunTt>
std::string host_error(RunTt run_tt, std::int64_t D) {
  constexpr std::int64_t S = 32;
  const Matrix<bf16> Q(S, D), K(S, D), V(S, D);
  Matrix<bf16> O(S, D);
  const TensorView<const bf16> q{Q.data.data(), 1, S, D}, k{K.data.data(), 1, S, D},
      v{V.data.data(), 1, S, D};
  const TensorView<bf16> o{O.data.data(), 1, S, D};
  try {
    run_tt(device(), q, k, v, 1.0f, o);
  } catch (const tk::Error& e) {
    return e.what();
  }
  return "(no tk::Error thrown)";
}

// A chunk's rows share the Q window (32 tiles): at q = 4 a row holds at most 8 tiles, and the
// host says so before it touches the device.
TEST(FlashChunkHost, RejectsARowLongerThanItsShareOfTheWindow) {
  EXPECT_EQ(host_error(gen::attention_q4::run_tt, 9 * 32),
            "attention_q4: row of tiles 'o' needs D / 32 = 9 tiles (Q.cols = 288), but its "
            "circular buffer holds 8 (D at most 256)");
}

// On TT the row o lives in a circular buffer of 64 Float32 tiles (select_tile_ops_rows.hpp): the
// host rejects D = 2080 (65 tiles) before it touches the device; the CPU has no such bound.
TEST(FlashHost, RejectsARowLongerThanItsCircularBuffer) {
  EXPECT_EQ(host_error(gen::attention_flash::run_tt, 65 * 32),
            "attention_flash: row of tiles 'o' needs D / 32 = 65 tiles (Q.cols = 2080), but "
            "its circular buffer holds 64 (D at most 2048)");
}

// y[i, d] = 0.5 * (x[i, 0] + ... + x[i, d]), tile by tile: q[k] is a row of x's tiles, read by
// `for k in 0 .. d + 1`.
TEST(Rows, TriangularReadOfARowOfLoads) {
  constexpr std::int64_t M = 64, N = 160;
  Rng rng(0xf1b);
  const auto X = random_bf16(M, N, -1, 1, rng);
  Matrix<bf16> Y(M, N);
  launch(
      Backend::cpu,
      [&] {
        gen::rows_prefix::run_cpu(MatrixView<const bf16>{X.data.data(), M, N},
                                  MatrixView<bf16>{Y.data.data(), M, N});
      },
      NoTt{});
  Reference ref{M, N, std::vector<double>(static_cast<std::size_t>(M * N)), {}};
  for (std::int64_t r = 0; r < M; ++r)
    for (std::int64_t c = 0; c < N; ++c)
      for (std::int64_t k = 0; k <= c / 32; ++k)
        ref.value[static_cast<std::size_t>(r * N + c)] += 0.5 * X.at(r, k * 32 + c % 32);
  set_bf16_bound(ref);
  const Outcome out =
      verify_kernel(TK_E2E_ROWS_FILE, "rows_prefix", {{{"x", to_interp(X)}}, {}, {}}, "y", Y, ref);
  EXPECT_TRUE(out.ok) << out.detail;
  EXPECT_LE(std::abs(out.bias), out.bias_bound);
  std::printf("rows_prefix cpu: max |err| %.3g, PCC %.6f, bias %.3g (bound %.3g)\n",
              out.max_abs_err, out.pcc, out.bias, out.bias_bound);
}

// rows_sweep.tk on both targets: a row read by a loop that leaves it for the next one (on TT each
// tile goes back into the row's CB), then updated and stored, its binding and update split in two
// loops by keep-rows on TT; N = 160 is five tiles.
class RowsSweep : public ::testing::TestWithParam<Backend> {};

TEST_P(RowsSweep, MatchesTheReference) {
  const Backend b = GetParam();
  constexpr std::int64_t M = 64, N = 160;
  Rng rng(0xf1c);
  const auto X = random_bf16(M, N, -1, 1, rng);
  Matrix<bf16> Y(M, N);
  const MatrixView<const bf16> x{X.data.data(), M, N};
  const MatrixView<bf16> y{Y.data.data(), M, N};
  launch(
      b, [&] { gen::rows_sweep::run_cpu(x, y); }, [&] { gen::rows_sweep::run_tt(device(), x, y); });
  Reference ref{M, N, std::vector<double>(static_cast<std::size_t>(M * N)), {}};
  for (std::int64_t r = 0; r < M; ++r)
    for (std::int64_t c = 0; c < N; ++c) {
      double v = 3.0 * X.at(r, c);
      for (std::int64_t k = 0; k < N / 32; ++k)
        v += X.at(r, k * 32 + c % 32);
      ref.value[static_cast<std::size_t>(r * N + c)] = v;
    }
  set_bf16_bound(ref);
  const Outcome out = verify_kernel(TK_E2E_ROWS_SWEEP_FILE, "rows_sweep",
                                    {{{"x", to_interp(X)}}, {}, {}}, "y", Y, ref);
  EXPECT_TRUE(out.ok) << out.detail;
  EXPECT_LE(std::abs(out.bias), out.bias_bound);
  std::printf("rows_sweep %s: max |err| %.3g, PCC %.6f, bias %.3g (bound %.3g)\n",
              b == Backend::cpu ? "cpu" : "tt", out.max_abs_err, out.pcc, out.bias, out.bias_bound);
}

INSTANTIATE_TEST_SUITE_P(Targets, RowsSweep, ::testing::Values(Backend::cpu, Backend::tt));

} // namespace
} // namespace tk::e2e
