// `ttgen report FILE --shape M=..,N=..`: the static estimate of each kernel of FILE (a .tk file or
// a TT IR dump) at one shape, from the lowered TT program, without running it (report/).
#pragma once

#include "lowering/pipeline.hpp"

#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

namespace tk::ttgen {

struct ReportOptions {
  std::string input;                 // a .tk file, a TT IR dump, or "-"
  std::vector<std::string> shape;    // NAME=SIZE items, from one or more --shape flags
  std::string format = "text";       // text or json
  std::optional<std::string> kernel; // --kernel: only this kernel of the file
  lower::OptionOverrides overrides;
};

/// Returns kOk, kUserError (errors in the input) or kUsageError (a bad --shape, unreadable input).
int run_report(const ReportOptions& options, std::istream& in, std::ostream& out,
               std::ostream& err);

} // namespace tk::ttgen
