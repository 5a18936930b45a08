// flash_ttnn: ttnn's causal SDPA prefill program (ttnn/cpp/ttnn/operations/transformer/sdpa/device/
// sdpa_program_factory.cpp, the standard non-streaming path with a generated causal mask) written
// for TileKit: the same parallelisation (heads, then Q chunks, over the grid), the low / high
// balancing of each core's Q chunks, CBs, subblocks and granularities, kernel roles and NoCs
// (docs/baselines.md, "FlashAttention").
#include "baselines/flash_ttnn.hpp"
#include "baselines/matmul_internal.hpp"

#include "arch/arch.hpp"

#include <tk_emulator/emulator.hpp>

#include <algorithm>
#include <array>
#include <bit>
#include <sstream>
#include <stdexcept>
#include <utility>

#include <tt-metalium/bfloat8.hpp>
#include <tt-metalium/host_api.hpp>
#include <tt-metalium/tensor_accessor_args.hpp>
#include <tt-metalium/tilize_utils.hpp>

namespace tk::baselines {

namespace {
using tt::tt_metal::CoreCoord;
using tt::tt_metal::CoreRange;
namespace distributed = tt::tt_metal::distributed;
using BufferPtr = std::shared_ptr<distributed::MeshBuffer>;

// sdpa_subblock_utils.hpp's determine_largest_subblock_size: the first subblock of its table that
// fits DST and divides the block.
std::pair<std::uint32_t, std::uint32_t> largest_subblock(std::uint32_t h, std::uint32_t w,
                                                         std::uint32_t dst) {
  constexpr std::array<std::pair<std::uint32_t, std::uint32_t>, 20> kTable = {{
      {2, 4}, {4, 2}, {1, 8}, {8, 1}, {1, 7}, {7, 1}, {2, 3}, {3, 2}, {1, 6}, {6, 1},
      {1, 5}, {5, 1}, {2, 2}, {1, 4}, {4, 1}, {1, 3}, {3, 1}, {1, 2}, {2, 1}, {1, 1},
  }};
  for (const auto& [sh, sw] : kTable)
    if (sh * sw <= dst && h % sh == 0 && w % sw == 0)
      return {sh, sw};
  return {1, 1};
}

// find_valid_granularity: the largest g <= max dividing count.
std::uint32_t granularity(std::uint32_t count, std::uint32_t max) {
  std::uint32_t g = std::min(count, max);
  while (g > 1 && count % g != 0)
    --g;
  return std::max<std::uint32_t>(g, 1);
}

} // namespace

FlashPlan flash_plan(const distributed::MeshDevice& device, FlashShape s, const FlashOptions& o) {
  const std::string name = "flash_ttnn";
  if (s.H == 0 || s.S == 0 || s.D == 0 || s.S % 32 != 0 || s.D % 32 != 0)
    throw std::invalid_argument(name + ": H must be positive and S, D positive multiples of 32");
  if (o.q_chunk == 0 || o.k_chunk == 0 || o.q_chunk % 32 != 0 || o.k_chunk % 32 != 0 ||
      s.S % o.q_chunk != 0 || s.S % o.k_chunk != 0)
    throw std::invalid_argument(name + ": the chunks (" + std::to_string(o.q_chunk) + ", " +
                                std::to_string(o.k_chunk) +
                                ") must be multiples of 32 that divide S = " + std::to_string(s.S));
  FlashPlan p;
  p.St = s.S / 32;
  p.DHt = s.D / 32;
  p.Sq_chunk_t = o.q_chunk / 32;
  p.Sk_chunk_t = o.k_chunk / 32;
  p.q_num_chunks = p.St / p.Sq_chunk_t;
  const CoreCoord grid = device.compute_with_storage_grid_size();
  const std::uint32_t num_cores = static_cast<std::uint32_t>(grid.x * grid.y);
  // batch, then heads, then Q chunks over the cores (batch and heads flattened into H: the
  // product of their factors is the same).
  p.nh_parallel = std::min(num_cores, s.H);
  p.q_parallel = std::min(num_cores / p.nh_parallel, p.q_num_chunks);
  p.nh_per_core = (s.H + p.nh_parallel - 1) / p.nh_parallel;
  p.q_per_core = (p.q_num_chunks + p.q_parallel - 1) / p.q_parallel;
  p.cores = p.nh_parallel * p.q_parallel;
  p.balanced = p.q_per_core * p.q_parallel == p.q_num_chunks && p.q_per_core % 2 == 0;
  constexpr std::uint32_t dst = 8; // bf16 DST, half sync
  std::tie(p.qk_subblock_h, p.qk_subblock_w) = largest_subblock(p.Sq_chunk_t, p.Sk_chunk_t, dst);
  std::tie(p.out_subblock_h, p.out_subblock_w) = largest_subblock(p.Sq_chunk_t, p.DHt, dst);
  p.stats_granularity = granularity(p.Sq_chunk_t, dst);
  p.sub_exp_granularity = granularity(p.Sk_chunk_t, dst);
  p.dht_granularity = granularity(p.DHt, dst);
  if (o.data_format != tt::DataFormat::Float16_b && o.data_format != tt::DataFormat::Bfp8_b)
    throw std::invalid_argument(name + ": Q, K, V and O are Float16_b or Bfp8_b");
  const std::uint64_t tile = tt::tile_size(tt::DataFormat::Float16_b);
  const std::uint64_t io_tile = tt::tile_size(o.data_format);
  const std::uint64_t q_tiles = std::uint64_t{p.Sq_chunk_t} * p.DHt * (p.q_per_core > 1 ? 2 : 1);
  const std::uint64_t kv_tiles = 2ull * 2 * p.Sk_chunk_t * p.DHt;
  const std::uint64_t mask_tiles = 2ull * p.Sq_chunk_t * p.Sk_chunk_t;
  const std::uint64_t qk_tiles = std::uint64_t{p.Sq_chunk_t} * p.Sk_chunk_t;
  const std::uint64_t out_im_tiles = 2ull * p.Sq_chunk_t * p.DHt; // out_im A and B
  const std::uint64_t out_tiles = std::uint64_t{p.Sq_chunk_t} * p.DHt;
  const std::uint64_t stats_tiles = 5ull * p.Sq_chunk_t;
  p.cb_bytes = io_tile * (q_tiles + kv_tiles + out_tiles) +
               tile * (mask_tiles + qk_tiles + out_im_tiles + stats_tiles + 2);
  const auto budget = tk::rt::emu::device_arch(device).l1_cb_budget();
  if (p.cb_bytes > budget)
    throw std::invalid_argument(name + ": the CBs of chunks (" + std::to_string(o.q_chunk) + ", " +
                                std::to_string(o.k_chunk) + ") at D = " + std::to_string(s.D) +
                                " take " + std::to_string(p.cb_bytes) + " B, more than the " +
                                std::to_string(budget) + " B of L1 for CBs");
  return p;
}

std::string describe_flash_plan(const FlashPlan& p) {
  std::ostringstream os;
  os << "flash_ttnn: chunks " << p.Sq_chunk_t << "x" << p.Sk_chunk_t << " tiles, " << p.cores
     << " cores (" << p.nh_parallel << " head groups of " << p.nh_per_core << " x " << p.q_parallel
     << " Q groups of " << p.q_per_core << " chunks" << (p.balanced ? ", balanced low/high" : "")
     << "), QK subblock " << p.qk_subblock_h << "x" << p.qk_subblock_w << ", OUT subblock "
     << p.out_subblock_h << "x" << p.out_subblock_w << ", CBs " << p.cb_bytes << " B";
  return os.str();
}

std::vector<float> run_flash_ttnn(distributed::MeshDevice& device, FlashShape s,
                                  const std::vector<bfloat16>& q, const std::vector<bfloat16>& k,
                                  const std::vector<bfloat16>& v, float scale,
                                  const FlashOptions& o) {
  const FlashPlan p = flash_plan(device, s, o);
  const bool io = !q.empty() || !k.empty() || !v.empty();
  const std::size_t n = std::size_t{s.H} * s.S * s.D;
  if (io && (q.size() != n || k.size() != n || v.size() != n))
    throw std::invalid_argument("flash_ttnn: Q, K and V must hold H*S*D values each");
  const tt::DataFormat io_format = o.data_format;
  const bool bfp8 = io_format == tt::DataFormat::Bfp8_b;
  const std::uint32_t io_tile = tt::tile_size(io_format);
  const std::uint32_t tiles = s.H * p.St * p.DHt;
  auto dram = [&]() {
    return distributed::MeshBuffer::create(
        distributed::ReplicatedBufferConfig{.size = std::uint64_t{tiles} * io_tile},
        distributed::DeviceLocalBufferConfig{.page_size = io_tile,
                                             .buffer_type = tt::tt_metal::BufferType::DRAM},
        &device);
  };
  BufferPtr qb = dram(), kb = dram(), vb = dram(), ob = dram();
  distributed::MeshCommandQueue& cq = device.mesh_command_queue();
  if (io) {
    const std::uint32_t rows = s.H * s.S;
    for (auto [buffer, m] : {std::pair{&qb, &q}, std::pair{&kb, &k}, std::pair{&vb, &v}}) {
      const std::vector<bfloat16> tiled = tilize_nfaces(*m, rows, s.D);
      if (bfp8) // tiles in face order, packed to Bfp8_b pages as ttnn.from_torch(dtype=bfloat8_b)
        distributed::EnqueueWriteMeshBuffer(
            cq, *buffer, pack_as_bfp8_tiles(ttsl::Span<const bfloat16>(tiled), false, false), true);
      else
        distributed::EnqueueWriteMeshBuffer(cq, *buffer, tiled, true);
    }
  }

  tt::tt_metal::Program program = tt::tt_metal::CreateProgram();
  const CoreCoord grid = device.compute_with_storage_grid_size();
  // Cores in row-major order over the grid, as ttnn's program factory numbers them.
  const auto core_of = [&](std::uint32_t i) { return CoreCoord{i % grid.x, i / grid.x}; };
  const CoreRange all({0, 0}, {grid.x - 1, grid.y - 1});
  auto cb = [&](tt::CBIndex index, std::uint64_t n_tiles,
                tt::DataFormat f = tt::DataFormat::Float16_b) {
    const std::uint32_t page = tt::tile_size(f);
    tt::tt_metal::CreateCircularBuffer(
        program, all,
        tt::tt_metal::CircularBufferConfig(static_cast<std::uint32_t>(n_tiles * page), {{index, f}})
            .set_page_size(index, page));
  };
  const std::uint32_t q_chunk_tiles = p.Sq_chunk_t * p.DHt, kv_chunk_tiles = p.Sk_chunk_t * p.DHt;
  const std::uint32_t qk_tiles = p.Sq_chunk_t * p.Sk_chunk_t;
  cb(tt::CBIndex::c_0, q_chunk_tiles * (p.q_per_core > 1 ? 2 : 1), io_format);
  cb(tt::CBIndex::c_1, 2 * kv_chunk_tiles, io_format);
  cb(tt::CBIndex::c_2, 2 * kv_chunk_tiles, io_format);
  cb(tt::CBIndex::c_3, 2 * qk_tiles);
  cb(tt::CBIndex::c_5, 1);
  cb(tt::CBIndex::c_7, 1);
  cb(tt::CBIndex::c_24, qk_tiles);
  cb(tt::CBIndex::c_25, q_chunk_tiles);
  cb(tt::CBIndex::c_26, q_chunk_tiles);
  for (tt::CBIndex stats : {tt::CBIndex::c_27, tt::CBIndex::c_28, tt::CBIndex::c_29,
                            tt::CBIndex::c_30, tt::CBIndex::c_31})
    cb(stats, p.Sq_chunk_t);
  cb(tt::CBIndex::c_16, q_chunk_tiles, io_format);

  const std::uint32_t balanced = p.balanced ? 1 : 0;
  const std::vector<std::uint32_t> common = {p.St, p.DHt, p.Sq_chunk_t, p.q_num_chunks,
                                             p.Sk_chunk_t};
  std::vector<std::uint32_t> reader_ct = common, writer_ct = common;
  reader_ct.push_back(balanced);
  writer_ct.push_back(balanced);
  tt::tt_metal::TensorAccessorArgs(*qb).append_to(reader_ct);
  tt::tt_metal::TensorAccessorArgs(*kb).append_to(reader_ct);
  tt::tt_metal::TensorAccessorArgs(*vb).append_to(reader_ct);
  tt::tt_metal::TensorAccessorArgs(*ob).append_to(writer_ct);
  const std::vector<std::uint32_t> compute_ct = {p.St,
                                                 p.DHt,
                                                 p.Sq_chunk_t,
                                                 p.q_num_chunks,
                                                 p.Sk_chunk_t,
                                                 p.qk_subblock_h,
                                                 p.qk_subblock_w,
                                                 p.out_subblock_h,
                                                 p.out_subblock_w,
                                                 std::bit_cast<std::uint32_t>(scale),
                                                 balanced,
                                                 p.stats_granularity,
                                                 p.sub_exp_granularity,
                                                 p.dht_granularity,
                                                 bfp8 ? 1u : 0u};
  const auto reader =
      tt::tt_metal::CreateKernel(program, detail::kernel("dataflow/sdpa_reader.cpp"), all,
                                 tt::tt_metal::ReaderDataMovementConfig(reader_ct));
  const auto writer =
      tt::tt_metal::CreateKernel(program, detail::kernel("dataflow/sdpa_writer.cpp"), all,
                                 tt::tt_metal::WriterDataMovementConfig(writer_ct));
  const auto compute =
      tt::tt_metal::CreateKernel(program, detail::kernel("compute/sdpa_flash.cpp"), all,
                                 tt::tt_metal::ComputeConfig{.math_fidelity = o.fidelity,
                                                             .fp32_dest_acc_en = false,
                                                             // The emulator models the packer's
                                                             // rounding into Bfp8_b with it (no
                                                             // cost; ttnn leaves it off).
                                                             .bfp8_pack_precise = bfp8,
                                                             .math_approx_mode = true,
                                                             .compile_args = compute_ct});
  const std::uint32_t num_cores = static_cast<std::uint32_t>(grid.x * grid.y);
  for (std::uint32_t i = 0; i < num_cores; ++i) {
    const CoreCoord core = core_of(i);
    // Cores past the work get empty ranges (ttnn's do too).
    std::uint32_t h0 = 0, h1 = 0, q0 = 0, qn = 0;
    if (i < p.cores) {
      h0 = std::min(s.H, (i / p.q_parallel) * p.nh_per_core);
      h1 = std::min(s.H, h0 + p.nh_per_core);
      q0 = std::min(p.q_num_chunks, (i % p.q_parallel) * p.q_per_core);
      qn = std::min(p.q_num_chunks, q0 + p.q_per_core) - q0;
    }
    tt::tt_metal::SetRuntimeArgs(
        program, reader, core,
        {detail::addr(qb), detail::addr(kb), detail::addr(vb), h0, h1, q0, qn});
    tt::tt_metal::SetRuntimeArgs(program, writer, core, {detail::addr(ob), h0, h1, q0, qn});
    tt::tt_metal::SetRuntimeArgs(program, compute, core, {h0, h1, q0, qn});
  }
  distributed::MeshWorkload workload;
  workload.add_program(distributed::MeshCoordinateRange(device.shape()), std::move(program));
  distributed::EnqueueMeshWorkload(cq, workload, false);
  if (!io) {
    distributed::Finish(cq);
    return {};
  }
  if (bfp8) {
    std::vector<std::uint32_t> words;
    distributed::EnqueueReadMeshBuffer(cq, words, ob, true);
    return untilize_nfaces(
        unpack_bfp8_tiles_into_float_vec(ttsl::Span<const std::uint32_t>(words), false, false),
        s.H * s.S, s.D);
  }
  std::vector<bfloat16> tiled;
  distributed::EnqueueReadMeshBuffer(cq, tiled, ob, true);
  const std::vector<bfloat16> out = untilize_nfaces(tiled, s.H * s.S, s.D);
  std::vector<float> r(out.size());
  std::transform(out.begin(), out.end(), r.begin(),
                 [](bfloat16 x) { return static_cast<float>(x); });
  return r;
}

} // namespace tk::baselines
