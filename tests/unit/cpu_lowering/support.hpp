// Shared by the CPU-chain tests: compile .tk text through the CPU chain and print the result.
#pragma once

#include "dsl/check.hpp"
#include "lowering/ir/printer.hpp"
#include "lowering/pipeline.hpp"
#include "parser/parse.hpp"

#include <gtest/gtest.h>

#include <optional>
#include <sstream>
#include <string>

namespace tk::lower::test_cpu {

/// Dumps of the CPU chain for `tk_text` (print-after-all, verified after each stage); empty on
/// failure, with the diagnostics in `errors`.
inline std::string cpu_dumps(const std::string& tk_text, std::string* errors = nullptr,
                             std::optional<std::string> stop_after = std::nullopt) {
  SourceFile file("test.tk", tk_text);
  Diagnostics diags(&file);
  std::optional<dsl::Module> ast = parser::parse(file, diags);
  if (!ast || !dsl::check(*ast, diags)) {
    if (errors)
      *errors = diags.str();
    return "";
  }
  std::ostringstream os;
  PipelineOptions o;
  o.print_after_all = true;
  o.verify_each = true;
  o.dump = &os;
  o.stop_after = stop_after;
  if (!run_pipeline(*ast, Target::cpu, o, diags)) {
    if (errors)
      *errors = diags.str();
    return "";
  }
  return os.str();
}

/// The text of one stage's dump inside a print-after-all stream (header line included).
inline std::string dump_of(const std::string& all, const std::string& stage) {
  std::string head = "// after " + stage + "\n";
  std::size_t at = all.find(head);
  if (at == std::string::npos)
    return "";
  std::size_t end = all.find("// after ", at + head.size());
  return all.substr(at, end == std::string::npos ? std::string::npos : end - at);
}

} // namespace tk::lower::test_cpu
