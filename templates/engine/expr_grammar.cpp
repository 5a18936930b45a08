// Jinja expressions in Boost.Spirit X3, with jinja2's precedence (lowest first):
//   a if c else b | or | and | not | comparisons (chained) | + - | ~ | * / // % | ** (left-assoc)
//   | unary - + | postfix . [] () | filters and tests (|f, is t).
// Tokens (names, numbers, strings, keywords) are small hand-written X3 primitives so that every
// node gets the exact offset of its token; the structure is X3 rules with semantic actions.
#include "templates/engine/expr_grammar.hpp"

#include "templates/engine/error.hpp"
#include "templates/engine/filters.hpp"

#include <boost/spirit/home/x3.hpp>

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace tk::tmpl {

namespace {

namespace x3 = boost::spirit::x3;
using boost::fusion::at_c;
using It = const char*;
struct base_tag;

bool ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
bool reserved(std::string_view w) {
  return w == "and" || w == "or" || w == "not" || w == "in" || w == "is" || w == "if" ||
         w == "else";
}

template <class Ctx>
std::uint32_t offset_of(const Ctx& ctx, It it) {
  return static_cast<std::uint32_t>(it - x3::get<base_tag>(ctx));
}

ExprPtr node(ExprKind k, std::uint32_t pos) {
  auto n = std::make_shared<Expr>();
  n->kind = k;
  n->pos = pos;
  return n;
}

// ---- token primitives --------------------------------------------------------------------

// The current position after whitespace; consumes nothing.
struct pos_parser : x3::parser<pos_parser> {
  using attribute_type = It;
  static bool const has_attribute = true;
  template <class I, class Ctx, class RCtx, class Attr>
  bool parse(I& first, I const& last, Ctx const& ctx, RCtx&, Attr& attr) const {
    x3::skip_over(first, last, ctx);
    if constexpr (!std::is_same_v<Attr, x3::unused_type>)
      attr = first;
    return true;
  }
};

// A name; `any` also accepts the reserved words (attribute, filter and test names).
struct ident_parser : x3::parser<ident_parser> {
  using attribute_type = std::string;
  static bool const has_attribute = true;
  bool any = false;
  template <class I, class Ctx, class RCtx, class Attr>
  bool parse(I& first, I const& last, Ctx const& ctx, RCtx&, Attr& attr) const {
    x3::skip_over(first, last, ctx);
    if (first == last || !ident_start(*first))
      return false;
    I end = first;
    while (end != last && ident_char(*end))
      ++end;
    std::string word(first, end);
    if (!any && reserved(word))
      return false;
    if constexpr (!std::is_same_v<Attr, x3::unused_type>)
      attr = std::move(word);
    first = end;
    return true;
  }
};

// A keyword as a whole word.
struct kw_parser : x3::parser<kw_parser> {
  using attribute_type = x3::unused_type;
  static bool const has_attribute = false;
  const char* word;
  template <class I, class Ctx, class RCtx, class Attr>
  bool parse(I& first, I const& last, Ctx const& ctx, RCtx&, Attr&) const {
    x3::skip_over(first, last, ctx);
    std::size_t n = std::strlen(word);
    if (static_cast<std::size_t>(last - first) < n || std::strncmp(first, word, n) != 0)
      return false;
    if (first + n != last && ident_char(first[n]))
      return false;
    first += n;
    return true;
  }
};

// Integer and float literals as jinja2 lexes them: 12, 1_000, 1.5, 2e3, 1.5e-3.
struct number_parser : x3::parser<number_parser> {
  using attribute_type = Value;
  static bool const has_attribute = true;
  template <class I, class Ctx, class RCtx, class Attr>
  bool parse(I& first, I const& last, Ctx const& ctx, RCtx&, Attr& attr) const {
    x3::skip_over(first, last, ctx);
    I p = first;
    std::string digits;
    auto run = [&](I& q) {  // (\d+_)*\d+
      if (q == last || !std::isdigit(static_cast<unsigned char>(*q)))
        return false;
      while (q != last && (std::isdigit(static_cast<unsigned char>(*q)) ||
                           (*q == '_' && q + 1 != last &&
                            std::isdigit(static_cast<unsigned char>(q[1]))))) {
        if (*q != '_')
          digits += *q;
        ++q;
      }
      return true;
    };
    if (!run(p))
      return false;
    bool is_float = false;
    if (p != last && *p == '.' && p + 1 != last && std::isdigit(static_cast<unsigned char>(p[1]))) {
      digits += '.';
      ++p;
      run(p);
      is_float = true;
    }
    if (p != last && (*p == 'e' || *p == 'E')) {
      I q = p + 1;
      std::string saved = digits;
      digits += 'e';
      if (q != last && (*q == '+' || *q == '-'))
        digits += *q++;
      if (run(q)) {
        p = q;
        is_float = true;
      } else {
        digits = saved;
      }
    }
    Value v;
    errno = 0;
    if (is_float) {
      v = Value::floating(std::strtod(digits.c_str(), nullptr));
    } else {
      long long i = std::strtoll(digits.c_str(), nullptr, 10);
      if (errno == ERANGE)
        return false;  // reported as a bad expression; Python ints are unbounded, ours 64-bit
      v = Value::integer(i);
    }
    if constexpr (!std::is_same_v<Attr, x3::unused_type>)
      attr = v;
    first = p;
    return true;
  }
};

// A quoted string with Python escapes.
struct string_parser : x3::parser<string_parser> {
  using attribute_type = std::string;
  static bool const has_attribute = true;
  template <class I, class Ctx, class RCtx, class Attr>
  bool parse(I& first, I const& last, Ctx const& ctx, RCtx&, Attr& attr) const {
    x3::skip_over(first, last, ctx);
    if (first == last || (*first != '\'' && *first != '"'))
      return false;
    I p = first + 1;
    while (p != last && *p != *first)
      p += (*p == '\\' && p + 1 != last) ? 2 : 1;
    if (p == last)
      return false;
    if constexpr (!std::is_same_v<Attr, x3::unused_type>)
      attr = decode_string_literal(std::string_view(first + 1, static_cast<std::size_t>(p - first - 1)));
    first = p + 1;
    return true;
  }
};

pos_parser const pos{};
ident_parser const ident{{}, false};
ident_parser const any_ident{{}, true};
number_parser const number{};
string_parser const string_lit{};
kw_parser kw(const char* w) { return kw_parser{{}, w}; }

// ---- semantic actions ----------------------------------------------------------------------

struct Args {
  std::vector<ExprPtr> positional;
  KwArgs kw;
};

// One postfix step applied to the expression on its left.
struct Step {
  ExprKind kind = ExprKind::attr;
  std::uint32_t pos = 0;
  std::string name;
  bool negated = false;
  ExprPtr index;
  Args args;
};

ExprPtr apply(ExprPtr left, Step& s) {
  // A call is reported at its callee ("m" of m(1)), everything else at its own token.
  auto n = node(s.kind, s.kind == ExprKind::call ? left->pos : s.pos);
  n->operands.push_back(std::move(left));
  n->name = std::move(s.name);
  n->negated = s.negated;
  if (s.index)
    n->operands.push_back(s.index);
  for (auto& a : s.args.positional)
    n->operands.push_back(a);
  n->kwargs = std::move(s.args.kw);
  return n;
}

auto const assign = [](auto& ctx) { x3::_val(ctx) = x3::_attr(ctx); };

auto const apply_steps = [](auto& ctx) {
  ExprPtr e = at_c<0>(x3::_attr(ctx));
  for (auto& s : at_c<1>(x3::_attr(ctx)))
    e = apply(std::move(e), s);
  x3::_val(ctx) = e;
};

template <ExprKind K>
auto const fold_logic = [](auto& ctx) {
  ExprPtr e = at_c<0>(x3::_attr(ctx));
  for (auto& step : at_c<1>(x3::_attr(ctx))) {
    auto n = node(K, offset_of(ctx, at_c<0>(step)));
    n->operands = {e, at_c<1>(step)};
    e = n;
  }
  x3::_val(ctx) = e;
};

auto const fold_binary = [](auto& ctx) {
  ExprPtr e = at_c<0>(x3::_attr(ctx));
  for (auto& step : at_c<1>(x3::_attr(ctx))) {
    auto n = node(ExprKind::binary, offset_of(ctx, at_c<0>(step)));
    n->bin_op = at_c<1>(step);
    n->operands = {e, at_c<2>(step)};
    e = n;
  }
  x3::_val(ctx) = e;
};

auto const fold_pow = [](auto& ctx) {
  ExprPtr e = at_c<0>(x3::_attr(ctx));
  for (auto& step : at_c<1>(x3::_attr(ctx))) {
    auto n = node(ExprKind::binary, offset_of(ctx, at_c<0>(step)));
    n->bin_op = BinOp::pow;
    n->operands = {e, at_c<1>(step)};
    e = n;
  }
  x3::_val(ctx) = e;
};

auto const fold_compare = [](auto& ctx) {
  ExprPtr e = at_c<0>(x3::_attr(ctx));
  auto& steps = at_c<1>(x3::_attr(ctx));
  if (!steps.empty()) {
    auto n = node(ExprKind::compare, offset_of(ctx, at_c<0>(steps.front())));
    n->operands.push_back(e);
    for (auto& step : steps) {
      n->cmp_ops.push_back(at_c<1>(step));
      n->operands.push_back(at_c<2>(step));
    }
    e = n;
  }
  x3::_val(ctx) = e;
};

auto const fold_concat = [](auto& ctx) {
  ExprPtr e = at_c<0>(x3::_attr(ctx));
  auto& steps = at_c<1>(x3::_attr(ctx));
  if (!steps.empty()) {
    auto n = node(ExprKind::concat, offset_of(ctx, at_c<0>(steps.front())));
    n->operands.push_back(e);
    for (auto& step : steps)
      n->operands.push_back(at_c<1>(step));
    e = n;
  }
  x3::_val(ctx) = e;
};

auto const make_cond = [](auto& ctx) {
  auto& a = x3::_attr(ctx);  // then, optional<(pos, cond, optional<else>)>
  ExprPtr e = at_c<0>(a);
  if (auto& tail = at_c<1>(a)) {
    auto n = node(ExprKind::cond, offset_of(ctx, at_c<0>(*tail)));
    n->operands = {e, at_c<1>(*tail)};
    if (at_c<2>(*tail))
      n->operands.push_back(*at_c<2>(*tail));
    e = n;
  }
  x3::_val(ctx) = e;
};

template <ExprKind K>
auto const make_unary = [](auto& ctx) {
  auto n = node(K, offset_of(ctx, at_c<0>(x3::_attr(ctx))));
  n->operands = {at_c<1>(x3::_attr(ctx))};
  x3::_val(ctx) = n;
};

auto const make_literal = [](auto& ctx) {
  auto n = node(ExprKind::literal, offset_of(ctx, at_c<0>(x3::_attr(ctx))));
  n->literal = at_c<1>(x3::_attr(ctx));
  x3::_val(ctx) = n;
};

auto const make_const = [](auto& ctx) {
  auto n = node(ExprKind::literal, offset_of(ctx, at_c<0>(x3::_attr(ctx))));
  int c = at_c<1>(x3::_attr(ctx));
  n->literal = c == 2 ? Value() : Value::boolean(c == 1);
  x3::_val(ctx) = n;
};

auto const make_string = [](auto& ctx) {  // adjacent literals concatenate, as in Python
  auto n = node(ExprKind::literal, offset_of(ctx, at_c<0>(x3::_attr(ctx))));
  std::string s;
  for (auto& part : at_c<1>(x3::_attr(ctx)))
    s += part;
  n->literal = Value::string(std::move(s));
  x3::_val(ctx) = n;
};

auto const make_name = [](auto& ctx) {
  auto n = node(ExprKind::name, offset_of(ctx, at_c<0>(x3::_attr(ctx))));
  n->name = at_c<1>(x3::_attr(ctx));
  x3::_val(ctx) = n;
};

auto const make_list = [](auto& ctx) {
  auto n = node(ExprKind::list, offset_of(ctx, at_c<0>(x3::_attr(ctx))));
  if (auto& items = at_c<1>(x3::_attr(ctx)))
    n->operands = *items;
  x3::_val(ctx) = n;
};

auto const make_dict = [](auto& ctx) {
  auto n = node(ExprKind::dict, offset_of(ctx, at_c<0>(x3::_attr(ctx))));
  if (auto& items = at_c<1>(x3::_attr(ctx)))
    for (auto& kv : *items) {
      n->operands.push_back(at_c<0>(kv));
      n->operands.push_back(at_c<1>(kv));
    }
  x3::_val(ctx) = n;
};

auto const make_paren = [](auto& ctx) {  // (a) is a; (), (a,) and (a, b) are tuples
  auto& a = x3::_attr(ctx);
  auto& items = at_c<1>(a);
  bool trailing_comma = static_cast<bool>(at_c<2>(a));
  if (items && items->size() == 1 && !trailing_comma) {
    x3::_val(ctx) = items->front();
    return;
  }
  auto n = node(ExprKind::tuple, offset_of(ctx, at_c<0>(a)));
  if (items)
    n->operands = *items;
  x3::_val(ctx) = n;
};

auto const push_kwarg = [](auto& ctx) {
  x3::_val(ctx).kw.emplace_back(at_c<0>(x3::_attr(ctx)), at_c<1>(x3::_attr(ctx)));
};
auto const push_arg = [](auto& ctx) { x3::_val(ctx).positional.push_back(x3::_attr(ctx)); };

template <ExprKind K, bool Negated = false>
auto const make_step = [](auto& ctx) {  // (pos, name, optional<Args>)
  auto& a = x3::_attr(ctx);
  Step s;
  s.kind = K;
  s.pos = offset_of(ctx, at_c<0>(a));
  s.name = at_c<1>(a);
  s.negated = Negated;
  if (at_c<2>(a))
    s.args = std::move(*at_c<2>(a));
  x3::_val(ctx) = std::move(s);
};

auto const make_attr_step = [](auto& ctx) {  // x.name, and x.0 meaning x[0]
  auto& a = x3::_attr(ctx);
  Step s;
  s.pos = offset_of(ctx, at_c<0>(a));
  s.kind = ExprKind::attr;
  s.name = at_c<1>(a);
  x3::_val(ctx) = std::move(s);
};
auto const make_index_attr_step = [](auto& ctx) {
  auto& a = x3::_attr(ctx);
  Step s;
  s.pos = offset_of(ctx, at_c<0>(a));
  s.kind = ExprKind::item;
  s.index = node(ExprKind::literal, s.pos);
  s.index->literal = at_c<1>(a);
  x3::_val(ctx) = std::move(s);
};
auto const make_item_step = [](auto& ctx) {
  Step s;
  s.pos = offset_of(ctx, at_c<0>(x3::_attr(ctx)));
  s.kind = ExprKind::item;
  s.index = at_c<1>(x3::_attr(ctx));
  x3::_val(ctx) = std::move(s);
};
auto const make_call_step = [](auto& ctx) {
  Step s;
  s.pos = offset_of(ctx, at_c<0>(x3::_attr(ctx)));
  s.kind = ExprKind::call;
  s.args = std::move(at_c<1>(x3::_attr(ctx)));
  x3::_val(ctx) = std::move(s);
};

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
auto const mul_op_def = !x3::lit("**") >> mul_symbols;  // "*" must not split "**"

auto const expr_def =
    (or_expr >> -((pos >> kw("if") > or_expr) >> -(kw("else") > expr)))[make_cond];
auto const or_expr_def = (and_expr >> *(pos >> kw("or") > and_expr))[fold_logic<ExprKind::or_op>];
auto const and_expr_def = (not_expr >> *(pos >> kw("and") > not_expr))[fold_logic<ExprKind::and_op>];
auto const not_expr_def = (pos >> kw("not") > not_expr)[make_unary<ExprKind::not_op>] | compare[assign];
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
    (pos >> '[' >> -(expr % ',') >> -x3::lit(',') > ']')[make_list] |
    (pos >> '{' >> -((expr > ':' > expr) % ',') >> -x3::lit(',') > '}')[make_dict] |
    (pos >> '(' >> -(expr % ',') >> -x3::char_(',') > ')')[make_paren];
auto const args_def =
    x3::lit('(') >>
    -((((any_ident >> '=' >> !x3::lit('=')) > expr)[push_kwarg] | expr[push_arg]) % ',') >>
    -x3::lit(',') > ')';
auto const postfix_step_def = ('.' >> pos >> any_ident)[make_attr_step] |
                              ('.' >> pos >> number)[make_index_attr_step] |
                              (pos >> '[' > expr > ']')[make_item_step] | (pos >> args)[make_call_step];
auto const filter_step_def =
    ((pos >> '|' > name) >> -args)[make_step<ExprKind::filter>] |
    ((pos >> kw("is") >> kw("not") > name) >> -args)[make_step<ExprKind::test, true>] |
    ((pos >> kw("is") > name) >> -args)[make_step<ExprKind::test>];
auto const name_def = any_ident;

BOOST_SPIRIT_DEFINE(cmp_op, add_op, mul_op, expr, or_expr, and_expr, not_expr, compare, math1, concat, math2, power, unary,
                    postfixed, prefixed, primary, args, postfix_step, filter_step, name)

// Tag contents nest brackets; X3 recursion grows the C++ stack per level, so cap the depth
// before parsing instead of crashing on a hostile template.
constexpr int max_nesting = 64;

}  // namespace

Cursor::Cursor(const Template& t, std::uint32_t begin, std::uint32_t end)
    : t_(t), base_(t.file.text().data()), first_(base_ + begin), last_(base_ + end) {
  int depth = 0;
  for (const char* p = first_; p != last_; ++p) {
    if (*p == '\'' || *p == '"') {
      for (char q = *p++; p != last_ && *p != q; ++p)
        if (*p == '\\' && p + 1 != last_)
          ++p;
      if (p == last_)
        break;
    } else if (*p == '(' || *p == '[' || *p == '{') {
      if (++depth > max_nesting)
        fail(t_, static_cast<std::uint32_t>(p - base_), "expression nested too deeply");
    } else if ((*p == ')' || *p == ']' || *p == '}') && depth > 0) {
      --depth;
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

void Cursor::error(const std::string& message) { fail(t_, offset(), message); }

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

}  // namespace

ExprPtr Cursor::expression() { return parse_with(t_, base_, first_, last_, expr); }
ExprPtr Cursor::or_expression() { return parse_with(t_, base_, first_, last_, or_expr); }

std::string decode_string_literal(std::string_view body) {
  std::string out;
  auto put_utf8 = [&out](std::uint32_t cp) {
    if (cp < 0x80) {
      out += static_cast<char>(cp);
    } else if (cp < 0x800) {
      out += static_cast<char>(0xC0 | (cp >> 6));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      out += static_cast<char>(0xE0 | (cp >> 12));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (cp >> 18));
      out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    }
  };
  for (std::size_t i = 0; i < body.size(); ++i) {
    char c = body[i];
    if (c != '\\' || i + 1 == body.size()) {
      out += c;
      continue;
    }
    char e = body[++i];
    auto hex = [&](std::size_t n) -> bool {
      std::uint32_t cp = 0;
      for (std::size_t k = 1; k <= n; ++k) {
        if (i + k >= body.size() || !std::isxdigit(static_cast<unsigned char>(body[i + k])))
          return false;
        char d = static_cast<char>(std::tolower(static_cast<unsigned char>(body[i + k])));
        cp = cp * 16 + static_cast<std::uint32_t>(d <= '9' ? d - '0' : d - 'a' + 10);
      }
      put_utf8(cp);
      i += n;
      return true;
    };
    switch (e) {
    case 'n': out += '\n'; break;
    case 't': out += '\t'; break;
    case 'r': out += '\r'; break;
    case '\\': out += '\\'; break;
    case '\'': out += '\''; break;
    case '"': out += '"'; break;
    case 'a': out += '\a'; break;
    case 'b': out += '\b'; break;
    case 'f': out += '\f'; break;
    case 'v': out += '\v'; break;
    case '\n': break;  // a backslash-newline continues the line
    case 'x':
      if (!hex(2))
        out += "\\x";
      break;
    case 'u':
      if (!hex(4))
        out += "\\u";
      break;
    case 'U':
      if (!hex(8))
        out += "\\U";
      break;
    default:
      if (e >= '0' && e <= '7') {  // octal, up to three digits
        std::uint32_t cp = static_cast<std::uint32_t>(e - '0');
        for (int k = 0; k < 2 && i + 1 < body.size() && body[i + 1] >= '0' && body[i + 1] <= '7'; ++k)
          cp = cp * 8 + static_cast<std::uint32_t>(body[++i] - '0');
        put_utf8(cp);
      } else {
        out += '\\';  // unknown escapes stay as written, as in Python
        out += e;
      }
    }
  }
  return out;
}

}  // namespace tk::tmpl
