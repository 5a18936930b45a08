// ttgen check's front end: a kernel file parsed with Clang LibTooling against TileKit's SDK-mirror
// headers (or the real SDK's, with -I) the way the SDK's JIT wraps a kernel, and its kernel_main
// summarised into the model of model.hpp.
#pragma once

#include "check/model.hpp"

#include <optional>
#include <string>
#include <vector>

namespace tk::check {

struct ParseOptions {
  std::vector<std::string> include_dirs; // searched before the SDK-mirror headers
  std::vector<std::string> defines;      // NAME or NAME=VALUE
  std::string sdk_include_dir;           // TileKit's SDK-mirror headers
  std::string clang_resource_dir;
};

/// The summary of the kernel in `path` (a readable file), or nullopt with the compiler's messages
/// in `errors` when it does not compile or has no kernel_main.
std::optional<Kernel> summarize(const std::string& path, const ParseOptions& options,
                                std::string& errors);

} // namespace tk::check
