// tk-baseline-matmul: runs one of the SDK's matmul programming examples (baselines/matmul.hpp) on
// the emulator with seeded random bf16 inputs (A in [-1, 1], B in [-2/sqrt(K), 2/sqrt(K)]), checks
// C against a double-precision reference and prints max|err| and PCC. Exit codes: 0 within the bf16
// bounds, 1 a mismatch or an error during the run, 2 a usage error or a shape the algorithm does
// not support.
#include "baselines/matmul.hpp"

#include <CLI/CLI.hpp>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <exception>
#include <stdexcept>
#include <string>
#include <vector>

#include <tt-metalium/distributed.hpp>

namespace {

using namespace tk::baselines;

// "M,K,N" into a shape; false when it is not three unsigned numbers.
bool parse_shape(const std::string& text, MatmulShape& shape) {
  std::uint32_t v[3];
  std::size_t at = 0;
  for (int i = 0; i < 3; ++i) {
    std::size_t used = 0;
    try {
      const unsigned long x = std::stoul(text.substr(at), &used);
      if (x > 0xffffffffUL)
        return false;
      v[i] = static_cast<std::uint32_t>(x);
    } catch (const std::exception&) {
      return false;
    }
    at += used;
    if (i < 2) {
      if (at >= text.size() || text[at] != ',')
        return false;
      ++at;
    }
  }
  if (at != text.size())
    return false;
  shape = {v[0], v[1], v[2]};
  return true;
}

// "XxY" (columns by rows) into a grid.
bool parse_grid(const std::string& text, tt::tt_metal::CoreCoord& grid) {
  const auto x = text.find('x');
  if (x == std::string::npos)
    return false;
  try {
    std::size_t used = 0;
    grid.x = std::stoul(text.substr(0, x), &used);
    if (used != x)
      return false;
    grid.y = std::stoul(text.substr(x + 1), &used);
    return used == text.size() - x - 1;
  } catch (const std::exception&) {
    return false;
  }
}

} // namespace

