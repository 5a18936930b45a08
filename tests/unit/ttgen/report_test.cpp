// `ttgen report`: the static estimate against counts worked out by hand, its output (golden), and
// its errors (exact text, exit codes). tests/e2e/test_report.cpp checks it against the emulator's
// timing counters on every example.
#include "tools/ttgen/report_command.hpp"

#include "tests/support/golden.hpp"
#include "tools/ttgen/driver.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <map>
#include <sstream>

namespace tk::test {
namespace {

using namespace tk::ttgen;

struct Reported {
  int code;
  std::string out, err;
};

Reported report(const std::string& input, std::vector<std::string> shape,
                const std::string& format = "text", const std::string& stdin_text = "") {
  ReportOptions o;
  o.input = input;
  o.shape = std::move(shape);
  o.format = format;
  std::istringstream in(stdin_text);
  std::ostringstream out, err;
  const int code = run_report(o, in, out, err);
  return {code, out.str(), err.str()};
}

std::string example(const std::string& name) {
  return (source_dir() / "examples" / (name + ".tk")).string();
}

// matmul at M=256, K=384, N=320: Mt = 8, Kt = 12, Nt = 10, blocked (docs/lowering.md, "Blocked
// matmul"): 2 x 2 blocks of C (4 down x 5 across, one on each core of a 5 x 4 core grid) in two K
// steps of 6 end soonest (the rule's pipeline: a step's delivery 4,327, its compute 1,976; one
// step of 12 overlaps nothing and ends at 11,401, against 10,630; tests/unit/tt_lowering/
// matmul_blocks_test.cpp works such cases). Multicast: the first core of each grid row reads its
// 2 rows of A (4 x 24 = 96 pages) and sends them along the row, the top core of each column its
// 2 columns of B (5 x 24 = 120); C is written once (80). 960 tile products at 64 cycles (HiFi4);
// every tile is packed three times (to the Float32 partial sums after each K step, 160 packs of
// 4096 B, then to C, 80 of 2048 B, at 64 B/cycle) and copied back twice (160 x 8 cycles). The
// busiest core: its math thread's 48 x 64 + 8 x 8 = 3136 cycles, longer than its pack thread's
// 8 x 64 + 4 x 32 (the two overlap), above the DRAM bound of 296 pages at 288 B/cycle (and the
// DRAM floor, the same pages at the timing model's interleaved rate on both NoCs).
TEST(TtgenReport, MatmulCountsWorkedOutByHand) {
  Reported r = report(example("matmul"), {"M=256", "K=384", "N=320"}, "json");
  ASSERT_EQ(r.code, kOk) << r.err;
  EXPECT_EQ(r.err, "");
  const auto j = nlohmann::json::parse(r.out).at(0);
  EXPECT_EQ(j["work_items"], 20);
  EXPECT_EQ(j["cores"], 20);
  EXPECT_EQ(j["items_per_core"], nlohmann::json({1, 1}));
  EXPECT_EQ(j["tensors"][0]["dram_bytes_read"], 96 * 2048);
  EXPECT_EQ(j["tensors"][1]["dram_bytes_read"], 120 * 2048);
  EXPECT_EQ(j["tensors"][2]["dram_bytes_written"], 80 * 2048);
  EXPECT_EQ(j["dram_bytes_read"], 216 * 2048);
  EXPECT_EQ(j["dram_bytes_written"], 80 * 2048);
  EXPECT_EQ(j["matmul_tiles"], 960);
  EXPECT_EQ(j["tile_ops"], nlohmann::json::parse(R"([
    {"call": "copy_tile", "class": "unpack copy", "count": 160, "cycles": 1280.0},
    {"call": "matmul_block", "class": "matmul", "count": 960, "cycles": 61440.0},
    {"call": "pack_tile", "class": "pack", "count": 240, "cycles": 12800.0}])"));
  EXPECT_EQ(j["compute_cycles"], 61440.0 + 160 * 64 + 80 * 32 + 1280.0);
  EXPECT_EQ(j["compute_bound_cycles"], 3136.0);
  EXPECT_DOUBLE_EQ(j["dram_bound_cycles"].get<double>(), 296.0 * 2048 / 288);
  // The reader (NoC 0, TT's DRAM read NoC) reads A and B, the writer (NoC 1) writes C.
  EXPECT_EQ(j["dram_bytes_on_noc"], nlohmann::json({216 * 2048, 80 * 2048}));
  // The floor: the longer of all bytes at the 12 banks' 15.83 B/cycle each and NoC 1's bytes at
  // its DRAM queue's 66.1 B/cycle (wormhole_b0.hpp: dram_bank_bytes_per_cycle,
  // dram_read_total_bytes_per_cycle on dram_total_nocs = NoC 1): 3191 against 2479 cycles.
  EXPECT_DOUBLE_EQ(j["dram_floor_cycles"].get<double>(), 296.0 * 2048 / (12 * 15.83));
  EXPECT_EQ(j["bound"], "compute");
  // GEMM_FLOPS's ideal: 960 products x 64 cycles over the 64 cores of the chip.
  EXPECT_DOUBLE_EQ(j["ideal_matmul_cycles"].get<double>(), 960.0 * 64 / 64);
}

// Lower fidelity makes each product cheaper; the options of the command line apply.
TEST(TtgenReport, FidelityOverrideChangesTheMatmulCost) {
  ReportOptions o;
  o.input = example("matmul");
  o.shape = {"M=256", "K=384", "N=320"};
  o.format = "json";
  o.overrides.math_fidelity = "LoFi";
  std::istringstream in;
  std::ostringstream out, err;
  ASSERT_EQ(run_report(o, in, out, err), kOk) << err.str();
  const auto j = nlohmann::json::parse(out.str()).at(0);
  EXPECT_EQ(j["math_fidelity"], "LoFi");
  EXPECT_EQ(j["tile_ops"][1]["call"], "matmul_block");
  EXPECT_EQ(j["tile_ops"][1]["cycles"], 960.0 * 16);
}

// softmax walks each row of x three times (the row max, the sum, the output); keep-rows reads a
// row once into L1 when it fits the 256 tiles of its CB: 40 pages at M=128, N=320 (4 x 10
// tiles), and per tile: exp twice, the reduce max once; the sum of exponentials is summed tile by
// tile and reduced once a row (keep-rows), its f32 sum as hi + lo: two reduce sums a row.
TEST(TtgenReport, SoftmaxReadsARowOnceWhenItFits) {
  Reported r = report(example("softmax"), {"M=128,N=320"}, "json");
  ASSERT_EQ(r.code, kOk) << r.err;
  const auto j = nlohmann::json::parse(r.out).at(0);
  EXPECT_EQ(j["tensors"][0]["dram_bytes_read"], 40 * 2048);
  EXPECT_EQ(j["tensors"][1]["dram_bytes_written"], 40 * 2048);
  std::map<std::string, std::int64_t> count;
  for (const auto& op : j["tile_ops"])
    count[op["call"]] = op["count"];
  EXPECT_EQ(count["exp_tile"], 80);
  EXPECT_EQ(count["reduce_tile<MAX>"], 40);
  EXPECT_EQ(count["reduce_tile<SUM>"], 8);
  EXPECT_EQ(count["recip_tile"], 4);
}

// A row longer than half the CB (256 tiles). N = 8256 is 258 tiles: 2 past 256, re-read by 2 of
// the 3 walks, are less than a quarter of the row, so the row stays double-buffered, 256 tiles
// read once and 2 three times: 262 pages. N = 16448 is 514 tiles, kept in one window of 512 and
// the last 2 read three times: 518 pages.
TEST(TtgenReport, SoftmaxStreamsWhatARowHasPastItsCb) {
  for (const auto& [n, read] : {std::pair{8256, 262}, std::pair{16448, 518}}) {
    Reported r = report(example("softmax"), {"M=32,N=" + std::to_string(n)}, "json");
    ASSERT_EQ(r.code, kOk) << r.err;
    const auto j = nlohmann::json::parse(r.out).at(0);
    EXPECT_EQ(j["tensors"][0]["dram_bytes_read"], read * 2048) << n;
    EXPECT_EQ(j["tensors"][1]["dram_bytes_written"], n / 32 * 2048) << n;
  }
}

// Issue 31's figures at 4096²: the row-wise kernels read every input tile once (x's rows kept in
// L1 for the three walks, gamma, beta and g kept once per core and multicast to the grid: 128
// tiles each, read once for the chip) and write every output tile once. Before keep-rows and
// multicast-reads, layernorm read 100.7 MB (gamma and beta once per work item) and rmsnorm 67.1.
TEST(TtgenReport, RowWiseKernelsReadEachInputTileOnceAt4096) {
  constexpr std::int64_t page = 2048, x_tiles = 128 * 128, row_tiles = 128;
  const std::map<std::string, std::map<std::string, std::int64_t>> reads = {
      {"layernorm", {{"x", x_tiles}, {"gamma", row_tiles}, {"beta", row_tiles}}},
      {"rmsnorm", {{"x", x_tiles}, {"g", row_tiles}}},
      {"softmax", {{"x", x_tiles}}},
  };
  for (const auto& [name, tiles] : reads) {
    Reported r = report(example(name), {"M=4096,N=4096"}, "json");
    ASSERT_EQ(r.code, kOk) << r.err;
    const auto j = nlohmann::json::parse(r.out).at(0);
    std::int64_t minimal = 0;
    for (const auto& t : j["tensors"]) {
      if (t["role"] == "output") {
        EXPECT_EQ(t["dram_bytes_written"], x_tiles * page) << name;
        continue;
      }
      const std::string tensor = t["name"];
      ASSERT_TRUE(tiles.count(tensor)) << name << " " << tensor;
      EXPECT_EQ(t["tiles"], tiles.at(tensor)) << name << " " << tensor;
      EXPECT_EQ(t["dram_bytes_read"], tiles.at(tensor) * page) << name << " " << tensor;
      minimal += tiles.at(tensor) * page;
    }
    EXPECT_EQ(j["dram_bytes_read"], minimal) << name;
    EXPECT_EQ(j["dram_bytes_written"], x_tiles * page) << name;
  }
}

// The blocked matmul computes only the sub-blocks (2 x 2 tiles) that hold a tile of C, whatever
// block the rule picks at run time: every block's rows and columns are multiples of the
// sub-block but the last one's, which rounds up to it, and a block past the edge computes
// nothing, so the count is Kt x (Mt and Nt rounded up to even). At 2048 x 1024 x 4096 (64 x 32 x
// 128 tiles; 8 x 6 blocks, whose last column of blocks holds 2 of its 6 columns and whose last
// two cores of the third round hold none) exactly 262,144 (294,912 when every block ran all its
// sub-blocks); at 2112 x 1024 x 1056 (66 x 32 x 33) 66 x 34 x 32 = 71,808; at 3104^3 (97^3)
// 98 x 98 x 97 = 931,588; at 96 x 160 x 224 (3 x 5 x 7) 4 x 8 x 5 = 160.
TEST(TtgenReport, MatmulComputesNoSubBlockPastCsEdge) {
  const struct {
    const char* shape;
    std::int64_t tiles;
  } cases[] = {{"M=2048,K=1024,N=4096", 262144},
               {"M=2112,K=1024,N=1056", 71808},
               {"M=3104,K=3104,N=3104", 931588},
               {"M=96,K=160,N=224", 160}};
  for (const auto& c : cases) {
    Reported r = report(example("matmul"), {c.shape}, "json");
    ASSERT_EQ(r.code, kOk) << r.err;
    EXPECT_EQ(nlohmann::json::parse(r.out).at(0)["matmul_tiles"].get<std::int64_t>(), c.tiles)
        << c.shape;
  }
}

// mlp at M=2048 D=1024 F=4096 (Mt = 64, Dt = 32, Ft = 128; docs/lowering.md, "Recompute or
// materialise"): materialised, its hidden layer is two plain matmuls of 64 x 32 x 128 = 262,144
// tile products each at the least. The first one's blocks (choose-blocks' rule at run time, on the
// timing model's costs) are 8 x 6 tiles with K steps of 8 since matmul_call is 20 cycles (8 x 4
// and K steps of 4 at 28): 22 column blocks in 3 rounds of the grid's 8 columns. The last block
// of each block row (columns 126 .. 131) holds one sub-block column of C (126, 127), and the
// grid's last two columns of the third round hold none (columns 132 .. 143): block-matmul computes
// only the sub-blocks that hold a tile of C, so 262,144 products, 524,288 for both (the padded
// blocks made 8 x 24 blocks of 8 x 6 tiles over K 32, 294,912, and 557,056 before). As written
// every output tile (64 x 32) recomputes its row of h (128 x 32 products) and adds 128 more:
// 2,048 x 4,224 = 8,650,752. The scratch tensor mlp_h (64 x 128 tiles, bf16) is written once by
// the first program and read once by the second (multicast), so the materialised programs write Y
// and mlp_h: (2,048 + 8,192) x 2,048 B.
TEST(TtgenReport, MlpMaterialisesItsHiddenLayer) {
  Reported r = report(example("mlp"), {"M=2048,D=1024,F=4096"}, "json");
  ASSERT_EQ(r.code, kOk) << r.err;
  const auto all = nlohmann::json::parse(r.out);
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0]["kernel"], "mlp");
  EXPECT_EQ(all[1]["kernel"], "mlp_after_h");
  EXPECT_EQ(all[0]["matmul_tiles"].get<std::int64_t>(), 262144);
  EXPECT_EQ(all[0]["matmul_tiles"].get<std::int64_t>() + all[1]["matmul_tiles"].get<std::int64_t>(),
            524288);
  const auto& c = all[0]["materialise"];
  EXPECT_EQ(c["value"], "h");
  EXPECT_EQ(c["tensor"], "mlp_h");
  EXPECT_EQ(c["choice"], "dram");
  EXPECT_EQ(c["basis"], "rule"); // M, D and F are bound at run time
  ASSERT_EQ(c["alternatives"].size(), 3u);
  std::map<std::string, nlohmann::json> alt;
  for (const auto& a : c["alternatives"])
    alt[a["choice"]] = a;
  EXPECT_EQ(alt["recompute"]["matmul_tiles"], 8650752);
  EXPECT_EQ(alt["recompute"]["chosen"], false);
  EXPECT_EQ(alt["dram"]["matmul_tiles"], 524288);
  EXPECT_EQ(alt["dram"]["chosen"], true);
  EXPECT_EQ(alt["dram"]["dram_bytes_written"], (2048 + 8192) * 2048);
  EXPECT_EQ(alt["l1"]["generated"], false);
  EXPECT_EQ(alt["l1"]["l1_bytes_per_core"], 128 * 2048);
  EXPECT_LT(alt["dram"]["bound_us"].get<double>(), alt["recompute"]["bound_us"].get<double>());
  // The text names the choice and prices each alternative.
  Reported text = report(example("mlp"), {"M=2048,D=1024,F=4096"});
  ASSERT_EQ(text.code, kOk) << text.err;
  EXPECT_NE(text.out.find("materialise: 'h' of kernel 'mlp' (by rule)\n"), std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("  dram *             524,288"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("  recompute        8,650,752"), std::string::npos) << text.out;
}

// mlp with D = 32: j spans one tile, nothing to share, so the stage keeps the kernel as written
// (by the rule: M and F are bound at run time) and the report prices materialising by lowering it
// again that way. At M = F = 64 (Mt = Ft = 2, Dt = Jt = 1) both alternatives make the same tile
// products: recomputing 2 x 1 output tiles x 2 f x (1 + 1), materialising 2 x 2 x 1 + 2 x 1 x 2.
TEST(TtgenReport, MlpOfOneColumnTileRecomputes) {
  Reported r = report("-", {"M=64,F=64"}, "json",
                      "kernel mlp(X: bf16[M, 32], W1: bf16[32, F], b1: bf16[1, F], "
                      "W2: bf16[F, 32], b2: bf16[1, 32]) -> (Y: bf16[M, 32]) {\n"
                      "  parallel i in tiles(M), j in 0 .. 1 {\n"
                      "    acc = zeros()\n"
                      "    for f in tiles(F) {\n"
                      "      h = zeros()\n"
                      "      for d in 0 .. 1 { h += X[i, d] @ W1[d, f] }\n"
                      "      acc += gelu(h + bcast_row(b1[0, f])) @ W2[f, j]\n"
                      "    }\n"
                      "    Y[i, j] = acc + bcast_row(b2[0, j]) + X[i, j]\n"
                      "  }\n"
                      "}\n");
  ASSERT_EQ(r.code, kOk) << r.err;
  const auto all = nlohmann::json::parse(r.out);
  ASSERT_EQ(all.size(), 1u); // one program: the kernel as written
  const auto& c = all[0]["materialise"];
  EXPECT_EQ(c["choice"], "recompute");
  EXPECT_EQ(c["basis"], "rule");
  EXPECT_EQ(c["tensor"], "");
  EXPECT_EQ(c["why"], "'h' is invariant in 'j', which spans one tile: nothing to share, "
                      "materialising would only add the round trip: recompute");
  std::map<std::string, nlohmann::json> alt;
  for (const auto& a : c["alternatives"])
    alt[a["choice"]] = a;
  EXPECT_EQ(alt["recompute"]["chosen"], true);
  EXPECT_EQ(alt["recompute"]["matmul_tiles"], 8);
  EXPECT_EQ(alt["dram"]["chosen"], false);
  EXPECT_EQ(alt["dram"]["generated"], true);
  EXPECT_EQ(alt["dram"]["matmul_tiles"], 8);
  // The materialised form writes mlp_h (2 x 2 tiles) besides Y (2 x 1).
  EXPECT_EQ(alt["dram"]["dram_bytes_written"].get<std::int64_t>() -
                alt["recompute"]["dram_bytes_written"].get<std::int64_t>(),
            4 * 2048);
}

TEST(TtgenReport, TextOutput) {
  Reported r = report(example("matmul"), {"M=1024", "K=1024", "N=1024"});
  ASSERT_EQ(r.code, kOk) << r.err;
  expect_golden(source_dir() / "tests/golden/report/matmul_1024.txt", r.out);
  r = report(example("layernorm"), {"M=1024,N=4096"});
  ASSERT_EQ(r.code, kOk) << r.err;
  expect_golden(source_dir() / "tests/golden/report/layernorm_1024x4096.txt", r.out);
}

TEST(TtgenReport, ShapeErrorsAreUsageErrors) {
  const std::string mm = example("matmul");
  const std::pair<std::vector<std::string>, std::string> cases[] = {
      {{"M=256", "N=320"},
       "ttgen: error: --shape lacks K: kernel 'matmul' has dimensions M, K, N\n"},
      {{"M=256", "K=64", "N=320", "Q=32"},
       "ttgen: error: --shape: 'Q' is not a dimension of any kernel in '" + mm +
           "' (its dimensions: K, M, N)\n"},
      {{"M=250", "K=64", "N=320"},
       "ttgen: error: --shape: M=250: a row or column dimension is a multiple of 32 (tiles are "
       "32x32)\n"},
      {{"M=0", "K=64", "N=320"},
       "ttgen: error: --shape: M=0: a dimension holds at least one element\n"},
      {{"M256"},
       "ttgen: error: --shape: 'M256' is not NAME=SIZE; write the size of each dimension, e.g. "
       "--shape M=1024,N=512\n"},
      {{"M=32x"},
       "ttgen: error: --shape: 'M=32x' is not NAME=SIZE; write the size of each dimension, e.g. "
       "--shape M=1024,N=512\n"},
      {{"M=32", "M=64"}, "ttgen: error: --shape: dimension 'M' is given twice\n"},
  };
  for (const auto& [shape, message] : cases) {
    Reported r = report(mm, shape);
    EXPECT_EQ(r.code, kUsageError) << message;
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(r.err, message);
  }
}

TEST(TtgenReport, ErrorsInTheKernelAreUserErrors) {
  Reported r = report("-", {"M=32"}, "text",
                      "kernel k(x: bf16[M, N]) -> (y: bf16[M, N]) {\n"
                      "  parallel i in tiles(M), j in tiles(N) { y[i, j] = exq(x[i, j]) }\n"
                      "}\n");
  EXPECT_EQ(r.code, kUserError);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "<stdin>:2:53: error: unknown function 'exq'; did you mean 'exp'?\n"
                   "   2 |   parallel i in tiles(M), j in tiles(N) { y[i, j] = exq(x[i, j]) }\n"
                   "     |                                                     ^~~\n");
}

