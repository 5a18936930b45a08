// TT stage keep-rows (rows read once and kept in L1, in halves on both NoCs, shared rows, sums
// before the rowsum) and what the Float32 intermediates decide in it and in select-tile-ops.
#include "lowering/tt/target.hpp"
#include "stage_text.hpp"

namespace tk::lower {
namespace {

using namespace test;

// keep-rows: x is read at [i, j] by two loops: its row is read once per work item, in halves
// (both NoCs read and write all through the run): tiles [0, row_half) by the reader into cb_x_row,
// the rest by the writer into cb_x_row_w (256 pages each of the 1 MiB share: rows of up to 256
// tiles double-buffered in windows of 128 per half, longer ones up to 512 in one window of 256 per
// half, which row_single / row_double choose at run time), and the reader writes the y tiles of
// the loops over its half from cb_y_by_reader. Each loop splits into the two halves and the tiles
// past them. The row is read in chunks of 16 pages (the power of two at or below
// sqrt(256 x 397 / 256) = 19.9). z is read by one loop only, w at two different rows: both stay
// streamed.
const char* kKeepRows = R"(// after to-core-loop
program kr {
  options grid 8x8 cb_depth 2 fp32_acc false math_fidelity "HiFi4"
  tensor x: bf16[M, N] input layout dram interleaved tile 32x32 page 2048
  tensor z: bf16[M, N] input layout dram interleaved tile 32x32 page 2048
  tensor w: bf16[M, N] input layout dram interleaved tile 32x32 page 2048
  tensor y: bf16[M, N] output layout dram interleaved tile 32x32 page 2048
  cb cb_x index 0 format Float16_b page 2048 depth 2 role input tensor x
  cb cb_z index 1 format Float16_b page 2048 depth 2 role input tensor z
  cb cb_w index 2 format Float16_b page 2048 depth 2 role input tensor w
  cb cb_y index 16 format Float16_b page 2048 depth 2 role output tensor y

  func kernel kr(x: tensor, z: tensor, w: tensor, y: tensor, M: i32, N: i32, start: u32, count: u32) {
    let Mt: i32 = M / 32
    let Nt: i32 = N / 32
    for i in start .. +count per_core {
      let s: tile<f32> = tile.zeros()
      for j in 0 .. Nt reduction {
        s = tile.add(s, tile.rowsum(tile.add(load x[i, j], load w[i, j])))
      }
      for j in 0 .. Nt serial {
        store y[i, j] = tile.mul(tile.mul(load x[i, j], tile.bcast_col(s)), load z[i, j])
      }
      for j in 0 .. Nt serial {
        store y[i, j] = load w[0, j]
      }
    }
  }

  func host kr_host(M: u32, N: u32) {
    let Mt: u32 = M / 32u
    let work_items: u32 = Mt
  }

  host_plan {
    split split_work_to_cores items work_items grid 8x8 row_wise false
    per_core start count
  }
}
)";

TEST(TTStages, KeepRowsReadsARowOnceWhenLoopsReadItAgain) {
  const std::string out = test::run_stage("keep-rows", kKeepRows);
  for (
      const char* text :
      {"  cb cb_x_row index 3 format Float16_b page 2048 depth 256 role input\n"
       "  cb cb_x_row_w index 4 format Float16_b page 2048 depth 256 role input read_by writer\n"
       "  cb cb_y_by_reader index 17 format Float16_b page 2048 depth 2 role output written_by "
       "reader for cb_x_row tensor y\n",
       "    let row_single: i32 = min(4 * (Nt - min(Nt, 256)) / Nt, 1)\n"
       "    let row_double: i32 = 1 - row_single\n"
       "    let row_kept: i32 = min(Nt, 256 + 256 * row_single)\n"
       "    let row_half: i32 = min(128 + 128 * row_single, (row_kept + 31) / 32 * 16)\n"
       // the double-buffered windows one work item ahead: the first work item's row before
       // the per-core loop, ...
       "    let row_mid: i32 = min(row_half, row_kept)\n"
       "    for row_window in 0 .. row_double serial {\n"
       "      for row_chunk in 0 .. 8 serial {\n"
       "        let row_chunk_pages: i32 = min(max(min(row_half, row_kept) - row_chunk * 16, 0), "
       "16)\n"
       "        df.read_block(cb_x_row, x, start * Nt + row_chunk * 16, 1, 16, Nt, 1, 1, "
       "row_chunk_pages, 16)\n"
       "      }\n"
       "    }\n"
       "    for row_window_4 in 0 .. row_double serial {\n"
       "      for row_chunk_2 in 0 .. 8 serial {\n"
       "        let row_chunk_pages_2: i32 = min(max(row_kept - (row_half + row_chunk_2 * 16), 0), "
       "16)\n"
       "        df.read_block(cb_x_row_w, x, start * Nt + (row_half + row_chunk_2 * 16), 1, 16, "
       "Nt, 1, 1, row_chunk_pages_2, 16)\n"
       "      }\n"
       "    }\n"
       // ... and each iteration's the next work item's (an empty window after the core's
       // last); the one-window form reads this work item's row, as before
       "    for i in start .. +count per_core {\n"
       "      let row_next: i32 = min(start + count - 1u - i, 1u)\n"
       "      for row_window_1 in 0 .. row_double serial {\n"
       "        for row_chunk_1 in 0 .. 8 serial {\n"
       "          let row_chunk_pages_1: i32 = min(max(min(row_half, row_kept) * row_next - "
       "row_chunk_1 * 16, 0), 16)\n"
       "          df.read_block(cb_x_row, x, (i + 1) * Nt + row_chunk_1 * 16, 1, 16, Nt, 1, 1, "
       "row_chunk_pages_1, 16)\n"
       "        }\n"
       "      }\n"
       "      for row_window_5 in 0 .. row_double serial {\n"
       "        for row_chunk_3 in 0 .. 8 serial {\n"
       "          let row_chunk_pages_3: i32 = min(max(row_kept * row_next - (row_half + "
       "row_chunk_3 * 16), 0), 16)\n"
       "          df.read_block(cb_x_row_w, x, (i + 1) * Nt + (row_half + row_chunk_3 * 16), 1, "
       "16, Nt, 1, 1, row_chunk_pages_3, 16)\n"
       "        }\n"
       "      }\n"
       "      for row_window_8 in 0 .. row_single serial {\n"
       "        for row_chunk_4 in 0 .. 16 serial {\n"
       "          let row_chunk_pages_4: i32 = min(max(min(row_half, row_kept) - row_chunk_4 * 16, "
       "0), 16)\n"
       "          df.read_block(cb_x_row, x, i * Nt + row_chunk_4 * 16, 1, 16, Nt, 1, 1, "
       "row_chunk_pages_4, 16)\n",
       // w streams in the first walk (the reader pushes its tiles after the windows): the
       // halves are waited for whole before it, not tile by tile
       "      for row_window_10 in 0 .. row_double serial {\n"
       "        cb_wait_front(cb_x_row, 128)\n"
       "      }\n"
       "      for row_window_11 in 0 .. row_single serial {\n"
       "        cb_wait_front(cb_x_row, 256)\n"
       "      }\n"
       "      for row_window_14 in 0 .. row_double serial {\n"
       "        cb_wait_front(cb_x_row_w, 128)\n"
       "      }\n",
       // s = zeros and a loop of s += rowsum(e), e computed: the loop sums e into s_sum, and s
       // is its rowsum after the loop (one DST section a tile)
       "      let s_sum: tile<f32> = tile.zeros()\n"
       "      for j in 0 .. row_mid reduction {\n"
       "        s_sum = tile.add(s_sum, tile.add(cb.tile(cb_x_row, j), load w[i, j]))\n"
       "      }\n"
       "      for j in row_mid .. +row_kept - row_mid reduction {\n"
       "        s_sum = tile.add(s_sum, tile.add(cb.tile(cb_x_row_w, j - row_half), load w[i, "
       "j]))\n"
       "      }\n"
       "      for j in row_kept .. +Nt - row_kept reduction {\n"
       "        s_sum = tile.add(s_sum, tile.add(load x[i, j], load w[i, j]))\n"
       "      }\n"
       "      let s: tile<f32> = tile.rowsum(s_sum)\n",
       "        store y[i, j] = tile.mul(tile.mul(cb.tile(cb_x_row, j), tile.bcast_col(s)), load "
       "z[i, j])\n",
       "        store y[i, j] = tile.mul(tile.mul(cb.tile(cb_x_row_w, j - row_half), "
       "tile.bcast_col(s)), load z[i, j])\n",
       "      for j in 0 .. Nt serial {\n        store y[i, j] = load w[0, j]\n      }\n"
       "      for row_window_12 in 0 .. row_double serial {\n"
       "        cb_pop_front(cb_x_row, 128)\n"
       "      }\n"
       "      for row_window_13 in 0 .. row_single serial {\n"
       "        cb_pop_front(cb_x_row, 256)\n"
       "      }\n"
       "      for row_window_16 in 0 .. row_double serial {\n"
       "        cb_pop_front(cb_x_row_w, 128)\n"
       "      }\n"
       "      for row_window_17 in 0 .. row_single serial {\n"
       "        cb_pop_front(cb_x_row_w, 256)\n"
       "      }\n    }\n"
       // the empty window the last iteration pushed, waited for and popped after the loop
       "    for row_window_2 in 0 .. row_double serial {\n"
       "      cb_wait_front(cb_x_row, 128)\n"
       "    }\n"
       "    for row_window_3 in 0 .. row_double serial {\n"
       "      cb_pop_front(cb_x_row, 128)\n"
       "    }\n"
       "    for row_window_6 in 0 .. row_double serial {\n"
       "      cb_wait_front(cb_x_row_w, 128)\n"
       "    }\n"
       "    for row_window_7 in 0 .. row_double serial {\n"
       "      cb_pop_front(cb_x_row_w, 128)\n"
       "    }\n  }\n"})
    EXPECT_NE(out.find(text), std::string::npos) << text << "\n--- in ---\n" << out;
  EXPECT_EQ(out.find("cb.wait_upto"), std::string::npos) << out;
  EXPECT_EQ(out.find("cb_z_row"), std::string::npos) << out;
  EXPECT_EQ(out.find("cb_w_row"), std::string::npos) << out;
}

// keep-rows, shared rows: g is read at [0, j], the same row for every work item, so it is read
// once per core before the per-core loop into cb_g_row (one copy: 2048 B a page) and popped after
// it; x's row is read once per work item as before (two copies, in halves: cb_x_row and
// cb_x_row_w). Together 3 pages per tile of cap: 1 MiB / 6144 B = 170, rounded down to whole
// chunks of each half of x's row (16 pages: the power of two at or below sqrt(170 x 397 / 256) =
// 16.2), cap = 160. Past 160 tiles x's row is kept whole in one window of 160 per half while g's
// tiles past 160 are loaded: the output loop splits at both, and each part at row_half. b is read
// at [i, 0]: one tile a work item, not a row, so it streams.
const char* kSharedRows = R"(// after to-core-loop
program sr {
  options grid 8x8 cb_depth 2 fp32_acc false math_fidelity "HiFi4"
  tensor x: bf16[M, N] input layout dram interleaved tile 32x32 page 2048
  tensor g: bf16[1, N] input layout dram interleaved tile 32x32 page 2048
  tensor b: bf16[M, 32] input layout dram interleaved tile 32x32 page 2048
  tensor y: bf16[M, N] output layout dram interleaved tile 32x32 page 2048
  cb cb_x index 0 format Float16_b page 2048 depth 2 role input tensor x
  cb cb_g index 1 format Float16_b page 2048 depth 2 role input tensor g
  cb cb_b index 2 format Float16_b page 2048 depth 2 role input tensor b
  cb cb_y index 16 format Float16_b page 2048 depth 2 role output tensor y

  func kernel sr(x: tensor, g: tensor, b: tensor, y: tensor, M: i32, N: i32, start: u32, count: u32) {
    let Mt: i32 = M / 32
    let Nt: i32 = N / 32
    for i in start .. +count per_core {
      let s: tile<f32> = tile.zeros()
      for j in 0 .. Nt reduction {
        s = tile.add(s, tile.rowsum(load x[i, j]))
      }
      for j in 0 .. Nt serial {
        store y[i, j] = tile.mul(tile.mul(load x[i, j], tile.bcast_col(s)), tile.bcast_row(load g[0, j]))
      }
      store y[i, 0] = load b[i, 0]
    }
  }

  func host sr_host(M: u32, N: u32) {
    let Mt: u32 = M / 32u
    let work_items: u32 = Mt
  }

  host_plan {
    split split_work_to_cores items work_items grid 8x8 row_wise false
    per_core start count
  }
}
)";

