// Runs the built ttgen binary as a separate process (the CLI tests share it).
#pragma once

#include "tests/support/golden.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace tk::test {

namespace fs = std::filesystem;

struct Result {
  int code = -1;
  std::string out;
  std::string err;
};

inline fs::path scratch_dir() {
  fs::path dir = fs::temp_directory_path() / ("tk_ttgen_test_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  return dir;
}

inline std::string quote(const std::string& s) {
  std::string q = "'";
  for (char c : s)
    q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

/// Runs `ttgen ARGS` in `cwd` with `stdin_text` on standard input.
inline Result ttgen(const std::string& args, const std::string& stdin_text = "",
                    const fs::path& cwd = scratch_dir()) {
  fs::path dir = scratch_dir();
  std::ofstream(dir / "stdin.txt", std::ios::binary) << stdin_text;
  std::string cmd = "cd " + quote(cwd.string()) + " && " + quote(TTGEN_PATH) + " " + args + " < " +
                    quote((dir / "stdin.txt").string()) + " > " +
                    quote((dir / "stdout.txt").string()) + " 2> " +
                    quote((dir / "stderr.txt").string());
  int status = std::system(cmd.c_str());
  Result r;
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = read_file(dir / "stdout.txt");
  r.err = read_file(dir / "stderr.txt");
  return r;
}

} // namespace tk::test
