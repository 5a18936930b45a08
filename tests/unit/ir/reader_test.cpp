// Reader errors are located user errors in clang's form, at the offending token.
#include "ir_test_util.hpp"

#include "lowering/ir/equal.hpp"
#include "lowering/ir/verifier.hpp"

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

// The host plan's parts: unknown enumerators, names of undeclared tensors, clauses out of order.
TEST(Reader, HostPlanErrorsAreLocated) {
  auto fn = [](const std::string& config) {
    return std::string(kHead) + "  func reader f()" + config + " {\n  }\n}\n";
  };
  EXPECT_EQ(first_line(test::read_error(
                fn(" runtime_args [] compile_args [] processor riscv_7 noc noc_0"))),
            "dump.txt:4:61: error: unknown processor 'riscv_7'");
  EXPECT_EQ(first_line(test::read_error(
                fn(" runtime_args [] compile_args [] processor riscv_1 noc RISCV_1_default"))),
            "dump.txt:4:73: error: unknown NoC 'RISCV_1_default'");
  EXPECT_EQ(first_line(test::read_error(fn(" runtime_args [] compile_args [] math_fidelity HiFi4 "
                                           "fp32_dest_acc_en true math_approx_mode false"))),
            "dump.txt:4:65: error: unknown math fidelity 'HiFi4'");
  EXPECT_EQ(first_line(test::read_error(fn(" runtime_args [] compile_args [] math_fidelity lofi "
                                           "fp32_dest_acc_en yes math_approx_mode false"))),
            "dump.txt:4:87: error: expected true or false, got 'yes'");
  EXPECT_EQ(first_line(test::read_error(fn(" runtime_args [a, 1] compile_args []"))),
            "dump.txt:4:36: error: expected a runtime arg name, got '1'");
  EXPECT_EQ(first_line(test::read_error(fn(" runtime_args [] compile_args [B at 0]"))),
            "dump.txt:4:49: error: compile-time args of unknown tensor 'B'");
  EXPECT_EQ(first_line(test::read_error(fn(" runtime_args [] compile_args [A 0]"))),
            "dump.txt:4:51: error: expected 'at', got '0'");
  EXPECT_EQ(first_line(test::read_error(fn(" compile_args [] runtime_args []"))),
            "dump.txt:4:19: error: expected '{', got 'compile_args'");
  EXPECT_EQ(first_line(test::read_error(std::string(kHead) + "  accessor B args [2]\n}\n")),
            "dump.txt:4:12: error: accessor of unknown tensor 'B'");
  EXPECT_EQ(first_line(test::read_error(std::string(kHead) + "  accessor A args [2, x]\n}\n")),
            "dump.txt:4:23: error: expected a compile-time arg, got 'x'");
  std::string plan =
      "  host_plan {\n    split split_work_to_cores items n grid 8x8 row_wise false\n";
  EXPECT_EQ(first_line(test::read_error(std::string(kHead) +
                                        "  host_plan {\n    split halves items n\n  }\n}\n")),
            "dump.txt:5:11: error: unknown work split 'halves'");
  EXPECT_EQ(first_line(test::read_error(std::string(kHead) +
                                        "  host_plan {\n    split split_work_to_cores grid 8x8\n"
                                        "  }\n}\n")),
            "dump.txt:5:31: error: expected 'items', got 'grid'");
  EXPECT_EQ(first_line(test::read_error(std::string(kHead) + plan +
                                        "    buffer B address B_addr\n  }\n}\n")),
            "dump.txt:6:12: error: buffer of unknown tensor 'B'");
  EXPECT_EQ(first_line(test::read_error(std::string(kHead) + plan +
                                        "    kernels [f]\n    per_core s c\n  }\n}\n")),
            "dump.txt:7:5: error: expected '}', got 'per_core'");
  EXPECT_EQ(first_line(test::read_error(std::string(kHead) + plan + "  }\n" + plan + "  }\n}\n")),
            "dump.txt:7:3: error: a program has one host_plan");
  EXPECT_EQ(first_line(test::read_error(std::string(kHead) + "  plan {\n  }\n}\n")),
            "dump.txt:4:3: error: expected 'tensor', 'accessor', 'cb', 'func', 'host_plan' or '}', "
            "got 'plan'");
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
  good +=
      "program h {\n  tensor T: f32[M, 32] input\n  accessor T args [2, 4096]\n"
      "  func reader r() runtime_args [a, b] compile_args [T at 0] processor riscv_1 noc noc_1 {"
      "\n  }\n  func compute c() runtime_args [] compile_args [] math_fidelity lofi "
      "fp32_dest_acc_en true math_approx_mode false {\n  }\n  func host h_host(M: u32) {\n"
      "    let n: u32 = M\n  }\n  host_plan {\n    split split_work_to_cores items n grid 2x3 "
      "row_wise false\n    per_core s c\n    buffer T address a size n page 4096\n"
      "    kernels [r, c]\n  }\n}\n";
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

namespace tk::ir {
namespace {

std::string kernel_with(const std::string& body) {
  return "program p {\n  func kernel k() {\n" + body + "\n  }\n}\n";
}
std::string repeat(const std::string& s, int n) {
  std::string out;
  for (int i = 0; i < n; ++i)
    out += s;
  return out;
}

// Found with ir_reader_fuzzer on deep inputs: every walk over the IR recurses once per level, so 20
// KB of '(' or of `1 + 1 + ...` overflowed the stack (in the reader, then in the verifier and the
// printer). Nesting beyond the limits is a located error; up to them a module reads, verifies,
// prints and reads back.
TEST(Reader, NestingIsBounded) {
  auto first = [](const std::string& text) { return first_line(test::read_error(text)); };
  EXPECT_EQ(first(kernel_with("    let x: i32 = " + repeat("(", 10000) + "1" + repeat(")", 10000))),
            "dump.txt:3:3089: error: nesting is too deep (the limit is 3072 levels)");
  EXPECT_EQ(first(kernel_with("    let x: i32 = " + repeat("1 + ", 5000) + "1")),
            "dump.txt:3:6156: error: the IR nests too deeply here (the limit is 1536 levels of "
            "statements and expressions)");
  EXPECT_EQ(
      first(kernel_with("    let x: i32 = " + repeat("1 - (", 3000) + "1" + repeat(")", 3000))),
      "dump.txt:3:7697: error: nesting is too deep (the limit is 3072 levels)");
  EXPECT_EQ(first(kernel_with(repeat("if 1 < 2 {", 3000) + repeat("}", 3000))),
            "dump.txt:3:15346: error: the IR nests too deeply here (the limit is 1536 levels of "
            "statements and expressions)");
  EXPECT_EQ(first("module attributes {a = " + repeat("[", 5000) + repeat("]", 5000) + "}\n"),
            "dump.txt:1:1560: error: the IR nests too deeply here (the limit is 1536 levels of "
            "statements and expressions)");

  // At the limits: a statement one body deep with an expression 1535 deep, a right-nested tree
  // as deep (two levels of the reader's recursion per level), an `if` 1534 bodies deep (the
  // function's is the first) with a condition 2 deep, attribute lists 1536 deep.
  for (const std::string& text :
       {kernel_with("    let x: i32 = " + repeat("1 + ", 1534) + "1"),
        kernel_with("    let x: i32 = " + repeat("1 - (", 1534) + "1" + repeat(")", 1534)),
        kernel_with(repeat("if 1 < 2 {", 1533) + repeat("}", 1533)),
        "module attributes {a = " + repeat("[", 1536) + repeat("]", 1536) + "}\n"}) {
    Module m = test::read_text(text);
    EXPECT_EQ(find_ir_error(m), std::nullopt);
    Module again = test::read_text(print(m));
    EXPECT_TRUE(equal(m, again));
  }
}

} // namespace
} // namespace tk::ir