TEST(TTStages, KeepRowsReadsASharedRowOncePerCore) {
  const std::string out = test::run_stage("keep-rows", kSharedRows);
  for (const char* text :
       {"  cb cb_x_row index 3 format Float16_b page 2048 depth 160 role input\n"
        "  cb cb_x_row_w index 4 format Float16_b page 2048 depth 160 role input read_by writer\n"
        "  cb cb_g_row index 5 format Float16_b page 2048 depth 160 role input\n"
        "  cb cb_y_by_reader index 17 format Float16_b page 2048 depth 2 role output written_by "
        "reader for cb_x_row tensor y\n",
        "    let shared_kept: i32 = min(Nt, 160)\n"
        "    let row_single: i32 = min(4 * (Nt - min(Nt, 160)) / Nt, 1)\n"
        "    let row_double: i32 = 1 - row_single\n"
        "    let row_kept: i32 = min(Nt, 160 + 160 * row_single)\n"
        "    let row_half: i32 = min(80 + 80 * row_single, (row_kept + 31) / 32 * 16)\n"
        "    let row_mid: i32 = min(row_half, row_kept)\n"
        "    let row_mid_1: i32 = min(row_half, shared_kept)\n"
        "    let row_mid_2: i32 = max(shared_kept, min(row_half, row_kept))\n"
        "    df.read_block(cb_g_row, g, 0, 1, shared_kept, Nt, 1, 1, shared_kept, 160)\n"
        "    cb_wait_front(cb_g_row, 160)\n"
        "    for row_window in 0 .. row_double serial {\n"
        "      for row_chunk in 0 .. 5 serial {\n"
        "        let row_chunk_pages: i32 = min(max(min(row_half, row_kept) - row_chunk * 16, 0), "
        "16)\n"
        "        df.read_block(cb_x_row, x, start * Nt + row_chunk * 16, 1, 16, Nt, 1, 1, "
        "row_chunk_pages, 16)\n"
        "      }\n"
        "    }\n",
        "      for row_window_9 in 0 .. row_single serial {\n"
        "        for row_chunk_5 in 0 .. 10 serial {\n"
        "          let row_chunk_pages_5: i32 = min(max(row_kept - (row_half + row_chunk_5 * 16), "
        "0), 16)\n"
        "          df.read_block(cb_x_row_w, x, i * Nt + (row_half + row_chunk_5 * 16), 1, 16, Nt, "
        "1, 1, row_chunk_pages_5, 16)\n",
        // the first walk takes x's tiles as they land, each half from its CB; the windows' waits
        // follow it
        "      for j in 0 .. row_mid reduction {\n"
        "        cb.wait_upto(cb_x_row, j + 1)\n"
        "        s = tile.add(s, tile.rowsum(cb.tile(cb_x_row, j)))\n"
        "      }\n"
        "      for j in row_mid .. +row_kept - row_mid reduction {\n"
        "        cb.wait_upto(cb_x_row_w, j - row_half + 1)\n"
        "        s = tile.add(s, tile.rowsum(cb.tile(cb_x_row_w, j - row_half)))\n"
        "      }\n"
        "      for row_window_10 in 0 .. row_double serial {\n"
        "        cb_wait_front(cb_x_row, 80)\n"
        "      }\n",
        // [0, shared_kept): both rows in L1; [shared_kept, row_kept): x's only; past: loaded;
        // each of the first two in x's halves
        "      for j in 0 .. row_mid_1 serial {\n"
        "        store y[i, j] = tile.mul(tile.mul(cb.tile(cb_x_row, j), tile.bcast_col(s)), "
        "tile.bcast_row(cb.tile(cb_g_row, j)))\n"
        "      }\n"
        "      for j in row_mid_1 .. +shared_kept - row_mid_1 serial {\n"
        "        store y[i, j] = tile.mul(tile.mul(cb.tile(cb_x_row_w, j - row_half), "
        "tile.bcast_col(s)), tile.bcast_row(cb.tile(cb_g_row, j)))\n"
        "      }\n"
        "      for j in shared_kept .. +row_mid_2 - shared_kept serial {\n"
        "        store y[i, j] = tile.mul(tile.mul(cb.tile(cb_x_row, j), tile.bcast_col(s)), "
        "tile.bcast_row(load g[0, j]))\n"
        "      }\n"
        "      for j in row_mid_2 .. +row_kept - row_mid_2 serial {\n"
        "        store y[i, j] = tile.mul(tile.mul(cb.tile(cb_x_row_w, j - row_half), "
        "tile.bcast_col(s)), tile.bcast_row(load g[0, j]))\n"
        "      }\n"
        "      for j in row_kept .. +Nt - row_kept serial {\n"
        "        store y[i, j] = tile.mul(tile.mul(load x[i, j], tile.bcast_col(s)), "
        "tile.bcast_row(load g[0, j]))\n",
        "      store y[i, 0] = load b[i, 0]\n"
        "      for row_window_12 in 0 .. row_double serial {\n"
        "        cb_pop_front(cb_x_row, 80)\n"
        "      }\n",
        "      for row_window_17 in 0 .. row_single serial {\n"
        "        cb_pop_front(cb_x_row_w, 160)\n"
        "      }\n"
        "    }\n",
        "      cb_pop_front(cb_x_row_w, 80)\n"
        "    }\n"
        "    cb_pop_front(cb_g_row, 160)\n"})
    EXPECT_NE(out.find(text), std::string::npos) << text << "\n--- in ---\n" << out;
  EXPECT_EQ(out.find("cb_b_row"), std::string::npos) << out;
}

