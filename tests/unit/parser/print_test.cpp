// The canonical printer: exact text, minimal parentheses, numbers, and the round-trip laws
// parse(print(m)) == m and print(parse(print(m))) == print(m), on every example and on ASTs built
// in C++ with shapes the examples do not have.
#include "parse_helpers.hpp"

#include "tests/support/golden.hpp"

#include <cmath>
#include <filesystem>

namespace tk::test {
namespace {

using namespace tk::dsl;

void expect_round_trip(const Module& m) {
  std::string once = print(m);
  Parsed again = parse_text(once, "printed.tk");
  ASSERT_TRUE(again.module.has_value()) << "printed text does not parse:\n"
                                        << once << "\n"
                                        << again.diagnostics;
  EXPECT_TRUE(*again.module == m) << "parse(print(m)) != m; printed:\n" << once;
  EXPECT_EQ(print(*again.module), once);
}

TEST(Print, CanonicalForm) {
  Module m = parse_ok(
      "// comment dropped\n"
      "@options(math_fidelity=HiFi2,grid=2x4)  kernel  f( A:bf16[M,32],s:f32 )->(C:bf16[M,32]){\n"
      "parallel i in tiles(M),j in 0..1{ x=((A[i,j]))*s;C[i,j+0]=x+(x@x)\n"
      "for k in tiles(M)..4 { x += fill(-inf) } }}\n"
      "kernel g()->(){}");
  EXPECT_EQ(print(m), "@options(math_fidelity = HiFi2, grid = 2x4)\n"
                      "kernel f(A: bf16[M, 32], s: f32) -> (C: bf16[M, 32]) {\n"
                      "    parallel i in tiles(M), j in 0 .. 1 {\n"
                      "        x = A[i, j] * s\n"
                      "        C[i, j] = x + x @ x\n"
                      "        for k in tiles(M) .. 4 {\n"
                      "            x += fill(-inf)\n"
                      "        }\n"
                      "    }\n"
                      "}\n"
                      "\n"
                      "kernel g() -> () {\n"
                      "}\n");
}

TEST(Print, MinimalParentheses) {
  EXPECT_EQ(expr_of("x = a - (b - c)"), "a - (b - c)");
  EXPECT_EQ(expr_of("x = (a - b) - c"), "a - b - c");
  EXPECT_EQ(expr_of("x = (a + b) * c"), "(a + b) * c");
  EXPECT_EQ(expr_of("x = a * (b @ c)"), "a * (b @ c)");
  EXPECT_EQ(expr_of("x = (a * b) @ c"), "a * b @ c");
  EXPECT_EQ(expr_of("x = a + (b * c)"), "a + b * c");
  EXPECT_EQ(expr_of("x = (exp((a)))"), "exp(a)");
  EXPECT_EQ(expr_of("x = max((a + b), (c))"), "max(a + b, c)");
}

TEST(Print, Numbers) {
  EXPECT_EQ(expr_of("x = 32"), "32");
  EXPECT_EQ(expr_of("x = -2"), "-2");
  EXPECT_EQ(expr_of("x = 0.5"), "0.5");
  EXPECT_EQ(expr_of("x = 2.0"), "2.0");
  EXPECT_EQ(expr_of("x = 2.50"), "2.5");
  EXPECT_EQ(expr_of("x = 1e-5"), "1e-5");
  EXPECT_EQ(expr_of("x = 1E5"), "1e5");
  EXPECT_EQ(expr_of("x = 1234.5"), "1234.5");
  EXPECT_EQ(expr_of("x = 1e22"), "1e22");
  EXPECT_EQ(expr_of("x = 0.1"), "0.1");
  // An integer literal past 2^63: every digit of the double it reads as, at any length (a
  // 71-digit literal used to be cut to 63 digits, another number), and that reads back as itself.
  EXPECT_EQ(expr_of("x = 123456789012345678901234567890"), "123456789012345677877719597056");
  for (const std::string& literal : {std::string(71, '1'), "1" + std::string(308, '0')}) {
    const std::string printed = expr_of("x = " + literal);
    EXPECT_EQ(printed.size(), literal.size());
    EXPECT_EQ(printed.substr(0, 16), literal.substr(0, 16));
    EXPECT_EQ(expr_of("x = " + printed), printed);
  }
  EXPECT_EQ(expr_of("x = inf"), "inf");
  EXPECT_EQ(expr_of("x = -inf"), "-inf");
  EXPECT_EQ(expr_of("x = a - -1.5"), "a - -1.5");
}

TEST(Print, IndexOffsets) {
  EXPECT_EQ(expr_of("x = A[j+1, j-2]"), "A[j + 1, j - 2]");
  EXPECT_EQ(expr_of("x = A[j - 0, 7]"), "A[j, 7]");
}

// A grouped index keeps its divisor, a wrong one included (the checker reports it).
TEST(Print, GroupedIndices) {
  EXPECT_EQ(expr_of("x = K[h/2, j, e]"), "K[h / 2, j, e]");
  EXPECT_EQ(expr_of("x = K[h / -1, j, e]"), "K[h / -1, j, e]");
  EXPECT_EQ(expr_of("x = K[h / g, j, e]"), "K[h / g, j, e]");
}

// A row of tiles prints as written and reads back equal.
TEST(Print, RowsOfTiles) {
  Module m = parse_ok("kernel k(x: bf16[M, N]) -> (y: bf16[M, N]) {\n"
                      "    parallel i in tiles(M) {\n"
                      "        o[d in tiles(N)] = x[i, d]\n"
                      "        q[c in 0 .. 2] = zeros()\n"
                      "        for d in tiles(N) { o[d] = o[d] * 2.0 }\n"
                      "        for d in tiles(N) { y[i, d] = o[d] }\n"
                      "    }\n"
                      "}\n");
  expect_round_trip(m);
  EXPECT_NE(print(m).find("        o[d in tiles(N)] = x[i, d]\n"), std::string::npos) << print(m);
  EXPECT_NE(print(m).find("        q[c in 0 .. 2] = zeros()\n"), std::string::npos) << print(m);
}

Expr num(double v, bool integer) {
  Expr e;
  e.node = Number{v, integer};
  return e;
}
Expr name(const std::string& n) {
  Expr e;
  e.node = Name{Ident{n, {}}};
  return e;
}
Expr bin(BinOp op, Expr a, Expr b) {
  Expr e;
  e.node = Binary{op, std::move(a), std::move(b)};
  return e;
}
Expr call(const std::string& f, std::vector<Expr> args) {
  Expr e;
  e.node = Call{Ident{f, {}}, std::move(args)};
  return e;
}

TEST(Print, RoundTripOfBuiltAsts) {
  Module m;
  Kernel k;
  k.name.name = "built";
  k.options.push_back(Option{Ident{"grid", {}}, GridValue{1, 8}, {}});
  k.options.push_back(Option{Ident{"fp32_acc", {}}, false, {}});
  Param a;
  a.name.name = "A";
  a.dtype = DType::f32;
  a.is_tensor = true;
  a.dims = {Dim{Ident{"M", {}}, 0, {}}, Dim{std::nullopt, 64, {}}};
  k.inputs.push_back(a);
  Param s;
  s.name.name = "s";
  s.dtype = DType::f32;
  k.inputs.push_back(s);
  Param c = a;
  c.name.name = "C";
  k.outputs.push_back(c);

  std::vector<Expr> values = {
      bin(BinOp::sub, name("a"), bin(BinOp::sub, name("b"), name("c"))),
      bin(BinOp::mul, bin(BinOp::add, name("a"), name("b")), num(0.1, false)),
      bin(BinOp::matmul, name("a"), bin(BinOp::mul, name("b"), num(-3, true))),
      bin(BinOp::add, bin(BinOp::add, num(1e-7, false), num(1e22, false)), num(2.0, false)),
      call("max", {bin(BinOp::sub, name("a"), num(-INFINITY, false)), num(INFINITY, false)}),
      call("zeros", {}),
      num(123.456, false),
      num(5e-324, false),
      num(1.7976931348623157e308, false),
  };
  Parallel par;
  par.loops.push_back(
      LoopVar{Ident{"i", {}}, Range{std::nullopt, Bound{Ident{"M", {}}, 0, {}}, {}}});
  par.loops.push_back(
      LoopVar{Ident{"j", {}}, Range{Bound{std::nullopt, 1, {}}, Bound{std::nullopt, 2, {}}, {}}});
  for (Expr& v : values) {
    Stmt st;
    st.node = Assign{Ident{"x", {}}, std::move(v)};
    par.body.push_back(std::move(st));
  }
  Stmt acc;
  acc.node = Accumulate{Ident{"x", {}}, name("x")};
  For loop{LoopVar{Ident{"k", {}},
                   Range{Bound{Ident{"M", {}}, 0, {}}, Bound{Ident{"N", {}}, 0, {}}, {}}},
           {acc}};
  Stmt for_stmt;
  for_stmt.node = std::move(loop);
  par.body.push_back(std::move(for_stmt));
  Stmt store;
  store.node =
      Store{Access{Ident{"C", {}},
                   {TensorIndex{Ident{"i", {}}, -1, {}}, TensorIndex{std::nullopt, 0, {}}}},
            {},
            name("x")};
  par.body.push_back(std::move(store));
  Stmt ps;
  ps.node = std::move(par);
  k.body.push_back(std::move(ps));
  m.kernels.push_back(k);
  k.name.name = "second";
  k.options.clear();
  m.kernels.push_back(k);
  expect_round_trip(m);
}

TEST(Print, RoundTripOfEveryExample) {
  auto dir = source_dir() / "examples";
  int count = 0;
  if (std::filesystem::exists(dir)) {
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
      if (entry.path().extension() != ".tk")
        continue;
      SCOPED_TRACE(entry.path().string());
      Parsed p = parse_text(read_file(entry.path()), entry.path().filename().string());
      ASSERT_TRUE(p.module.has_value()) << p.diagnostics;
      expect_round_trip(*p.module);
      ++count;
    }
  }
  // The dsl.md examples, so the law is exercised even in a tree without examples/.
  Module doc = parse_ok(
      "kernel matmul(A: bf16[M, K], B: bf16[K, N]) -> (C: bf16[M, N]) {\n"
      "    parallel i in tiles(M), j in tiles(N) {\n"
      "        acc = zeros()\n"
      "        for k in tiles(K) { acc += A[i, k] @ B[k, j] }\n"
      "        C[i, j] = relu(acc + bcast_row(bias[0, j]))\n"
      "    }\n"
      "}\n"
      "kernel softmax(x: bf16[M, N]) -> (y: bf16[M, N]) {\n"
      "    parallel i in tiles(M) {\n"
      "        m = fill(-inf)\n"
      "        for j in tiles(N) { m = max(m, rowmax(x[i, j])) }\n"
      "        s = zeros()\n"
      "        for j in tiles(N) { s += rowsum(exp(x[i, j] - bcast_col(m))) }\n"
      "        r = recip(s)\n"
      "        for j in tiles(N) { y[i, j] = exp(x[i, j] - bcast_col(m)) * bcast_col(r) }\n"
      "    }\n"
      "}\n");
  expect_round_trip(doc);
  std::cout << "round-tripped " << count << " examples/*.tk files\n";
}

} // namespace
} // namespace tk::test
