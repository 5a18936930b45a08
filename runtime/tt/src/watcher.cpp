// The watcher switch (TK_EMULATOR_WATCHER). The emulator checks the CB, DST and runtime-arg
// protocols as strictly as tt-metal's watcher (TT_METAL_WATCHER) and fails on a violation; with the
// watcher off, a violation whose effect on silicon is defined is reported once per kernel and site
// and the run goes on as the chip would (docs/emulator.md, "The watcher off").
#include <cstdio>
#include <cstdlib>
#include <set>
#include <utility>

#include "state.hpp"

namespace tk::rt::emu {
namespace {
bool g_off = false;                                     // for the launch that runs
std::set<std::pair<std::string, std::string>> g_warned; // (kernel path, site) in this launch
} // namespace

bool watcher_off() {
  return g_off;
}

void begin_watcher_launch() {
  g_warned.clear();
  const char* v = std::getenv("TK_EMULATOR_WATCHER");
  const std::string s = v == nullptr ? "" : v;
  if (s.empty() || s == "on" || s == "1") {
    g_off = false;
    return;
  }
  if (s == "off" || s == "0") {
    g_off = true;
    return;
  }
  throw EmulatorError("TK_EMULATOR_WATCHER=" + s + ": expected on or off");
}

void violation(const std::string& site, const std::string& message) {
  if (!g_off)
    fail(message);
  const Fiber& f = current();
  if (!g_warned.emplace(f.kernel->path, site).second)
    return;
  std::fprintf(stderr, "watcher off: %s: core (%u,%u): %s\n", f.kernel->path.c_str(),
               static_cast<unsigned>(f.core->logical.x), static_cast<unsigned>(f.core->logical.y),
               message.c_str());
}
} // namespace tk::rt::emu