// keep-rows: in a walk over a kept row, `let d = e` read only as `tile.mul(d, d)` by the next
// statement becomes tile.square(e) there (one DST section: the let, read twice, would be packed
// into a CB and copied back twice). A let read anywhere else stays (u: also stored).
TEST(TTStages, KeepRowsSquaresALetTheNextStatementMultipliesByItself) {
  std::string in = kKeepRows;
  const std::string walk = "      for j in 0 .. Nt reduction {\n"
                           "        s = tile.add(s, tile.rowsum(tile.add(load x[i, j], load w[i, "
                           "j])))\n"
                           "      }\n";
  in.replace(in.find(walk), walk.size(),
             "      for j in 0 .. Nt reduction {\n"
             "        let d: tile<f32> = tile.sub(load x[i, j], tile.bcast_col(s))\n"
             "        s = tile.add(s, tile.rowsum(tile.mul(d, d)))\n"
             "      }\n"
             "      for j in 0 .. Nt serial {\n"
             "        let u: tile<f32> = tile.sub(load x[i, j], tile.bcast_col(s))\n"
             "        s = tile.add(s, tile.rowsum(tile.mul(u, u)))\n"
             "        store y[i, j] = u\n"
             "      }\n");
  const std::string out = test::run_stage("keep-rows", in);
  for (const char* text :
       {"      for j in 0 .. row_mid reduction {\n"
        "        cb.wait_upto(cb_x_row, j + 1)\n"
        "        s = tile.add(s, tile.rowsum(tile.square(tile.sub(cb.tile(cb_x_row, j), "
        "tile.bcast_col(s)))))\n"
        "      }\n",
        "      for j in row_kept .. +Nt - row_kept reduction {\n"
        "        s = tile.add(s, tile.rowsum(tile.square(tile.sub(load x[i, j], "
        "tile.bcast_col(s)))))\n"
        "      }\n",
        "        let u: tile<f32> = tile.sub(cb.tile(cb_x_row, j), tile.bcast_col(s))\n"
        "        s = tile.add(s, tile.rowsum(tile.mul(u, u)))\n"})
    EXPECT_NE(out.find(text), std::string::npos) << text << "\n--- in ---\n" << out;
  EXPECT_EQ(out.find("let d:"), std::string::npos) << out;
}

