// Robustness: no input crashes, hangs or overflows the parser's stack. Every input either parses
// (and then round-trips through the printer) or yields located diagnostics.
#include "parse_helpers.hpp"

#include "tests/support/golden.hpp"

#include <cctype>
#include <filesystem>
#include <random>

namespace tk::test {
namespace {

const char* kKernel = "kernel k(A: bf16[32, 32]) -> (B: bf16[32, 32]) {\n"
                      "    parallel i in 0 .. 1 {\n"
                      "        B[i, 0] = ";

/// Parses `text`: ok and round-trips, or fails with diagnostics that name the file.
void expect_parse_or_error(const std::string& text) {
  Parsed p = parse_text(text);
  if (p.module) {
    EXPECT_EQ(p.diagnostics, "");
    std::string printed = dsl::print(*p.module);
    Parsed again = parse_text(printed);
    ASSERT_TRUE(again.module.has_value()) << printed << again.diagnostics;
    EXPECT_TRUE(*again.module == *p.module) << printed;
  } else {
    EXPECT_EQ(p.diagnostics.rfind("t.tk:", 0), 0u) << p.diagnostics;
  }
}

std::string first_line(const std::string& s) {
  return s.substr(0, s.find('\n'));
}

std::vector<std::string> sample_sources() {
  std::vector<std::string> out;
  auto dir = source_dir() / "examples";
  if (std::filesystem::exists(dir))
    for (const auto& e : std::filesystem::directory_iterator(dir))
      if (e.path().extension() == ".tk")
        out.push_back(read_file(e.path()));
  out.push_back("// doc\n@options(grid = 8x8, fp32_acc = true)\n"
                "kernel softmax(x: bf16[M, N], s: f32) -> (y: bf16[M, N]) {\n"
                "    parallel i in tiles(M), q in 0 .. 2 {\n"
                "        m = fill(-inf); t = zeros()\n"
                "        for j in tiles(N) { m = max(m, rowmax(x[i, j + 1] * 1e-5)) }\n"
                "        y[i, 0] = exp(x[i, 0] - (bcast_col(m) @ m)) * 0.5\n"
                "    }\n"
                "}\n");
  return out;
}

TEST(Robustness, EveryPrefixOfEveryExample) {
  int parsed = 0, failed = 0;
  for (const std::string& src : sample_sources())
    for (std::size_t n = 0; n <= src.size(); ++n) {
      std::string prefix = src.substr(0, n);
      Parsed p = parse_text(prefix);
      (p.module ? parsed : failed)++;
      expect_parse_or_error(prefix);
    }
  EXPECT_GT(failed, 0);
  EXPECT_GT(parsed, 0); // e.g. the whole file, and cuts inside a trailing comment
}

TEST(Robustness, RandomBytes) {
  std::mt19937 rng(1234);
  for (int i = 0; i < 3000; ++i) {
    std::string s(rng() % 200, '\0');
    for (char& c : s)
      c = static_cast<char>(rng() % 256);
    if (i % 2) // half of them start like a kernel, to reach deeper rules
      s = std::string(kKernel) + s;
    expect_parse_or_error(s);
  }
}

TEST(Robustness, RandomTokenSoup) {
  const char* tokens[] = {"kernel", "parallel", "for", "in",   "tiles",  "zeros", "fill", "(",
                          ")",      "[",        "]",   "{",    "}",      ",",     ":",    "->",
                          "=",      "+=",       "+",   "-",    "*",      "@",     "..",   ";",
                          "\n",     "A",        "i",   "bf16", "f32",    "32",    "0.5",  "-inf",
                          "1e-5",   "@options", "x",   "8x8",  "// c\n", " "};
  std::mt19937 rng(99);
  for (int i = 0; i < 3000; ++i) {
    std::string s = i % 3 ? kKernel : "";
    for (int n = static_cast<int>(rng() % 60); n > 0; --n)
      s += std::string(tokens[rng() % std::size(tokens)]) + " ";
    expect_parse_or_error(s);
  }
}

/// A diagnostic that names a parser's C++ type instead of saying what was expected in words.
bool names_a_type(const std::string& d) {
  for (const char* bad : {"boost", "spirit", "::", "N2tk", "parser<", "grammar"})
    if (d.find(bad) != std::string::npos)
      return true;
  return false;
}

// Every failure point of the grammar that the examples reach: each example with a token that does
// not belong inserted at every position outside comments and words. No message may be a C++ type
// (`x[i, (j)]` printed `expected N2tk6parser7grammar6RejectIN5boost6spirit2x3...`). Four tokens
// that open, continue or break an expression keep it to a few seconds under ASan.
TEST(Robustness, EveryFailurePointSaysWhatItExpectsInWords) {
  const char* junk[] = {"(", "-", ",", ".."};
  int failures = 0;
  for (const std::string& src : sample_sources())
    for (std::size_t n = 0, comment = std::string::npos; n <= src.size(); ++n) {
      if (n < src.size() && src.compare(n, 2, "//") == 0)
        comment = src.find('\n', n); // a comment takes anything: no failure point inside
      if (comment != std::string::npos && n <= comment)
        continue;
      if (n > 0 && n < src.size() && std::isalnum(static_cast<unsigned char>(src[n - 1])) &&
          std::isalnum(static_cast<unsigned char>(src[n])))
        continue; // inside a word: the same failure points as at its ends
      for (const char* j : junk) {
        Parsed p = parse_text(src.substr(0, n) + j + src.substr(n));
        if (p.module)
          continue;
        ++failures;
        ASSERT_FALSE(names_a_type(p.diagnostics)) << p.diagnostics;
      }
    }
  EXPECT_GT(failures, 1000);
}

TEST(Robustness, AnIndexThatStartsWithAParenthesisOrAMinusIsNamed) {
  const std::string k = "kernel k(x: bf16[M, N]) -> (y: bf16[M, N]) {\n"
                        "    parallel i in tiles(M), j in tiles(N) { y[i, j] = x[i, ";
  EXPECT_EQ(first_line(parse_error(k + "(j)] }\n}\n")),
            "t.tk:2:60: error: expected tensor index (a loop variable, optionally plus or minus an "
            "integer: 'j', 'j - 1'; an integer literal; or, for a batch, a loop variable divided "
            "by an integer: 'h / 2')");
  EXPECT_EQ(first_line(parse_error(k + "-j] }\n}\n")),
            "t.tk:2:60: error: expected tensor index (a loop variable, optionally plus or minus an "
            "integer: 'j', 'j - 1'; an integer literal; or, for a batch, a loop variable divided "
            "by an integer: 'h / 2')");
}

TEST(Robustness, EmptyFile) {
  EXPECT_EQ(parse_error(""), "t.tk:1:1: error: no kernel in file\n"
                             "   1 | \n"
                             "     | ^\n");
  EXPECT_EQ(first_line(parse_error("// nothing but a comment\n\n  \n")),
            "t.tk:1:1: error: no kernel in file");
}

TEST(Robustness, MegabyteOfNestedParentheses) {
  std::string text = std::string(kKernel) + std::string(1 << 20, '(');
  // Two blocks are open, so the 255th '(' is the 257th level; it is at column 19 + 254.
  EXPECT_EQ(first_line(parse_error(text)),
            "t.tk:3:273: error: nesting is too deep (the limit is 256 levels of parentheses and "
            "blocks)");
}

TEST(Robustness, DeeplyNestedCallsAndBlocks) {
  EXPECT_EQ(first_line(parse_error(std::string(kKernel) + std::string(300000, 'f') + "(")),
            "t.tk:3:300020: error: expected ')'");
  std::string calls = kKernel;
  for (int i = 0; i < 100000; ++i)
    calls += "f(";
  EXPECT_EQ(first_line(parse_error(calls)),
            "t.tk:3:528: error: nesting is too deep (the limit is 256 levels of parentheses and "
            "blocks)");
  std::string blocks = "kernel k() -> () {\n";
  for (int i = 0; i < 100000; ++i)
    blocks += "for k in 0 .. 1 {\n";
  EXPECT_EQ(first_line(parse_error(blocks)),
            "t.tk:257:17: error: nesting is too deep (the limit is 256 levels of parentheses and "
            "blocks)");
}

TEST(Robustness, LongOperatorChain) {
  std::string ok = kKernel;
  for (int i = 0; i < 256; ++i)
    ok += "A[i, 0] + ";
  expect_parse_or_error(ok + "A[i, 0]\n    }\n}\n");
  EXPECT_TRUE(parse_text(ok + "A[i, 0]\n    }\n}\n").module.has_value());
  std::string chain = kKernel;
  for (int i = 0; i < 200000; ++i)
    chain += "A[i, 0] + ";
  chain += "A[i, 0]\n    }\n}\n";
  EXPECT_EQ(first_line(parse_error(chain)),
            "t.tk:3:2587: error: too many operators in one statement (the limit is 256)");
}

TEST(Robustness, NulAndInvalidUtf8) {
  EXPECT_EQ(first_line(parse_error(std::string(kKernel) + std::string("1\0", 2))),
            "t.tk:3:20: error: invalid byte 0x00");
  EXPECT_EQ(first_line(parse_error(std::string(kKernel) + "\xff\xfe")),
            "t.tk:3:19: error: non-ASCII byte 0xFF outside a comment");
  // Anything goes inside a comment, even bytes that are not UTF-8.
  EXPECT_TRUE(parse_text("// \xff\xfe \xc3\xa9\nkernel k() -> () {}").module.has_value());
}

TEST(Robustness, ErrorsInSeveralKernelsAreAllReported) {
  std::string text = "kernel a() -> () {\n    x = (\n}\n"
                     "kernel b() -> () {}\n"
                     "kernel c(A: f16[M, N]) -> () {}\n";
  std::string d = parse_error(text);
  EXPECT_NE(d.find("t.tk:3:1: error: expected expression"), std::string::npos) << d;
  EXPECT_NE(d.find("t.tk:5:13: error: unknown element type 'f16' (expected bf16, f32 or bfp8)"),
            std::string::npos)
      << d;
  EXPECT_NE(d.find("2 errors generated."), std::string::npos) << d;
}

TEST(Robustness, ErrorLimitStopsTheParser) {
  std::string text;
  for (int i = 0; i < 50; ++i)
    text += "kernel k" + std::to_string(i) + "(A: f16[M, N]) -> () {}\n";
  std::string d = parse_error(text);
  EXPECT_NE(d.find("20 errors generated."), std::string::npos) << d;
}

} // namespace
} // namespace tk::test
