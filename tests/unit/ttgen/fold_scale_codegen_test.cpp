// The code fold-scale gives bench/attention_hifi2.tk (docs/lowering.md, "Scale folding"), golden:
// the compute kernel binds the scale's bits as its compile-time arg and calls
// exp_tile_init<true, scale_bits_ct>() before p's exp_tile<true>, with no mul_unary_tile on a score
// tile; the host computes tk::tt_host::exp_scale_bits(scale) and appends it to the compute
// kernel's compile args.
#include "tests/unit/ttgen/run_ttgen.hpp"

#include <gtest/gtest.h>

namespace tk::test {
namespace {

TEST(FoldScaleCodegen, AttentionHifi2IsGolden) {
  const fs::path out = scratch_dir() / "fold_scale_hifi2";
  fs::remove_all(out);
  Result r = ttgen(quote((source_dir() / "bench" / "attention_hifi2.tk").string()) +
                   " --target=tt -o " + quote(out.string()));
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string compute = read_file(out / "kernels" / "attention_hifi2" / "compute.cpp");
  const std::string host = read_file(out / "attention_hifi2_tt.cpp");
  EXPECT_NE(compute.find("  const uint32_t scale_bits_ct = get_compile_time_arg_val(0);\n"),
            std::string::npos);
  EXPECT_NE(compute.find("exp_tile_init<true, scale_bits_ct, InputClamping::None>();"),
            std::string::npos);
  EXPECT_NE(host.find("const std::uint32_t scale_bits_ct = tk::tt_host::exp_scale_bits(scale);"),
            std::string::npos);
  EXPECT_NE(host.find("tk_compute_compile_args.push_back(scale_bits_ct);"), std::string::npos);
  const fs::path golden = source_dir() / "tests" / "golden" / "codegen" / "fold_scale";
  expect_golden(golden / "compute.cpp.txt", compute); // .txt: scripts/format.sh leaves it
  expect_golden(golden / "attention_hifi2_tt.cpp.txt", host);
  fs::remove_all(out);
}

} // namespace
} // namespace tk::test
