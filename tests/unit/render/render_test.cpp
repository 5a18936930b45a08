// Template data and generate(): the facts the C++ side decides (signature, checks, bound
// dimensions), that output is formatted and deterministic, the template-directory override, and
// the header's TT declaration.
#include "codegen/format.hpp"
#include "codegen/generate.hpp"
#include "dsl/check.hpp"
#include "jinja/environment.hpp"
#include "jinja/value.hpp"
#include "parser/parse.hpp"
#include "tests/support/golden.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>

namespace tk::codegen {
namespace {

namespace fs = std::filesystem;

ir::Module lower_example(const std::string& name, lower::Target t = lower::Target::cpu) {
  SourceFile file(name + ".tk", test::read_file(test::source_dir() / "examples" / (name + ".tk")));
  Diagnostics diags(&file);
  auto ast = parser::parse(file, diags);
  EXPECT_TRUE(ast && dsl::check(*ast, diags)) << diags.str();
  lower::PipelineOptions o;
  o.verify_each = true;
  auto m = lower::run_pipeline(*ast, t, o, diags);
  EXPECT_TRUE(m) << diags.str();
  return *m;
}

TEST(TemplateData, SignatureChecksAndDimensions) {
  Lowered l;
  l.cpu = lower_example("rmsnorm");
  nlohmann::json d = template_data(l, "rmsnorm").to_json();
  EXPECT_EQ(d["file_stem"], "rmsnorm");
  EXPECT_EQ(d["targets"].dump(), R"({"cpu":true,"tt":false})");
  const nlohmann::json& k = d["kernels"][0];
  EXPECT_EQ(k["name"], "rmsnorm");
  EXPECT_EQ(k["params"].dump(),
            R"([{"batched":false,"dtype":"bf16","kind":"tensor","name":"x","role":"input"},)"
            R"({"batched":false,"dtype":"bf16","kind":"tensor","name":"g","role":"input"},)"
            R"({"dtype":"f32","kind":"scalar","name":"inv_n","used":true},)"
            R"({"dtype":"f32","kind":"scalar","name":"eps","used":true},)"
            R"({"batched":false,"dtype":"bf16","kind":"tensor","name":"y","role":"output"}])");
  EXPECT_EQ(
      k["shape_checks"][1].dump(),
      R"({"batched":false,"cols":"N","cols_any":true,"param":"g","rows":1,"rows_any":false})");
  EXPECT_EQ(k["same_dim_checks"][0].dump(),
            R"({"a":"x","axis_a":"cols","axis_b":"cols","b":"g","dim":"N"})");
  EXPECT_EQ(k["dims"].dump(), R"([{"axis":"rows","name":"M","tensor":"x"},)"
                              R"({"axis":"cols","name":"N","tensor":"x"}])");
  EXPECT_EQ(k["cpu"]["body"]["kind"], "block");
  // Deterministic: the same module gives the same text.
  EXPECT_EQ(template_data(l, "rmsnorm").to_json().dump(), d.dump());
}

// Every dict of the template data has its keys in sorted order, as nlohmann::json kept them
// before the data was built as values: the templates iterate dicts in that order, and the IR's
// nodes are written in it by hand (ir_value.cpp). Over examples with reductions (a combine
// program), blocked matmuls, rows and masks, both targets.
void expect_sorted(const jinja::Value& v, const std::string& path) {
  if (v.kind() == jinja::Value::Kind::list) {
    for (std::size_t i = 0; i < v.as_list().size(); ++i)
      expect_sorted(v.as_list()[i], path + "[" + std::to_string(i) + "]");
  } else if (v.kind() == jinja::Value::Kind::dict) {
    const jinja::Dict& d = v.as_dict();
    for (std::size_t i = 0; i < d.size(); ++i) {
      if (i > 0) {
        EXPECT_LT(d[i - 1].first, d[i].first) << path;
      }
      expect_sorted(d[i].second, path + "." + d[i].first);
    }
  }
}

TEST(TemplateData, DictKeysAreSorted) {
  for (const char* name : {"matmul", "softmax", "tensor_max", "attention", "layernorm", "mlp"}) {
    Lowered l;
    l.cpu = lower_example(name);
    l.tt = lower_example(name, lower::Target::tt);
    const jinja::Value d = template_data(l, name);
    ASSERT_EQ(d.kind(), jinja::Value::Kind::dict);
    expect_sorted(d, name);
  }
}

// A rank-3 tensor is a batch: a TensorView whose check takes the batch count, and a dimension
// bound from its batch axis.
TEST(TemplateData, BatchedTensorsCheckAndBindTheirBatch) {
  Lowered l;
  l.cpu = lower_example("batched_matmul");
  nlohmann::json d = template_data(l, "batched_matmul").to_json();
  const nlohmann::json& k = d["kernels"][0];
  EXPECT_EQ(k["params"][0].dump(),
            R"({"batched":true,"dtype":"bf16","kind":"tensor","name":"A","role":"input"})");
  EXPECT_EQ(k["shape_checks"][0].dump(),
            R"({"batch":"B","batch_any":true,"batched":true,"cols":"K","cols_any":true,)"
            R"("param":"A","rows":"M","rows_any":true})");
  EXPECT_EQ(k["same_dim_checks"][0].dump(),
            R"({"a":"A","axis_a":"batch","axis_b":"batch","b":"X","dim":"B"})");
  EXPECT_EQ(k["dims"][0].dump(), R"({"axis":"batch","name":"B","tensor":"A"})");
}

TEST(Generate, FilesAreFormattedAndNamedByTheStem) {
  auto files = generate(lower_example("matmul"), lower::Target::cpu, "mm");
  ASSERT_EQ(files.size(), 2u);
  ASSERT_TRUE(files.count("mm.hpp") && files.count("mm_cpu.cpp"));
  EXPECT_EQ(format_cpp(files["mm_cpu.cpp"], "mm_cpu.cpp"), files["mm_cpu.cpp"]);
  EXPECT_NE(files["mm_cpu.cpp"].find("#include \"mm.hpp\""), std::string::npos);
  EXPECT_NE(
      files["mm_cpu.cpp"].find("tk::cpu::gemm_tile(tk_packed_a_A, tk_packed_b_B, i, j, acc);"),
      std::string::npos);
  EXPECT_EQ(files["mm.hpp"].find("run_tt"), std::string::npos);
}

// tril(i, j): the reader generates each mask tile into the mask CB with the helper the template
// defines (in the CB's format, from 32 * (j - i)), compute copies it into DST for where_tile,
// and the host declares the CB (index 4, after Q, K, V and the scaler; cb_depth pages).
TEST(Generate, TtReaderGeneratesMaskTiles) {
  Lowered l;
  l.tt = lower_example("attention", lower::Target::tt);
  auto files = generate(l, "att");
  const std::string& reader = files["kernels/attention/reader.cpp"];
  for (const char* line :
       {"constexpr uint32_t cb_mask = tt::CBIndex::c_4;", "cb_reserve_back(cb_mask, 1);",
        "fill_tril_tile<DataFormat::Float16_b>(get_write_ptr(cb_mask), 32 * (j - i));",
        "cb_push_back(cb_mask, 1);", "static void fill_tril_tile(uint32_t addr, int32_t diff) {",
        "static void fill_position_tile(uint32_t addr, int32_t diff, bool lower, bool f32) {"})
    EXPECT_NE(reader.find(line), std::string::npos) << line;
  EXPECT_EQ(reader.find("fill_triu_tile"), std::string::npos); // only what it calls
  const std::string& compute = files["kernels/attention/compute.cpp"];
  for (const char* line :
       {"cb_wait_front(cb_mask, 1);", "copy_tile(cb_mask, 0, 2);", "cb_pop_front(cb_mask, 1);",
        "where_tile<DataFormat::Float32>(2, 0, 1, 2);"})
    EXPECT_NE(compute.find(line), std::string::npos) << line;
  EXPECT_NE(files["att_tt.cpp"].find("CircularBufferConfig(4096, {{tt::CBIndex::c_4, "
                                     "tt::DataFormat::Float16_b}})"),
            std::string::npos);
}

// The tt target: a host file and three kernels per kernel, formatted, spelling the plan as the
// SDK does (accessors chained, CB ids, enum operands as template arguments).
TEST(Generate, TtWritesHostAndThreeKernels) {
  Lowered l;
  l.tt = lower_example("rmsnorm", lower::Target::tt);
  auto files = generate(l, "rn");
  std::set<std::string> names;
  for (const auto& [name, text] : files) {
    names.insert(name);
    EXPECT_EQ(format_cpp(text, name), text) << name;
  }
  EXPECT_EQ(names,
            (std::set<std::string>{"rn.hpp", "rn_tt.cpp", "kernels/rmsnorm/reader.cpp",
                                   "kernels/rmsnorm/compute.cpp", "kernels/rmsnorm/writer.cpp"}));
  const std::string& reader = files["kernels/rmsnorm/reader.cpp"];
  for (const char* line :
       {"void kernel_main() {", "constexpr uint32_t cb_g = tt::CBIndex::c_1;",
        "constexpr auto x_args = TensorAccessorArgs<0>();",
        "constexpr auto g_args = TensorAccessorArgs<x_args.next_compile_time_args_offset()>();",
        "const auto g_accessor = TensorAccessor(g_args, g_addr, 2048u);",
        "noc_async_read_page(j, g_accessor, get_write_ptr(cb_g));",
        "fill_scaler_tile(get_write_ptr(cb_scaler), 1065369472u);",
        "static void fill_scaler_tile(uint32_t addr, uint32_t packed) {"})
    EXPECT_NE(reader.find(line), std::string::npos) << line;
  const std::string& compute = files["kernels/rmsnorm/compute.cpp"];
  for (const char* line :
       {"#include \"api/compute/reduce.h\"", "#include \"api/compute/bcast.h\"",
        "reduce_tile<PoolType::SUM, ReduceDim::REDUCE_ROW>(cb_tmp0, cb_scaler, 0, 0, 0);",
        "unary_bcast<BroadcastType::ROW>(cb_g, ", "mul_binary_tile(",
        "const uint32_t inv_n_bits = get_arg_val<uint32_t>(9);"})
    EXPECT_NE(compute.find(line), std::string::npos) << line;
  EXPECT_EQ(compute.find("api/compute/matmul.h"), std::string::npos); // only what it calls
  EXPECT_EQ(compute.find("api/dataflow"), std::string::npos);
  const std::string& host = files["rn_tt.cpp"];
  for (const char* line :
       {"const std::uint32_t inv_n_bits = std::bit_cast<std::uint32_t>(inv_n);",
        "const std::uint32_t N = static_cast<std::uint32_t>(x.cols);",
        "TILEKIT_KERNEL_DIR \"/rmsnorm/compute.cpp\"",
        // a list too long for its line: an array set at the kernel's get_arg_val indices (the
        // compute kernel reads inv_n_bits from 9, above)
        "std::array<std::uint32_t, 12> tk_compute_args{};\n", "tk_compute_args[0] = Nt;\n",
        "tk_compute_args[9] = inv_n_bits;\n", "tk_compute_args[11] = count;\n",
        "tt::tt_metal::SetRuntimeArgs(tk_program, tk_compute, tk_core, tk_compute_args);\n"})
    EXPECT_NE(host.find(line), std::string::npos) << line;
  EXPECT_EQ(host.find("tk_compute_args[12]"), std::string::npos);
}

// The host template follows the plan: kernels created and fed in its launch order, its TileKit
// enumerators spelled as the SDK's (the table in host_tt.cpp.jinja).
TEST(Generate, TtHostFollowsTheTypedPlan) {
  Lowered l;
  l.tt = lower_example("matmul", lower::Target::tt);
  ir::Program& p = l.tt->programs[0];
  p.host_plan->kernels = {"matmul_writer", "matmul_reader", "matmul_compute"};
  for (ir::Function& f : p.functions)
    if (f.kind == ir::FuncKind::compute)
      f.config->compute->math_fidelity = ir::MathFidelity::lofi;
  std::string host = generate(l, "mm")["mm_tt.cpp"];
  std::size_t w = host.find("tk_writer ="), r = host.find("tk_reader ="),
              c = host.find("tk_compute =");
  ASSERT_NE(w, std::string::npos);
  EXPECT_LT(w, r);
  EXPECT_LT(r, c);
  for (const char* text :
       {".processor = tt::tt_metal::DataMovementProcessor::RISCV_1",
        ".noc = tt::tt_metal::NOC::NOC_0",
        ".processor = tt::tt_metal::DataMovementProcessor::RISCV_0",
        ".noc = tt::tt_metal::NOC::NOC_1", ".math_fidelity = tt::tt_metal::MathFidelity::LoFi",
        // a blocked matmul's core grid, its semaphores and per-core values
        "tt::tt_metal::CoreRange({0, 0}, {grid_cols - 1, grid_rows - 1})",
        "tt::tt_metal::CreateSemaphore(tk_program, tk_all_cores, 0);",
        "const auto tk_noc_x = [&device](std::uint32_t tk_x, std::uint32_t tk_y) {\n"
        "    const tt::tt_metal::CoreCoord tk_noc = device.worker_core_from_logical_core({tk_x, "
        "tk_y});\n"
        "    return static_cast<std::uint32_t>(tk_noc.x);\n",
        "const std::uint32_t A_mcast_sender_x = tk_noc_x(0u, core_y);\n",
        // the reader multicasts on NoC 0: from the first receiver to the last
        "const std::uint32_t B_mcast_y0 = tk_noc_y(core_x, std::min(1u, grid_rows - 1u));\n",
        "const std::uint32_t B_mcast_y1 = tk_noc_y(core_x, grid_rows - 1u);\n",
        // the block rule's inputs once, in MatmulBlockLimits' order, then each call
        "tk::tt_host::MatmulBlockLimits tk_block_limits;\n  tk_block_limits.grid_x = 8;\n"
        "  tk_block_limits.grid_y = 8;\n  tk_block_limits.sub_rows = 2;\n",
        "tk_block_limits.fixed_rows = 0;\n  tk_block_limits.fixed_cols = 0;\n",
        "const std::uint32_t bk = tk::tt_host::matmul_block(2u, Mt, Kt, Nt, tk_block_limits);\n",
        "tk_reader_args[33] = B_mcast_valid;\n"})
    EXPECT_NE(host.find(text), std::string::npos) << text;
}

// The host sets the block rule's inputs once, so every tt.matmul_block call must pass the same.
TEST(TemplateData, MatmulBlockCallsWithDifferentInputsAreAnInternalError) {
  Lowered l;
  l.tt = lower_example("matmul", lower::Target::tt);
  ir::Program& p = l.tt->programs[0];
  bool changed = false;
  for (ir::Function& f : p.functions) {
    if (f.kind != ir::FuncKind::host)
      continue;
    std::vector<ir::Stmt> stmts = ir::as<ir::Block>(f.body)->stmts;
    for (ir::Stmt& s : stmts)
      if (const auto* d = ir::as<ir::Decl>(s); d && d->name == "bk") {
        std::vector<ir::Expr> args = ir::as<ir::Call>(d->value)->args;
        args[4] = ir::int_imm(4); // grid x 4 where bm and bn were chosen for 8
        s = ir::decl(d->name, d->type, ir::call(ir::Intrinsic::tt_matmul_block, args));
        changed = true;
      }
    f.body = ir::block(stmts);
  }
  ASSERT_TRUE(changed);
  try {
    template_data(l, "matmul");
    FAIL() << "no error";
  } catch (const InternalError& e) {
    EXPECT_EQ(std::string(e.what()), "internal error: render tt: program 'matmul': the "
                                     "tt.matmul_block calls differ in their compile-time inputs");
  }
}

// A module that did not run the TT chain to its end has no plan to render.
TEST(TemplateData, TtWithoutAHostPlanIsAnInternalError) {
  Lowered l;
  l.tt = lower_example("matmul", lower::Target::tt);
  l.tt->programs[0].host_plan.reset();
  try {
    template_data(l, "matmul");
    FAIL() << "no error";
  } catch (const InternalError& e) {
    EXPECT_EQ(std::string(e.what()), "internal error: render tt: program 'matmul': no host plan; "
                                     "run the tt chain to its end");
  }
}

// Without the cpu target the signature comes from the programs' `signature`, which
// to-tile-ir sets and every stage keeps: the TT chain keeps no function with the kernel's
// parameters (it splits the kernel function).
TEST(TemplateData, TtOnlyTakesTheSignatureFromTheProgram) {
  Lowered l;
  l.tt = lower_example("rmsnorm", lower::Target::tt);
  nlohmann::json d = template_data(l, "rmsnorm").to_json();
  EXPECT_EQ(d["targets"].dump(), R"({"cpu":false,"tt":true})");
  Lowered c;
  c.cpu = lower_example("rmsnorm");
  nlohmann::json from_cpu = template_data(c, "rmsnorm").to_json();
  for (const char* key : {"params", "shape_checks", "same_dim_checks"})
    EXPECT_EQ(d["kernels"][0][key], from_cpu["kernels"][0][key]) << key;
  EXPECT_FALSE(d["kernels"][0].contains("cpu"));
  l.tt->programs[0].signature.clear();
  try {
    template_data(l, "rmsnorm");
    FAIL() << "no error";
  } catch (const InternalError& e) {
    EXPECT_EQ(std::string(e.what()), "internal error: render: program 'rmsnorm' has no signature "
                                     "(to-tile-ir sets it)");
  }
}

TEST(Generate, TemplateDirOverride) {
  fs::path dir = fs::temp_directory_path() / "tk_render_test_templates";
  fs::remove_all(dir);
  fs::copy(test::source_dir() / "templates", dir, fs::copy_options::recursive);
  std::ofstream(dir / "cpu/kernel_cpu.cpp.jinja", std::ios::binary) << "int {{ file_stem }};\n";
  ::setenv("TILEKIT_TEMPLATE_DIR", dir.c_str(), 1);
  EXPECT_EQ(template_dir(), dir);
  auto files = generate(lower_example("matmul"), lower::Target::cpu, "mm");
  ::unsetenv("TILEKIT_TEMPLATE_DIR");
  EXPECT_EQ(files["mm_cpu.cpp"], "int mm;"); // jinja drops the trailing newline
  EXPECT_EQ(template_dir(), test::source_dir() / "templates");
  fs::remove_all(dir);
}

// Templates parsed ahead on a thread of their own (ttgen starts the parse before it lowers) give
// the same files as the parse on first use; a template that does not parse is reported by the
// render that uses it, with the same message either way.
TEST(Generate, TemplatesParsedAheadGiveTheSameFiles) {
  Lowered l;
  l.cpu = lower_example("matmul");
  l.tt = lower_example("matmul", lower::Target::tt);
  EXPECT_EQ(generate(l, "mm", parse_templates_async(true, true)), generate(l, "mm"));
  Lowered cpu_only;
  cpu_only.cpu = l.cpu;
  EXPECT_EQ(generate(cpu_only, "mm", parse_templates_async(true, false)), generate(cpu_only, "mm"));

  fs::path dir = fs::temp_directory_path() / "tk_render_test_broken_templates";
  fs::remove_all(dir);
  fs::copy(test::source_dir() / "templates", dir, fs::copy_options::recursive);
  std::ofstream(dir / "cpu/kernel_cpu.cpp.jinja", std::ios::binary) << "int {{ file_stem ;\n";
  auto error_of = [&](bool ahead) {
    try {
      ahead ? generate(cpu_only, "mm", parse_templates_async(true, false, dir))
            : generate(cpu_only, "mm", dir);
    } catch (const InternalError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const std::string lazy = error_of(false);
  EXPECT_NE(lazy.find("internal error: rendering mm_cpu.cpp: "), std::string::npos) << lazy;
  EXPECT_EQ(error_of(true), lazy);
  fs::remove_all(dir);
}

// A scalar the body never reads is still a parameter; it is named once so that the generated
// code compiles without -Wunused-parameter warnings.
TEST(Generate, UnusedScalarIsNamed) {
  SourceFile file("u.tk", "kernel u(x: f32[M, N], s: f32) -> (y: f32[M, N]) {\n"
                          "  parallel i in tiles(M), j in tiles(N) { y[i, j] = x[i, j] }\n}\n");
  Diagnostics diags(&file);
  auto ast = parser::parse(file, diags);
  ASSERT_TRUE(ast && dsl::check(*ast, diags)) << diags.str();
  auto m = lower::run_pipeline(*ast, lower::Target::cpu, {}, diags);
  ASSERT_TRUE(m) << diags.str();
  Lowered l;
  l.cpu = *m;
  EXPECT_EQ(template_data(l, "u").to_json()["kernels"][0]["params"][1].dump(),
            R"({"dtype":"f32","kind":"scalar","name":"s","used":false})");
  std::string cpp = generate(*m, lower::Target::cpu, "u")["u_cpu.cpp"];
  EXPECT_NE(
      cpp.find("void run_cpu(tk::MatrixView<const float> x, float s, tk::MatrixView<float> y) {"),
      std::string::npos)
      << cpp;
  EXPECT_NE(cpp.find("  static_cast<void>(s);\n"), std::string::npos) << cpp;
}

// The header declares run_tt (after the kernel-directory guard) when the tt target is generated.
TEST(Header, DeclaresTheTargetsGenerated) {
  Lowered l;
  l.cpu = lower_example("axpby");
  nlohmann::json d = template_data(l, "axpby").to_json();
  d["targets"]["tt"] = true;
  jinja::Environment env(template_dir(), {.trim_blocks = true, .lstrip_blocks = true});
  EXPECT_EQ(format_cpp(env.render_file("common/header.hpp.jinja", d), "axpby.hpp"),
            R"(// axpby.hpp: the entry points of the kernels of axpby.tk.
// Generated by ttgen; do not edit.
#pragma once

#include <tilekit/runtime.hpp>

// The directory holding kernels/<K>/{reader,compute,writer}.cpp; tilekit_add_kernel sets it.
#ifndef TILEKIT_KERNEL_DIR
#define TILEKIT_KERNEL_DIR "kernels"
#endif

namespace tk::gen::axpby {
void run_cpu(tk::MatrixView<const tk::bf16> x, tk::MatrixView<const tk::bf16> y, float alpha,
             float beta, tk::MatrixView<tk::bf16> z);
void run_tt(tt::tt_metal::distributed::MeshDevice& device, tk::MatrixView<const tk::bf16> x,
            tk::MatrixView<const tk::bf16> y, float alpha, float beta, tk::MatrixView<tk::bf16> z);
} // namespace tk::gen::axpby
)");
}

// Found by lower_fuzzer: common/ir.jinja recurses once or more per level of a statement and of an
// expression, within the Jinja engine's 200 calls, so 60 nested unary calls, a sum of 100 terms
// or 100 nested loops failed to render (an internal error). The checker bounds loop nesting and
// the CPU chain bounds the depth of a fused element expression; the deepest kernel the checker
// accepts renders, for both targets: 32 nested loops around a 200-deep expression, and a sum of
// 257 terms (the parser's limits: 256 brackets, 256 operators per statement).
TEST(Generate, TheDeepestKernelsRender) {
  std::string deep = "x[i, k0]";
  for (int n = 0; n < 200; ++n)
    deep = "exp(" + deep + ")";
  std::string sum = "x[i, 0]";
  for (int n = 0; n < 256; ++n)
    sum += " + x[i, 0]";
  std::string tk = "kernel deep(x: bf16[M, N]) -> (y: bf16[M, 32], z: bf16[M, 32]) {\n"
                   "    parallel i in tiles(M) {\n        acc = zeros()\n";
  for (int k = 0; k < 32; ++k)
    tk += "for k" + std::to_string(k) + " in tiles(N) {\n";
  tk += "acc += " + deep + "\n" + std::string(32, '}') + "\n";
  tk += "        y[i, 0] = acc\n        z[i, 0] = " + sum + "\n    }\n}\n";
  SourceFile file("deep.tk", tk);
  Diagnostics diags(&file);
  auto ast = parser::parse(file, diags);
  ASSERT_TRUE(ast && dsl::check(*ast, diags)) << diags.str();
  Lowered l;
  for (lower::Target t : {lower::Target::tt, lower::Target::cpu}) {
    auto m = lower::run_pipeline(*ast, t, {}, diags);
    ASSERT_TRUE(m) << diags.str();
    (t == lower::Target::cpu ? l.cpu : l.tt) = *m;
  }
  std::map<std::string, std::string> files = render_files(l, "deep");
  EXPECT_EQ(files.size(), 6u);
  EXPECT_NE(files["deep_cpu.cpp"].find("std::exp(std::exp("), std::string::npos);
}

} // namespace
} // namespace tk::codegen
