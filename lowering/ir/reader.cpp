#include "lowering/ir/reader.hpp"

#include "lowering/ir/reader_header.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <map>

namespace tk::ir {

namespace {

// A module: its programs (their headers read by HeaderReader, reader_header.hpp), functions,
// statements and expressions, with the names in scope and the nesting bounded.
class Reader : HeaderReader {
public:
  Reader(const SourceFile& f, Diagnostics& d) : HeaderReader(f, d) {}

  Module module() {
    Module m;
    if (accept_word("module") && accept_word("attributes"))
      m.attrs = attrs();
    while (!at(Token::Kind::end))
      m.programs.push_back(program());
    return m;
  }

private:
  std::vector<std::map<std::string, Type, std::less<>>> scopes_;
  int body_depth_ = 0; // bodies around the current statement
  int expr_depth_ = 0; // depth of the expression tree the last expr() or primary() returned

  // ---- declarations ----
  Program program() {
    Program p;
    expect_word("program");
    p.name = ident("a program name");
    if (accept_word("attributes")) {
      const SourceRange at = peek().range;
      p.attrs = attrs();
      typed_attrs(p, at);
    }
    expect("{");
    prog_ = &p;
    if (accept_word("options"))
      p.options = options();
    if (accept_word("blocking"))
      p.blocking = blocking();
    if (accept_word("materialise"))
      p.materialise = materialise();
    while (!accept("}")) {
      if (at_word("tensor"))
        p.tensors.push_back(tensor());
      else if (at_word("accessor"))
        p.accessors.push_back(accessor());
      else if (at_word("cb"))
        p.cbs.push_back(circular_buffer());
      else if (at_word("func"))
        p.functions.push_back(function());
      else if (at_word("host_plan")) {
        if (p.host_plan)
          fail(peek().range, "a program has one host_plan");
        p.host_plan = host_plan();
      } else
        fail_expected("'tensor', 'accessor', 'cb', 'func', 'host_plan' or '}'");
    }
    prog_ = nullptr;
    return p;
  }

  Type type() {
    const Token& t = peek();
    std::string s = ident("a type");
    if (s == "tile" || s == "row") {
      expect("<");
      s += "<" + ident("a dtype");
      expect(">");
      s += ">";
    }
    auto ty = type_from_string(s);
    if (!ty)
      fail(t.range, "unknown type '" + s + "'");
    return *ty;
  }
  Function function() {
    Function f;
    expect_word("func");
    f.kind = word_of(func_kind_from_string, "function kind");
    f.name = ident("a function name");
    scopes_.assign(1, {});
    expect("(");
    if (!accept(")")) {
      do {
        Param p;
        p.name = ident("a parameter name");
        expect(":");
        p.type = type();
        scopes_.back()[p.name] = p.type;
        f.params.push_back(p);
      } while (accept(","));
      expect(")");
    }
    if (accept_word("attributes"))
      f.attrs = attrs();
    if (at_word("runtime_args"))
      f.config = kernel_config();
    f.body = body();
    return f;
  }

