// Definition of the tile-language grammar (docs/language.md). Rules build dsl:: nodes in
// semantic actions; every rule whose node has a `loc` gets its byte range on success. Statements
// end at a newline or ';' (the skipper keeps newlines), except inside '(' and '[' where the
// free_lines directive makes the skipper take newlines too.
#pragma once

#include "parser/grammar.hpp"
#include "parser/x3_support.hpp"

#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

namespace tk::parser {
namespace grammar {

// ---- lexical ------------------------------------------------------------------------------------

auto const ident_char = x3::alnum | '_';
inline auto kw(const char* word) {
  return lexeme[lit(word) >> !ident_char];
}
auto const uint64 = x3::uint_parser<std::int64_t>{};
auto const not_close_paren = !(lit(')') | eoi);
auto const not_block_end = !(lit('}') | eoi | kw("kernel"));

x3::rule<class ident_class, dsl::Ident> const ident = "name";
x3::rule<class ident_body_class, dsl::Ident> const ident_body = "name";
x3::rule<class kernel_name_class, dsl::Ident> const kernel_name = "kernel name";
x3::rule<class param_name_class, dsl::Ident> const param_name = "parameter name";
x3::rule<class loop_var_name_class, dsl::Ident> const loop_var_name = "loop variable name";
x3::rule<class dim_name_class, dsl::Ident> const dim_name = "dimension name";
x3::rule<class option_name_class, dsl::Ident> const option_name = "option name";
x3::rule<class callee_class, dsl::Ident> const callee = "function name";
x3::rule<class callee_body_class, dsl::Ident> const callee_body = "function name";

auto const make_ident = [](auto& ctx) {
  auto r = _attr(ctx);
  std::string s(r.begin(), r.end());
  if (is_reserved_word(s))
    x3::_pass(ctx) = false;
  else
    _val(ctx).name = std::move(s);
};
auto const ident_def = ident_body;
auto const ident_body_def = raw[lexeme[(x3::alpha | '_') >> *ident_char]][make_ident];
auto const kernel_name_def = ident;
auto const param_name_def = ident;
auto const loop_var_name_def = ident;
auto const dim_name_def = ident;
auto const option_name_def = ident;
// `zeros` and `fill` are reserved words that are also called like functions.
auto const assign_val = [](auto& ctx) { _val(ctx) = std::move(_attr(ctx)); };
auto const callee_def = callee_body;
auto const callee_body_def = ident[assign_val] | raw[kw("zeros") | kw("fill")][([](auto& ctx) {
                               auto r = _attr(ctx);
                               _val(ctx).name.assign(r.begin(), r.end());
                             })];

// ---- tokens with friendly names ----------------------------------------------------------------
#define TK_TOKEN(id, name, p)                                                                      \
  x3::rule<class id##_class> const id = name;                                                      \
  auto const id##_def = p;                                                                         \
  BOOST_SPIRIT_DEFINE(id)

// A long signature may wrap around the arrow.
TK_TOKEN(arrow, "'->'", *eol >> lit("->") >> *eol)
TK_TOKEN(colon, "':' after parameter name", lit(':'))
TK_TOKEN(close_dims, "']' after dimensions", lit(']'))
TK_TOKEN(close_indices, "']' after tensor indices", lit(']'))
TK_TOKEN(in_kw, "'in'", kw("in"))
TK_TOKEN(dotdot, "'..'", lit(".."))
TK_TOKEN(store_eq, "'=' after tensor access", lit('='))
TK_TOKEN(row_eq, "'=' after a row of tiles", lit('='))
TK_TOKEN(close_row, "']' after the row's range", lit(']'))
TK_TOKEN(name_eq, "'=' or '+=' after name", lit('='))
TK_TOKEN(option_eq, "'=' after option name", lit('='))
TK_TOKEN(options_kw, "'options' after '@'", kw("options"))
TK_TOKEN(stmt_end, "newline or ';' after statement", (lit(';') >> *eol) | +eol | &lit('}') | eoi)
#undef TK_TOKEN

x3::rule<class index_offset_class, std::int64_t> const index_offset = "integer offset";
auto const index_offset_def = uint64;
BOOST_SPIRIT_DEFINE(index_offset)

/// Starts a statement's operator count (a parser, not an action, so that the statement rule
/// still passes its attribute through).
struct ResetOperators : x3::parser<ResetOperators> {
  using attribute_type = x3::unused_type;
  static bool const has_attribute = false;
  template <class It, class Ctx, class RCtx, class Attr>
  bool parse(It&, const It&, const Ctx& ctx, RCtx&, Attr&) const {
    state(ctx).operators = 0;
    return true;
  }
};

// ---- what the language does not have -----------------------------------------------------------
/// Reports `message(text)` over the text `p` matches here, and otherwise matches nothing: a
/// construct users reach for that the language lacks gets its own error saying what to write
/// instead (docs/language.md). A parser without an attribute, so that it sits in front of any
/// rule without changing what the rule builds.
template <class P, class Message>
struct Reject : x3::parser<Reject<P, Message>> {
  using attribute_type = x3::unused_type;
  static bool const has_attribute = false;
  constexpr Reject(P p, Message m) : subject(p), message(m) {}
  template <class It, class Ctx, class RCtx, class Attr>
  bool parse(It& first, const It& last, const Ctx& ctx, RCtx& rctx, Attr&) const {
    It at = first;
    x3::skip_over(at, last, ctx);
    It end = at;
    if (subject.parse(end, last, ctx, rctx, x3::unused))
      fail_with(state(ctx), at, message(std::string(at, end)), end);
    return true;
  }
  P subject;
  Message message;
};
template <class P, class Message>
auto reject(P p, Message m) {
  auto parser = x3::as_parser(p);
  return Reject<decltype(parser), Message>(parser, m);
}

auto const member = reject(lexeme[lit('.') >> !lit('.') >> *ident_char], [](const std::string& m) {
  if (m == ".T")
    return std::string("'.T' is not in the language; write transpose(t) (for A @ B^T with B "
                       "stored as [N, K]: A[i, k] @ transpose(B[j, k]))");
  return "'" + m +
         "': values have no fields or methods; call a function instead, such as exp(x) or "
         "rowsum(x)";
});
// `h / 2` (a grouped index) is a tensor index; a product, or a literal divided, is a stride.
auto const strided_index =
    reject(((x3::uint_parser<std::int64_t>{} | ident_body) >> x3::char_('*') >>
            (x3::uint_parser<std::int64_t>{} | ident_body)) |
               (x3::uint_parser<std::int64_t>{} >> x3::char_('/') >>
                (x3::uint_parser<std::int64_t>{} | ident_body)),
           [](const std::string& text) {
             return "strided index '" + text +
                    "': an index is a loop variable, optionally plus or minus an integer ('j', "
                    "'j + 1'), or an integer, and a batch index may divide its variable by an "
                    "integer ('h / 2'); loop over exactly the tiles you need instead";
           });
auto const if_stmt = reject(kw("if") >> !(lit("+=") | lit('=')), [](const std::string&) {
  return std::string(
      "'if' is not in the language: a kernel treats every tile of its ranges alike; to compute "
      "part of a tensor, loop over that part ('for j in 0 .. 4'); to limit values, use max and "
      "min");
});
auto const while_stmt = reject(kw("while") >> !(lit("+=") | lit('=')), [](const std::string&) {
  return std::string("'while' is not in the language: loops run over ranges, 'for k in "
                     "tiles(K)' or 'for k in 0 .. 4'");
});

// ---- expressions --------------------------------------------------------------------------------
x3::rule<class expr_class, dsl::Expr> const expr = "expression";
x3::rule<class sum_class, dsl::Expr> const sum = "expression";
x3::rule<class product_class, dsl::Expr> const product = "expression";
x3::rule<class primary_class, dsl::Expr> const primary = "expression";
x3::rule<class number_class, dsl::Expr> const number = "number";
x3::rule<class call_class, dsl::Expr> const call = "call";
x3::rule<class access_class, dsl::Expr> const access = "tensor access";
x3::rule<class access_body_class, dsl::Expr> const access_body = "tensor access";
x3::rule<class name_ref_class, dsl::Expr> const name_ref = "name";
x3::rule<class paren_class, dsl::Expr> const paren = "parenthesized expression";
x3::rule<class args_class, std::vector<dsl::Expr>> const args = "arguments";
x3::rule<class tensor_index_class, dsl::TensorIndex> const tensor_index = "tensor index";
x3::rule<class tensor_index_body_class, dsl::TensorIndex> const tensor_index_body = "tensor index";
x3::rule<class indices_class, std::vector<dsl::TensorIndex>> const indices = "tensor indices";

inline std::optional<dsl::Number> to_number(std::string_view text) {
  dsl::Number n;
  bool negative = !text.empty() && text[0] == '-';
  std::string_view body = text.substr(negative ? 1 : 0);
  if (body == "inf") {
    n.value = std::numeric_limits<double>::infinity();
  } else {
    n.is_integer = body.find_first_of(".eE") == std::string_view::npos;
    auto [ptr, ec] = std::from_chars(body.data(), body.data() + body.size(), n.value);
    if (ec != std::errc() || ptr != body.data() + body.size() || !std::isfinite(n.value))
      return std::nullopt;
  }
  if (negative)
    n.value = -n.value;
  return n;
}

auto const make_number = [](auto& ctx) {
  auto r = _attr(ctx);
  Iterator e = r.end();
  const State& st = state(ctx);
  // `1.5.3`, `2x`, `0x1F`: one bad literal, not a number followed by junk.
  if (e != st.end && (std::isalnum(static_cast<unsigned char>(*e)) || *e == '_' || *e == '.')) {
    while (e != st.end && (std::isalnum(static_cast<unsigned char>(*e)) || *e == '_' || *e == '.'))
      ++e;
    fail_with(state(ctx), r.begin(), "invalid number '" + std::string(r.begin(), e) + "'", e);
  }
  dsl::Expr x;
  auto n = to_number(std::string_view(r.begin(), r.size()));
  if (!n)
    fail_with(state(ctx), r.begin(),
              "number '" + std::string(r.begin(), r.end()) + "' is out of range", r.end());
  x.node = *n;
  _val(ctx) = std::move(x);
};
auto const digits = +x3::digit;
auto const number_def =
    raw[lexeme[-lit('-') >>
               ((digits >> -('.' >> digits) >> -(x3::char_("eE") >> -x3::char_("+-") >> digits)) |
                (lit("inf") >> !ident_char))]][make_number];

auto const push_back = [](auto& ctx) { _val(ctx).push_back(std::move(_attr(ctx))); };
auto const args_def =
    nest[lit('(') >
         free_lines[-(not_close_paren > expr[push_back] > *(',' > expr[push_back])) > lit(')')]];

auto const call_def = (callee >> &lit('(') > args)[([](auto& ctx) {
  auto& a = _attr(ctx);
  dsl::Expr x;
  x.node = dsl::Call{std::move(at_c<0>(a)), std::move(at_c<1>(a))};
  _val(ctx) = std::move(x);
})];

// The divisor of a grouped index `h / 2`: an integer, possibly negative (`h / -1`), or a name
// (`h / j`); the checker reports all but a positive integer (docs/language.md, "Tensor indices").
struct IndexDivisor {
  std::optional<dsl::Ident> name;
  std::int64_t value = 0;
  dsl::Loc loc;
};
x3::rule<class index_divisor_class, IndexDivisor> const index_divisor =
    "index divisor (a positive integer: 'h / 2')";
x3::rule<class index_divisor_body_class, IndexDivisor> const index_divisor_body =
    "index divisor (a positive integer: 'h / 2')";
auto const index_divisor_def = index_divisor_body;
auto const index_divisor_body_def =
    ident[([](auto& ctx) { _val(ctx).name = std::move(_attr(ctx)); })] |
    raw[lexeme[-lit('-') >> +x3::digit]][([](auto& ctx) {
      auto r = _attr(ctx);
      std::string_view text(r.begin(), r.size());
      bool negative = text[0] == '-';
      std::string_view body = text.substr(negative ? 1 : 0);
      std::int64_t v = 0;
      auto [ptr, ec] = std::from_chars(body.data(), body.data() + body.size(), v);
      if (ec != std::errc() || ptr != body.data() + body.size())
        fail_with(state(ctx), r.begin(),
                  "index divisor '" + std::string(text) + "' is out of range", r.end());
      _val(ctx).value = negative ? -v : v;
    })];

auto const tensor_index_def = tensor_index_body;
auto const tensor_index_body_def =
    ((ident >> '/') > index_divisor)[([](auto& ctx) {
      auto& a = _attr(ctx);
      dsl::TensorIndex t;
      t.var = std::move(at_c<0>(a));
      IndexDivisor& d = at_c<1>(a);
      t.divided = true;
      t.divisor = d.name ? 1 : d.value;
      t.divisor_name = std::move(d.name);
      t.divisor_loc = d.loc;
      _val(ctx) = std::move(t);
    })] |
    (ident >> -((x3::char_("+-") > index_offset)))[([](auto& ctx) {
      auto& a = _attr(ctx);
      dsl::TensorIndex t;
      t.var = std::move(at_c<0>(a));
      if (auto& off = at_c<1>(a))
        t.offset = at_c<0>(*off) == '-' ? -at_c<1>(*off) : at_c<1>(*off);
      _val(ctx) = std::move(t);
    })] |
    uint64[([](auto& ctx) { _val(ctx) = dsl::TensorIndex{std::nullopt, _attr(ctx), {}}; })];
// After a comma the next index is expected: a rule of its own, so that a failure there is
// reported by name ("expected tensor index ...") and not as the parser's C++ type.
x3::rule<class next_index_class, dsl::TensorIndex> const next_index =
    "tensor index (a loop variable, optionally plus or minus an integer: 'j', 'j - 1'; an "
    "integer literal; or, for a batch, a loop variable divided by an integer: 'h / 2')";
auto const next_index_def = strided_index >> tensor_index;
auto const indices_def = free_lines[strided_index >> tensor_index[push_back] >
                                    *(',' > next_index[push_back]) > close_indices];

auto const access_def = access_body;
auto const access_body_def = (ident >> '[' > indices)[([](auto& ctx) {
  auto& a = _attr(ctx);
  dsl::Expr x;
  x.node = dsl::Access{std::move(at_c<0>(a)), std::move(at_c<1>(a))};
  _val(ctx) = std::move(x);
})];

auto const name_ref_def = ident[([](auto& ctx) {
  dsl::Expr x;
  x.node = dsl::Name{std::move(_attr(ctx))};
  _val(ctx) = std::move(x);
})];

auto const paren_def = nest[lit('(') > free_lines[expr > ')']];

auto const primary_def = number | call | access | name_ref | paren;

auto const fold = [](auto& ctx) {
  State& st = state(ctx);
  auto& a = _attr(ctx);
  dsl::Expr& lhs = _val(ctx);
  if (++st.operators > kMaxOperators) // reported at the operator, the first token after lhs
    fail_with(st, st.base + lhs.loc.range.end,
              "too many operators in one statement (the limit is " + std::to_string(kMaxOperators) +
                  ")");
  dsl::Expr& rhs = at_c<1>(a);
  dsl::Expr x;
  x.loc.range = {lhs.loc.range.begin, rhs.loc.range.end};
  x.node = dsl::Binary{at_c<0>(a), std::move(lhs), std::move(rhs)};
  _val(ctx) = std::move(x);
};

struct ProductOps : x3::symbols<dsl::BinOp> {
  ProductOps() { add("*", dsl::BinOp::mul)("@", dsl::BinOp::matmul)("/", dsl::BinOp::div); }
};
struct SumOps : x3::symbols<dsl::BinOp> {
  SumOps() { add("+", dsl::BinOp::add)("-", dsl::BinOp::sub); }
};
struct CompareOps : x3::symbols<dsl::BinOp> {
  CompareOps() {
    add("<", dsl::BinOp::lt)("<=", dsl::BinOp::le)(">", dsl::BinOp::gt)(">=", dsl::BinOp::ge)(
        "==", dsl::BinOp::eq)("!=", dsl::BinOp::ne);
  }
};
// `+=` is a statement, never `+` followed by `=`.
auto const sum_op = SumOps{} >> !lit('=');

auto const product_def = primary[assign_val] >> *((ProductOps{} > primary)[fold]) >> member;
auto const sum_def = product[assign_val] >> *((sum_op > product)[fold]);
// One comparison at most: `a < b < c` is not a chain.
auto const chained_comparison = reject(CompareOps{}, [](const std::string& op) {
  return "comparisons do not chain: '" + op +
         "' after a comparison; combine two masks with '*' (and) instead, e.g. (a < b) * (b < c)";
});
auto const expr_def = sum[assign_val] >> -((CompareOps{} > sum)[fold]) >> chained_comparison;

BOOST_SPIRIT_DEFINE(ident, ident_body, kernel_name, param_name, loop_var_name, dim_name,
                    option_name, callee, callee_body)
BOOST_SPIRIT_DEFINE(expr, sum, product, primary, number, call, access, name_ref, paren, args,
                    tensor_index, indices, access_body, tensor_index_body, next_index,
                    index_divisor, index_divisor_body)

// ---- statements ---------------------------------------------------------------------------------
x3::rule<class stmt_class, dsl::Stmt> const stmt = "statement";
x3::rule<class block_class, std::vector<dsl::Stmt>> const block = "'{'";
x3::rule<class parallel_class, dsl::Stmt> const parallel_stmt = "parallel";
x3::rule<class for_class, dsl::Stmt> const for_stmt = "for";
x3::rule<class store_class, dsl::Stmt> const store_stmt = "store";
x3::rule<class row_init_class, dsl::Stmt> const row_init_stmt = "row of tiles";
x3::rule<class name_stmt_class, dsl::Stmt> const name_stmt = "assignment";
x3::rule<class loop_var_class, dsl::LoopVar> const loop_var = "loop variable";
x3::rule<class range_class, dsl::Range> const range = "range such as 'tiles(N)' or '0 .. 4'";
x3::rule<class range_body_class, dsl::Range> const range_body =
    "range such as 'tiles(N)' or '0 .. 4'";
x3::rule<class bound_class, dsl::Bound> const bound =
    "range bound (an integer, 'tiles(N)' or a batch dimension)";
x3::rule<class int_bound_class, dsl::Bound> const int_bound = "integer";
x3::rule<class int_bound_body_class, dsl::Bound> const int_bound_body = "integer";
x3::rule<class tiles_bound_class, dsl::Bound> const tiles_bound = "'tiles(N)'";
x3::rule<class tiles_bound_body_class, dsl::Bound> const tiles_bound_body = "'tiles(N)'";
x3::rule<class size_bound_class, dsl::Bound> const size_bound = "batch dimension";
x3::rule<class size_bound_body_class, dsl::Bound> const size_bound_body = "batch dimension";

template <class Node>
dsl::Stmt make_stmt(Node&& n) {
  dsl::Stmt s;
  s.node = std::forward<Node>(n);
  return s;
}

auto const int_bound_def = int_bound_body;
auto const int_bound_body_def =
    uint64[([](auto& ctx) { _val(ctx) = dsl::Bound{std::nullopt, _attr(ctx), {}}; })];
auto const tiles_bound_def = tiles_bound_body;
auto const tiles_bound_body_def = (kw("tiles") > nest[lit('(') > free_lines[dim_name > ')']])[(
    [](auto& ctx) { _val(ctx) = dsl::Bound{std::move(_attr(ctx)), 0, {}}; })];
auto const size_bound_def = size_bound_body;
auto const size_bound_body_def = (dim_name >> -((x3::char_("+-") > index_offset)))[([](auto& ctx) {
  auto& a = _attr(ctx);
  dsl::Bound b;
  b.size_of = std::move(at_c<0>(a));
  if (auto& off = at_c<1>(a))
    b.offset = at_c<0>(*off) == '-' ? -at_c<1>(*off) : at_c<1>(*off);
  _val(ctx) = std::move(b);
})];
// `0 .. 2 * i`, `0 .. i / 2`: a bound is affine in one loop variable with coefficient 1.
auto const nonaffine_bound = reject(
    (x3::uint_parser<std::int64_t>{} | ident_body) >> -(x3::char_("+-") >> uint64) >>
        x3::char_("*/%") >> (x3::uint_parser<std::int64_t>{} | ident_body),
    [](const std::string& text) {
      return "loop bound '" + text +
             "' is not supported: a range ends at an integer, tiles(N), a batch dimension, or an "
             "enclosing loop variable optionally plus or minus an integer ('0 .. i + 1')";
    });
auto const bound_def = nonaffine_bound >> (int_bound | tiles_bound | size_bound);
auto const range_def = range_body;
auto const range_body_def = (int_bound > dotdot > bound)[([](auto& ctx) {
                              auto& a = _attr(ctx);
                              _val(ctx) =
                                  dsl::Range{std::move(at_c<0>(a)), std::move(at_c<1>(a)), {}};
                            })] |
                            (tiles_bound >> -(dotdot > bound))[([](auto& ctx) {
                              auto& a = _attr(ctx);
                              dsl::Range r;
                              if (at_c<1>(a)) {
                                r.lo = std::move(at_c<0>(a));
                                r.hi = std::move(*at_c<1>(a));
                              } else {
                                r.hi = std::move(at_c<0>(a));
                              }
                              _val(ctx) = std::move(r);
                            })];
auto const loop_var_def = (loop_var_name > in_kw > range)[([](auto& ctx) {
  auto& a = _attr(ctx);
  _val(ctx) = dsl::LoopVar{std::move(at_c<0>(a)), std::move(at_c<1>(a))};
})];

auto const stmt_def = ResetOperators{} >> if_stmt >> while_stmt >>
                      (parallel_stmt | for_stmt | row_init_stmt | store_stmt | name_stmt);

// A block may open on the next line; it ends before the next `kernel` at the latest, so a
// missing '}' is reported there rather than as a misplaced keyword.
auto const block_def =
    *eol >> nest[lit('{') > *eol > *(not_block_end > stmt[push_back] > stmt_end) > lit('}')];

x3::rule<class loop_vars_class, std::vector<dsl::LoopVar>> const loop_vars = "loop variable";
auto const loop_vars_def = loop_var[push_back] > *(',' > loop_var[push_back]);

auto const parallel_stmt_def = (kw("parallel") > loop_vars > block)[([](auto& ctx) {
  auto& a = _attr(ctx);
  _val(ctx) = make_stmt(dsl::Parallel{std::move(at_c<0>(a)), std::move(at_c<1>(a))});
})];
auto const for_stmt_def = (kw("for") > loop_var > block)[([](auto& ctx) {
  auto& a = _attr(ctx);
  _val(ctx) = make_stmt(dsl::For{std::move(at_c<0>(a)), std::move(at_c<1>(a))});
})];
// `o[d in tiles(D)] = EXPR`: a name, '[', then a loop variable ('d in'), not a tensor index.
auto const row_init_stmt_def = ((ident >> '[' >> &(ident >> kw("in"))) >
                                free_lines[loop_var > close_row] > row_eq > expr)[([](auto& ctx) {
  auto& a = _attr(ctx);
  _val(ctx) =
      make_stmt(dsl::RowInit{std::move(at_c<0>(a)), std::move(at_c<1>(a)), std::move(at_c<2>(a))});
})];
auto const store_stmt_def = (access > store_eq > expr)[([](auto& ctx) {
  auto& a = _attr(ctx);
  dsl::Expr& target = at_c<0>(a);
  dsl::Loc target_loc = target.loc;
  _val(ctx) = make_stmt(
      dsl::Store{std::move(std::get<dsl::Access>(target.node)), target_loc, std::move(at_c<1>(a))});
})];
auto const name_stmt_def =
    (ident >> lit("+=") > expr)[([](auto& ctx) {
      auto& a = _attr(ctx);
      _val(ctx) = make_stmt(dsl::Accumulate{std::move(at_c<0>(a)), std::move(at_c<1>(a))});
    })] |
    (ident > name_eq > expr)[([](auto& ctx) {
      auto& a = _attr(ctx);
      _val(ctx) = make_stmt(dsl::Assign{std::move(at_c<0>(a)), std::move(at_c<1>(a))});
    })];

BOOST_SPIRIT_DEFINE(stmt, block, parallel_stmt, for_stmt, store_stmt, row_init_stmt, name_stmt,
                    loop_var, loop_vars, range, bound, int_bound, tiles_bound, range_body,
                    int_bound_body, tiles_bound_body, size_bound, size_bound_body)

// ---- declarations -------------------------------------------------------------------------------
x3::rule<class dim_class, dsl::Dim> const dim = "dimension (a name or an integer)";
x3::rule<class dim_body_class, dsl::Dim> const dim_body = "dimension (a name or an integer)";
x3::rule<class dims_class, std::vector<dsl::Dim>> const dims = "dimensions";
x3::rule<class dtype_class, Located<dsl::DType>> const dtype = "element type (bf16 or f32)";
x3::rule<class dtype_body_class, Located<dsl::DType>> const dtype_body =
    "element type (bf16 or f32)";
x3::rule<class param_class, dsl::Param> const param = "parameter";
x3::rule<class param_body_class, dsl::Param> const param_body = "parameter";
x3::rule<class params_class, std::vector<dsl::Param>> const params = "'('";
x3::rule<class option_class, dsl::Option> const option = "option";
x3::rule<class option_value_class, Located<decltype(dsl::Option::value)>> const option_value =
    "option value";
x3::rule<class option_value_body_class, Located<decltype(dsl::Option::value)>> const
    option_value_body = "option value";
x3::rule<class options_class, std::vector<dsl::Option>> const options = "'@options'";
x3::rule<class kernel_class, dsl::Kernel> const kernel = "'kernel'";
x3::rule<class kernel_body_class, dsl::Kernel> const kernel_body = "'kernel'";
kernel_item_type const kernel_item = "kernel";

auto const dim_def = dim_body;
auto const dim_body_def =
    uint64[([](auto& ctx) { _val(ctx) = dsl::Dim{std::nullopt, _attr(ctx), {}}; })] |
    ident[([](auto& ctx) { _val(ctx) = dsl::Dim{std::move(_attr(ctx)), 0, {}}; })];
auto const dims_def =
    nest[lit('[') > free_lines[dim[push_back] > *(',' > dim[push_back]) > close_dims]];
auto const dtype_def = dtype_body;
auto const dtype_body_def = raw[lexeme[(x3::alpha | '_') >> *ident_char]][([](auto& ctx) {
  auto r = _attr(ctx);
  std::string s(r.begin(), r.end());
  auto t = dsl::dtype_from_string(s);
  if (!t)
    fail_with(state(ctx), r.begin(),
              "unknown element type '" + s + "' (expected bf16, f32 or bfp8)", r.end());
  _val(ctx).value = *t;
})];
auto const param_def = param_body;
auto const param_body_def = (param_name > colon > dtype > -dims)[([](auto& ctx) {
  auto& a = _attr(ctx);
  dsl::Param p;
  p.name = std::move(at_c<0>(a));
  p.dtype = at_c<1>(a).value;
  p.dtype_loc = at_c<1>(a).loc;
  p.is_tensor = at_c<2>(a).has_value();
  if (p.is_tensor)
    p.dims = std::move(*at_c<2>(a));
  _val(ctx) = std::move(p);
})];
auto const params_def =
    nest[lit('(') >
         free_lines[-(not_close_paren > param[push_back] > *(',' > param[push_back])) > lit(')')]];

auto const set_value = [](auto& ctx) { _val(ctx).value = _attr(ctx); };
auto const option_value_def = option_value_body;
auto const option_value_body_def =
    lexeme[uint64 >> 'x' >> uint64][([](auto& ctx) {
      _val(ctx).value = dsl::GridValue{at_c<0>(_attr(ctx)), at_c<1>(_attr(ctx))};
    })] |
    x3::int64[set_value] | kw("true")[([](auto& ctx) { _val(ctx).value = true; })] |
    kw("false")[([](auto& ctx) { _val(ctx).value = false; })] |
    ident[([](auto& ctx) { _val(ctx).value = std::move(_attr(ctx).name); })];
auto const option_def = (option_name > option_eq > option_value)[([](auto& ctx) {
  auto& a = _attr(ctx);
  _val(ctx) = dsl::Option{std::move(at_c<0>(a)), std::move(at_c<1>(a).value), at_c<1>(a).loc};
})];
auto const options_def =
    lit('@') > options_kw > nest[lit('(') > free_lines[-(not_close_paren > option[push_back] >
                                                         *(',' > option[push_back])) > lit(')')]];

auto const kernel_def = kernel_body;
auto const kernel_body_def =
    (kw("kernel") > kernel_name > params > arrow > params > block)[([](auto& ctx) {
      auto& a = _attr(ctx);
      dsl::Kernel k;
      k.name = std::move(at_c<0>(a));
      k.inputs = std::move(at_c<1>(a));
      k.outputs = std::move(at_c<2>(a));
      k.body = std::move(at_c<3>(a));
      _val(ctx) = std::move(k);
    })];

auto const kernel_item_def = (-(options >> *eol) > kernel)[([](auto& ctx) {
  auto& a = _attr(ctx);
  dsl::Kernel k = std::move(at_c<1>(a));
  if (at_c<0>(a))
    k.options = std::move(*at_c<0>(a));
  _val(ctx) = std::move(k);
})];

BOOST_SPIRIT_DEFINE(dim, dims, dtype, param, params, option_value, option, options, kernel,
                    kernel_item, dim_body, dtype_body, param_body, option_value_body, kernel_body)

} // namespace grammar

// Rule IDs: annotate the nodes that carry a location; the top rule reports syntax errors.
namespace grammar {
// clang-format off
struct ident_class : annotate {};          struct kernel_name_class : annotate {};
struct param_name_class : annotate {};     struct loop_var_name_class : annotate {};
struct dim_name_class : annotate {};       struct option_name_class : annotate {};
struct callee_class : annotate {};         struct expr_class : annotate {};
struct product_class : annotate {};        struct primary_class : annotate {};
struct sum_class : annotate {};
struct number_class : annotate {};         struct call_class : annotate {};
struct access_class : annotate {};         struct name_ref_class : annotate {};
struct paren_class : annotate {};          struct tensor_index_class : annotate {};
struct next_index_class : annotate {};    struct index_divisor_class : annotate {};
struct stmt_class : annotate {};           struct parallel_class : annotate {};
struct for_class : annotate {};            struct store_class : annotate {};
struct row_init_class : annotate {};
struct name_stmt_class : annotate {};      struct range_class : annotate {};
struct bound_class : annotate {};          struct int_bound_class : annotate {};
struct tiles_bound_class : annotate {};    struct dim_class : annotate {};
struct size_bound_class : annotate {};
struct dtype_class : annotate {};          struct param_class : annotate {};
struct option_value_class : annotate {};   struct kernel_class : annotate {};
// clang-format on

struct kernel_item_class {
  template <class It, class Exc, class Ctx>
  x3::error_handler_result on_error(It&, const It&, const Exc& x, const Ctx& ctx) const {
    report_syntax_error(state(ctx), x.where(), x.which());
    return x3::error_handler_result::fail;
  }
};
} // namespace grammar

} // namespace tk::parser
