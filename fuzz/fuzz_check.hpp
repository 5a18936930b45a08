// What the harnesses share: a finding is reported on stderr and ends the run with abort(), which
// libFuzzer records as a crash (with the input saved as crash-<sha1>).
#pragma once

#include "support/diagnostics.hpp"

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

namespace tk::fuzz {

[[noreturn]] inline void finding(const std::string& what, const std::string& detail = {}) {
  std::fprintf(stderr, "\n==== fuzz finding: %s\n%s\n", what.c_str(), detail.c_str());
  std::abort();
}

/// A property of the harness that must hold for every input.
inline void check(bool ok, const std::string& what, const std::string& detail = {}) {
  if (!ok)
    finding(what, detail);
}

/// Runs `work`; an exception escaping it is a finding (user errors are diagnostics, never
/// exceptions; an InternalError is a bug in TileKit by definition).
template <class F>
void no_exception(F&& work) {
  try {
    work();
  } catch (const InternalError& e) {
    finding(std::string("internal error: ") + e.what(), e.detail());
  } catch (const UserErrorReported&) {
    finding("UserErrorReported escaped the pass that threw it");
  } catch (const std::exception& e) {
    finding(std::string("exception: ") + e.what());
  }
}

} // namespace tk::fuzz