int main(int argc, char** argv) {
  CLI::App app{"Runs one of the TT-Metalium SDK's matmul programming examples on TileKit's "
               "emulator and checks C = A*B against a double-precision reference "
               "(docs/baselines.md)."};
  std::string algo_name, shape_text, fidelity_name = "HiFi4", grid_text;
  std::uint64_t seed = 1;
  MatmulOptions options;
  app.add_option("--algo", algo_name,
                 "single_core, multi_core, reuse, reuse_mcast, all (the four), or ttnn_mcast")
      ->required();
  app.add_option("--shape", shape_text, "M,K,N: C (MxN) = A (MxK) * B (KxN), multiples of 32")
      ->required();
  app.add_option("--fidelity", fidelity_name, "math fidelity: LoFi, HiFi2, HiFi3, HiFi4")
      ->capture_default_str();
  app.add_option("--grid", grid_text,
                 "worker grid XxY (columns x rows) to use; default: the device's whole grid");
  app.add_option("--seed", seed, "seed of the random inputs")->capture_default_str();
  bool no_check = false;
  app.add_flag("--no-check", no_check,
               "skip the double-precision reference and the check (for timing runs at large "
               "shapes; the reference costs M*K*N multiply-adds on the host); the inputs are "
               "then neither generated nor written and C is not read back");
  std::string blocks_name = "sdk";
  app.add_option("--blocks", blocks_name,
                 "block rule of reuse and reuse_mcast: sdk (the examples' get_large_matmul_params) "
                 "or ttnn (one block per core, as ttnn's hand-tuned matmul benchmark)")
      ->capture_default_str();
  app.add_option("--in0-block-w-div", options.in0_block_w_div,
                 "ttnn_mcast: the benchmark's in0_block_w_div (0: ttnn's automatic config, "
                 "as `in0 @ in1` without a program config resolves it; it picks the out blocks)")
      ->capture_default_str();
  std::string dtype_name = "bf16";
  app.add_option("--dtype", dtype_name,
                 "A, B and C in DRAM: bf16, or bfp8_b or bfp4_b (ttnn_mcast; partial sums stay "
                 "bf16)")
      ->capture_default_str();
  std::string out_blocks_text = "1x1";
  app.add_option("--out-blocks", out_blocks_text,
                 "ttnn_mcast: the benchmark's num_out_blocks_h x num_out_blocks_w")
      ->capture_default_str();
  app.add_flag("--fp32-dest-acc", options.fp32_dest_acc_en,
               "accumulate in fp32 DST (ComputeConfig::fp32_dest_acc_en; the SDK examples do not)");
  CLI11_PARSE(app, argc, argv);

  std::vector<MatmulAlgo> algos;
  if (algo_name == "all") {
    algos.assign(std::begin(kMatmulAlgos), std::end(kMatmulAlgos));
  } else if (const auto algo = parse_matmul_algo(algo_name)) {
    algos.push_back(*algo);
  } else {
    std::fprintf(stderr,
                 "tk-baseline-matmul: unknown --algo '%s' (single_core, multi_core, "
                 "reuse, reuse_mcast, all, ttnn_mcast)\n",
                 algo_name.c_str());
    return 2;
  }
  MatmulShape shape;
  if (!parse_shape(shape_text, shape)) {
    std::fprintf(stderr, "tk-baseline-matmul: --shape wants M,K,N; got '%s'\n", shape_text.c_str());
    return 2;
  }
  if (const auto fidelity = parse_math_fidelity(fidelity_name)) {
    options.fidelity = *fidelity;
  } else {
    std::fprintf(stderr,
                 "tk-baseline-matmul: unknown --fidelity '%s' (LoFi, HiFi2, HiFi3, "
                 "HiFi4)\n",
                 fidelity_name.c_str());
    return 2;
  }
  if (const auto rule = parse_block_rule(blocks_name)) {
    options.blocks = *rule;
  } else {
    std::fprintf(stderr, "tk-baseline-matmul: unknown --blocks '%s' (sdk, ttnn)\n",
                 blocks_name.c_str());
    return 2;
  }
  if (dtype_name == "bfp8_b") {
    options.data_format = tt::DataFormat::Bfp8_b;
  } else if (dtype_name == "bfp4_b") {
    options.data_format = tt::DataFormat::Bfp4_b;
  } else if (dtype_name != "bf16") {
    std::fprintf(stderr, "tk-baseline-matmul: unknown --dtype '%s' (bf16, bfp8_b, bfp4_b)\n",
                 dtype_name.c_str());
    return 2;
  }
  if (tt::tt_metal::CoreCoord ob; parse_grid(out_blocks_text, ob)) {
    options.out_blocks_h = static_cast<std::uint32_t>(ob.x);
    options.out_blocks_w = static_cast<std::uint32_t>(ob.y);
  } else {
    std::fprintf(stderr, "tk-baseline-matmul: --out-blocks wants HxW (e.g. 2x2); got '%s'\n",
                 out_blocks_text.c_str());
    return 2;
  }
  if (!grid_text.empty() && !parse_grid(grid_text, options.grid)) {
    std::fprintf(stderr, "tk-baseline-matmul: --grid wants XxY (e.g. 8x8); got '%s'\n",
                 grid_text.c_str());
    return 2;
  }

  auto device = tt::tt_metal::distributed::MeshDevice::create_unit_mesh(0);
  const std::size_t M = shape.M, K = shape.K, N = shape.N;
  // Without the check nothing reads C, and the device time does not depend on the values: no
  // inputs (run_matmul then writes and reads nothing), so a large shape needs no host memory.
  std::vector<bfloat16> a, b;
  if (!no_check) {
    a = random_bf16_matrix(M, K, seed);
    // B scaled by 2/sqrt(K), as TileKit's end-to-end matmul cases: C has standard deviation 2/3
    // whatever K is, where the bf16 bound (absolute + relative) is meaningful.
    const auto b_scale = static_cast<float>(2.0 / std::sqrt(static_cast<double>(K)));
    b = random_bf16_matrix(K, N, seed + 1, -b_scale, b_scale);
    if (options.data_format == tt::DataFormat::Bfp8_b) { // the reference sees what the device holds
      a = quantize_bfp8(a, shape.M, shape.K);
      b = quantize_bfp8(b, shape.K, shape.N);
    } else if (options.data_format == tt::DataFormat::Bfp4_b) {
      a = quantize_bfp4(a, shape.M, shape.K);
      b = quantize_bfp4(b, shape.K, shape.N);
    }
  }
  std::vector<double> ref;
  int status = 0;
  for (const MatmulAlgo algo : algos) {
    try {
      std::printf("%s\n", describe_plan(*device, algo, shape, options).c_str());
      const auto start = std::chrono::steady_clock::now();
      const std::vector<float> c = run_matmul(*device, algo, shape, a, b, options);
      const double seconds =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      if (no_check) {
        std::printf("  %s, %s, %s DST, %.3f s: not checked (--no-check)\n",
                    std::string(to_string(algo)).c_str(),
                    std::string(to_string(options.fidelity)).c_str(),
                    options.fp32_dest_acc_en ? "fp32" : "bf16", seconds);
        continue;
      }
      if (ref.empty())
        ref = reference_matmul(shape, a, b);
      const MatmulCheck check =
          options.data_format == tt::DataFormat::Bfp8_b   ? check_bfp8(c, ref, shape.N)
          : options.data_format == tt::DataFormat::Bfp4_b ? check_bfp4(c, ref, shape.N)
                                                          : check_bf16(c, ref);
      std::printf("  %s, %s, %s DST, %.3f s: max|err| = %.6g (%.2f of the bound "
                  "1.6e-2*(1+|ref|)%s, %zu of %zu elements beyond it), PCC = %.8f -> %s\n",
                  std::string(to_string(algo)).c_str(),
                  std::string(to_string(options.fidelity)).c_str(),
                  options.fp32_dest_acc_en ? "fp32" : "bf16", seconds, check.max_abs_err,
                  check.max_bound_ratio,
                  options.data_format == tt::DataFormat::Bfp8_b   ? " + a Bfp8_b step"
                  : options.data_format == tt::DataFormat::Bfp4_b ? " + a Bfp4_b step"
                                                                  : "",
                  check.mismatches, c.size(), check.pcc, check.ok ? "PASS" : "FAIL");
      if (!check.ok)
        status = 1;
    } catch (const std::invalid_argument& e) {
      std::fprintf(stderr, "tk-baseline-matmul: %s\n", e.what());
      return 2;
    } catch (const std::exception& e) {
      std::fprintf(stderr, "tk-baseline-matmul: %s: %s\n", std::string(to_string(algo)).c_str(),
                   e.what());
      status = 1;
    }
  }
  return status;
}
