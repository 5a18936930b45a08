// The rule by which ttgen skips clang-format (codegen::needs_format, docs/codegen.md "Formatted by
// the templates"): every rendered file it lets through unformatted must already be clang-format's
// fixed point, for every example, target and architecture and for tk-difftest's random kernels;
// and layout.hpp's comment wrapping must wrap as clang-format reflows.
#include "arch/arch.hpp"
#include "codegen/format.hpp"
#include "codegen/generate.hpp"
#include "codegen/layout.hpp"
#include "dsl/check.hpp"
#include "parser/parse.hpp"
#include "tests/support/golden.hpp"
#include "tools/difftest/generate.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

namespace tk::codegen {
namespace {

namespace fs = std::filesystem;

/// Both targets' lowered modules of `source`, for `arch`.
Lowered lower_both(const std::string& name, const std::string& source, const std::string& arch) {
  SourceFile file(name + ".tk", source);
  Diagnostics diags(&file);
  auto ast = parser::parse(file, diags);
  EXPECT_TRUE(ast && dsl::check(*ast, diags)) << name << ": " << diags.str();
  Lowered l;
  if (!ast)
    return l;
  for (lower::Target t : {lower::Target::cpu, lower::Target::tt}) {
    lower::PipelineOptions o;
    o.overrides.arch = arch;
    auto m = lower::run_pipeline(*ast, t, o, diags);
    EXPECT_TRUE(m) << name << ": " << diags.str();
    (t == lower::Target::cpu ? l.cpu : l.tt) = std::move(m);
  }
  return l;
}

struct Count {
  int skipped = 0;
  int formatted = 0;
};

/// Renders `l` and checks every file needs_format passes is a fixed point of format_cpp.
void check_files(const Lowered& l, const std::string& stem, const std::string& what, Count& n) {
  for (const auto& [file, text] : render_files(l, stem)) {
    if (needs_format(text)) {
      ++n.formatted;
      continue;
    }
    ++n.skipped;
    EXPECT_EQ(format_cpp(text, file), text)
        << what << ": " << file << " was left unformatted but is not formatted";
  }
}

TEST(FormatRule, EveryExampleFileLeftUnformattedIsAFixedPoint) {
  Count n;
  for (const auto& e : fs::directory_iterator(test::source_dir() / "examples")) {
    if (e.path().extension() != ".tk")
      continue;
    const std::string name = e.path().stem().string();
    for (const arch::ArchSpec* a : arch::all()) {
      const Lowered l = lower_both(name, test::read_file(e.path()), std::string(a->name));
      if (l.cpu && l.tt)
        check_files(l, name, name + " (" + std::string(a->name) + ")", n);
    }
  }
  // The templates lay out most files themselves (the figures: docs/ttgen.md "Start-up").
  EXPECT_GT(n.skipped, 0);
  std::printf("examples: %d files left as rendered, %d formatted\n", n.skipped, n.formatted);
}

// 40 kernels by default; TK_FORMAT_RULE_SEEDS=N checks N (400 took 10 s and found nothing).
TEST(FormatRule, RandomKernelsFilesLeftUnformattedAreFixedPoints) {
  const char* seeds = std::getenv("TK_FORMAT_RULE_SEEDS");
  const std::uint64_t last = seeds ? std::strtoull(seeds, nullptr, 10) : 40;
  Count n;
  for (std::uint64_t seed = 1; seed <= last; ++seed) {
    const difftest::Program p = difftest::generate(
        seed, {difftest::Kind::classic, difftest::Kind::sums, difftest::Kind::reductions,
               difftest::Kind::offsets, difftest::Kind::triangular, difftest::Kind::rows,
               difftest::Kind::grouped});
    // Each seed on one architecture, in turn.
    const arch::ArchSpec* a = arch::all()[seed % arch::all().size()];
    const Lowered l = lower_both(p.name, difftest::print(p), std::string(a->name));
    if (l.cpu && l.tt)
      check_files(l, p.name, "seed " + std::to_string(seed), n);
  }
  EXPECT_GT(n.skipped, 0);
  std::printf("random kernels: %d files left as rendered, %d formatted\n", n.skipped, n.formatted);
}

TEST(FormatRule, NeedsFormatFlagsWhatTheTemplatesCannotVouchFor) {
  EXPECT_FALSE(needs_format("int f() {\n  return 1;\n}\n"));
  EXPECT_TRUE(needs_format("int f() {\n  return 1;\n}"));     // no final newline
  EXPECT_TRUE(needs_format("int f() {\n  return 1;\n}\n\n")); // a blank line at the end
  EXPECT_TRUE(needs_format("\nint f();\n"));                  // ... or at the start
  EXPECT_TRUE(needs_format("int f() {\n\treturn 1;\n}\n"));   // a tab
  EXPECT_TRUE(needs_format("int f() { \n  return 1;\n}\n"));  // a trailing blank
  EXPECT_TRUE(needs_format("int a;\n\n\nint b;\n"));          // two blank lines
  EXPECT_TRUE(needs_format("int f() {\n\n  return 1;\n}\n")); // a blank line opening a block
  EXPECT_TRUE(needs_format("int f() {\n  return 1;\n\n}\n")); // ... or closing one
  EXPECT_TRUE(needs_format("void f() {\n}\n"));               // an empty block: `{}`
  EXPECT_FALSE(needs_format("int " + std::string(kColumnLimit - 5, 'x') + ";\n")); // 100 columns
  EXPECT_TRUE(needs_format("int " + std::string(kColumnLimit - 4, 'x') + ";\n"));  // 101
}

TEST(FormatRule, CommentsWrapAsClangFormatReflowsThem) {
  const std::string words = "one two three four five six seven eight nine ten eleven twelve";
  const std::string two = words + " " + words;
  const std::string cases[] = {
      // a long first line, its rest joined to the next line of the paragraph
      "// " + two + "\n// and the next line.\nint x;\n",
      // indented, followed by an empty comment line (a new paragraph: not joined)
      "void f() {\n  // " + two + "\n  //\n  // - a list item\n}\n",
      // the rest not joined to a list item
      "// " + two + "\n// - a list item\n",
      // two lines' worth of rest
      "// " + two + " " + two + "\n",
      // a line that fits: untouched
      "// " + words + "\n",
      // a declaration's parameters packed, aligned after the parenthesis
      "void run(tk::MatrixView<const tk::bf16> alpha, tk::MatrixView<const tk::bf16> beta, float "
      "gamma, float delta, tk::MatrixView<tk::bf16> epsilon);\n",
      "void run_definition(tk::MatrixView<const tk::bf16> alpha, tk::MatrixView<const tk::bf16> "
      "beta, tk::MatrixView<tk::bf16> c) {\n  return;\n}\n",
  };
  for (const std::string& c : cases) {
    const std::string wrapped = wrap_long_lines(c);
    EXPECT_FALSE(needs_format(wrapped)) << wrapped;
    EXPECT_EQ(format_cpp(c), wrapped) << c;
  }
  // Trailing blanks: kept on the rest of a split (needs_format then sends the file to
  // clang-format), dropped when only they are past the limit.
  EXPECT_TRUE(needs_format(wrap_long_lines("// " + two + "    \n")));
  std::string fits = two.substr(0, kColumnLimit - 6);
  while (fits.back() == ' ')
    fits.pop_back();
  const std::string blanks = "// " + fits + std::string(10, ' ') + "\n";
  EXPECT_EQ(wrap_long_lines(blanks), "// " + fits + "\n");
  EXPECT_EQ(format_cpp(blanks), "// " + fits + "\n");
  // One word too long for a line: left as it is (and so formatted by clang-format).
  const std::string word = "// " + std::string(kColumnLimit, 'x') + "\n";
  EXPECT_EQ(wrap_long_lines(word), word);
  EXPECT_TRUE(needs_format(word));
}

} // namespace
} // namespace tk::codegen
