// The prefix header every unit test file is compiled with (tests/CMakeLists.txt, TILEKIT_PCH):
// GoogleTest and the standard headers most test files include, parsed once per configuration
// instead of once per file. Parsing <gtest/gtest.h> alone is about 1.2 s of CPU, a third to a half
// of a typical unit test file's compile time (docs/cmake.md, "TileKit's own build").
// Test files still include what they use: a build with -DTILEKIT_PCH=OFF compiles them without it.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>
