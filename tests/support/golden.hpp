// Golden-file comparison shared by every test. With UPDATE_GOLDEN=1 in the environment the
// expected file is (re)written and the test passes; otherwise any difference fails the test and
// prints the first differing line of both sides.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace tk::test {

inline std::filesystem::path source_dir() {
  return TK_SOURCE_DIR;
}

inline std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline bool updating_golden() {
  const char* v = std::getenv("UPDATE_GOLDEN");
  return v && std::string(v) == "1";
}

inline void expect_golden(const std::filesystem::path& expected_file, const std::string& actual) {
  if (updating_golden()) {
    std::filesystem::create_directories(expected_file.parent_path());
    std::ofstream(expected_file, std::ios::binary) << actual;
    return;
  }
  ASSERT_TRUE(std::filesystem::exists(expected_file))
      << "missing golden file " << expected_file << " (run with UPDATE_GOLDEN=1 to create it)";
  std::string expected = read_file(expected_file);
  if (expected == actual)
    return;
  std::istringstream e(expected), a(actual);
  std::string el, al;
  int line = 1;
  while (true) {
    bool he = static_cast<bool>(std::getline(e, el)), ha = static_cast<bool>(std::getline(a, al));
    if (!he && !ha)
      break;
    if (!he || !ha || el != al) {
      ADD_FAILURE() << "golden mismatch in " << expected_file << " at line " << line
                    << "\n  expected: " << (he ? el : "<end of file>")
                    << "\n  actual:   " << (ha ? al : "<end of output>")
                    << "\n(UPDATE_GOLDEN=1 rewrites the file; review the diff)\n--- actual ---\n"
                    << actual;
      return;
    }
    ++line;
  }
  ADD_FAILURE() << "golden mismatch in " << expected_file << " (line endings or trailing newline)";
}

} // namespace tk::test
