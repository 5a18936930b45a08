// The TT-Metalium SDK's four matmul programming examples (tt-metal
// tt_metal/programming_examples/matmul/{matmul_single_core, matmul_multi_core,
// matmul_multicore_reuse, matmul_multicore_reuse_mcast}), ported as baselines: host programs on the
// real TT-Metalium API and kernels in baselines/kernels/, run here on TileKit's emulator
// (docs/baselines.md).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "arch/arch.hpp"

#include <tt-metalium/base_types.hpp>
#include <tt-metalium/bfloat16.hpp>
#include <tt-metalium/core_coord.hpp>
#include <tt-metalium/mesh_device.hpp>
#include <tt-metalium/tt_backend_api_types.hpp>

namespace tk::baselines {

/// The SDK's four examples, and ttnn_mcast: ttnn's 2D-multicast matmul as its matmul benchmark
/// configures it (the configuration of tech_reports/GEMM_FLOPS' rows), not one of `all`.
enum class MatmulAlgo { single_core, multi_core, reuse, reuse_mcast, ttnn_mcast };
inline constexpr MatmulAlgo kMatmulAlgos[] = {MatmulAlgo::single_core, MatmulAlgo::multi_core,
                                              MatmulAlgo::reuse, MatmulAlgo::reuse_mcast};
std::string_view to_string(MatmulAlgo algo);
/// "single_core", "multi_core", "reuse", "reuse_mcast", "ttnn_mcast".
std::optional<MatmulAlgo> parse_matmul_algo(std::string_view name);
std::string_view to_string(tt::tt_metal::MathFidelity fidelity);
/// "LoFi", "HiFi2", "HiFi3", "HiFi4".
std::optional<tt::tt_metal::MathFidelity> parse_math_fidelity(std::string_view name);

/// C (M x N) = A (M x K) · B (K x N); each a multiple of 32.
struct MatmulShape {
  std::uint32_t M = 0;
  std::uint32_t K = 0;
  std::uint32_t N = 0;
};

/// Which rule picks the reuse algorithms' blocks.
enum class BlockRule {
  /// The SDK examples' own: bmm_op_utils::get_large_matmul_params with in0_block_w = 2 and a
  /// 400-tile CB budget (and reuse_mcast's fallback where that gives fewer than 2 x 2 blocks).
  sdk,
  /// ttnn's hand-tuned matmul benchmark (tests/ttnn/unit_tests/benchmarks/test_benchmark.py,
  /// whose figures tech_reports/GEMM_FLOPS publishes): one block per core of the whole grid,
  /// per_core_M = Mt / rows, per_core_N = Nt / columns, in0_block_w = Kt / columns / div for the
  /// smallest power-of-two div whose CBs fit the core's L1 (the benchmark's in0_block_w_div), the
  /// sub-block from the same table. Needs Mt and Nt divisible by the grid's rows and columns.
  ttnn,
};

struct MatmulOptions {
  tt::tt_metal::MathFidelity fidelity = tt::tt_metal::MathFidelity::HiFi4;
  /// ComputeConfig::fp32_dest_acc_en. The SDK examples leave it false: DST holds bf16 and rounds
  /// the running sum after every 16-wide face of K. True accumulates in fp32 and halves DST
  /// (arch::ArchSpec::dst_tiles), so the reuse algorithms' sub-blocks hold at most half the tiles.
  bool fp32_dest_acc_en = false;
  /// The worker grid the program may use, x columns by y rows from core (0,0); {0, 0} is the
  /// device's whole compute-with-storage grid. single_core always uses core (0,0) alone.
  tt::tt_metal::CoreCoord grid{0, 0};
  /// The block rule of reuse and reuse_mcast (the others have no blocks).
  BlockRule blocks = BlockRule::sdk;
  /// ttnn_mcast: the benchmark's in0_block_w_div (in0_block_w = Kt / grid columns / div; 0:
  /// ttnn's automatic config, ttnn_auto_config, which picks the out blocks too) and
  /// num_out_blocks_h / _w (each core's output computed in out_blocks_h x out_blocks_w parts, each
  /// re-reading its in0 and in1 blocks; 1 x 1 with div 0).
  std::uint32_t in0_block_w_div = 0;
  std::uint32_t out_blocks_h = 1, out_blocks_w = 1;
  /// The format of A, B and C in DRAM and in the CBs (ttnn_mcast: Float16_b, Bfp8_b or Bfp4_b;
  /// the others: Float16_b).
  tt::DataFormat data_format = tt::DataFormat::Float16_b;
};

/// ttnn_mcast's program config, as tests/ttnn/unit_tests/benchmarks/test_benchmark.py computes
/// MatmulMultiCoreReuseMultiCastProgramConfig for a shape on the grid.
struct TtnnConfig {
  std::uint32_t per_core_M = 0, per_core_N = 0, in0_block_w = 0;
  std::uint32_t out_block_h = 0, out_block_w = 0, out_subblock_h = 0, out_subblock_w = 0;
  std::uint32_t num_blocks_y = 0, num_blocks_x = 0; // cores used: rows, columns
};
/// Throws std::invalid_argument (saying why) for shapes the config does not cover.
/// The CB budget is the architecture's (tk::rt::emu::device_arch of the device it runs on).
TtnnConfig ttnn_config(MatmulShape shape, tt::tt_metal::CoreCoord grid,
                       const MatmulOptions& options,
                       const tk::arch::ArchSpec& a = tk::arch::default_arch());
/// What ttnn resolves `in0 @ in1` to without a program config when in0, in1 and the output are
/// interleaved in DRAM (GEMM_FLOPS' out-of-box rows): ttnn's create_simple_matmul_program_config,
/// 2D multicast on the whole grid, per_core_M = Mt / rows, per_core_N = Nt / columns, in0_block_w =
/// Kt / columns, shrunk by get_multi_dim_per_core_factor (the largest, squarest out block and then
/// the largest in0_block_w whose CBs, as ttnn estimates them, fit the L1 above the allocator's
/// base) and the sub-block of get_matmul_subblock_params. Throws std::invalid_argument where ttnn
/// would take its 1D multicast config instead. `options`: data_format (the tensors' dtype) and
/// fp32_dest_acc_en (ttnn's default: off unless the output is fp32).
TtnnConfig ttnn_auto_config(MatmulShape shape, tt::tt_metal::CoreCoord grid,
                            const MatmulOptions& options,
                            const tk::arch::ArchSpec& a = tk::arch::default_arch());
/// test_benchmark.py's get_subblock_sizes (out_sharded false) = ttnn's get_matmul_subblock_params
/// without constraints: the first of SUBBLOCK_HW_CHOICES that divides the out block (at most 4
/// tiles with fp32 DST).
std::pair<std::uint32_t, std::uint32_t> ttnn_subblock(std::uint32_t out_block_h,
                                                      std::uint32_t out_block_w, bool fp32);

/// How the reuse algorithms cut the output: blocks of per_core_M x per_core_N tiles, one per core
/// on a num_blocks_y x num_blocks_x grid, K read in blocks of in0_block_w tiles, computed in DST in
/// out_subblock_h x out_subblock_w sub-blocks.
struct ReuseBlocking {
  std::uint32_t in0_block_w = 2;
  std::uint32_t per_core_M = 0;
  std::uint32_t per_core_N = 0;
  std::uint32_t out_subblock_h = 0;
  std::uint32_t out_subblock_w = 0;
  std::uint32_t num_blocks_y = 0;
  std::uint32_t num_blocks_x = 0;
  /// What chose them: get_large_matmul_params (the SDK's choice), reuse_mcast's fallback when
  /// that leaves fewer than 2 x 2 blocks, or BlockRule::ttnn.
  enum class ChosenBy { sdk, mcast_fallback, ttnn } chosen_by = ChosenBy::sdk;
};

/// The blocks `algo` (reuse or reuse_mcast) uses for `shape` on `grid` under `rule` (sub-blocks
/// within a DST half, fp32 with fp32_dest_acc_en). Throws std::invalid_argument, stating the
/// requirements, for a shape it cannot run. The L1 budget and DST capacity are those of `a` (the
/// device's architecture, tk::rt::emu::device_arch).
ReuseBlocking choose_reuse_blocking(MatmulAlgo algo, MatmulShape shape,
                                    tt::tt_metal::CoreCoord grid, bool fp32_dest_acc_en = false,
                                    BlockRule rule = BlockRule::sdk,
                                    const tk::arch::ArchSpec& a = tk::arch::default_arch());
std::string_view to_string(BlockRule rule);
/// "sdk", "ttnn".
std::optional<BlockRule> parse_block_rule(std::string_view name);

/// One line saying how run_matmul runs `shape` with `algo` (cores, blocks); throws like
/// run_matmul for an unsupported shape or grid.
std::string describe_plan(const tt::tt_metal::distributed::MeshDevice& device, MatmulAlgo algo,
                          MatmulShape shape, const MatmulOptions& options = {});

/// C = A·B on `device` with `algo`: `a` (M x K) and `b` (K x N) row-major bf16, tilized and
/// written to interleaved DRAM buffers; returns C (M x N, row-major). With `a` and `b` both empty
/// (a timing run that checks nothing) nothing is written or read back: the program runs on what
/// the buffers hold and the result is empty. Throws std::invalid_argument
/// for a shape or grid the algorithm does not support (the message states its requirements) and
/// the emulator's errors (tk::rt::emu::EmulatorError) from the run.
std::vector<float> run_matmul(tt::tt_metal::distributed::MeshDevice& device, MatmulAlgo algo,
                              MatmulShape shape, const std::vector<bfloat16>& a,
                              const std::vector<bfloat16>& b, const MatmulOptions& options = {});

/// The values `m` (rows x cols, row-major) holds once packed to Bfp8_b tiles (a shared exponent per
/// 16 values of a face row), as ttnn.from_torch(dtype=bfloat8_b) stores it; exact in bf16.
std::vector<bfloat16> quantize_bfp8(const std::vector<bfloat16>& m, std::uint32_t rows,
                                    std::uint32_t cols);
/// The same for Bfp4_b tiles (3 bits of magnitude under the shared exponent), as
/// ttnn.from_torch(dtype=bfloat4_b) stores it.
std::vector<bfloat16> quantize_bfp4(const std::vector<bfloat16>& m, std::uint32_t rows,
                                    std::uint32_t cols);

/// A·B in double from the bf16 values, row-major.
std::vector<double> reference_matmul(MatmulShape shape, const std::vector<bfloat16>& a,
                                     const std::vector<bfloat16>& b);

/// Uniform in [lo, hi], rounded to bf16; the same seed gives the same matrix.
std::vector<bfloat16> random_bf16_matrix(std::size_t rows, std::size_t cols, std::uint64_t seed,
                                         float lo = -1.0f, float hi = 1.0f);

/// The bf16 acceptance rule of TileKit's end-to-end tests: every |got - ref| <= 1.6e-2 * (1 +
/// |ref|) and PCC >= 0.999.
inline constexpr double kBf16Tol = 1.6e-2;
inline constexpr double kMinPcc = 0.999;
/// A Bfp4_b output's rounding alone is an error uniform within half a step, step <= the block's
/// largest |value| / 4; for normally distributed outputs (standard deviation s) that largest value
/// of 16 is about 2s, so the error's variance is at most about (s/2)^2 / 12 = s^2 / 48 and the PCC
/// about 1 / sqrt(1 + 1/48) = 0.990 (0.9937 measured at 256^3); 0.98 leaves room for blocks with a
/// larger largest value.
inline constexpr double kMinPccBfp4 = 0.98;
struct MatmulCheck {
  double max_abs_err = 0;
  double max_bound_ratio = 0; // the largest |got - ref| / (1.6e-2 * (1 + |ref|)): at most 1
  double pcc = 0;
  std::size_t mismatches = 0; // elements outside the bound (or NaN)
  bool ok = false;
};
MatmulCheck check_bf16(const std::vector<float>& got, const std::vector<double>& ref);
/// The rule for a Bfp8_b output of `cols` columns (a multiple of 16): the bf16 bound plus one
/// Bfp8_b step of the element's block (2^(e - 6), e the exponent of the largest |ref| of its 16
/// values), PCC >= 0.999. cols = 0 is check_bf16.
MatmulCheck check_bfp8(const std::vector<float>& got, const std::vector<double>& ref,
                       std::uint32_t cols);
/// The rule for a Bfp4_b output: the bf16 bound plus one Bfp4_b step of the element's block
/// (2^(e - 2): 3 bits of magnitude below the block's exponent e; the packer's rounding costs at
/// most half of one, and half again if its block's exponent is one above the reference's),
/// PCC >= kMinPccBfp4.
MatmulCheck check_bfp4(const std::vector<float>& got, const std::vector<double>& ref,
                       std::uint32_t cols);

} // namespace tk::baselines
