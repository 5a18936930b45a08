#include "codegen/layout.hpp"

#include <vector>

namespace tk::codegen {

namespace {

struct CommentLine {
  std::size_t indent = 0; // columns before `//`
  std::string_view text;  // after `// `, or empty for a bare `//`
};

/// The line as a comment line (`INDENT// TEXT` or `INDENT//`), or false.
bool as_comment(std::string_view line, CommentLine& c) {
  const std::size_t first = line.find_first_not_of(' ');
  if (first == std::string_view::npos || line.substr(first, 2) != "//")
    return false;
  const std::string_view rest = line.substr(first + 2);
  if (!rest.empty() && rest.front() != ' ')
    return false; // `///`, `//!`, `//x`: left to clang-format's judgement
  c.indent = first;
  c.text = rest.empty() ? rest : rest.substr(1);
  return true;
}

/// clang-format counts columns in characters, this file in bytes: a comment with a multi-byte
/// character is left as it is (long, and so formatted by clang-format).
bool ascii(std::string_view text) {
  for (char ch : text)
    if (static_cast<unsigned char>(ch) >= 0x80)
      return false;
  return true;
}

/// Whether `text` reads as a list item or a tag: a bullet (`- `, `+ `, `* `), a numbered item
/// (`1.` to `99.`) or `@`.
bool list_item(std::string_view text) {
  if (text.starts_with("- ") || text.starts_with("+ ") || text.starts_with("* ") ||
      text.starts_with("@"))
    return true;
  std::size_t digits = 0;
  while (digits < text.size() && digits < 2 && text[digits] >= '0' && text[digits] <= '9')
    ++digits;
  return digits > 0 && text[0] != '0' && digits < text.size() && text[digits] == '.';
}

/// Whether clang-format would join the rest of a split line to a comment line starting with
/// `text` (BreakableComment::mayReflow: not empty, not indented further, not a list item, a tag
/// or a TODO).
bool continues_paragraph(std::string_view text) {
  if (text.empty() || text.front() == ' ' || list_item(text))
    return false;
  for (std::string_view p : {"-# ", "TODO", "FIXME", "XXX"})
    if (text.starts_with(p))
      return false;
  return true;
}

/// Emits `INDENT// TEXT` lines for `text`, splitting while it is too long; returns what is left
/// of the last split (empty when the text fitted).
std::string emit(std::string& out, std::size_t indent, std::string text) {
  const std::size_t room = kColumnLimit > indent + 3 ? kColumnLimit - indent - 3 : 0;
  if (text.size() <= room) {
    out.append(indent, ' ').append(text.empty() ? "//" : "// ").append(text).push_back('\n');
    return {};
  }
  std::size_t at = text.rfind(' ', room);
  while (at != std::string::npos && at > 0 &&
         list_item(std::string_view(text).substr(at + 1))) // never split before a list item
    at = text.rfind(' ', at - 1);
  if (at == std::string::npos || at == 0) { // one long word: left long (needs_format formats it)
    out.append(indent, ' ').append("// ").append(text).push_back('\n');
    return {};
  }
  std::size_t end = at;
  while (end > 0 && text[end - 1] == ' ')
    --end;
  out.append(indent, ' ').append("// ").append(text, 0, end).push_back('\n');
  const std::size_t rest = text.find_first_not_of(' ', at);
  return rest == std::string::npos ? std::string() : text.substr(rest);
}

/// The parameters of `list` (the text between a declaration's parentheses), split at the commas
/// outside <>, () and {}; empty when a parameter is empty (not a list this file lays out).
std::vector<std::string_view> split_params(std::string_view list) {
  std::vector<std::string_view> out;
  int depth = 0;
  std::size_t begin = 0;
  for (std::size_t i = 0; i <= list.size(); ++i) {
    const char ch = i < list.size() ? list[i] : ',';
    if (ch == '<' || ch == '(' || ch == '{' || ch == '[')
      ++depth;
    else if (ch == '>' || ch == ')' || ch == '}' || ch == ']')
      --depth;
    else if (ch == ',' && depth == 0) {
      std::string_view p = list.substr(begin, i - begin);
      if (p.starts_with(' '))
        p.remove_prefix(1);
      if (p.empty() || p.front() == ' ' || p.back() == ' ')
        return {};
      out.push_back(p);
      begin = i + 1;
    }
  }
  return depth == 0 ? out : std::vector<std::string_view>{};
}

/// `line` laid out as clang-format lays out a function declaration or definition head at column 0
/// that does not fit (`void f(A a, B b);` or `... {`): the parameters packed onto each line while
/// they fit, the continuation lines aligned after the `(`. False when `line` is not such a head.
bool wrap_declaration(std::string_view line, std::string& out) {
  if (line.empty() || line.front() == ' ' || line.front() == '/' || line.front() == '#')
    return false;
  const std::size_t open = line.find('(');
  std::string_view tail;
  if (line.ends_with(");"))
    tail = ");";
  else if (line.ends_with(") {"))
    tail = ") {";
  else
    return false;
  if (open == std::string_view::npos || open + 1 > line.size() - tail.size())
    return false;
  const std::string_view head = line.substr(0, open + 1);
  if (head.find_first_of("=;{}\"") != std::string_view::npos)
    return false;
  const std::vector<std::string_view> params =
      split_params(line.substr(open + 1, line.size() - tail.size() - open - 1));
  if (params.empty())
    return false;
  std::string text(head);
  std::size_t column = head.size();
  bool first = true; // the first parameter of its line
  for (std::size_t i = 0; i < params.size(); ++i) {
    const std::string_view end = i + 1 == params.size() ? tail : std::string_view(",");
    if (!first && column + 1 + params[i].size() + end.size() > kColumnLimit) {
      text.append("\n").append(head.size(), ' ');
      column = head.size();
      first = true;
    }
    if (!first) {
      text.push_back(' ');
      ++column;
    }
    text.append(params[i]).append(end);
    column += params[i].size() + end.size();
    first = false;
  }
  out.append(text).push_back('\n');
  return true;
}

/// The arguments of a call statement's list (the text between its parentheses), split at the
/// top-level `, `; empty when the list holds anything but names, numbers, member and scope access,
/// arithmetic and parentheses (the expressions whose breaking FormatRule's random calls check
/// against clang-format), or does not nest.
std::vector<std::string_view> split_args(std::string_view list) {
  std::vector<std::string_view> out;
  int depth = 0;
  std::size_t begin = 0;
  for (std::size_t i = 0; i <= list.size(); ++i) {
    const char ch = i < list.size() ? list[i] : ',';
    const bool word = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
                      (ch >= '0' && ch <= '9') || ch == '_' || ch == '.' || ch == ':';
    if (ch == '(')
      ++depth;
    else if (ch == ')') {
      if (--depth < 0)
        return {};
    } else if (ch == ',' && depth == 0) {
      std::string_view a = list.substr(begin, i - begin);
      if (!out.empty()) {
        if (!a.starts_with(' '))
          return {};
        a.remove_prefix(1);
      }
      if (a.empty() || a.front() == ' ' || a.back() == ' ')
        return {};
      out.push_back(a);
      begin = i + 1;
    } else if (!word && ch != ' ' && ch != ',' && ch != '+' && ch != '-' && ch != '*' &&
               ch != '/' && ch != '%')
      return {};
  }
  return depth == 0 ? out : std::vector<std::string_view>{};
}

/// The lines of `head` (`INDENT NAME(`) followed by `args` and `);`, packed while they fit from
/// column `from` on each continuation line (on the first line too unless `own_line`, which leaves
/// `head` alone on it); empty when a line does not fit.
std::vector<std::string> pack_args(std::string_view head, const std::vector<std::string_view>& args,
                                   std::size_t from, bool own_line) {
  std::vector<std::string> lines{std::string(head)};
  if (own_line)
    lines.emplace_back(from, ' ');
  bool first = true; // the first argument of its line
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string_view end = i + 1 == args.size() ? std::string_view(");") : ",";
    if (!first && lines.back().size() + 1 + args[i].size() + end.size() > kColumnLimit) {
      lines.emplace_back(from, ' ');
      first = true;
    }
    if (!first)
      lines.back().push_back(' ');
    lines.back().append(args[i]).append(end);
    first = false;
    if (lines.back().size() > kColumnLimit)
      return {};
  }
  return lines;
}

/// `line` laid out as clang-format lays out a call statement (`INDENT NAME(ARGS);`, NAME a plain
/// or qualified name) that does not fit, when no argument has to be broken: the arguments packed
/// onto each line while they fit, aligned after the `(`; or, when that takes more lines than
/// breaking after the `(` and packing them from four columns further in, so. False when `line` is
/// not such a statement, or an argument does not fit on a line aligned after the `(` (clang-format
/// then breaks inside an argument, by penalties this file does not model).
bool wrap_call(std::string_view line, std::string& out) {
  const std::size_t indent = line.find_first_not_of(' ');
  if (indent == std::string_view::npos || indent == 0 || !line.ends_with(");"))
    return false;
  const std::size_t open = line.find('(', indent);
  if (open == std::string_view::npos || open == indent)
    return false;
  for (std::size_t i = indent; i < open; ++i) {
    const char ch = line[i];
    if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || ch == '_' || ch == ':' ||
          (i > indent && ch >= '0' && ch <= '9')))
      return false;
  }
  if (line.substr(indent, open - indent).find(":::") != std::string_view::npos ||
      line[indent] == ':' || line[open - 1] == ':')
    return false;
  const std::vector<std::string_view> args =
      split_args(line.substr(open + 1, line.size() - 2 - open - 1));
  if (args.empty())
    return false;
  const std::string_view head = line.substr(0, open + 1);
  const std::vector<std::string> aligned = pack_args(head, args, head.size(), false);
  if (aligned.empty())
    return false;
  const std::vector<std::string> broken = pack_args(head, args, indent + 4, true);
  for (const std::string& l : !broken.empty() && broken.size() < aligned.size() ? broken : aligned)
    out.append(l).push_back('\n');
  return true;
}

