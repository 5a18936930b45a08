// The harness the CPU benchmarks share (cpu_matmul_bench.cpp, cpu_mlp_bench.cpp,
// cpu_attention_bench.cpp): each registers, per case, a TileKit side and an OpenBLAS side under
// "<impl>/<case>", and `run` times them in one run and prints a table of the median wall time of
// each side over the repetitions (--benchmark_repetitions=N), its spread (min..max) and the
// speed-up = OpenBLAS time / TileKit time (the medians' ratio, and the range the spreads allow);
// with one thread the same for the calling thread's CPU time, which other users of a shared
// machine do not inflate (time spent descheduled is not counted).
#pragma once

#include <benchmark/benchmark.h>
#include <cblas.h>

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace tk::bench {

inline double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// Runs `body` for every iteration of `state`; with one thread also records the calling thread's
// CPU ms per call (counter cpu_ms), and `flops` per call as the GFLOPS rate when given.
template <class F>
void timed(benchmark::State& state, int threads, double flops, F&& body) {
  const double cpu0 = thread_cpu_seconds();
  for (auto _ : state) {
    body();
    benchmark::ClobberMemory();
  }
  const double cpu = thread_cpu_seconds() - cpu0;
  if (state.iterations() == 0)
    return;
  const auto iters = static_cast<double>(state.iterations());
  if (threads == 1)
    state.counters["cpu_ms"] = cpu * 1e3 / iters;
  if (flops > 0)
    state.counters["GFLOPS"] =
        benchmark::Counter(flops * 1e-9 * iters, benchmark::Counter::kIsRate);
}

// Median, min and max of one quantity over the repetitions (one value when not repeated).
struct Spread {
  double median = 0, min = 0, max = 0;
};

// Keeps, per benchmark name, the wall ms and thread CPU ms per call: from the aggregates
// median/min/max when repeated (also with --benchmark_report_aggregates_only), else the one run.
class Reporter : public benchmark::ConsoleReporter {
public:
  std::map<std::string, Spread> ms, cpu_ms;
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& r : runs) {
      if (r.error_occurred)
        continue;
      const std::string& name = r.run_name.function_name;
      const double wall = r.GetAdjustedRealTime();
      const auto cpu_it = r.counters.find("cpu_ms");
      const double cpu = cpu_it == r.counters.end() ? 0.0 : cpu_it->second.value;
      auto set = [&](double Spread::* field) {
        ms[name].*field = wall;
        if (cpu > 0)
          cpu_ms[name].*field = cpu;
      };
      if (r.run_type == Run::RT_Iteration && r.repetitions <= 1) {
        set(&Spread::median);
        set(&Spread::min);
        set(&Spread::max);
      } else if (r.run_type == Run::RT_Aggregate) {
        if (r.aggregate_name == "median")
          set(&Spread::median);
        else if (r.aggregate_name == "min")
          set(&Spread::min);
        else if (r.aggregate_name == "max")
          set(&Spread::max);
      }
    }
    ConsoleReporter::ReportRuns(runs);
  }
};

// Registers `fn` as "<impl>/<case>", timed in real time, in ms, with min and max aggregates.
template <class F>
void add(const std::string& impl, const std::string& case_name, F fn) {
  benchmark::RegisterBenchmark((impl + "/" + case_name).c_str(), std::move(fn))
      ->UseRealTime()
      ->Unit(benchmark::kMillisecond)
      ->ComputeStatistics(
          "min", [](const std::vector<double>& v) { return *std::min_element(v.begin(), v.end()); })
      ->ComputeStatistics("max", [](const std::vector<double>& v) {
        return *std::max_element(v.begin(), v.end());
      });
}

// The table's rows: the cases, and the implementations compared to `baseline` (OpenBLAS).
struct Table {
  std::string case_header;          // e.g. "shape (MxDxF)/threads"
  std::vector<std::string> cases;   // as registered
  std::string baseline;             // e.g. "openblas_mlp"
  std::vector<std::string> tilekit; // e.g. {"tilekit_mlp"}
};

inline void print_table(const Table& t, const std::map<std::string, Spread>& times,
                        const char* what) {
  std::printf("\n%s: median [min..max] over the repetitions; speed-up = OpenBLAS time / TileKit "
              "time in this run, the medians' ratio [the range the spreads allow]\n",
              what);
  for (const std::string& impl : t.tilekit) {
    std::printf("%-28s %-26s %-26s %s\n", t.case_header.c_str(), t.baseline.c_str(), impl.c_str(),
                "speed-up");
    for (const std::string& c : t.cases) {
      const auto b = times.find(t.baseline + "/" + c), k = times.find(impl + "/" + c);
      if (b == times.end() || k == times.end() || b->second.median <= 0 || k->second.median <= 0)
        continue;
      const Spread& o = b->second;
      const Spread& m = k->second;
      auto cell = [](const Spread& s) {
        char buf[64];
        std::snprintf(buf, sizeof buf, "%.3f [%.3f..%.3f]", s.median, s.min, s.max);
        return std::string(buf);
      };
      std::printf("%-28s %-26s %-26s %.2f [%.2f..%.2f]\n", c.c_str(), cell(o).c_str(),
                  cell(m).c_str(), o.median / m.median, m.max > 0 ? o.min / m.max : 0.0,
                  m.min > 0 ? o.max / m.min : 0.0);
    }
  }
}

// The whole main after registration: `check` first (a benchmark of wrong code is not run), then
// every registered case, then the tables. Returns main's exit code.
inline int run(int argc, char** argv, const Table& table, const std::function<bool()>& check,
               Reporter& reporter) {
  std::printf("OpenBLAS core: %s (set OPENBLAS_CORETYPE before start; bench/run.sh does)\n",
              openblas_get_corename());
  if (!check()) {
    std::fprintf(stderr, "error: TileKit's result is off its reference\n");
    return 1;
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv))
    return 1;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  print_table(table, reporter.ms, "wall ms per call");
  print_table(table, reporter.cpu_ms, "thread CPU ms per call (1 thread only)");
  return 0;
}

} // namespace tk::bench
