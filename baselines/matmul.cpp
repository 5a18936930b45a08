// The SDK matmul baselines' entry points: the algorithms' and fidelities' names, describe_plan and
// run_matmul (inputs to DRAM, the program of matmul_sdk.cpp or matmul_ttnn.cpp, C back). The
// reuse algorithms' blocks: matmul_blocks.cpp; the reference and checks: matmul_check.cpp.
#include "baselines/matmul.hpp"
#include "baselines/matmul_internal.hpp"
#include "baselines/matmul_sdk.hpp"
#include "baselines/matmul_ttnn.hpp"

#include "arch/arch.hpp"

#include <tk_emulator/emulator.hpp>

#include <algorithm>
#include <memory>
#include <sstream>
#include <stdexcept>

#include <tt-metalium/bfloat4.hpp>
#include <tt-metalium/bfloat8.hpp>
#include <tt-metalium/constants.hpp>
#include <tt-metalium/distributed.hpp>
#include <tt-metalium/host_api.hpp>
#include <tt-metalium/tilize_utils.hpp>
#include <tt-metalium/work_split.hpp>

namespace tk::baselines {
namespace {

using tt::constants::TILE_HEIGHT;
using tt::constants::TILE_WIDTH;
using tt::tt_metal::BufferType;
using tt::tt_metal::CoreCoord;
using tt::tt_metal::MathFidelity;
using tt::tt_metal::Program;
namespace distributed = tt::tt_metal::distributed;
using detail::check_shape;
using detail::dims;
using detail::shape_str;

CoreCoord resolve_grid(const distributed::MeshDevice& device, CoreCoord grid) {
  const CoreCoord full = device.compute_with_storage_grid_size();
  if (grid.x == 0 && grid.y == 0)
    return full;
  if (grid.x == 0 || grid.y == 0 || grid.x > full.x || grid.y > full.y) {
    throw std::invalid_argument("matmul: the grid must be 1.." + dims(full.x, full.y) +
                                " (x columns by y rows) or 0x0 for the whole device; got " +
                                dims(grid.x, grid.y));
  }
  return grid;
}

} // namespace

std::string_view to_string(MatmulAlgo algo) {
  switch (algo) {
  case MatmulAlgo::single_core:
    return "single_core";
  case MatmulAlgo::multi_core:
    return "multi_core";
  case MatmulAlgo::reuse:
    return "reuse";
  case MatmulAlgo::reuse_mcast:
    return "reuse_mcast";
  case MatmulAlgo::ttnn_mcast:
    return "ttnn_mcast";
  }
  return "?";
}

std::optional<MatmulAlgo> parse_matmul_algo(std::string_view name) {
  for (MatmulAlgo a : kMatmulAlgos) {
    if (to_string(a) == name)
      return a;
  }
  if (name == to_string(MatmulAlgo::ttnn_mcast))
    return MatmulAlgo::ttnn_mcast;
  return std::nullopt;
}

std::string_view to_string(MathFidelity fidelity) {
  switch (fidelity) {
  case MathFidelity::LoFi:
    return "LoFi";
  case MathFidelity::HiFi2:
    return "HiFi2";
  case MathFidelity::HiFi3:
    return "HiFi3";
  case MathFidelity::HiFi4:
    return "HiFi4";
  default:
    return "?";
  }
}

std::optional<MathFidelity> parse_math_fidelity(std::string_view name) {
  for (MathFidelity f :
       {MathFidelity::LoFi, MathFidelity::HiFi2, MathFidelity::HiFi3, MathFidelity::HiFi4}) {
    if (to_string(f) == name)
      return f;
  }
  return std::nullopt;
}

std::string describe_plan(const distributed::MeshDevice& device, MatmulAlgo algo, MatmulShape shape,
                          const MatmulOptions& options) {
  const std::string name(to_string(algo));
  check_shape(name, shape);
  const CoreCoord grid = resolve_grid(device, options.grid);
  const std::uint32_t Mt = shape.M / TILE_HEIGHT, Kt = shape.K / TILE_WIDTH,
                      Nt = shape.N / TILE_WIDTH;
  std::ostringstream out;
  out << name << " " << shape_str(shape) << ": ";
  switch (algo) {
  case MatmulAlgo::single_core:
    out << Mt * Nt << " output tiles on core (0,0), " << Kt << " K tiles each";
    break;
  case MatmulAlgo::multi_core: {
    const auto [num_cores, all, g1, g2, per_core_1, per_core_2] =
        tt::tt_metal::split_work_to_cores(grid, Mt * Nt);
    out << Mt * Nt << " output tiles on " << num_cores << " cores (" << g1.num_cores() << " x "
        << per_core_1;
    if (!g2.empty())
      out << ", " << g2.num_cores() << " x " << per_core_2;
    out << "), " << Kt << " K tiles each";
    break;
  }
  case MatmulAlgo::reuse:
  case MatmulAlgo::reuse_mcast: {
    const ReuseBlocking b = choose_reuse_blocking(algo, shape, grid, options.fp32_dest_acc_en,
                                                  options.blocks, tk::rt::emu::device_arch(device));
    out << b.num_blocks_y << "x" << b.num_blocks_x << " blocks of " << b.per_core_M << "x"
        << b.per_core_N << " tiles (one per core), in0_block_w " << b.in0_block_w << " ("
        << Kt / b.in0_block_w << " K-blocks), sub-blocks " << b.out_subblock_h << "x"
        << b.out_subblock_w
        << (b.chosen_by == ReuseBlocking::ChosenBy::sdk    ? " (get_large_matmul_params)"
            : b.chosen_by == ReuseBlocking::ChosenBy::ttnn ? " (ttnn's benchmark rule)"
                                                           : " (fallback: at least 2x2 blocks)");
    break;
  }
  case MatmulAlgo::ttnn_mcast: {
    const TtnnConfig c = ttnn_config(shape, grid, options, tk::rt::emu::device_arch(device));
    out << c.num_blocks_y << "x" << c.num_blocks_x << " blocks of " << c.per_core_M << "x"
        << c.per_core_N << " tiles (one per core) in out blocks of " << c.out_block_h << "x"
        << c.out_block_w << ", in0_block_w " << c.in0_block_w << " (" << Kt / c.in0_block_w
        << " K-blocks), sub-blocks " << c.out_subblock_h << "x" << c.out_subblock_w
        << ", packer L1 accumulation ("
        << (options.in0_block_w_div == 0 ? "ttnn's automatic config" : "ttnn's benchmark config")
        << ")";
    break;
  }
  }
  return out.str();
}

std::vector<float> run_matmul(distributed::MeshDevice& device, MatmulAlgo algo, MatmulShape shape,
                              const std::vector<bfloat16>& a, const std::vector<bfloat16>& b,
                              const MatmulOptions& options) {
  const std::string name(to_string(algo));
  check_shape(name, shape);
  const tt::DataFormat format = options.data_format;
  if (format != tt::DataFormat::Float16_b &&
      !(algo == MatmulAlgo::ttnn_mcast &&
        (format == tt::DataFormat::Bfp8_b || format == tt::DataFormat::Bfp4_b)))
    throw std::invalid_argument(name +
                                ": A, B and C are Float16_b (ttnn_mcast: or Bfp8_b, Bfp4_b) here");
  const bool io = !a.empty() || !b.empty(); // both empty: no inputs written, no output read
  if (io &&
      (a.size() != std::size_t{shape.M} * shape.K || b.size() != std::size_t{shape.K} * shape.N)) {
    throw std::invalid_argument(name + ": A must hold M*K and B K*N values for " +
                                shape_str(shape));
  }
  SdkProblem p{.Mt = shape.M / TILE_HEIGHT,
               .Kt = shape.K / TILE_WIDTH,
               .Nt = shape.N / TILE_WIDTH,
               .a = {},
               .b = {},
               .c = {},
               .fidelity = options.fidelity,
               .fp32_dest_acc_en = options.fp32_dest_acc_en,
               .grid = resolve_grid(device, options.grid)};
  std::optional<ReuseBlocking> blocking;
  if (algo == MatmulAlgo::reuse || algo == MatmulAlgo::reuse_mcast)
    blocking = choose_reuse_blocking(algo, shape, p.grid, options.fp32_dest_acc_en, options.blocks,
                                     tk::rt::emu::device_arch(device)); // may throw
  std::optional<TtnnConfig> ttnn;
  if (algo == MatmulAlgo::ttnn_mcast)
    ttnn = ttnn_config(shape, p.grid, options, tk::rt::emu::device_arch(device)); // may throw

  const std::uint32_t tile_bytes = tt::tile_size(format);
  auto dram = [&](std::uint32_t tiles) {
    return distributed::MeshBuffer::create(
        distributed::ReplicatedBufferConfig{.size = tiles * tile_bytes},
        distributed::DeviceLocalBufferConfig{.page_size = tile_bytes,
                                             .buffer_type = BufferType::DRAM},
        &device);
  };
  p.a = dram(p.Mt * p.Kt);
  p.b = dram(p.Kt * p.Nt);
  p.c = dram(p.Mt * p.Nt);
  distributed::MeshCommandQueue& cq = device.mesh_command_queue();
  const bool bfp8 = format == tt::DataFormat::Bfp8_b, bfp4 = format == tt::DataFormat::Bfp4_b;
  auto write = [&](auto& buffer, const std::vector<bfloat16>& m, std::uint32_t rows,
                   std::uint32_t cols) {
    const std::vector<bfloat16> tiled = tilize_nfaces(m, rows, cols);
    if (bfp8) // tiles in face order, packed to Bfp8_b pages as ttnn.from_torch(dtype=bfloat8_b)
      distributed::EnqueueWriteMeshBuffer(
          cq, buffer, pack_as_bfp8_tiles(ttsl::Span<const bfloat16>(tiled), false, false), false);
    else if (bfp4) // and to Bfp4_b pages as ttnn.from_torch(dtype=bfloat4_b)
      distributed::EnqueueWriteMeshBuffer(
          cq, buffer, pack_as_bfp4_tiles(ttsl::Span<const bfloat16>(tiled), false, false), false);
    else
      distributed::EnqueueWriteMeshBuffer(cq, buffer, tiled, false);
  };
  if (io) {
    write(p.a, a, shape.M, shape.K);
    write(p.b, b, shape.K, shape.N);
  }

  Program program = tt::tt_metal::CreateProgram();
  switch (algo) {
  case MatmulAlgo::single_core:
    single_core_program(program, p);
    break;
  case MatmulAlgo::multi_core:
    multi_core_program(program, p);
    break;
  case MatmulAlgo::reuse:
    reuse_program(program, p, *blocking);
    break;
  case MatmulAlgo::reuse_mcast:
    reuse_mcast_program(program, device, p, *blocking);
    break;
  case MatmulAlgo::ttnn_mcast:
    ttnn_mcast_program(program, device, p.Mt, p.Kt, p.Nt, p.a, p.b, p.c, options, *ttnn);
    break;
  }
  distributed::MeshWorkload workload;
  workload.add_program(distributed::MeshCoordinateRange(device.shape()), std::move(program));
  distributed::EnqueueMeshWorkload(cq, workload, false);
  if (!io) {
    distributed::Finish(cq);
    return {};
  }
  if (bfp8 || bfp4) {
    std::vector<std::uint32_t> words;
    distributed::EnqueueReadMeshBuffer(cq, words, p.c, true);
    const ttsl::Span<const std::uint32_t> span(words);
    return untilize_nfaces(bfp8 ? unpack_bfp8_tiles_into_float_vec(span, false, false)
                                : unpack_bfp4_tiles_into_float_vec(span, false, false),
                           shape.M, shape.N);
  }
  std::vector<bfloat16> tiled;
  distributed::EnqueueReadMeshBuffer(cq, tiled, p.c, true);
  const std::vector<bfloat16> c = untilize_nfaces(tiled, shape.M, shape.N);
  std::vector<float> out(c.size());
  std::transform(c.begin(), c.end(), out.begin(), [](bfloat16 v) { return static_cast<float>(v); });
  return out;
}

} // namespace tk::baselines