/// `line` laid out as clang-format lays out a declaration (`INDENT TYPE NAME = VALUE;`, TYPE and
/// NAME words) that does not fit, when its value fits on the next line: broken after the `=`, the
/// value four columns further in. False when `line` is not such a declaration, or its value holds
/// anything split_args does not take (or a top-level comma), or does not fit on a line either.
bool wrap_declaration_value(std::string_view line, std::string& out) {
  const std::size_t indent = line.find_first_not_of(' ');
  const std::size_t eq = line.find(" = ");
  if (indent == std::string_view::npos || indent == 0 || eq == std::string_view::npos ||
      !line.ends_with(';'))
    return false;
  // TYPE NAME: at least two words, one blank between them.
  std::size_t words = 1;
  for (std::size_t i = indent; i < eq; ++i) {
    const char ch = line[i];
    if (ch == ' ') {
      if (line[i - 1] == ' ')
        return false;
      ++words;
    } else if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
                 ch == '_' || ch == ':'))
      return false;
  }
  const std::string_view value = line.substr(eq + 3, line.size() - 1 - eq - 3);
  if (words < 2 || split_args(value).size() != 1 || indent + 4 + value.size() + 1 > kColumnLimit)
    return false;
  out.append(line.substr(0, eq + 2)).push_back('\n');
  out.append(indent + 4, ' ').append(value).append(";\n");
  return true;
}

} // namespace

