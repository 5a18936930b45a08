// Timing mode's files: the JSON report of a program run (TK_EMULATOR_REPORT) and its Chrome
// trace-event file (TK_EMULATOR_TRACE, opens in Perfetto or chrome://tracing).
#pragma once

#include <string>
#include <vector>

#include <tk_emulator/emulator.hpp>

namespace tk::rt::emu {
struct Fiber;
namespace timing {
/// The file of the run-th run of this process that writes `path`: `path` itself for the first,
/// then `stem.1.ext`, `stem.2.ext`, ... so that no run overwrites another.
std::string numbered(const std::string& path, unsigned run);
void write_report(const ProgramTiming& p, const std::string& path);
void write_trace(const std::vector<Fiber*>& fibers, double clock_ghz, const std::string& path);
} // namespace timing
} // namespace tk::rt::emu