  // ---- statements ----
  Stmt body() {
    Nest nest(*this);
    check_depth(++body_depth_, peek());
    expect("{");
    scopes_.emplace_back();
    std::vector<Stmt> stmts;
    while (!accept("}")) {
      if (at(Token::Kind::end))
        fail_expected("'}'");
      stmts.push_back(statement());
    }
    scopes_.pop_back();
    --body_depth_;
    return block(std::move(stmts));
  }
  const Type* lookup(std::string_view name) const {
    for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it)
      if (auto f = it->find(name); f != it->end())
        return &f->second;
    return nullptr;
  }
  Stmt statement() {
    const Token& first = peek();
    if (accept_word("let")) {
      std::string name = ident("a variable name");
      expect(":");
      Type t = type();
      expect("=");
      Expr v = expr();
      scopes_.back()[name] = t;
      return decl(name, t, v, first.range);
    }
    if (accept_word("store")) {
      std::string t = ident("a tensor name");
      if (!prog_->find_tensor(t))
        fail(first.range, "store to unknown tensor '" + t + "'");
      std::vector<Expr> idx = indices();
      expect("=");
      return store(t, std::move(idx), expr(), first.range);
    }
    if (accept_word("for")) {
      std::string v = ident("a loop variable");
      expect_word("in");
      Expr lo = expr();
      expect("..");
      bool explicit_min = accept("+");
      const IntImm* zero = as<IntImm>(lo);
      if (!explicit_min && !(zero && zero->value == 0 && zero->type == Type::i32()))
        fail(first.range, "a loop that does not start at 0 is written 'min .. +extent'");
      Expr extent = expr();
      ForRole role = word_of(for_role_from_string, "loop role");
      scopes_.push_back({{v, Type::i32()}});
      Stmt b = body();
      scopes_.pop_back();
      return for_loop(v, lo, extent, role, b, first.range);
    }
    if (accept_word("if")) {
      Expr c = expr();
      Stmt t = body();
      Stmt e = accept_word("else") ? body() : nullptr;
      return if_then_else(c, t, e, first.range);
    }
    if (at(Token::Kind::ident) && at_punct("=", 1)) {
      std::string name(next().text);
      next();
      if (!lookup(name))
        fail(first.range, "assignment to undeclared variable '" + name + "'");
      return assign(name, expr(), first.range);
    }
    Expr e = expr();
    if (!as<Call>(e))
      fail(first.range, "expected a statement");
    return evaluate(e, first.range);
  }

