// Tokenizer for the template text layer (see lexer.hpp). The rules mirror jinja2's lexer:
// "-" strips all whitespace on that side, "+" turns lstrip/trim off for one tag, trim_blocks
// eats one "\n" after a block or comment tag, lstrip_blocks eats the indentation before one.
#include "jinja/lexer.hpp"

#include "jinja/ast.hpp"
#include "jinja/environment.hpp"
#include "jinja/error.hpp"

namespace tk::jinja {

namespace {

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

class Lexer {
public:
  Lexer(const Template& t, const Options& o) : t_(t), src_(t.file.text()), opt_(o) {}

  std::vector<Token> run() {
    std::size_t pos = 0;
    while (pos < src_.size()) {
      std::size_t open = find_open(pos);
      if (open == std::string_view::npos) {
        add_text(pos, src_.size());
        break;
      }
      char kind = src_[open + 1];
      std::size_t p = open + 2;
      char sign = (p < src_.size() && (src_[p] == '-' || src_[p] == '+')) ? src_[p] : 0;
      if (sign)
        ++p;
      std::size_t text_end = strip_before(pos, open, kind, sign);
      add_text(pos, text_end);
      pos = kind == '#' ? comment(open, p) : tag(open, p, kind);
    }
    return std::move(tokens_);
  }

private:
  std::size_t find_open(std::size_t from) const {
    for (std::size_t i = src_.find('{', from); i != std::string_view::npos;
         i = src_.find('{', i + 1))
      if (i + 1 < src_.size() && (src_[i + 1] == '{' || src_[i + 1] == '%' || src_[i + 1] == '#'))
        return i;
    return std::string_view::npos;
  }

  // The end of the text that precedes a tag opened at `open`, after "-" or lstrip_blocks.
  std::size_t strip_before(std::size_t begin, std::size_t open, char kind, char sign) const {
    std::size_t end = open;
    if (sign == '-') {
      while (end > begin && is_space(src_[end - 1]))
        --end;
      return end;
    }
    if (sign == '+' || !opt_.lstrip_blocks || kind == '{')
      return end;
    std::size_t line = end;
    while (line > begin && src_[line - 1] != '\n')
      --line;
    bool at_line_start = line > begin || begin == 0 || src_[begin - 1] == '\n';
    if (!at_line_start || line == end)
      return end;
    for (std::size_t i = line; i < end; ++i)
      if (!is_space(src_[i]))
        return end;
    return line;
  }

  void add_text(std::size_t begin, std::size_t end) {
    if (end > begin)
      tokens_.push_back({TokenKind::text, u32(begin), u32(begin), u32(end)});
  }

  // After a tag's closing delimiter: "-" strips all whitespace, trim_blocks one newline.
  std::size_t strip_after(std::size_t pos, char sign, bool is_block) const {
    if (sign == '-') {
      while (pos < src_.size() && is_space(src_[pos]))
        ++pos;
    } else if (sign != '+' && is_block && opt_.trim_blocks && pos < src_.size() &&
               src_[pos] == '\n') {
      ++pos;
    }
    return pos;
  }

  std::size_t comment(std::size_t open, std::size_t p) {
    std::size_t close = src_.find("#}", p);
    if (close == std::string_view::npos)
      fail(t_, u32(open), "unclosed comment; expected '#}'");
    char sign =
        (close > p && (src_[close - 1] == '-' || src_[close - 1] == '+')) ? src_[close - 1] : 0;
    return strip_after(close + 2, sign, true);
  }

