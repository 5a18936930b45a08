// --time-stages: the wall time of each phase and lowering stage, as a table on stderr.
#pragma once

#include "lowering/pipeline.hpp"

#include <chrono>
#include <iosfwd>
#include <string>
#include <vector>

namespace tk::ttgen {

/// Prints `stage  wall ms  %` rows, then their total, like clang's -ftime-report.
void print_times(const std::vector<lower::StageTime>& times, std::ostream& err);

/// Appends the wall time of `f()` under `name` when `times` is not null; returns what f returns.
template <class F>
auto time_phase(std::vector<lower::StageTime>* times, std::string name, F&& f) {
  auto start = std::chrono::steady_clock::now();
  auto result = f();
  if (times)
    times->push_back({std::move(name), std::chrono::duration<double, std::milli>(
                                           std::chrono::steady_clock::now() - start)
                                           .count()});
  return result;
}

} // namespace tk::ttgen