// keep-rows sums e tile by tile and takes one rowsum after the loop only when e is computed (a
// tile read as it is, rowsum(x[i, j]), stays: reduce_tile sums it straight from its CB into DST)
// and nothing assigns the sum after the loop (here the square test's u loop adds to s again).
TEST(TTStages, KeepRowsSumsBeforeTheRowsumOnlyAComputedTermNotAssignedAfter) {
  std::string in = kKeepRows;
  const std::string walk = "        s = tile.add(s, tile.rowsum(tile.add(load x[i, j], load w[i, "
                           "j])))\n";
  in.replace(in.find(walk), walk.size(), "        s = tile.add(s, tile.rowsum(load x[i, j]))\n");
  std::string out = test::run_stage("keep-rows", in);
  EXPECT_EQ(out.find("s_sum"), std::string::npos) << out;
  EXPECT_NE(out.find("        s = tile.add(s, tile.rowsum(cb.tile(cb_x_row, j)))\n"),
            std::string::npos)
      << out;
  in = kKeepRows;
  const std::string store = "        store y[i, j] = load w[0, j]\n";
  in.replace(in.find(store), store.size(), store + "        s = tile.add(s, load w[0, j])\n");
  out = test::run_stage("keep-rows", in);
  EXPECT_EQ(out.find("s_sum"), std::string::npos) << out;
}

