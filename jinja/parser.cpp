// Statement parsing (see parser.hpp). Each block tag is read with a Cursor: the keyword first,
// then its own grammar; bodies are parsed recursively until one of the expected end tags.
#include "jinja/parser.hpp"

#include "jinja/ast.hpp"
#include "jinja/error.hpp"
#include "jinja/expr_grammar.hpp"
#include "jinja/lexer.hpp"

#include <initializer_list>
#include <string>
#include <vector>

namespace tk::jinja {

namespace {

// Bodies nest on the C++ stack; a bound keeps a hostile template from overflowing it.
constexpr int max_block_depth = 100;

struct Opener {
  const char* keyword;
  std::uint32_t pos;
};

class Parser {
public:
  Parser(Template& t, const Options& o) : t_(t), tokens_(tokenize(t, o)) {}

  void run() { t_.body = body({}, {nullptr, 0}); }

private:
  // Parses statements until a block tag whose keyword is in `ends`, leaving end_ on it.
  Body body(std::initializer_list<const char*> ends, Opener opener) {
    if (++depth_ > max_block_depth)
      fail(t_, opener.pos, "blocks nested too deeply");
    Body out;
    while (next_ < tokens_.size()) {
      const Token& tok = tokens_[next_++];
      if (tok.kind == TokenKind::text) {
        auto s = std::make_unique<Stmt>();
        s->kind = StmtKind::text;
        s->pos = tok.tag;
        s->text = t_.file.text().substr(tok.begin, tok.end - tok.begin);
        out.push_back(std::move(s));
        continue;
      }
      Cursor c(t_, tok.begin, tok.end);
      if (tok.kind == TokenKind::output) {
        auto s = std::make_unique<Stmt>();
        s->kind = StmtKind::output;
        s->pos = tok.tag;
        s->expr = c.expression();
        c.expect_end("'}}'");
        out.push_back(std::move(s));
        continue;
      }
      std::uint32_t kw_pos = c.offset();
      auto kw = c.word();
      if (!kw)
        fail(t_, kw_pos, "expected a tag name");
      for (const char* e : ends)
        if (*kw == e) {
          end_ = {*kw, &tok};
          --depth_;
          return out;
        }
      out.push_back(statement(*kw, kw_pos, tok, c, ends));
    }
    if (opener.keyword) {
      std::string expected;
      for (const char* e : ends)
        expected += std::string(expected.empty() ? "" : " or ") + "'" + e + "'";
      fail(t_, opener.pos,
           std::string("unclosed '") + opener.keyword + "' block; expected " + expected);
    }
    --depth_;
    return out;
  }

