// tilekit.nn against torch.nn on the CPU, in one run (docs/python.md): each module's forward, and
// forward + backward, at transformer shapes, in bf16. Google Benchmark times a Python callable
// (python/bench/steps.py) through an embedded interpreter; the table at the end gives the ratio
// of the medians (or single runs), TileKit's time over torch's.
#include <benchmark/benchmark.h>
#include <pybind11/embed.h>

#include <cstdio>
#include <map>
#include <string>
#include <vector>

namespace py = pybind11;

namespace {

struct Shape {
  int tokens, hidden;
};
constexpr Shape kShapes[] = {{512, 512}, {2048, 512}, {512, 1024}, {1024, 1024}};
const char* const kModules[] = {"Linear", "LayerNorm", "RMSNorm", "MLP", "CausalSelfAttention"};

std::string case_name(const char* module, Shape s, bool backward) {
  return std::string(module) + (backward ? "/fwd+bwd/" : "/fwd/") + std::to_string(s.tokens) + "x" +
         std::to_string(s.hidden);
}

void bm_step(benchmark::State& state, std::string module, std::string impl, Shape s,
             bool backward) {
  py::object step =
      py::module_::import("steps").attr("make_step")(module, impl, s.tokens, s.hidden, backward);
  for (auto _ : state)
    step();
  state.counters["tokens/s"] =
      benchmark::Counter(s.tokens, benchmark::Counter::kIsIterationInvariantRate);
}

// Passes everything to the console and keeps each case's time for the ratio table: the median
// with --benchmark_repetitions (the machine is shared; medians are steadier), else the run.
class RatioReporter : public benchmark::ConsoleReporter {
public:
  std::map<std::string, double> seconds;
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& r : runs) {
      const bool median = r.run_type == Run::RT_Aggregate && r.aggregate_name == "median";
      const bool single = r.run_type == Run::RT_Iteration && r.repetitions <= 1;
      if (!r.error_occurred && (median || single))
        seconds[r.run_name.function_name] = r.GetAdjustedRealTime();
    }
    ConsoleReporter::ReportRuns(runs);
  }
};

} // namespace

int main(int argc, char** argv) {
  py::scoped_interpreter python;
  py::module_ sys = py::module_::import("sys");
  sys.attr("path").attr("insert")(0, TK_BENCH_STEPS_DIR);
  sys.attr("path").attr("insert")(0, TK_BENCH_PACKAGE_DIR);
  py::module_::import("torch").attr("set_num_threads")(2);
  for (const char* m : kModules)
    for (Shape s : kShapes)
      for (bool backward : {false, true})
        for (const char* impl : {"torch", "tilekit"})
          benchmark::RegisterBenchmark(
              (std::string(impl) + "/" + case_name(m, s, backward)).c_str(), bm_step, m, impl, s,
              backward)
              ->UseRealTime()
              ->Unit(benchmark::kMillisecond);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv))
    return 1;
  RatioReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();

  std::printf("\nwall time per step (ms); ratio = tilekit / torch in this run (bf16, CPU)\n"
              "%-40s %10s %10s %8s\n",
              "module/pass/tokens x hidden", "torch", "tilekit", "ratio");
  for (const char* m : kModules)
    for (bool backward : {false, true})
      for (Shape s : kShapes) {
        const std::string n = case_name(m, s, backward);
        auto t = reporter.seconds.find("torch/" + n), k = reporter.seconds.find("tilekit/" + n);
        if (t != reporter.seconds.end() && k != reporter.seconds.end())
          std::printf("%-40s %10.2f %10.2f %8.2f\n", n.c_str(), t->second, k->second,
                      k->second / t->second);
      }
  return 0;
}
