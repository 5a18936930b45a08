// Helpers shared by the parser tests: parse a string, and name what failed.
#pragma once

#include "dsl/print.hpp"
#include "parser/parse.hpp"

#include <gtest/gtest.h>

#include <optional>
#include <string>

namespace tk::test {

struct Parsed {
  std::optional<dsl::Module> module;
  std::string diagnostics;
};

inline Parsed parse_text(const std::string& text, const std::string& name = "t.tk") {
  SourceFile file(name, text);
  Diagnostics diags;
  Parsed p;
  p.module = parser::parse(file, diags);
  p.diagnostics = diags.str();
  return p;
}

/// Parses `text`, which must be valid; fails the test with the diagnostics otherwise.
inline dsl::Module parse_ok(const std::string& text) {
  Parsed p = parse_text(text);
  EXPECT_TRUE(p.module.has_value()) << "input:\n" << text << "\ndiagnostics:\n" << p.diagnostics;
  EXPECT_EQ(p.diagnostics, "");
  return p.module ? *p.module : dsl::Module{};
}

/// The diagnostics for `text`, which must fail to parse.
inline std::string parse_error(const std::string& text) {
  Parsed p = parse_text(text);
  EXPECT_FALSE(p.module.has_value()) << "input:\n"
                                     << text << "\nparsed as:\n"
                                     << (p.module ? dsl::print(*p.module) : "");
  return p.diagnostics;
}

/// A kernel around `body` (statements at parallel-body level, 8-space indent not required).
inline std::string in_kernel(const std::string& body) {
  return "kernel k(A: bf16[M, K], B: bf16[K, N], s: f32) -> (C: bf16[M, N]) {\n"
         "    parallel i in tiles(M), j in tiles(N) {\n" +
         body + "\n    }\n}\n";
}

/// The first statement of the parallel loop of the first kernel.
inline const dsl::Stmt& first_stmt(const dsl::Module& m) {
  static const dsl::Stmt empty;
  if (m.kernels.empty() || m.kernels[0].body.empty())
    return empty;
  const auto* par = std::get_if<dsl::Parallel>(&m.kernels[0].body[0].node);
  return par && !par->body.empty() ? par->body[0] : empty;
}

/// The value of `x = EXPR` given as the first statement, printed canonically.
inline std::string expr_of(const std::string& stmt) {
  dsl::Module m = parse_ok(in_kernel("        " + stmt));
  const auto* a = std::get_if<dsl::Assign>(&first_stmt(m).node);
  return a ? dsl::print(a->value) : "<not an assignment>";
}

} // namespace tk::test