  // ---- expressions ----
  // Both set expr_depth_ to the deepest of the expressions they read (0 for none).
  std::vector<Expr> indices() {
    expect("[");
    std::vector<Expr> idx;
    int depth = 0;
    do {
      idx.push_back(expr());
      depth = std::max(depth, expr_depth_);
    } while (accept(","));
    expect("]");
    expr_depth_ = depth;
    return idx;
  }
  std::optional<BinaryOp> infix_op() const {
    if (peek().kind != Token::Kind::punct)
      return std::nullopt;
#define TK_X(e, s, p)                                                                              \
  if (p > 0 && peek().text == s)                                                                   \
    return BinaryOp::e;
    TK_IR_BINARY_OPS(TK_X)
#undef TK_X
    return std::nullopt;
  }
  // Sets expr_depth_ to the depth of the tree it returns; fails when the tree and the bodies
  // around its statement nest deeper than kMaxDepth.
  Expr expr(int min_prec = 1) {
    Nest nest(*this);
    Expr lhs = primary();
    int depth = expr_depth_;
    while (auto op = infix_op()) {
      int p = precedence(*op);
      if (p < min_prec)
        break;
      const Token& op_token = next();
      Expr rhs = expr(p + 1);
      depth = 1 + std::max(depth, expr_depth_);
      check_depth(body_depth_ + depth, op_token);
      lhs = binary(*op, lhs, rhs);
    }
    expr_depth_ = depth;
    return lhs;
  }
  Expr number(bool neg) {
    const Token& t = next();
    if (t.kind == Token::Kind::integer) {
      std::int64_t v = 0;
      auto r = std::from_chars(t.text.data(), t.text.data() + t.text.size(), v);
      if (r.ec != std::errc())
        fail(t.range, "integer out of range");
      return int_imm(neg ? -v : v, t.unsigned_suffix ? Type::u32() : Type::i32());
    }
    double v = 0;
    std::from_chars(t.text.data(), t.text.data() + t.text.size(), v);
    return float_imm(neg ? -v : v);
  }
  std::vector<Expr> call_args() {
    expect("(");
    std::vector<Expr> args;
    expr_depth_ = 0;
    if (accept(")"))
      return args;
    int depth = 0;
    do {
      args.push_back(expr());
      depth = std::max(depth, expr_depth_);
    } while (accept(","));
    expect(")");
    expr_depth_ = depth;
    return args;
  }
  // A node over children read by indices() or call_args(): one level more, checked.
  int node_depth(const Token& at) {
    expr_depth_ += 1;
    check_depth(body_depth_ + expr_depth_, at);
    return expr_depth_;
  }
  // Sets expr_depth_ like expr().
  Expr primary() {
    const Token& t = peek();
    expr_depth_ = 1; // a leaf, unless a case below says otherwise
    if (at(Token::Kind::integer) || at(Token::Kind::floating))
      return number(false);
    if (at_punct("-")) {
      next();
      if (at(Token::Kind::integer) || at(Token::Kind::floating))
        return number(true);
      if (accept_word("inf"))
        return float_imm(-std::numeric_limits<double>::infinity());
      fail_expected("a number after '-'");
    }
    if (accept("(")) {
      Expr e = expr();
      expect(")");
      return e;
    }
    if (!at(Token::Kind::ident))
      fail_expected("an expression");
    std::string name(next().text);
    if (name == "inf")
      return float_imm(std::numeric_limits<double>::infinity());
    if (name == "nan")
      return float_imm(std::numeric_limits<double>::quiet_NaN());
    if (name == "load") {
      std::string tn = ident("a tensor name");
      const Tensor* tensor = prog_->find_tensor(tn);
      if (!tensor)
        fail(t.range, "load from unknown tensor '" + tn + "'");
      std::vector<Expr> idx = indices();
      node_depth(t);
      return load(tn, tensor->dtype, std::move(idx), t.range);
    }
    if ((name == "min" || name == "max") && at_punct("(")) {
      std::vector<Expr> args = call_args();
      if (args.size() != 2)
        fail(t.range, "'" + name + "' takes 2 operands");
      node_depth(t);
      return binary(name == "min" ? BinaryOp::min : BinaryOp::max, args[0], args[1]);
    }
    if (accept("::")) {
      name += "::" + ident("an enumerator");
      auto e = enum_const_from_string(name);
      if (!e)
        fail(t.range, "unknown constant '" + name + "'");
      return enum_imm(*e);
    }
    if (at_punct("(")) {
      auto fn = intrinsic_from_string(name);
      if (!fn)
        fail(t.range, "unknown intrinsic '" + name + "'");
      std::vector<Expr> args = call_args();
      node_depth(t);
      return call(*fn, std::move(args), t.range);
    }
    if (const Type* ty = lookup(name)) {
      // Tensor parameters are references, like tensors named directly.
      if (ty->kind == Type::Kind::tensor)
        return tensor_ref(name);
      if (ty->kind == Type::Kind::cb)
        return cb_ref(name);
      return var(name, *ty);
    }
    if (prog_->find_cb(name))
      return cb_ref(name);
    if (prog_->find_tensor(name))
      return tensor_ref(name);
    fail(t.range, "unknown name '" + name + "'");
  }
};

} // namespace

std::optional<Module> read_module(const SourceFile& file, Diagnostics& diags) {
  const SourceFile* saved = diags.file();
  diags.set_file(&file);
  std::optional<Module> result;
  try {
    Reader r(file, diags);
    result = r.module();
  } catch (const TokenStream::Failed&) {
  }
  diags.set_file(saved);
  return result;
}

std::optional<std::string> read_stage_header(std::string_view text) {
  std::string_view line = text.substr(0, text.find('\n'));
  constexpr std::string_view prefix = "// after ";
  if (line.substr(0, prefix.size()) != prefix)
    return std::nullopt;
  line.remove_prefix(prefix.size());
  while (!line.empty() && (line.back() == ' ' || line.back() == '\r'))
    line.remove_suffix(1);
  if (line.empty())
    return std::nullopt;
  return std::string(line);
}

} // namespace tk::ir