// One fact, read by four decisions: a kernel's intermediates are Float32 when it has an f32
// tensor (tt::intermediates_f32). The same rmsnorm-like kernel with a bf16 output and with an f32
// one: with bf16 intermediates keep-rows sums the squares before the rowsum (select-tile-ops
// then splits the reduced fp32 sum into hi + lo) and select-tile-ops' temporaries are bf16; with
// Float32 ones the rowsum stays tile by tile (the reduce would read the sum as TF32), the
// temporaries are Float32, and DST is fp32 whatever else the kernel does.
TEST(TTStages, IntermediatesAreFloat32ExactlyWhenTheKernelHasAnF32Tensor) {
  const std::string bf16 = R"(kernel n(x: bf16[M, N]) -> (y: bf16[M, N]) {
    parallel i in tiles(M) {
        ss = zeros()
        for j in tiles(N) { ss += rowsum(square(x[i, j])) }
        r = rsqrt(ss * (1.0 / N))
        for j in tiles(N) { y[i, j] = x[i, j] * bcast_col(r) }
    }
}
)";
  std::string f32 = bf16;
  f32.replace(f32.find("(y: bf16"), 8, "(y: f32");
  auto module_after = [](const std::string& tk, const std::string& stage) {
    SourceFile file("k.tk", tk);
    Diagnostics diags(&file);
    std::optional<dsl::Module> ast = parser::parse(file, diags);
    if (!ast || !dsl::check(*ast, diags)) {
      ADD_FAILURE() << diags.str();
      return ir::Module{};
    }
    PipelineOptions o;
    o.stop_after = stage;
    std::optional<ir::Module> m = run_pipeline(*ast, Target::tt, o, diags);
    EXPECT_TRUE(m) << diags.str();
    return m ? *m : ir::Module{};
  };
  EXPECT_FALSE(tt::intermediates_f32(module_after(bf16, "plan-buffers").programs.at(0)));
  EXPECT_TRUE(tt::intermediates_f32(module_after(f32, "plan-buffers").programs.at(0)));
  EXPECT_NE(after_tk(bf16, "keep-rows").find("ss_sum"), std::string::npos);
  EXPECT_EQ(after_tk(f32, "keep-rows").find("ss_sum"), std::string::npos);
  const std::string sel_bf16 = cb_lines(after_tk(bf16, "select-tile-ops"));
  const std::string sel_f32 = cb_lines(after_tk(f32, "select-tile-ops"));
  EXPECT_NE(sel_bf16.find("format Float16_b page 2048 depth 1 role intermediate"),
            std::string::npos)
      << sel_bf16;
  EXPECT_EQ(sel_f32.find("format Float16_b page 2048 depth 1 role intermediate"), std::string::npos)
      << sel_f32;
  // An f32 tensor alone makes DST fp32: an element-wise kernel accumulates nothing.
  const std::string copy = "kernel c(x: f32[M, N]) -> (y: f32[M, N]) {\n"
                           "    parallel i in tiles(M), j in tiles(N) { y[i, j] = exp(x[i, j]) }\n"
                           "}\n";
  EXPECT_TRUE(tt::dst_fp32(module_after(copy, "select-tile-ops").programs.at(0)));
}

