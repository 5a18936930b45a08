#include "lowering/ir/reader.hpp"

#include "lowering/ir/token_stream.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <map>

namespace tk::ir {

namespace {

// Every walk over the IR (verifier, printer, equality, the stages, the destructors) recurses once
// per level of nesting, so the reader bounds how deep a module nests: a statement's depth (the
// bodies around it) plus the depth of an expression tree in it, or an attribute list's nesting.
// The compiler's own dumps stay below: a .tk statement nests at most 256 brackets and holds at
// most 256 operators (parser/grammar.hpp), and lowering adds a handful of levels.
constexpr int kMaxDepth = 1536;
// The reader's own recursion (bodies, parenthesised and argument expressions, attribute lists),
// bounded before the tree it reads is known: redundant parentheses nest the text without
// deepening the tree, and a parenthesised right operand costs two levels, so this bound is twice
// the depth (the printed form of a module the reader accepts then always reads back). With ASan's
// stack frames it stays within an 8 MiB stack.
constexpr int kMaxNesting = 2 * kMaxDepth;

class Reader : TokenStream {
public:
  Reader(const SourceFile& f, Diagnostics& d) : TokenStream(f.text(), d) {}

  Module module() {
    Module m;
    if (accept_word("module") && accept_word("attributes"))
      m.attrs = attrs();
    while (!at(Token::Kind::end))
      m.programs.push_back(program());
    return m;
  }

private:
  const Program* prog_ = nullptr;
  std::vector<std::map<std::string, Type, std::less<>>> scopes_;
  int nesting_ = 0;    // open recursive constructs (Nest)
  int body_depth_ = 0; // bodies around the current statement
  int expr_depth_ = 0; // depth of the expression tree the last expr() or primary() returned

  // Counts one level of the reader's recursion while in scope.
  class Nest {
  public:
    explicit Nest(Reader& r) : r_(r) {
      if (++r_.nesting_ > kMaxNesting)
        r_.fail(r_.peek().range,
                "nesting is too deep (the limit is " + std::to_string(kMaxNesting) + " levels)");
    }
    ~Nest() { --r_.nesting_; }
    Nest(const Nest&) = delete;
    Nest& operator=(const Nest&) = delete;

  private:
    Reader& r_;
  };
  // Called with the depth of a tree just built (a statement's expression, an attribute list).
  void check_depth(int depth, const Token& where) {
    if (depth > kMaxDepth)
      fail(where.range, "the IR nests too deeply here (the limit is " + std::to_string(kMaxDepth) +
                            " levels of statements and expressions)");
  }

  // ---- attributes ----
  AttrValue attr_value(int depth = 1) {
    if (at(Token::Kind::grid))
      return {grid()};
    if (accept_word("true"))
      return {true};
    if (accept_word("false"))
      return {false};
    if (at(Token::Kind::string)) {
      std::string_view s = next().text;
      std::string out;
      for (std::size_t i = 0; i < s.size(); ++i) {
        if (s[i] == '\\' && i + 1 < s.size()) {
          ++i;
          out += s[i] == 'n' ? '\n' : s[i];
        } else {
          out += s[i];
        }
      }
      return {out};
    }
    if (at_punct("[")) {
      Nest nest(*this);
      check_depth(depth, next());
      std::vector<AttrValue> list;
      if (!accept("]")) {
        do
          list.push_back(attr_value(depth + 1));
        while (accept(","));
        expect("]");
      }
      return {std::move(list)};
    }
    if (at(Token::Kind::integer) || at_punct("-"))
      return {integer("an attribute value")};
    fail_expected("an attribute value");
  }
  Attrs attrs() {
    Attrs a;
    expect("{");
    if (accept("}"))
      return a;
    do {
      const Token& key = peek();
      std::string k = ident("an attribute name");
      expect("=");
      if (!a.emplace(k, attr_value()).second)
        fail(key.range, "duplicate attribute '" + k + "'");
    } while (accept(","));
    expect("}");
    return a;
  }

