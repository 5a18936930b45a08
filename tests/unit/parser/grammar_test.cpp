// Grammar tests: every construct of the language parses into the AST it should, with locations.
#include "parse_helpers.hpp"

#include <cmath>

namespace tk::test {
namespace {

using namespace tk::dsl;

/// Fully parenthesized prefix form, to assert tree shape independently of the printer.
std::string sexpr(const Expr& e) {
  if (auto* b = std::get_if<Binary>(&e.node))
    return "(" + std::string(to_string(b->op)) + " " + sexpr(*b->lhs) + " " + sexpr(*b->rhs) + ")";
  if (auto* c = std::get_if<Call>(&e.node)) {
    std::string s = c->callee.name + "(";
    for (std::size_t i = 0; i < c->args.size(); ++i)
      s += (i ? " " : "") + sexpr(c->args[i]);
    return s + ")";
  }
  return print(e);
}

std::string sexpr_of(const std::string& expr) {
  Module m = parse_ok(in_kernel("        x = " + expr));
  const auto* a = std::get_if<Assign>(&first_stmt(m).node);
  return a ? sexpr(a->value) : "<none>";
}

std::string text_at(const std::string& text, SourceRange r) {
  return text.substr(r.begin, r.end - r.begin);
}

TEST(Grammar, KernelSignatureWithSeveralParameters) {
  Module m = parse_ok("kernel axpby(x: bf16[M, N], y: f32[64, N], alpha: f32) -> (z: bf16[M, 1], "
                      "w: f32[32, 32]) {\n"
                      "}\n");
  ASSERT_EQ(m.kernels.size(), 1u);
  const Kernel& k = m.kernels[0];
  EXPECT_EQ(k.name.name, "axpby");
  ASSERT_EQ(k.inputs.size(), 3u);
  ASSERT_EQ(k.outputs.size(), 2u);
  EXPECT_EQ(k.inputs[0].name.name, "x");
  EXPECT_EQ(k.inputs[0].dtype, DType::bf16);
  EXPECT_TRUE(k.inputs[0].is_tensor);
  ASSERT_EQ(k.inputs[0].dims.size(), 2u);
  EXPECT_EQ(k.inputs[0].dims[0].name->name, "M");
  EXPECT_EQ(k.inputs[1].dtype, DType::f32);
  EXPECT_FALSE(k.inputs[1].dims[0].name.has_value());
  EXPECT_EQ(k.inputs[1].dims[0].size, 64);
  EXPECT_EQ(k.inputs[1].dims[1].name->name, "N");
  EXPECT_EQ(k.inputs[2].name.name, "alpha");
  EXPECT_FALSE(k.inputs[2].is_tensor);
  EXPECT_TRUE(k.inputs[2].dims.empty());
  EXPECT_EQ(k.outputs[0].dims[1].size, 1);
  EXPECT_EQ(k.outputs[1].dims[0].size, 32);
  EXPECT_TRUE(k.body.empty());
}

TEST(Grammar, EmptyParameterListsAndNewlinesInsideParentheses) {
  Module m = parse_ok("kernel k(\n  A: bf16[\n M,\n K ]\n) -> () {}\n");
  ASSERT_EQ(m.kernels.size(), 1u);
  EXPECT_EQ(m.kernels[0].inputs.size(), 1u);
  EXPECT_TRUE(m.kernels[0].outputs.empty());
}

TEST(Grammar, Options) {
  Module m = parse_ok("@options(grid = 8x4, cb_depth = 2, fp32_acc = true, dbg = false,\n"
                      "         math_fidelity = HiFi4, offset = -3)\n"
                      "kernel k() -> () {}\n");
  const auto& o = m.kernels[0].options;
  ASSERT_EQ(o.size(), 6u);
  EXPECT_EQ(o[0].key.name, "grid");
  EXPECT_EQ(std::get<GridValue>(o[0].value), (GridValue{8, 4}));
  EXPECT_EQ(o[1].key.name, "cb_depth");
  EXPECT_EQ(std::get<std::int64_t>(o[1].value), 2);
  EXPECT_EQ(std::get<bool>(o[2].value), true);
  EXPECT_EQ(std::get<bool>(o[3].value), false);
  EXPECT_EQ(std::get<std::string>(o[4].value), "HiFi4");
  EXPECT_EQ(std::get<std::int64_t>(o[5].value), -3);
}

TEST(Grammar, OptionsOnTheSameLineAsTheKernel) {
  Module m = parse_ok("@options(cb_depth = 3) kernel k() -> () {}\n");
  ASSERT_EQ(m.kernels[0].options.size(), 1u);
}

TEST(Grammar, ParallelWithTwoLoopsAndRanges) {
  Module m = parse_ok("kernel k() -> () {\n"
                      "    parallel i in tiles(M), j in 0 .. 4 {\n"
                      "        for k in 2 .. tiles(K) {}\n"
                      "        for q in tiles(M) .. tiles(N) {}\n"
                      "    }\n"
                      "}\n");
  const auto& par = std::get<Parallel>(m.kernels[0].body.at(0).node);
  ASSERT_EQ(par.loops.size(), 2u);
  EXPECT_EQ(par.loops[0].var.name, "i");
  EXPECT_FALSE(par.loops[0].range.lo.has_value());
  EXPECT_EQ(par.loops[0].range.hi.tiles_of->name, "M");
  EXPECT_EQ(par.loops[1].range.lo->value, 0);
  EXPECT_FALSE(par.loops[1].range.lo->tiles_of.has_value());
  EXPECT_EQ(par.loops[1].range.hi.value, 4);
  ASSERT_EQ(par.body.size(), 2u);
  const auto& f1 = std::get<For>(par.body[0].node);
  EXPECT_EQ(f1.loop.var.name, "k");
  EXPECT_EQ(f1.loop.range.lo->value, 2);
  EXPECT_EQ(f1.loop.range.hi.tiles_of->name, "K");
  const auto& f2 = std::get<For>(par.body[1].node);
  EXPECT_EQ(f2.loop.range.lo->tiles_of->name, "M");
  EXPECT_EQ(f2.loop.range.hi.tiles_of->name, "N");
}

TEST(Grammar, AssignAccumulateAndStore) {
  Module m = parse_ok(in_kernel("        acc = zeros()\n"
                                "        acc += A[i, k] @ B[k, j]\n"
                                "        C[i, j + 1] = acc\n"));
  const auto& body = std::get<Parallel>(m.kernels[0].body[0].node).body;
  ASSERT_EQ(body.size(), 3u);
  const auto& a = std::get<Assign>(body[0].node);
  EXPECT_EQ(a.name.name, "acc");
  EXPECT_EQ(sexpr(a.value), "zeros()");
  const auto& acc = std::get<Accumulate>(body[1].node);
  EXPECT_EQ(acc.name.name, "acc");
  EXPECT_EQ(sexpr(acc.value), "(@ A[i, k] B[k, j])");
  const auto& st = std::get<Store>(body[2].node);
  EXPECT_EQ(st.target.tensor.name, "C");
  ASSERT_EQ(st.target.indices.size(), 2u);
  EXPECT_EQ(st.target.indices[1].var->name, "j");
  EXPECT_EQ(st.target.indices[1].offset, 1);
  EXPECT_EQ(print(st.value), "acc");
}

TEST(Grammar, TensorIndices) {
  Module m = parse_ok(in_kernel("        x = A[j+1, j - 1] + A[0, 3] + A[\n i,\n j ]"));
  const auto& a = std::get<Assign>(first_stmt(m).node);
  const auto& outer = std::get<Binary>(a.value.node);
  const auto& inner = std::get<Binary>(outer.lhs->node);
  const auto& first = std::get<Access>(inner.lhs->node);
  EXPECT_EQ(first.indices[0].var->name, "j");
  EXPECT_EQ(first.indices[0].offset, 1);
  EXPECT_EQ(first.indices[1].offset, -1);
  const auto& lit = std::get<Access>(inner.rhs->node);
  EXPECT_FALSE(lit.indices[0].var.has_value());
  EXPECT_EQ(lit.indices[0].offset, 0);
  EXPECT_EQ(lit.indices[1].offset, 3);
  EXPECT_EQ(print(*outer.rhs), "A[i, j]");
}

TEST(Grammar, CallsWithZeroOneAndTwoArguments) {
  EXPECT_EQ(sexpr_of("zeros()"), "zeros()");
  EXPECT_EQ(sexpr_of("fill(0.5)"), "fill(0.5)");
  EXPECT_EQ(sexpr_of("exp(A[i, j])"), "exp(A[i, j])");
  EXPECT_EQ(sexpr_of("max(a, rowmax(b))"), "max(a rowmax(b))");
  EXPECT_EQ(sexpr_of("f(\n  a,\n  b\n)"), "f(a b)");
}

TEST(Grammar, PrecedenceAndAssociativity) {
  EXPECT_EQ(sexpr_of("a - b - c"), "(- (- a b) c)");
  EXPECT_EQ(sexpr_of("a + b * c"), "(+ a (* b c))");
  EXPECT_EQ(sexpr_of("a * b + c"), "(+ (* a b) c)");
  EXPECT_EQ(sexpr_of("a @ b * c"), "(* (@ a b) c)");
  EXPECT_EQ(sexpr_of("a * b @ c"), "(@ (* a b) c)");
  EXPECT_EQ(sexpr_of("a - (b - c)"), "(- a (- b c))");
  EXPECT_EQ(sexpr_of("(a + b) * c"), "(* (+ a b) c)");
  EXPECT_EQ(sexpr_of("exp(a) * b + c @ d - e"), "(- (+ (* exp(a) b) (@ c d)) e)");
  EXPECT_EQ(sexpr_of("a - -2"), "(- a -2)");
  EXPECT_EQ(sexpr_of("a * -inf"), "(* a -inf)");
}

TEST(Grammar, Numbers) {
  auto number = [](const std::string& text) {
    Module m = parse_ok(in_kernel("        x = " + text));
    const auto& a = std::get<Assign>(first_stmt(m).node);
    return std::get<Number>(a.value.node);
  };
  EXPECT_EQ(number("32"), (Number{32, true}));
  EXPECT_EQ(number("-2"), (Number{-2, true}));
  EXPECT_EQ(number("0.5"), (Number{0.5, false}));
  EXPECT_EQ(number("1e-5"), (Number{1e-5, false}));
  EXPECT_EQ(number("2.5E+3"), (Number{2500, false}));
  EXPECT_EQ(number("inf"), (Number{INFINITY, false}));
  EXPECT_EQ(number("-inf"), (Number{-INFINITY, false}));
}

TEST(Grammar, CommentsEverywhere) {
  Module m = parse_ok("// leading\n"
                      "@options(grid = 2x2) // after options\n"
                      "// between\n"
                      "kernel k(A: bf16[M, K], // after a parameter\n"
                      "         B: bf16[K, N]) -> (C: bf16[M, N]) { // after the brace\n"
                      "    // alone\n"
                      "    parallel i in tiles(M), j in tiles(N) { // here\n"
                      "        acc = zeros() // trailing\n"
                      "        // between statements\n"
                      "        for k in tiles(K) { acc += A[i, k] @ B[k, j] } // after a block\n"
                      "        C[i, j] = acc//no space\n"
                      "    }\n"
                      "}// end\n"
                      "// trailing without newline");
  EXPECT_EQ(m.kernels.at(0).inputs.size(), 2u);
  EXPECT_EQ(std::get<Parallel>(m.kernels[0].body[0].node).body.size(), 3u);
}

TEST(Grammar, BothStatementSeparators) {
  Module semi = parse_ok(in_kernel("        a = zeros(); b = a; C[i, j] = b;"));
  Module lines = parse_ok(in_kernel("        a = zeros()\n\n        b = a\n        C[i, j] = b"));
  EXPECT_EQ(semi, lines);
  EXPECT_EQ(std::get<Parallel>(semi.kernels[0].body[0].node).body.size(), 3u);
  Module blocks = parse_ok(in_kernel("        for k in tiles(K) { a = zeros(); b = a }"));
  EXPECT_EQ(std::get<For>(first_stmt(blocks).node).body.size(), 2u);
}

TEST(Grammar, SignatureMayWrapAroundTheArrow) {
  Module m = parse_ok("kernel k(A: bf16[M, N])\n    -> (B: bf16[M, N]) {}\n"
                      "kernel q(A: bf16[M, N]) ->\n    (B: bf16[M, N]) {}\n");
  ASSERT_EQ(m.kernels.size(), 2u);
  EXPECT_EQ(m.kernels[1].outputs.at(0).name.name, "B");
}

TEST(Grammar, BraceOnTheNextLine) {
  Module m = parse_ok("kernel k() -> ()\n{\n    parallel i in tiles(M)\n    {\n    }\n}\n");
  EXPECT_EQ(m.kernels[0].body.size(), 1u);
}

TEST(Grammar, SeveralKernels) {
  Module m = parse_ok("kernel a() -> () {}\nkernel b() -> () {}\n\n\nkernel c() -> () {}");
  ASSERT_EQ(m.kernels.size(), 3u);
  EXPECT_EQ(m.kernels[2].name.name, "c");
}

TEST(Grammar, CrlfLineEndings) {
  Module m = parse_ok("kernel k() -> () {\r\n    parallel i in tiles(M) {\r\n        x = 1\r\n"
                      "        y = 2\r\n    }\r\n}\r\n");
  EXPECT_EQ(std::get<Parallel>(m.kernels[0].body[0].node).body.size(), 2u);
}

TEST(Grammar, Locations) {
  std::string text = "@options(grid = 8x8)\n"
                     "kernel mm(A: bf16[M, K]) -> (C: bf16[M, N]) {\n"
                     "    parallel i in tiles(M) {\n"
                     "        C[i, 0] = exp(A[i, 0]) +  A[i, 1]\n"
                     "    }\n"
                     "}\n";
  Module m = parse_ok(text);
  const Kernel& k = m.kernels[0];
  EXPECT_EQ(text_at(text, k.name.loc.range), "mm");
  EXPECT_EQ(text_at(text, k.loc.range).substr(0, 10), "kernel mm(");
  EXPECT_EQ(text_at(text, k.loc.range).back(), '}');
  EXPECT_EQ(text_at(text, k.options[0].key.loc.range), "grid");
  EXPECT_EQ(text_at(text, k.options[0].value_loc.range), "8x8");
  EXPECT_EQ(text_at(text, k.inputs[0].loc.range), "A: bf16[M, K]");
  EXPECT_EQ(text_at(text, k.inputs[0].dtype_loc.range), "bf16");
  EXPECT_EQ(text_at(text, k.inputs[0].dims[1].loc.range), "K");
  const Stmt& par = k.body[0];
  EXPECT_EQ(text_at(text, par.loc.range).substr(0, 24), "parallel i in tiles(M) {");
  const auto& loop = std::get<Parallel>(par.node).loops[0];
  EXPECT_EQ(text_at(text, loop.var.loc.range), "i");
  EXPECT_EQ(text_at(text, loop.range.loc.range), "tiles(M)");
  EXPECT_EQ(text_at(text, loop.range.hi.loc.range), "tiles(M)");
  const Stmt& s = std::get<Parallel>(par.node).body[0];
  EXPECT_EQ(text_at(text, s.loc.range), "C[i, 0] = exp(A[i, 0]) +  A[i, 1]");
  const auto& st = std::get<Store>(s.node);
  EXPECT_EQ(text_at(text, st.target_loc.range), "C[i, 0]");
  EXPECT_EQ(text_at(text, st.target.indices[1].loc.range), "0");
  EXPECT_EQ(text_at(text, st.value.loc.range), "exp(A[i, 0]) +  A[i, 1]");
  const auto& sum = std::get<Binary>(st.value.node);
  EXPECT_EQ(text_at(text, sum.lhs->loc.range), "exp(A[i, 0])");
  EXPECT_EQ(text_at(text, sum.rhs->loc.range), "A[i, 1]");
  const auto& call = std::get<Call>(sum.lhs->node);
  EXPECT_EQ(text_at(text, call.callee.loc.range), "exp");
  EXPECT_EQ(text_at(text, call.args[0].loc.range), "A[i, 0]");
  EXPECT_EQ(text_at(text, st.target.tensor.loc.range), "C");
  EXPECT_EQ(text_at(text, st.target.indices[0].var->loc.range), "i");
  EXPECT_EQ(text_at(text, std::get<Access>(sum.rhs->node).tensor.loc.range), "A");
}

TEST(Grammar, LocationsOfEveryName) {
  std::string text =
      in_kernel("        acc = s\n        acc += A[j + 1, i]\n        C[i, j] = acc");
  Module m = parse_ok(text);
  const auto& body = std::get<Parallel>(m.kernels[0].body[0].node).body;
  const auto& assign = std::get<Assign>(body[0].node);
  EXPECT_EQ(text_at(text, assign.name.loc.range), "acc");
  EXPECT_EQ(text_at(text, std::get<Name>(assign.value.node).id.loc.range), "s");
  EXPECT_EQ(text_at(text, assign.value.loc.range), "s");
  const auto& acc = std::get<Accumulate>(body[1].node);
  EXPECT_EQ(text_at(text, acc.name.loc.range), "acc");
  const auto& index = std::get<Access>(acc.value.node).indices[0];
  EXPECT_EQ(text_at(text, index.loc.range), "j + 1");
  EXPECT_EQ(text_at(text, index.var->loc.range), "j");
  EXPECT_EQ(text_at(text, body[1].loc.range), "acc += A[j + 1, i]");
  EXPECT_EQ(text_at(text, m.kernels[0].inputs[0].dims[0].name->loc.range), "M");
  EXPECT_EQ(text_at(text, m.kernels[0].inputs[0].name.loc.range), "A");
}

TEST(Grammar, ParenthesizedExpressionLocationIncludesParentheses) {
  std::string text = in_kernel("        x = (a + b) * c");
  Module m = parse_ok(text);
  const auto& mul = std::get<Binary>(std::get<Assign>(first_stmt(m).node).value.node);
  EXPECT_EQ(text_at(text, mul.lhs->loc.range), "(a + b)");
}

} // namespace
} // namespace tk::test