  std::size_t tag(std::size_t open, std::size_t p, char kind) {
    const char* closer = kind == '{' ? "}}" : "%}";
    std::string open_brackets; // like jinja2, a closer only counts outside brackets
    for (std::size_t i = p; i < src_.size(); ++i) {
      char c = src_[i];
      if (c == '\'' || c == '"') {
        i = skip_string(i);
        continue;
      }
      if (open_brackets.empty()) {
        char sign = 0;
        std::size_t at = i;
        if ((c == '-' || (c == '+' && kind == '%')) && src_.compare(i + 1, 2, closer) == 0)
          sign = c, at = i + 1;
        if (sign || src_.compare(i, 2, closer) == 0) {
          auto type = kind == '{' ? TokenKind::output : TokenKind::block;
          tokens_.push_back({type, u32(open), u32(p), u32(i)});
          // jinja2 only knows "{% raw %}" and "{% raw -%}" (then without trim_blocks);
          // "{% raw +%}" is an ordinary, unknown tag.
          if (kind == '%' && sign != '+' && is_raw(p, i))
            return raw(sign == '-' ? strip_after(at + 2, sign, true) : at + 2);
          return strip_after(at + 2, sign, kind == '%');
        }
      }
      if (c == '(' || c == '[' || c == '{') {
        open_brackets += c == '(' ? ')' : c == '[' ? ']' : '}';
      } else if ((c == ')' || c == ']' || c == '}') && !open_brackets.empty()) {
        if (c != open_brackets.back())
          fail(t_, u32(i),
               std::string("unexpected '") + c + "', expected '" + open_brackets.back() + "'");
        open_brackets.pop_back();
      }
    }
    fail(t_, u32(open), std::string("unclosed tag; expected '") + closer + "'");
  }

  std::size_t skip_string(std::size_t quote) const {
    for (std::size_t i = quote + 1; i < src_.size(); ++i) {
      if (src_[i] == '\\')
        ++i;
      else if (src_[i] == src_[quote])
        return i;
    }
    fail(t_, u32(quote), "unterminated string literal");
  }

  bool is_raw(std::size_t b, std::size_t e) const {
    while (b < e && is_space(src_[b]))
      ++b;
    while (e > b && is_space(src_[e - 1]))
      --e;
    return src_.substr(b, e - b) == "raw";
  }

  // {% raw %}: everything up to {% endraw %} is text; the endraw tag keeps its own "-" rules.
  std::size_t raw(std::size_t pos) {
    std::uint32_t open_tag = tokens_.back().tag;
    tokens_.pop_back();
    for (std::size_t i = src_.find("{%", pos); i != std::string_view::npos;
         i = src_.find("{%", i + 1)) {
      std::size_t p = i + 2;
      char sign = (p < src_.size() && (src_[p] == '-' || src_[p] == '+')) ? src_[p++] : 0;
      while (p < src_.size() && is_space(src_[p]))
        ++p;
      if (src_.compare(p, 6, "endraw") != 0)
        continue;
      p += 6;
      while (p < src_.size() && is_space(src_[p]))
        ++p;
      char end_sign = (p < src_.size() && (src_[p] == '-' || src_[p] == '+')) ? src_[p++] : 0;
      if (src_.compare(p, 2, "%}") != 0)
        continue;
      add_text(pos, strip_before(pos, i, '%', sign));
      return strip_after(p + 2, end_sign, true);
    }
    fail(t_, open_tag, "unclosed 'raw' block; expected '{% endraw %}'");
  }

  static std::uint32_t u32(std::size_t v) { return static_cast<std::uint32_t>(v); }

  const Template& t_;
  std::string_view src_;
  const Options& opt_;
  std::vector<Token> tokens_;
};

} // namespace

std::string normalize_source(std::string_view source, const Options& options) {
  std::string out;
  out.reserve(source.size());
  for (std::size_t i = 0; i < source.size(); ++i) {
    if (source[i] == '\r') {
      out += '\n';
      if (i + 1 < source.size() && source[i + 1] == '\n')
        ++i;
    } else {
      out += source[i];
    }
  }
  if (!options.keep_trailing_newline && !out.empty() && out.back() == '\n')
    out.pop_back();
  return out;
}

std::vector<Token> tokenize(const Template& t, const Options& options) {
  return Lexer(t, options).run();
}

} // namespace tk::jinja
