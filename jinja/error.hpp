// TemplateError: every syntax and render error of the engine, located as
// "name.jinja:LINE:COL: error: MESSAGE" (LINE and COL 1-based, COL in bytes).
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

namespace tk::jinja {

struct Template;

class TemplateError : public std::runtime_error {
public:
  TemplateError(std::string name, std::uint32_t line, std::uint32_t col, std::string message);

  const std::string& template_name() const { return name_; }
  std::uint32_t line() const { return line_; }
  std::uint32_t column() const { return col_; }
  const std::string& message() const { return message_; }

private:
  std::string name_;
  std::uint32_t line_;
  std::uint32_t col_;
  std::string message_;
};

/// Throws a TemplateError at byte `offset` of `t`'s source.
[[noreturn]] void fail(const Template& t, std::uint32_t offset, const std::string& message);

} // namespace tk::jinja