// select-tile-ops splits a reduced sum into hi + lo with Float32 intermediates too: in an f32
// kernel, rowsum(x + x) packs hi to a bf16 CB (the packer rounds), lo = v - hi to a second bf16
// one, and reduces both, each read exactly through SrcA; one Float32 temporary would have been
// truncated to TF32 there (Sums/RowSumF32 on both targets).
TEST(TTStages, SelectTileOpsSplitsAReducedSumIntoBf16PartsWithFloat32Intermediates) {
  const std::string tk = R"(kernel r(x: f32[M, N]) -> (y: f32[M, 1]) {
    parallel i in tiles(M) {
        s = zeros()
        for j in tiles(N) { s += rowsum(x[i, j] + x[i, j]) }
        y[i, 0] = s
    }
}
)";
  const std::string after = after_tk(tk, "select-tile-ops");
  const std::string cbs = cb_lines(after);
  EXPECT_NE(
      cbs.find("  cb cb_tmp0 index 26 format Float16_b page 2048 depth 1 role intermediate\n"
               "  cb cb_tmp1 index 27 format Float16_b page 2048 depth 1 role intermediate\n"),
      std::string::npos)
      << cbs;
  EXPECT_NE(after.find(R"(        copy_tile(cb_sum0, 0, 0)
        pack_tile(0, cb_tmp0)
        cb_wait_front(cb_tmp0, 1)
        copy_tile(cb_sum0, 0, 0)
        cb_pop_front(cb_sum0, 1)
        copy_tile(cb_tmp0, 0, 1)
        sub_binary_tile(0, 1, 0)
        pack_tile(0, cb_tmp1)
        cb_wait_front(cb_tmp1, 1)
        copy_tile(cb_s, 0, 0)
        reduce_tile(PoolType::SUM, ReduceDim::REDUCE_ROW, cb_tmp0, cb_scaler, 0, 0, 0)
        reduce_tile(PoolType::SUM, ReduceDim::REDUCE_ROW, cb_tmp1, cb_scaler, 0, 0, 0)
)"),
            std::string::npos)
      << after;
}