std::string wrap_long_lines(std::string text) {
  // Nothing to do in the usual case: no line is longer than the limit.
  bool any = false;
  for (std::size_t begin = 0; begin < text.size() && !any;) {
    std::size_t end = text.find('\n', begin);
    if (end == std::string::npos)
      end = text.size();
    any = end - begin > kColumnLimit;
    begin = end + 1;
  }
  if (!any)
    return text;
  std::vector<std::string_view> lines;
  for (std::size_t begin = 0; begin < text.size();) {
    std::size_t end = text.find('\n', begin);
    if (end == std::string::npos)
      end = text.size();
    lines.push_back(std::string_view(text).substr(begin, end - begin));
    begin = end + 1;
  }
  const bool final_newline = text.ends_with('\n');
  std::string out;
  out.reserve(text.size() + 64);
  std::string carry; // the rest of a split comment line
  std::size_t carry_indent = 0;
  for (std::string_view line : lines) {
    CommentLine c;
    const bool comment = as_comment(line, c);
    if (!carry.empty()) {
      if (comment && c.indent == carry_indent && continues_paragraph(c.text) && ascii(c.text)) {
        carry = emit(out, c.indent, carry + " " + std::string(c.text));
        continue;
      }
      while (!carry.empty())
        carry = emit(out, carry_indent, std::move(carry));
    }
    if (comment && line.size() > kColumnLimit && ascii(line)) {
      carry = emit(out, c.indent, std::string(c.text));
      carry_indent = c.indent;
      continue;
    }
    if (!comment && line.size() > kColumnLimit && ascii(line) &&
        (wrap_declaration(line, out) || wrap_call(line, out) || wrap_declaration_value(line, out)))
      continue;
    out.append(line).push_back('\n');
  }
  while (!carry.empty())
    carry = emit(out, carry_indent, std::move(carry));
  if (!final_newline && !out.empty())
    out.pop_back();
  return out;
}

} // namespace tk::codegen
