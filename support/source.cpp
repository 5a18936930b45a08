#include "support/source.hpp"

#include <algorithm>

namespace tk {

SourceFile::SourceFile(std::string name, std::string text)
    : name_(std::move(name)), text_(std::move(text)) {
  line_starts_.push_back(0);
  for (std::uint32_t i = 0; i < text_.size(); ++i)
    if (text_[i] == '\n')
      line_starts_.push_back(i + 1);
}

LineCol SourceFile::line_col(std::uint32_t offset) const {
  offset = std::min<std::uint32_t>(offset, static_cast<std::uint32_t>(text_.size()));
  auto it = std::upper_bound(line_starts_.begin(), line_starts_.end(), offset);
  auto line = static_cast<std::uint32_t>(it - line_starts_.begin());
  return {line, offset - line_starts_[line - 1] + 1};
}

std::string_view SourceFile::line(std::uint32_t line) const {
  if (line == 0 || line > line_starts_.size())
    return {};
  std::uint32_t b = line_starts_[line - 1];
  std::uint32_t e = line < line_starts_.size() ? line_starts_[line] - 1 : text_.size();
  std::string_view v(text_.data() + b, e - b);
  if (!v.empty() && v.back() == '\r')
    v.remove_suffix(1);
  return v;
}

} // namespace tk
