// Shared by the TT lowering tests: run one stage on IR text, lower an example to any stage.
#pragma once

#include "lowering/ir/printer.hpp"
#include "lowering/ir/reader.hpp"
#include "lowering/ir/verifier.hpp"
#include "lowering/pipeline.hpp"
#include "tests/support/golden.hpp"

#include <gtest/gtest.h>

#include <string>

namespace tk::lower::test {

/// Reads IR text (named dump.txt); fails the test when it does not parse or verify.
inline ir::Module read_ir(const std::string& text) {
  SourceFile file("dump.txt", text);
  Diagnostics diags;
  std::optional<ir::Module> m = ir::read_module(file, diags);
  EXPECT_TRUE(m.has_value()) << diags.str() << "\n--- input ---\n" << text;
  if (!m)
    return {};
  EXPECT_EQ(ir::find_ir_error(*m), std::nullopt) << text;
  return *m;
}

/// The TT stage called `name`.
inline StageFn stage(std::string_view name) {
  for (const Stage& s : stages(Target::tt))
    if (s.name == name)
      return s.run;
  ADD_FAILURE() << "no TT stage " << name;
  return nullptr;
}

/// Runs one stage on `input` and returns the printed result (verified), or the diagnostics.
inline std::string run_stage(std::string_view name, const std::string& input) {
  ir::Module m = read_ir(input);
  Diagnostics diags;
  ir::Module out = stage(name)(m, diags);
  if (diags.has_errors())
    return diags.str();
  ir::verify(out, name);
  return ir::print(out);
}

} // namespace tk::lower::test
