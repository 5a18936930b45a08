// The whole ttgen process, as a build runs it: fork, exec, compile examples/matmul.tk for both
// targets into a directory, exit. Wall time per process (UseRealTime), with the median over
// repetitions (`--benchmark_repetitions=N`); `ttgen --version` alone shows the start-up cost.
// ttgen links clang::format statically (cmake/Dependencies.cmake), so no shared LLVM is loaded.
#include <benchmark/benchmark.h>

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

extern char** environ;

namespace {

void run(benchmark::State& state, std::vector<std::string> args) {
  args.insert(args.begin(), TK_TTGEN_PATH);
  std::vector<char*> argv;
  for (std::string& a : args)
    argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t quiet;
  posix_spawn_file_actions_init(&quiet);
  posix_spawn_file_actions_addopen(&quiet, 1, "/dev/null", O_WRONLY, 0);
  for (auto _ : state) {
    pid_t pid = 0;
    int status = 0;
    if (posix_spawn(&pid, argv[0], &quiet, nullptr, argv.data(), environ) != 0 ||
        waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      state.SkipWithError("ttgen failed");
      break;
    }
  }
  posix_spawn_file_actions_destroy(&quiet);
}

void BM_TtgenVersion(benchmark::State& state) {
  run(state, {"--version"});
}
BENCHMARK(BM_TtgenVersion)->UseRealTime()->Unit(benchmark::kMillisecond);

void BM_TtgenMatmulAllTargets(benchmark::State& state) {
  const std::string out =
      (std::filesystem::temp_directory_path() / ("tk_ttgen_bench_" + std::to_string(getpid())))
          .string();
  run(state, {TK_SOURCE_DIR "/examples/matmul.tk", "--target=all", "-o", out});
  std::filesystem::remove_all(out);
}
BENCHMARK(BM_TtgenMatmulAllTargets)->UseRealTime()->Unit(benchmark::kMillisecond);

} // namespace

BENCHMARK_MAIN();
