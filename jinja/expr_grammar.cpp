// Jinja expressions in Boost.Spirit X3, with jinja2's precedence (lowest first):
//   a if c else b | or | and | not | comparisons (chained) | + - | ~ | * / // % | ** (left-assoc)
//   | unary - + | postfix . [] () | filters and tests (|f, is t).
// Tokens are hand-written X3 primitives (expr_tokens.hpp) so that every node gets the offset of
// its token; the structure is X3 rules whose semantic actions (expr_actions.hpp) build the AST.
#include "jinja/expr_grammar.hpp"

#include "jinja/error.hpp"
#include "jinja/expr_actions.hpp"
#include "jinja/expr_tokens.hpp"
#include "jinja/filters.hpp"

#include <boost/spirit/home/x3.hpp>

#include <cctype>
#include <string_view>
#include <vector>

namespace tk::jinja {

namespace expr_parser {

// ---- rules ---------------------------------------------------------------------------------

x3::rule<class expr_class, ExprPtr> const expr = "expression";
x3::rule<class or_class, ExprPtr> const or_expr = "expression";
x3::rule<class and_class, ExprPtr> const and_expr = "expression";
x3::rule<class not_class, ExprPtr> const not_expr = "expression";
x3::rule<class compare_class, ExprPtr> const compare = "expression";
x3::rule<class math1_class, ExprPtr> const math1 = "expression";
x3::rule<class concat_class, ExprPtr> const concat = "expression";
x3::rule<class math2_class, ExprPtr> const math2 = "expression";
x3::rule<class power_class, ExprPtr> const power = "expression";
x3::rule<class unary_class, ExprPtr> const unary = "expression";
x3::rule<class postfixed_class, ExprPtr> const postfixed = "expression";
x3::rule<class prefixed_class, ExprPtr> const prefixed = "expression";
x3::rule<class primary_class, ExprPtr> const primary = "expression";
x3::rule<class args_class, Args> const args = "arguments";
x3::rule<class postfix_step_class, Step> const postfix_step = "postfix";
x3::rule<class filter_step_class, Step> const filter_step = "filter";
x3::rule<class name_class, std::string> const name = "name";
x3::rule<class test_args_class, Args> const test_args = "test argument";
x3::rule<class test_arg_class, Args> const test_arg = "test argument";

struct constants_table : x3::symbols<int> {
  constants_table() { add("true", 1)("True", 1)("false", 0)("False", 0)("none", 2)("None", 2); }
} const constants;

struct cmp_table : x3::symbols<CmpOp> {
  cmp_table() {
    add("==", CmpOp::eq)("!=", CmpOp::ne)("<=", CmpOp::le)(">=", CmpOp::ge)("<", CmpOp::lt)(
        ">", CmpOp::gt);
  }
} const cmp_symbols;
struct add_table : x3::symbols<BinOp> {
  add_table() { add("+", BinOp::add)("-", BinOp::sub); }
} const add_symbols;
struct mul_table : x3::symbols<BinOp> {
  mul_table() { add("*", BinOp::mul)("/", BinOp::div)("//", BinOp::floordiv)("%", BinOp::mod); }
} const mul_symbols;

x3::rule<class cmp_op_class, CmpOp> const cmp_op = "comparison";
x3::rule<class add_op_class, BinOp> const add_op = "operator";
x3::rule<class mul_op_class, BinOp> const mul_op = "operator";
auto const cmp_op_def = cmp_symbols | (kw("in") >> x3::attr(CmpOp::in)) |
                        (kw("not") >> kw("in") >> x3::attr(CmpOp::not_in));
auto const add_op_def = add_symbols;
auto const mul_op_def = !x3::lit("**") >> mul_symbols; // "*" must not split "**"

auto const expr_def =
    (or_expr >> -((pos >> kw("if") > or_expr) >> -(kw("else") > expr)))[make_cond];
auto const or_expr_def = (and_expr >> *(pos >> kw("or") > and_expr))[fold_logic<ExprKind::or_op>];
auto const and_expr_def =
    (not_expr >> *(pos >> kw("and") > not_expr))[fold_logic<ExprKind::and_op>];
auto const not_expr_def =
    (pos >> kw("not") > not_expr)[make_unary<ExprKind::not_op>] | compare[assign];
auto const compare_def = (math1 >> *(pos >> cmp_op > math1))[fold_compare];
auto const math1_def = (concat >> *(pos >> add_op > concat))[fold_binary];
auto const concat_def = (math2 >> *(pos >> '~' > math2))[fold_concat];
auto const math2_def = (power >> *(pos >> mul_op > power))[fold_binary];
auto const power_def = (unary >> *(pos >> "**" > unary))[fold_pow];
auto const unary_def = (postfixed >> *filter_step)[apply_steps];
auto const postfixed_def = (prefixed >> *postfix_step)[apply_steps];
auto const prefixed_def = (pos >> '-' > postfixed)[make_unary<ExprKind::neg>] |
                          (pos >> '+' > postfixed)[make_unary<ExprKind::pos>] | primary[assign];
auto const primary_def =
    (pos >> x3::lexeme[constants >> !(x3::alnum | '_')])[make_const] |
    (pos >> number)[make_literal] | (pos >> +string_lit)[make_string] | (pos >> ident)[make_name] |
    // A trailing comma follows an item, as in Jinja2: `[1,]` is a list, `[,]` an error.
    (pos >> '[' >> !x3::lit(',') >> -(expr % ',') >> -x3::lit(',') > ']')[make_list] |
    (pos >> '{' >> !x3::lit(',') >> -((expr > ':' > expr) % ',') >> -x3::lit(',') >
     '}')[make_dict] |
    (pos >> '(' >> !x3::lit(',') >> -(expr % ',') >> -x3::char_(',') > ')')[make_paren];
auto const args_def =
    x3::lit('(') >> !x3::lit(',') >>
    -((((any_ident >> '=' >> !x3::lit('=')) > expr)[push_kwarg] | expr[push_arg]) % ',') >>
    -x3::lit(',') > ')';
auto const postfix_step_def =
    ('.' >> pos >> any_ident)[make_attr_step] | ('.' >> pos >> number)[make_index_attr_step] |
    (pos >> '[' >> -expr >> ':' >> -expr >> -(':' >> -expr) > ']')[make_slice_step] |
    (pos >> '[' > expr > ']')[make_item_step] | (pos >> args)[make_call_step];
auto const filter_step_def =
    ((pos >> '|' > name) >> -args)[make_step<ExprKind::filter>] |
    ((pos >> kw("is") >> kw("not") > name) >> -test_args)[make_step<ExprKind::test, true>] |
    ((pos >> kw("is") > name) >> -test_args)[make_step<ExprKind::test>];
auto const test_args_def = args | test_arg;
auto const test_arg_def = (primary >> *postfix_step)[make_test_arg];
auto const name_def = any_ident;

BOOST_SPIRIT_DEFINE(cmp_op, add_op, mul_op, expr, or_expr, and_expr, not_expr, compare, math1,
                    concat, math2, power, unary, postfixed, prefixed, primary, args, postfix_step,
                    filter_step, name, test_args, test_arg)

// Tag contents nest brackets and prefix operators (`not`, unary `-` and `+`); X3 recursion grows
// the C++ stack per level, so cap the depth before parsing instead of crashing on a hostile
// template.
constexpr int max_nesting = 64;

bool word_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

} // namespace expr_parser

using namespace expr_parser;

Cursor::Cursor(const Template& t, std::uint32_t begin, std::uint32_t end)
    : t_(t), base_(t.file.text().data()), first_(base_ + begin), last_(base_ + end) {
  // The nesting is the open brackets plus, inside each, the prefix operators still waiting for
  // their operand (`-(-(not x))` nests 5) and the `else` branches, which the grammar parses as
  // nested expressions up to the closing bracket (`a if b else c if d else e` nests 2).
  // `operand` says whether the last token ended an operand, which makes a following `-` or `+`
  // binary and `not` the start of `not in`.
  struct Level {
    int prefixes = 0, elses = 0;
  };
  std::vector<Level> levels(1);
  int depth = 0;
  bool operand = false;
  auto open = [&](const char* p, int& count) {
    ++count;
    if (++depth > max_nesting)
      fail(t_, static_cast<std::uint32_t>(p - base_), "expression nested too deeply");
  };
  auto operand_ends = [&] { // the prefixes waiting at this level got their operand
    depth -= levels.back().prefixes;
    levels.back().prefixes = 0;
    operand = true;
  };
  for (const char* p = first_; p != last_; ++p) {
    if (std::isspace(static_cast<unsigned char>(*p)))
      continue;
    if (*p == '\'' || *p == '"') {
      for (char q = *p++; p != last_ && *p != q; ++p)
        if (*p == '\\' && p + 1 != last_)
          ++p;
      if (p == last_)
        break;
      operand_ends();
    } else if (*p == '(' || *p == '[' || *p == '{') {
      int bracket = 0;
      open(p, bracket);
      levels.emplace_back();
      operand = false;
    } else if (*p == ')' || *p == ']' || *p == '}') {
      if (levels.size() > 1) {
        depth -= 1 + levels.back().prefixes + levels.back().elses;
        levels.pop_back();
      }
      operand_ends(); // the bracketed group is an operand
    } else if (word_char(*p)) {
      const char* w = p;
      while (p + 1 != last_ && word_char(p[1]))
        ++p;
      std::string_view word(w, static_cast<std::size_t>(p + 1 - w));
      if (word == "not" && !operand) {
        open(w, levels.back().prefixes);
      } else if (word == "else") {
        depth -= levels.back().prefixes;
        levels.back().prefixes = 0;
        open(w, levels.back().elses);
        operand = false;
      } else if (word == "and" || word == "or" || word == "not" || word == "in" || word == "is" ||
                 word == "if") {
        depth -= levels.back().prefixes;
        levels.back().prefixes = 0;
        operand = false;
      } else {
        operand_ends(); // a name or a number
      }
    } else if ((*p == '-' || *p == '+') && !operand) {
      open(p, levels.back().prefixes);
    } else {
      operand = false; // an operator, '.', ',', ':' or '|'
    }
  }
}

void Cursor::skip() {
  while (first_ != last_ && std::isspace(static_cast<unsigned char>(*first_)))
    ++first_;
}

std::uint32_t Cursor::offset() {
  skip();
  return static_cast<std::uint32_t>(first_ - base_);
}

bool Cursor::at_end() {
  skip();
  return first_ == last_;
}

void Cursor::error(const std::string& message) {
  fail(t_, offset(), message);
}

bool Cursor::keyword(const char* word) {
  return x3::phrase_parse(first_, last_, x3::with<base_tag>(base_)[kw(word)], x3::space);
}

std::optional<std::string> Cursor::name() {
  std::string out;
  if (x3::phrase_parse(first_, last_, x3::with<base_tag>(base_)[ident], x3::space, out))
    return out;
  return std::nullopt;
}

std::optional<std::string> Cursor::word() {
  std::string out;
  if (x3::phrase_parse(first_, last_, x3::with<base_tag>(base_)[any_ident], x3::space, out))
    return out;
  return std::nullopt;
}

std::string Cursor::expect_name(const char* what) {
  if (auto n = name())
    return *n;
  error(std::string("expected ") + what);
}

bool Cursor::punct(char c) {
  skip();
  if (first_ != last_ && *first_ == c) {
    ++first_;
    return true;
  }
  return false;
}

void Cursor::expect(char c) {
  if (!punct(c))
    error(std::string("expected '") + c + "'");
}

void Cursor::expect_end(const std::string& what) {
  if (!at_end())
    error("expected " + what);
}

namespace {

// jinja2 rejects unknown filters and tests when it compiles a template, not when it runs it.
void check_names(const Template& t, const Expr& e) {
  if (e.kind == ExprKind::filter && !is_filter(e.name))
    fail(t, e.pos, "no filter named '" + e.name + "'");
  if (e.kind == ExprKind::test && !is_test(e.name))
    fail(t, e.pos, "no test named '" + e.name + "'");
  for (const auto& op : e.operands)
    if (op) // slice bounds may be left out
      check_names(t, *op);
  for (const auto& kv : e.kwargs)
    check_names(t, *kv.second);
}

template <class Rule>
ExprPtr parse_with(const Template& t, const char* base, const char*& first, const char* last,
                   const Rule& rule) {
  ExprPtr out;
  try {
    x3::phrase_parse(first, last, x3::with<base_tag>(base)[x3::eps > rule], x3::space, out);
  } catch (const x3::expectation_failure<It>& e) {
    It where = e.where();
    while (where != last && std::isspace(static_cast<unsigned char>(*where)))
      ++where;
    fail(t, static_cast<std::uint32_t>(where - base),
         "expected " + e.which() + (where == last ? " before the end of the tag" : ""));
  }
  check_names(t, *out);
  return out;
}

} // namespace

ExprPtr Cursor::expression() {
  return parse_with(t_, base_, first_, last_, expr);
}
ExprPtr Cursor::or_expression() {
  return parse_with(t_, base_, first_, last_, or_expr);
}

} // namespace tk::jinja