  // The typed fields a program prints among its attributes (printer.cpp, program_attrs), taken
  // back out of them with their types checked.
  void typed_attrs(Program& p, const SourceRange& where) {
    auto take = [&](const char* key) -> std::optional<AttrValue> {
      auto it = p.attrs.find(key);
      if (it == p.attrs.end())
        return std::nullopt;
      AttrValue v = std::move(it->second);
      p.attrs.erase(it);
      return v;
    };
    if (std::optional<AttrValue> v = take("signature")) {
      const auto* names = std::get_if<std::vector<AttrValue>>(&v->value);
      for (const AttrValue& n : names ? *names : std::vector<AttrValue>{}) {
        const auto* s = std::get_if<std::string>(&n.value);
        if (!s)
          fail(where, "attribute 'signature' must be a list of names");
        p.signature.push_back(*s);
      }
      if (!names || p.signature.empty())
        fail(where, "attribute 'signature' must be a list of names");
    }
    if (std::optional<AttrValue> v = take("combine")) {
      const auto* s = std::get_if<std::string>(&v->value);
      if (!s || s->empty())
        fail(where, "attribute 'combine' must be a program name");
      p.combine = *s;
    }
    if (std::optional<AttrValue> v = take("dst_fp32")) {
      const auto* b = std::get_if<bool>(&v->value);
      if (!b)
        fail(where, "attribute 'dst_fp32' must be true or false");
      p.dst_fp32 = *b;
    }
    if (std::optional<AttrValue> v = take("cpu_packed_a")) {
      const auto* s = std::get_if<std::string>(&v->value);
      if (!s || s->empty())
        fail(where, "attribute 'cpu_packed_a' must be a tensor name");
      p.cpu_packed_a = *s;
    }
    // grouped_dims = [[outer, ratio, inner], ...], rows = [[name, dim, capacity, tiles], ...]:
    // each entry a list of exactly these types.
    auto entries = [&](const AttrValue& v, const char* message,
                       const auto& valid) -> std::vector<std::vector<AttrValue>> {
      std::vector<std::vector<AttrValue>> out;
      const auto* list = std::get_if<std::vector<AttrValue>>(&v.value);
      for (const AttrValue& e : list ? *list : std::vector<AttrValue>{}) {
        const auto* fields = std::get_if<std::vector<AttrValue>>(&e.value);
        if (!fields || !valid(*fields))
          fail(where, message);
        out.push_back(*fields);
      }
      if (out.empty())
        fail(where, message);
      return out;
    };
    auto is = [](const std::vector<AttrValue>& f, std::size_t i, auto type) {
      return std::holds_alternative<decltype(type)>(f[i].value);
    };
    if (std::optional<AttrValue> v = take("grouped_dims"))
      for (const auto& f :
           entries(*v, "attribute 'grouped_dims' must be a list of [outer, ratio, inner]",
                   [&](const std::vector<AttrValue>& f) {
                     return f.size() == 3 && is(f, 0, std::string{}) && is(f, 1, std::int64_t{}) &&
                            is(f, 2, std::string{});
                   }))
        p.grouped_dims.push_back({std::get<std::string>(f[0].value),
                                  std::get<std::int64_t>(f[1].value),
                                  std::get<std::string>(f[2].value)});
    if (std::optional<AttrValue> v = take("rows"))
      for (const auto& f :
           entries(*v, "attribute 'rows' must be a list of [name, dimension, capacity, tiles]",
                   [&](const std::vector<AttrValue>& f) {
                     return f.size() == 4 && is(f, 0, std::string{}) && is(f, 1, std::string{}) &&
                            is(f, 2, std::int64_t{}) && is(f, 3, bool{});
                   }))
        p.rows.push_back({std::get<std::string>(f[0].value), std::get<std::string>(f[1].value),
                          std::get<std::int64_t>(f[2].value), std::get<bool>(f[3].value)});
  }

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
  Tensor tensor() {
    Tensor t;
    expect_word("tensor");
    t.name = ident("a tensor name");
    expect(":");
    t.dtype = word_of(dtype_from_string, "dtype");
    expect("[");
    do {
      Dim d;
      if (at(Token::Kind::ident))
        d.name = ident("a dimension");
      else
        d.size = integer("a dimension");
      t.dims.push_back(d);
    } while (accept(","));
    expect("]");
    t.role = word_of(tensor_role_from_string, "tensor role");
    if (accept_word("layout")) {
      Layout l;
      l.memory = word_of(memory_kind_from_string, "memory kind");
      l.kind = word_of(layout_kind_from_string, "layout kind");
      expect_word("tile");
      Grid g = grid();
      l.tile_h = g.x;
      l.tile_w = g.y;
      expect_word("page");
      l.page_size = integer("a page size");
      t.layout = l;
    }
    return t;
  }
  CircularBuffer circular_buffer() {
    CircularBuffer c;
    expect_word("cb");
    c.name = ident("a circular buffer name");
    expect_word("index");
    c.index = integer("a CB index");
    expect_word("format");
    c.format = word_of(data_format_from_string, "data format");
    expect_word("page");
    c.page_size = integer("a page size");
    expect_word("depth");
    c.depth = integer("a depth");
    expect_word("role");
    c.role = word_of(cb_role_from_string, "CB role");
    if (accept_word("read_by")) {
      expect_word("writer");
      c.read_by_writer = true;
    }
    if (accept_word("tensor"))
      c.tensor = ident("a tensor name");
    return c;
  }
  // ---- the host plan (host_plan.hpp) ----
  bool boolean() {
    if (accept_word("true"))
      return true;
    if (accept_word("false"))
      return false;
    fail_expected("true or false");
  }
  // `[a, b]`: names of host values or functions.
  std::vector<std::string> names(std::string_view what) {
    std::vector<std::string> out;
    expect("[");
    if (accept("]"))
      return out;
    do
      out.push_back(ident(what));
    while (accept(","));
    expect("]");
    return out;
  }
  // A tensor named by a host-plan entry: declared before, like the tensors a body names.
  std::string known_tensor(std::string_view what) {
    const Token& t = peek();
    std::string name = ident("a tensor name");
    if (!prog_->find_tensor(name))
      fail(t.range, std::string(what) + " of unknown tensor '" + name + "'");
    return name;
  }
  Accessor accessor() {
    Accessor a;
    expect_word("accessor");
    a.tensor = known_tensor("accessor");
    expect_word("args");
    expect("[");
    if (!accept("]")) {
      do
        a.args.push_back(integer("a compile-time arg"));
      while (accept(","));
      expect("]");
    }
    return a;
  }
  std::string string_literal(std::string_view what) {
    if (!at(Token::Kind::string))
      fail_expected(std::string(what));
    return std::get<std::string>(attr_value().value);
  }
  Options options() {
    Options o;
    if (accept_word("arch"))
      o.arch = string_literal("an architecture name in quotes");
    if (accept_word("grid"))
      o.grid = grid();
    expect_word("cb_depth");
    o.cb_depth = integer("a CB depth");
    expect_word("fp32_acc");
    o.fp32_acc = boolean();
    expect_word("math_fidelity");
    o.math_fidelity = string_literal("a math fidelity in quotes");
    if (accept_word("matmul_block")) {
      const Grid g = grid();
      o.matmul_rows = g.x;
      o.matmul_cols = g.y;
    }
    return o;
  }
  Blocking blocking() {
    Blocking b;
    expect_word("sub_block");
    const Grid sub = grid();
    b.sub_rows = sub.x;
    b.sub_cols = sub.y;
    expect_word("caps");
    for (std::int64_t* x : {&b.cap_a, &b.cap_b, &b.cap_partials})
      *x = integer("a CB capacity in tiles");
    expect_word("costs");
    Blocking::Costs& c = b.costs;
    for (std::int64_t* x : {&c.product, &c.round_trip, &c.multicast, &c.dram, &c.page_a, &c.page_b,
                            &c.read, &c.step_latency})
      *x = integer("a cost of the block rule");
    expect_word("why");
    b.why = string_literal("the reasoning in quotes");
    return b;
  }
  Materialise materialise() {
    Materialise m;
    m.choice = word_of(materialise_choice_from_string, "materialise choice");
    expect_word("value");
    m.value = string_literal("the value's name in quotes");
    if (accept_word("tensor"))
      m.tensor = string_literal("the scratch tensor's name in quotes");
    expect_word("by");
    m.basis = word_of(materialise_basis_from_string, "materialise basis");
    expect_word("why");
    m.why = string_literal("the reasoning in quotes");
    return m;
  }
  KernelConfig kernel_config() {
    KernelConfig c;
    expect_word("runtime_args");
    c.runtime_args = names("a runtime arg name");
    expect_word("compile_args");
    expect("[");
    if (!accept("]")) {
      do {
        CompileArg a;
        a.tensor = known_tensor("compile-time args");
        expect_word("at");
        a.offset = integer("a compile-time arg offset");
        c.compile_args.push_back(a);
      } while (accept(","));
      expect("]");
    }
    if (accept_word("processor")) {
      DataMovementConfig d;
      d.processor = word_of(processor_from_string, "processor");
      expect_word("noc");
      d.noc = word_of(noc_from_string, "NoC");
      c.data_movement = d;
    } else if (accept_word("math_fidelity")) {
      ComputeConfig k;
      k.math_fidelity = word_of(math_fidelity_from_string, "math fidelity");
      expect_word("fp32_dest_acc_en");
      k.fp32_dest_acc_en = boolean();
      expect_word("math_approx_mode");
      k.math_approx_mode = boolean();
      if (accept_word("unpack_to_dest_fp32"))
        k.unpack_to_dest_fp32 = names("a CB name");
      k.bfp8_pack_precise = accept_word("bfp8_pack_precise");
      c.compute = k;
    }
    return c;
  }
  HostPlan host_plan() {
    HostPlan h;
    expect_word("host_plan");
    expect("{");
    expect_word("split");
    h.split = word_of(work_split_from_string, "work split");
    expect_word("items");
    h.work_items = ident("the name of the work-item count");
    expect_word("grid");
    h.grid = grid();
    expect_word("row_wise");
    h.row_wise = boolean();
    if (accept_word("per_core")) {
      PerCore pc;
      pc.start = ident("the name of a core's first work item");
      pc.count = ident("the name of a core's work-item count");
      h.per_core = pc;
    }
    if (accept_word("core_grid")) {
      CoreGrid g;
      g.x = ident("the name of a core's column");
      g.y = ident("the name of a core's row");
      expect_word("cols");
      g.cols = ident("the name of the grid's columns");
      expect_word("rows");
      g.rows = ident("the name of the grid's rows");
      expect_word("across");
      g.across = ident("the name of the work items across");
      expect_word("down");
      g.down = ident("the name of the work items down");
      h.core_grid = g;
    }
    if (accept_word("semaphores"))
      h.semaphores = names("a semaphore name");
    while (accept_word("buffer")) {
      HostBuffer b;
      b.tensor = known_tensor("buffer");
      expect_word("address");
      b.address = ident("the name of a buffer address");
      if (accept_word("size"))
        b.size = ident("the name of a buffer size");
      if (accept_word("page"))
        b.page_size = integer("a page size");
      h.buffers.push_back(b);
    }
    if (accept_word("kernels"))
      h.kernels = names("a function name");
    if (!accept("}"))
      fail_expected(h.kernels.empty() ? "'buffer', 'kernels' or '}'" : "'}'");
    return h;
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
