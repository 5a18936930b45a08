// Reader errors are located user errors in clang's form, at the offending token.
#include "ir_test_util.hpp"

namespace tk::ir {
namespace {

const char* kHead = "program p {\n"
                    "  tensor A: bf16[M, K] input\n"
                    "  cb cb_in0 index 0 format Float16_b page 2048 depth 2 role input tensor A\n";

std::string first_line(const std::string& s) {
  return s.substr(0, s.find('\n'));
}

TEST(Reader, UnknownIntrinsicPointsAtTheName) {
  std::string text =
      std::string(kHead) + "  func kernel f() {\n    let x: tile<f32> = tile.foo()\n  }\n}\n";
  EXPECT_EQ(test::read_error(text), "dump.txt:5:24: error: unknown intrinsic 'tile.foo'\n"
                                    "   5 |     let x: tile<f32> = tile.foo()\n"
                                    "     |                        ^~~~~~~~\n");
}

TEST(Reader, UnknownName) {
  std::string text =
      std::string(kHead) + "  func kernel f() {\n    cb_reserve_back(cb_in1, 1)\n  }\n}\n";
  EXPECT_EQ(first_line(test::read_error(text)), "dump.txt:5:21: error: unknown name 'cb_in1'");
}

TEST(Reader, ExpectedToken) {
  std::string text = std::string(kHead) + "  func kernel f( {\n  }\n}\n";
  EXPECT_EQ(first_line(test::read_error(text)),
            "dump.txt:4:18: error: expected a parameter name, got '{'");
}

TEST(Reader, UnknownLoopRole) {
  std::string text =
      std::string(kHead) + "  func kernel f() {\n    for i in 0 .. 4 sideways {\n    }\n  }\n}\n";
  EXPECT_EQ(first_line(test::read_error(text)),
            "dump.txt:5:21: error: unknown loop role 'sideways'");
}

TEST(Reader, NonZeroStartNeedsExplicitExtent) {
  std::string text =
      std::string(kHead) + "  func kernel f() {\n    for i in 1 .. 4 serial {\n    }\n  }\n}\n";
  EXPECT_EQ(first_line(test::read_error(text)),
            "dump.txt:5:5: error: a loop that does not start at 0 is written 'min .. +extent'");
}

TEST(Reader, LoadFromUnknownTensor) {
  std::string text =
      std::string(kHead) + "  func kernel f() {\n    let t: tile<bf16> = load B[0, 0]\n  }\n}\n";
  EXPECT_EQ(first_line(test::read_error(text)),
            "dump.txt:5:25: error: load from unknown tensor 'B'");
}

TEST(Reader, AssignmentToUndeclaredVariable) {
  std::string text = std::string(kHead) + "  func kernel f() {\n    acc = tile.zeros()\n  }\n}\n";
  EXPECT_EQ(first_line(test::read_error(text)),
            "dump.txt:5:5: error: assignment to undeclared variable 'acc'");
}

TEST(Reader, BadTypeAndDuplicateAttribute) {
  EXPECT_EQ(first_line(test::read_error("program p {\n  func kernel f(x: tile<i8>) {\n  }\n}\n")),
            "dump.txt:2:20: error: unknown type 'tile<i8>'");
  EXPECT_EQ(first_line(test::read_error("program p attributes {a = 1, a = 2} {\n}\n")),
            "dump.txt:1:30: error: duplicate attribute 'a'");
}

TEST(Reader, UnexpectedEndOfFile) {
  EXPECT_EQ(first_line(test::read_error("program p {\n  func kernel f() {\n")),
            "dump.txt:3:1: error: expected '}', got end of file");
}

TEST(Reader, UnknownEnumConstant) {
  std::string text = std::string(kHead) +
                     "  func compute f() {\n    reduce_init(PoolType::MEAN, "
                     "ReduceDim::REDUCE_ROW, cb_in0, cb_in0, cb_in0)\n  }\n}\n";
  EXPECT_EQ(first_line(test::read_error(text)),
            "dump.txt:5:17: error: unknown constant 'PoolType::MEAN'");
}

} // namespace
} // namespace tk::ir

namespace tk::ir {
namespace {

// Damaged dumps are user errors, never crashes: every prefix of a real dump and random byte
// edits either read or give exactly one located error.
TEST(Reader, DamagedInputNeverCrashes) {
  std::string good = print(test::matmul_module());
  good += "program q attributes {l = [1, \"s\", 2x2]} {\n  cb c index 0 format Float32 page 4096 "
          "depth 2 role scaler\n  func compute f() {\n    if 1 < 2 {\n      reduce_uninit()\n    } "
          "else {\n      copy_tile(c, 0, 0)\n    }\n  }\n}\n";
  auto check = [](const std::string& text) {
    SourceFile f("dump.txt", text);
    Diagnostics d;
    std::optional<Module> m;
    EXPECT_NO_THROW(m = read_module(f, d)) << text;
    if (!m) {
      EXPECT_EQ(d.error_count(), 1u) << text;
    }
    EXPECT_EQ(d.file(), nullptr); // the reader restores the caller's file
  };
  for (std::size_t n = 0; n <= good.size(); n += 3)
    check(good.substr(0, n));
  std::uint32_t seed = 12345;
  auto rnd = [&] { return seed = seed * 1664525u + 1013904223u; };
  const std::string alphabet = "{}[]()<>=+-*/%,:.\"x0123456789 \nab_";
  for (int n = 0; n < 400; ++n) {
    std::string t = good;
    for (int e = 0; e < 3; ++e)
      t[rnd() % t.size()] = alphabet[rnd() % alphabet.size()];
    check(t);
  }
}

} // namespace
} // namespace tk::ir
