// Shared by the TT stage tests (stages_*_test.cpp): one test per TT stage, IR text (or a small .tk
// kernel lowered to the stage before) through the stage, compared with the printed result: the
// CBs, an attribute line, or whole functions. The examples' golden dumps (golden_test.cpp) cover
// every stage on real kernels; these pin down the rules on inputs built to show them (offset
// parallel loops, L1 tensors, an intermediate holding two tiles, scalars, loops that need one init
// or several, reduce mode). Here: the lowering to a stage and the extraction of parts of the
// printed module, and the two kernels several stage groups lower.
#pragma once

#include "dsl/check.hpp"
#include "parser/parse.hpp"
#include "tt_test_util.hpp"

#include <initializer_list>
#include <sstream>
#include <string>

namespace tk::lower::test {

inline const char* kColnorm = R"(// after infer-layout
program colnorm {
  options grid 4x2 cb_depth 3 fp32_acc true math_fidelity "HiFi2"
  tensor x: f32[M, 64] input layout dram interleaved tile 32x32 page 4096
  tensor v: bf16[1, 64] input layout dram interleaved tile 32x32 page 2048
  tensor y: f32[M, 64] output layout l1 interleaved tile 32x32 page 4096

  func kernel colnorm(x: tensor, v: tensor, y: tensor, M: i32) {
    let Mt: i32 = M / 32
    for i in 0 .. Mt parallel {
      for j in 1 .. +1 parallel {
        store y[i, j] = tile.mul(load x[i, j], tile.bcast_row(tile.colmax(load v[0, j])))
      }
    }
  }
}
)";

inline const char* kMini =
    R"(kernel mini(x: bf16[M, 64], b: bf16[1, 64], alpha: f32) -> (y: bf16[M, 64]) {
    parallel i in tiles(M), j in 0 .. 2 {
        y[i, j] = relu(x[i, j] + bcast_row(b[0, j])) * alpha
    }
}
)";

// The printed module after `stage`, resuming from IR text; the diagnostics on a user error.
inline std::string after_text(const std::string& text, const std::string& stage) {
  SourceFile file("dump.txt", text);
  Diagnostics diags(&file);
  PipelineOptions o;
  o.stop_after = stage;
  o.verify_each = true;
  std::optional<ir::Module> m = run_pipeline_from_dump(file, Target::tt, o, diags);
  return m ? ir::print(*m) : diags.str();
}

// The printed module after `stage`, lowering a .tk kernel.
inline std::string after_tk(const std::string& tk, const std::string& stage) {
  SourceFile file("k.tk", tk);
  Diagnostics diags(&file);
  std::optional<dsl::Module> ast = parser::parse(file, diags);
  EXPECT_TRUE(ast && dsl::check(*ast, diags)) << diags.str();
  if (!ast)
    return diags.str();
  PipelineOptions o;
  o.stop_after = stage;
  o.verify_each = true;
  std::optional<ir::Module> m = run_pipeline(*ast, Target::tt, o, diags);
  return m ? ir::print(*m) : diags.str();
}

inline std::string first_line(const std::string& text) {
  return text.substr(0, text.find('\n') + 1);
}

inline std::string cb_lines(const std::string& text) {
  std::istringstream in(text);
  std::string line, out;
  while (std::getline(in, line))
    if (line.rfind("  cb ", 0) == 0)
      out += line + "\n";
  return out;
}

// The function of the given kind, from its `func` line to its closing brace.
inline std::string function(const std::string& text, const std::string& kind) {
  std::istringstream in(text);
  std::string line, out;
  bool inside = false;
  while (std::getline(in, line)) {
    if (line.rfind("  func " + kind + " ", 0) == 0)
      inside = true;
    if (inside)
      out += line + "\n";
    if (inside && line == "  }")
      break;
  }
  return out;
}

inline std::string functions(const std::string& text, std::initializer_list<const char*> kinds) {
  std::string out;
  for (const char* k : kinds)
    out += function(text, k);
  return out;
}

// The lines of the text that start with `prefix`.
inline std::string lines(const std::string& text, const std::string& prefix) {
  std::istringstream in(text);
  std::string line, out;
  while (std::getline(in, line))
    if (line.rfind(prefix, 0) == 0)
      out += line + "\n";
  return out;
}

// The host plan block, from `  host_plan {` to its closing brace.
inline std::string plan(const std::string& text) {
  std::size_t at = text.find("  host_plan {\n");
  return at == std::string::npos ? "" : text.substr(at, text.find("  }\n", at) + 4 - at);
}

} // namespace tk::lower::test
