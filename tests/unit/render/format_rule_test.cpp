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
#include <functional>
#include <random>

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

// Call statements too long for their line, as the reader and writer kernels hold them: each is
// either laid out exactly as clang-format lays it out, or left long for clang-format. The random
// ones cover the arithmetic, nested calls, indentation and argument counts of the generated code.
TEST(FormatRule, CallStatementsWrapAsClangFormatBreaksThem) {
  // Wrapped inside `depth` nested blocks of a function, so that the statement is indented.
  auto in_blocks = [](int depth, const std::string& stmt) {
    std::string s = "void f() {\n";
    for (int k = 1; k < depth; ++k)
      s += std::string(2 * k, ' ') + "{\n";
    s += stmt + "\n";
    for (int k = depth - 1; k >= 1; --k)
      s += std::string(2 * k, ' ') + "}\n";
    return s + "}\n";
  };
  const std::string fixed[] = {
      // aligned after `(` (the reader's multicast)
      "        tk_multicast(get_write_ptr(cb_A), A_mcast_x0, A_mcast_y0, A_mcast_x1, A_mcast_y1, "
      "bm * bk * get_tile_size(cb_A), A_mcast_dests);",
      // fewer lines after a break at `(`
      "  tk::cpu::gemm_tile(c0, get_semaphore(r0, r0) + kb, get_semaphore(tk_x, bk), "
      "get_tile_size(cb_A) * tk_x, cb_A_r_1, tk_g(f(bk), get_tile_size(cb_A) * B_accessor, "
      "f(f(bk, kb), bk, r0)), c0);",
  };
  for (const std::string& stmt : fixed) {
    const std::string c = in_blocks(static_cast<int>(stmt.find_first_not_of(' ')) / 2, stmt);
    const std::string wrapped = wrap_long_lines(c);
    EXPECT_FALSE(needs_format(wrapped)) << wrapped;
    EXPECT_EQ(format_cpp(c), wrapped) << c;
  }
  // One argument too long for its line aligned after `(`: left long.
  const std::string writer =
      "            noc_async_write_page((r0 + sr_2 * 2) * Nt + c0 + sc_2 * 2 + cb_C_r * Nt + "
      "cb_C_c, C_accessor, get_read_ptr(cb_C) + (cb_C_r * 2 + cb_C_c) * get_tile_size(cb_C));";
  EXPECT_TRUE(needs_format(wrap_long_lines(in_blocks(7, "  " + writer))));

  std::mt19937 rng(28); // fixed: the same statements every run
  auto pick = [&rng](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
  const char* names[] = {"a",
                         "Kt",
                         "cb_A_r_1",
                         "r0",
                         "bk",
                         "tk_x",
                         "A_mcast_x0",
                         "32u",
                         "get_tile_size(cb_A)",
                         "get_write_ptr(cb_B)",
                         "tt::CBIndex::c_16",
                         "(cb_A_r * bk + cb_A_c)",
                         "p.rows",
                         "x / 2",
                         "y % 4",
                         "a_rather_long_identifier_for_the_width_of_one_argument"};
  std::function<std::string(int)> expr = [&](int d) -> std::string {
    const int r = pick(10);
    if (r < 6 || d > 1)
      return names[pick(std::size(names))];
    if (r < 8)
      return expr(d + 1) + (pick(3) == 0 ? " + " : pick(2) ? " * " : " - ") + expr(d + 1);
    std::string call = pick(2) ? "get_semaphore(" : "tk_g(";
    for (int n = 1 + pick(3), k = 0; k < n; ++k)
      call += (k ? ", " : "") + expr(d + 1);
    return call + ")";
  };
  const char* calls[] = {"noc_async_read_page", "tk_multicast", "f", "tk::cpu::gemm_tile"};
  int wrapped_as_clang = 0, left = 0;
  while (wrapped_as_clang + left < 300) {
    const int depth = 1 + pick(10);
    std::string stmt = std::string(2 * depth, ' ') + calls[pick(std::size(calls))] + "(";
    for (int n = 1 + pick(12), k = 0; k < n; ++k)
      stmt += (k ? ", " : "") + expr(0);
    stmt += ");";
    if (stmt.size() <= kColumnLimit)
      continue;
    const std::string c = in_blocks(depth, stmt);
    const std::string wrapped = wrap_long_lines(c);
    if (needs_format(wrapped)) {
      EXPECT_EQ(wrapped, c); // left as it was
      ++left;
      continue;
    }
    ++wrapped_as_clang;
    EXPECT_EQ(format_cpp(c), wrapped) << c;
  }
  EXPECT_GT(wrapped_as_clang, 150);
  std::printf("random calls: %d wrapped as clang-format wraps them, %d left long\n",
              wrapped_as_clang, left);
}

// Declarations too long for their line, as the kernels' lets are: broken after the `=` exactly as
// clang-format breaks them when the value fits on the next line, else left long.
TEST(FormatRule, DeclarationsBreakAfterTheirEqualsAsClangFormatBreaksThem) {
  std::mt19937 rng(29); // fixed: the same declarations every run
  auto pick = [&rng](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
  const char* names[] = {"a",
                         "Kt",
                         "cb_mlp_h_r_1",
                         "r0",
                         "bk",
                         "A_mcast_x0",
                         "32u",
                         "x / 2",
                         "get_tile_size(cb_mlp_h)",
                         "get_write_ptr(cb_B)",
                         "std::min(a, b)",
                         "(cb_A_r * bk + cb_A_c)",
                         "a_rather_long_identifier_for_the_width"};
  std::function<std::string(int)> expr = [&](int d) -> std::string {
    const int r = pick(20);
    if (r < 11 || d > 1)
      return names[pick(std::size(names))];
    if (r < 17)
      return expr(d + 1) + (pick(3) == 0 ? " + " : pick(2) ? " * " : " - ") + expr(d + 1);
    std::string call = pick(2) ? "std::max(" : "f(";
    for (int n = 1 + pick(3), k = 0; k < n; ++k)
      call += (k ? ", " : "") + expr(d + 1);
    return call + ")";
  };
  const char* types[] = {"const uint32_t", "const int32_t", "std::int64_t"};
  const char* vars[] = {"cb_mlp_h_offset_1", "x", "row_chunk_pages_3", "units"};
  int wrapped_as_clang = 0, left = 0;
  while (wrapped_as_clang + left < 300) {
    const int depth = 1 + pick(9);
    std::string s = "void f() {\n";
    for (int k = 1; k < depth; ++k)
      s += std::string(2 * k, ' ') + "{\n";
    const std::string stmt = std::string(2 * depth, ' ') + types[pick(std::size(types))] + " " +
                             vars[pick(std::size(vars))] + " = " + expr(0) + ";";
    if (stmt.size() <= kColumnLimit)
      continue;
    s += stmt + "\n";
    for (int k = depth - 1; k >= 1; --k)
      s += std::string(2 * k, ' ') + "}\n";
    s += "}\n";
    const std::string wrapped = wrap_long_lines(s);
    if (needs_format(wrapped)) {
      EXPECT_EQ(wrapped, s); // left as it was
      ++left;
      continue;
    }
    ++wrapped_as_clang;
    EXPECT_EQ(format_cpp(s), wrapped) << s;
  }
  EXPECT_GT(wrapped_as_clang, 150);
  std::printf("random declarations: %d wrapped as clang-format wraps them, %d left long\n",
              wrapped_as_clang, left);
}

} // namespace
} // namespace tk::codegen
