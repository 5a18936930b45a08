#include "tools/ttgen/timing.hpp"

#include <algorithm>
#include <cstdio>
#include <ostream>

namespace tk::ttgen {

void print_times(const std::vector<lower::StageTime>& times, std::ostream& err) {
  std::size_t width = 5; // "total"
  double total = 0;
  for (const lower::StageTime& t : times) {
    width = std::max(width, t.stage.size());
    total += t.ms;
  }
  auto row = [&](const std::string& name, double ms) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%12.3f %7.1f%%", ms, total > 0 ? 100.0 * ms / total : 0.0);
    err << name << std::string(width - name.size(), ' ') << buf << '\n';
  };
  err << "stage" << std::string(width - 5, ' ') << "     wall ms        %\n";
  for (const lower::StageTime& t : times)
    row(t.stage, t.ms);
  row("total", total);
}

} // namespace tk::ttgen
