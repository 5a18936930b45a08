// The canonical printer of the tile language (see print.hpp for the form it guarantees).
#include "dsl/print.hpp"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <string_view>
#include <type_traits>

namespace tk::dsl {

namespace {

/// Shortest text that reads back as the same double and keeps its kind: an integer literal stays
/// digits only; a real keeps a '.' or an exponent (`2.0`, `1e-5`, not `2` or `1e-05`).
std::string number_text(const Number& n) {
  if (std::isinf(n.value))
    return n.value < 0 ? "-inf" : "inf";
  if (std::isnan(n.value))
    return "nan"; // no literal denotes NaN; a parsed module never holds one
  // Room for any double in fixed notation: up to 309 digits before the point (DBL_MAX).
  char buf[400];
  if (n.is_integer && std::trunc(n.value) == n.value) {
    if (std::fabs(n.value) < 9.2e18)
      return std::to_string(static_cast<std::int64_t>(n.value));
    // Every digit of the double, as "%.0f" (which, into 64 bytes, cut 71-digit literals short,
    // into another number).
    auto res = std::to_chars(buf, buf + sizeof buf, n.value, std::chars_format::fixed);
    return std::string(buf, res.ptr);
  }
  auto res = std::to_chars(buf, buf + sizeof buf, n.value);
  std::string s(buf, res.ptr);
  auto e = s.find('e');
  if (e != std::string::npos) { // "1e-05" -> "1e-5", "1e+20" -> "1e20"
    std::string mant = s.substr(0, e), exp = s.substr(e + 1);
    bool neg = !exp.empty() && exp[0] == '-';
    if (!exp.empty() && (exp[0] == '-' || exp[0] == '+'))
      exp.erase(0, 1);
    exp.erase(0, std::min(exp.find_first_not_of('0'), exp.size() - 1));
    return mant + "e" + (neg ? "-" : "") + exp;
  }
  if (s.find('.') == std::string::npos)
    s += ".0";
  return s;
}

void print_index(std::string& out, const TensorIndex& ix) {
  if (!ix.var) {
    out += std::to_string(ix.offset);
    return;
  }
  out += ix.var->name;
  if (ix.divisor_name)
    out += " / " + ix.divisor_name->name;
  else if (ix.divided)
    out += " / " + std::to_string(ix.divisor);
  if (ix.offset > 0)
    out += " + " + std::to_string(ix.offset);
  else if (ix.offset < 0)
    out += " - " + std::to_string(-static_cast<std::uint64_t>(ix.offset));
}

void print_access(std::string& out, const Access& a) {
  out += a.tensor.name;
  out += '[';
  for (std::size_t i = 0; i < a.indices.size(); ++i) {
    if (i)
      out += ", ";
    print_index(out, a.indices[i]);
  }
  out += ']';
}

int expr_precedence(const Expr& e) {
  if (auto* b = std::get_if<Binary>(&e.node))
    return precedence(b->op);
  return 3; // atoms and calls bind tightest
}

void print_expr(std::string& out, const Expr& e);

void print_operand(std::string& out, const Expr& e, bool parens) {
  if (parens)
    out += '(';
  print_expr(out, e);
  if (parens)
    out += ')';
}

void print_expr(std::string& out, const Expr& e) {
  std::visit(
      [&](const auto& n) {
        using T = std::decay_t<decltype(n)>;
        if constexpr (std::is_same_v<T, Number>) {
          out += number_text(n);
        } else if constexpr (std::is_same_v<T, Name>) {
          out += n.id.name;
        } else if constexpr (std::is_same_v<T, Access>) {
          print_access(out, n);
        } else if constexpr (std::is_same_v<T, Call>) {
          out += n.callee.name;
          out += '(';
          for (std::size_t i = 0; i < n.args.size(); ++i) {
            if (i)
              out += ", ";
            print_expr(out, n.args[i]);
          }
          out += ')';
        } else {
          // Left associative: a right operand of equal precedence needs parentheses.
          int p = precedence(n.op);
          print_operand(out, *n.lhs, expr_precedence(*n.lhs) < p);
          out += ' ';
          out += to_string(n.op);
          out += ' ';
          print_operand(out, *n.rhs, expr_precedence(*n.rhs) <= p);
        }
      },
      e.node);
}

void print_bound(std::string& out, const Bound& b) {
  if (b.tiles_of)
    out += "tiles(" + b.tiles_of->name + ")";
  else if (b.size_of) {
    out += b.size_of->name;
    if (b.offset != 0)
      out += (b.offset > 0 ? " + " : " - ") + std::to_string(b.offset > 0 ? b.offset : -b.offset);
  } else
    out += std::to_string(b.value);
}

void print_loop_var(std::string& out, const LoopVar& lv) {
  out += lv.var.name + " in ";
  if (lv.range.lo) {
    print_bound(out, *lv.range.lo);
    out += " .. ";
  }
  print_bound(out, lv.range.hi);
}

void print_block(std::string& out, const std::vector<Stmt>& body, int indent);

void print_stmt(std::string& out, const Stmt& s, int indent) {
  out.append(static_cast<std::size_t>(indent) * 4, ' ');
  std::visit(
      [&](const auto& n) {
        using T = std::decay_t<decltype(n)>;
        if constexpr (std::is_same_v<T, Assign>) {
          out += n.name.name + " = ";
          print_expr(out, n.value);
          out += '\n';
        } else if constexpr (std::is_same_v<T, Accumulate>) {
          out += n.name.name + " += ";
          print_expr(out, n.value);
          out += '\n';
        } else if constexpr (std::is_same_v<T, Store>) {
          print_access(out, n.target);
          out += " = ";
          print_expr(out, n.value);
          out += '\n';
        } else if constexpr (std::is_same_v<T, For>) {
          out += "for ";
          print_loop_var(out, n.loop);
          print_block(out, n.body, indent);
        } else if constexpr (std::is_same_v<T, RowInit>) {
          out += n.name.name + "[";
          print_loop_var(out, n.loop);
          out += "] = ";
          print_expr(out, n.value);
          out += '\n';
        } else {
          out += "parallel ";
          for (std::size_t i = 0; i < n.loops.size(); ++i) {
            if (i)
              out += ", ";
            print_loop_var(out, n.loops[i]);
          }
          print_block(out, n.body, indent);
        }
      },
      s.node);
}

void print_block(std::string& out, const std::vector<Stmt>& body, int indent) {
  out += " {\n";
  for (const Stmt& s : body)
    print_stmt(out, s, indent + 1);
  out.append(static_cast<std::size_t>(indent) * 4, ' ');
  out += "}\n";
}

void print_params(std::string& out, const std::vector<Param>& params) {
  out += '(';
  for (std::size_t i = 0; i < params.size(); ++i) {
    const Param& p = params[i];
    if (i)
      out += ", ";
    out += p.name.name + ": ";
    out += to_string(p.dtype);
    if (p.is_tensor) {
      out += '[';
      for (std::size_t d = 0; d < p.dims.size(); ++d) {
        if (d)
          out += ", ";
        out += p.dims[d].name ? p.dims[d].name->name : std::to_string(p.dims[d].size);
      }
      out += ']';
    }
  }
  out += ')';
}

void print_option(std::string& out, const Option& o) {
  out += o.key.name + " = ";
  std::visit(
      [&](const auto& v) {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, bool>)
          out += v ? "true" : "false";
        else if constexpr (std::is_same_v<T, std::int64_t>)
          out += std::to_string(v);
        else if constexpr (std::is_same_v<T, std::string>)
          out += v;
        else
          out += std::to_string(v.x) + "x" + std::to_string(v.y);
      },
      o.value);
}

} // namespace

std::string print(const Expr& expr) {
  std::string out;
  print_expr(out, expr);
  return out;
}

std::string print(const Module& module) {
  std::string out;
  for (std::size_t k = 0; k < module.kernels.size(); ++k) {
    const Kernel& kernel = module.kernels[k];
    if (k)
      out += '\n';
    if (!kernel.options.empty()) {
      out += "@options(";
      for (std::size_t i = 0; i < kernel.options.size(); ++i) {
        if (i)
          out += ", ";
        print_option(out, kernel.options[i]);
      }
      out += ")\n";
    }
    out += "kernel " + kernel.name.name;
    print_params(out, kernel.inputs);
    out += " -> ";
    print_params(out, kernel.outputs);
    print_block(out, kernel.body, 0);
  }
  return out;
}

} // namespace tk::dsl
