// Printing a random kernel as .tk source (program.hpp).
#include "tools/difftest/program.hpp"

#include <cctype>
#include <cstdlib>
#include <sstream>

namespace tk::difftest {
namespace {

void print_stmts(std::ostringstream& out, const std::vector<Stmt>& body, int indent) {
  const std::string pad(static_cast<std::size_t>(indent) * 4, ' ');
  for (const Stmt& s : body) {
    switch (s.kind) {
    case Stmt::Kind::assign:
      out << pad << s.target << " = " << print(s.value) << "\n";
      break;
    case Stmt::Kind::accumulate:
      out << pad << s.target << " += " << print(s.value) << "\n";
      break;
    case Stmt::Kind::store:
      out << pad << s.target << " = " << print(s.value) << "\n";
      break;
    case Stmt::Kind::loop:
      out << pad << "for " << s.target << " {\n";
      print_stmts(out, s.body, indent + 1);
      out << pad << "}\n";
      break;
    }
  }
}

std::string param(const Tensor& t) {
  return t.name + ": " + t.dtype + "[" + (t.batch.empty() ? "" : t.batch + ", ") + t.rows + ", " +
         t.cols + "]";
}

} // namespace

std::string print(const Expr& e) {
  switch (e.kind) {
  case Expr::Kind::leaf:
    return e.text;
  case Expr::Kind::call: {
    std::string s = e.text + "(";
    for (std::size_t i = 0; i < e.args.size(); ++i)
      s += (i ? ", " : "") + print(e.args[i]);
    return s + ")";
  }
  case Expr::Kind::binary:
    // Always parenthesised: the tree, not the precedence rules, says what is computed.
    return "(" + print(e.args[0]) + " " + e.text + " " + print(e.args[1]) + ")";
  }
  return "";
}

namespace {
std::string run_line(const Program& p) {
  std::ostringstream out;
  out.precision(17);
  out << "// tk-difftest run: seed=" << p.input_seed;
  for (const auto& [d, n] : p.dims)
    out << " " << d << "=" << n;
  for (const auto& [s, v] : p.scalar_values)
    out << " " << s << "=" << v;
  for (const auto& [t, v] : p.offsets)
    out << " " << t << ".offset=" << v;
  return out.str();
}
} // namespace

bool parse_run(const std::string& text, Program& p) {
  const std::string tag = "// tk-difftest run:";
  const auto at = text.find(tag);
  if (at == std::string::npos)
    return false;
  std::istringstream line(text.substr(at + tag.size(), text.find('\n', at) - at - tag.size()));
  for (std::string kv; line >> kv;) {
    const auto eq = kv.find('=');
    if (eq == std::string::npos)
      return false;
    const std::string key = kv.substr(0, eq), value = kv.substr(eq + 1);
    if (key == "seed")
      p.input_seed = std::strtoull(value.c_str(), nullptr, 10);
    else if (key.size() > 7 && key.ends_with(".offset"))
      p.offsets[key.substr(0, key.size() - 7)] = std::strtod(value.c_str(), nullptr);
    else if (std::isupper(static_cast<unsigned char>(key[0])))
      p.dims[key] = std::strtoll(value.c_str(), nullptr, 10);
    else
      p.scalar_values[key] = std::strtod(value.c_str(), nullptr);
  }
  return true;
}

std::string print(const Program& p) {
  if (!p.source.empty())
    return p.source;
  std::ostringstream out;
  out << run_line(p) << "\n";
  if (!p.options.empty()) {
    out << "@options(";
    for (std::size_t i = 0; i < p.options.size(); ++i)
      out << (i ? ", " : "") << p.options[i];
    out << ")\n";
  }
  out << "kernel " << p.name << "(";
  bool first = true;
  for (const Tensor& t : p.inputs) {
    out << (first ? "" : ", ") << param(t);
    first = false;
  }
  for (const std::string& s : p.scalars) {
    out << (first ? "" : ", ") << s << ": f32";
    first = false;
  }
  out << ") -> (";
  for (std::size_t i = 0; i < p.outputs.size(); ++i)
    out << (i ? ", " : "") << param(p.outputs[i]);
  out << ") {\n";
  print_stmts(out, p.before, 1);
  out << "    parallel " << p.parallel << " {\n";
  print_stmts(out, p.body, 2);
  out << "    }\n";
  print_stmts(out, p.after, 1);
  out << "}\n";
  return out.str();
}

namespace {
std::int64_t size_of(const Program& p, const std::string& s) {
  if (auto it = p.dims.find(s); it != p.dims.end())
    return it->second;
  return std::strtoll(s.c_str(), nullptr, 10);
}
} // namespace

std::int64_t extent(const Program& p, const Tensor& t, int d) {
  return size_of(p, d == 0 ? t.rows : t.cols);
}

std::int64_t batch_extent(const Program& p, const Tensor& t) {
  return t.batch.empty() ? 1 : size_of(p, t.batch);
}

} // namespace tk::difftest