  StmtPtr statement(const std::string& kw, std::uint32_t kw_pos, const Token& tok, Cursor& c,
                    std::initializer_list<const char*> ends) {
    auto s = std::make_unique<Stmt>();
    s->pos = tok.tag;
    Opener opener{nullptr, tok.tag};
    if (kw == "if") {
      s->kind = StmtKind::if_stmt;
      opener.keyword = "if";
      ExprPtr cond = c.expression();
      c.expect_end("'%}'");
      while (true) {
        Body b = body({"elif", "else", "endif"}, opener);
        s->branches.emplace_back(cond, std::move(b));
        Cursor ec = end_cursor();
        if (end_.keyword == "elif") {
          cond = ec.expression();
          ec.expect_end("'%}'");
          continue;
        }
        ec.expect_end("'%}'");
        if (end_.keyword == "else") {
          s->else_body = body({"endif"}, opener);
          end_cursor().expect_end("'%}'");
        }
        break;
      }
    } else if (kw == "for") {
      s->kind = StmtKind::for_stmt;
      opener.keyword = "for";
      s->targets = targets(c);
      if (!c.keyword("in"))
        c.error("expected 'in'");
      s->expr = c.or_expression();
      if (c.keyword("if"))
        s->filter = c.expression();
      if (c.keyword("recursive"))
        fail(t_, kw_pos, "recursive for loops are not supported; use a recursive macro");
      c.expect_end("'%}'");
      s->body = body({"else", "endfor"}, opener);
      end_cursor().expect_end("'%}'");
      if (end_.keyword == "else") {
        s->else_body = body({"endfor"}, opener);
        end_cursor().expect_end("'%}'");
      }
    } else if (kw == "set") {
      s->targets = targets(c);
      if (c.punct('=')) {
        s->kind = StmtKind::set;
        s->expr = c.expression();
        c.expect_end("'%}'");
      } else {
        s->kind = StmtKind::set_block;
        if (s->targets.size() != 1)
          c.error("expected '='");
        c.expect_end("'=' or '%}'");
        s->body = body({"endset"}, {"set", tok.tag});
        end_cursor().expect_end("'%}'");
      }
    } else if (kw == "macro") {
      s->kind = StmtKind::macro;
      s->macro = std::make_unique<MacroDef>();
      s->macro->pos = c.offset();
      s->macro->name = c.expect_name("a macro name");
      c.expect('(');
      params(c, *s->macro);
      c.expect_end("'%}'");
      s->macro->body = body({"endmacro"}, {"macro", tok.tag});
      end_cursor().expect_end("'%}'");
    } else if (kw == "call") {
      s->kind = StmtKind::call_block;
      s->macro = std::make_unique<MacroDef>();
      s->macro->name = "caller";
      s->macro->pos = tok.tag;
      if (c.punct('('))
        params(c, *s->macro);
      std::uint32_t call_pos = c.offset();
      s->expr = c.expression();
      if (s->expr->kind != ExprKind::call)
        fail(t_, call_pos, "expected a macro call after 'call'");
      c.expect_end("'%}'");
      s->macro->body = body({"endcall"}, {"call", tok.tag});
      end_cursor().expect_end("'%}'");
    } else if (kw == "include") {
      s->kind = StmtKind::include;
      s->expr = c.expression();
      if (c.keyword("ignore") || c.keyword("with") || c.keyword("without"))
        fail(t_, kw_pos, "only plain {% include 'name' %} is supported");
      c.expect_end("'%}'");
    } else {
      std::string msg;
      if (kw == "elif" || kw == "else" || kw.rfind("end", 0) == 0)
        msg = "unexpected '" + kw + "'";
      else
        msg = "unknown tag '" + kw + "'";
      std::string expected;
      for (const char* e : ends)
        expected += std::string(expected.empty() ? "" : " or ") + "'" + e + "'";
      if (!expected.empty())
        msg += "; expected " + expected;
      fail(t_, kw_pos, msg);
    }
    return s;
  }

  std::vector<std::string> targets(Cursor& c) {
    std::vector<std::string> names{c.expect_name("a variable name")};
    while (c.punct(','))
      names.push_back(c.expect_name("a variable name"));
    return names;
  }

  // Parameters after '(' up to and including ')': name or name=default, comma separated.
  void params(Cursor& c, MacroDef& m) {
    while (!c.punct(')')) {
      if (!m.params.empty())
        c.expect(',');
      if (c.punct(')'))
        break;
      m.params.push_back(c.expect_name("a parameter name"));
      m.defaults.push_back(c.punct('=') ? c.expression() : nullptr);
    }
  }

  // A cursor on the end tag that stopped the last body(), past its keyword.
  Cursor end_cursor() {
    Cursor c(t_, end_.tok->begin, end_.tok->end);
    c.word();
    return c;
  }

  struct End {
    std::string keyword;
    const Token* tok = nullptr;
  };

  Template& t_;
  std::vector<Token> tokens_;
  std::size_t next_ = 0;
  int depth_ = 0;
  End end_;
};

} // namespace

void parse_template(Template& t, const Options& options) {
  Parser(t, options).run();
}

} // namespace tk::jinja
