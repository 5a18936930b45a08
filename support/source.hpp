// A source file held in memory, and byte ranges into it. Line and column are computed only when a
// diagnostic is printed, so every AST node and IR node can carry a cheap SourceRange.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tk {

/// Half-open byte range [begin, end) into one SourceFile. An empty range marks a point.
struct SourceRange {
  std::uint32_t begin = 0;
  std::uint32_t end = 0;
  friend bool operator==(const SourceRange&, const SourceRange&) = default;
};

struct LineCol {
  std::uint32_t line = 1; // 1-based
  std::uint32_t col = 1;  // 1-based, in bytes
};

class SourceFile {
public:
  SourceFile(std::string name, std::string text);

  const std::string& name() const { return name_; }
  const std::string& text() const { return text_; }

  LineCol line_col(std::uint32_t offset) const;
  /// The text of a 1-based line, without its newline.
  std::string_view line(std::uint32_t line) const;
  std::uint32_t line_count() const { return static_cast<std::uint32_t>(line_starts_.size()); }

private:
  std::string name_;
  std::string text_;
  std::vector<std::uint32_t> line_starts_;
};

} // namespace tk