// keep-rows, halves: a work item's row is read half by the reader (NoC 1) and half by the writer
// (NoC 0), and the reader writes the outputs of the loops over its half, so that both NoCs carry
// reads and writes all through the run. That takes a second input CB per row and an output CB
// per tensor stored beside the row: with every input index but one taken (x, z, w and four
// others), x's row keeps one CB that the reader fills, and the outputs stay the writer's.
TEST(TTStages, KeepRowsReadsARowOnOneNocWhenNoSecondCbIsLeft) {
  std::string in = kKeepRows;
  const std::string after =
      "  cb cb_w index 2 format Float16_b page 2048 depth 2 role input tensor w\n";
  std::string more;
  for (int n = 3; n <= 6; ++n)
    more += "  cb cb_p" + std::to_string(n) + " index " + std::to_string(n) +
            " format Float16_b page 2048 depth 2 role input tensor w\n";
  in.replace(in.find(after), after.size(), after + more);
  const std::string out = test::run_stage("keep-rows", in);
  EXPECT_NE(out.find("  cb cb_x_row index 7 format Float16_b page 2048 depth 512 role input\n"),
            std::string::npos)
      << out;
  EXPECT_EQ(out.find("cb_x_row_w"), std::string::npos) << out;
  EXPECT_EQ(out.find("written_by reader"), std::string::npos) << out;
  EXPECT_EQ(out.find("row_half"), std::string::npos) << out;
}

} // namespace
} // namespace tk::lower