// Every kernel of a file is reported, each with its own dimensions.
TEST(TtgenReport, EveryKernelOfAFile) {
  Reported r = report("-", {"M=64,N=96"}, "json",
                      "kernel a(x: bf16[M, N]) -> (y: bf16[M, N]) {\n"
                      "  parallel i in tiles(M), j in tiles(N) { y[i, j] = exp(x[i, j]) }\n"
                      "}\n"
                      "kernel b(x: bf16[M, 32]) -> (y: bf16[M, 32]) {\n"
                      "  parallel i in tiles(M) { y[i, 0] = relu(x[i, 0]) }\n"
                      "}\n");
  ASSERT_EQ(r.code, kOk) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j.size(), 2u);
  EXPECT_EQ(j[0]["kernel"], "a");
  EXPECT_EQ(j[0]["dram_bytes_read"], 6 * 2048);
  EXPECT_EQ(j[1]["kernel"], "b");
  EXPECT_EQ(j[1]["shape"], nlohmann::json({{"M", 64}}));
  EXPECT_EQ(j[1]["dram_bytes_read"], 2 * 2048);
}

// --kernel reports one kernel of a file; a name that is not there is a usage error listing them.
TEST(TtgenReport, KernelSelectsOneKernel) {
  const std::string two = "kernel a(x: bf16[M, N]) -> (y: bf16[M, N]) {\n"
                          "  parallel i in tiles(M), j in tiles(N) { y[i, j] = exp(x[i, j]) }\n"
                          "}\n"
                          "kernel b(x: bf16[M, 32]) -> (y: bf16[M, 32]) {\n"
                          "  parallel i in tiles(M) { y[i, 0] = relu(x[i, 0]) }\n"
                          "}\n";
  ReportOptions o;
  o.input = "-";
  o.shape = {"M=64"};
  o.format = "json";
  o.kernel = "b";
  std::istringstream in(two);
  std::ostringstream out, err;
  ASSERT_EQ(run_report(o, in, out, err), kOk) << err.str();
  const auto j = nlohmann::json::parse(out.str());
  ASSERT_EQ(j.size(), 1u);
  EXPECT_EQ(j[0]["kernel"], "b");

  o.kernel = "c";
  std::istringstream in2(two);
  std::ostringstream out2, err2;
  EXPECT_EQ(run_report(o, in2, out2, err2), kUsageError);
  EXPECT_EQ(err2.str(),
            "ttgen: error: --kernel: no kernel 'c' in '<stdin>'; its kernels are a, b\n");
}

} // namespace
} // namespace tk::test
