// The Jinja engine on a 300-line code-generation template (loops, macros, filters): a render from
// the parse cache against a parse and render from scratch, measured in the same run.
//   build/default/bench/tk_jinja_render_bench
#include "jinja/environment.hpp"

#include <benchmark/benchmark.h>
#include <nlohmann/json.hpp>

#include <string>

namespace {

std::string template_300_lines() {
  std::string src = "{% macro arg(a) %}{{ a.type }} {{ a.name | lower }}{% endmacro %}\n";
  for (int k = 0; k < 43; ++k)
    src += "// section " + std::to_string(k) +
           "\n{% for cb in cbs %}\n"
           "cb_reserve_back({{ cb.name }}, {{ cb.pages * 2 }});\n"
           "{% if cb.input %}noc_read({{ cb.name | upper }}, {{ loop.index0 }});{% endif %}\n"
           "{% endfor %}\n"
           "void f" +
           std::to_string(k) +
           "({% for a in args %}{{ arg(a) }}{{ ', ' if not loop.last }}{% endfor %});\n"
           "{{ args | map(attribute='name') | join(', ') }}\n";
  return src + "end\n";
}

nlohmann::json template_data() {
  nlohmann::json data = {{"cbs", nlohmann::json::array()}, {"args", nlohmann::json::array()}};
  for (int i = 0; i < 4; ++i)
    data["cbs"].push_back(
        {{"name", "cb_" + std::to_string(i)}, {"pages", i + 1}, {"input", i < 2}});
  for (int i = 0; i < 3; ++i)
    data["args"].push_back({{"name", "Arg" + std::to_string(i)}, {"type", "uint32_t"}});
  return data;
}

// Baseline: a fresh Environment every time, so every render parses the template first.
void BM_ParseAndRender300Lines(benchmark::State& state) {
  const std::string src = template_300_lines();
  const nlohmann::json data = template_data();
  for (auto _ : state) {
    tk::jinja::Environment env;
    benchmark::DoNotOptimize(env.render_string(src, data, "perf.jinja"));
  }
}
BENCHMARK(BM_ParseAndRender300Lines)->Unit(benchmark::kMicrosecond);

// What ttgen does for every file after the first: the parsed template comes from the cache.
void BM_RenderCached300Lines(benchmark::State& state) {
  const std::string src = template_300_lines();
  const nlohmann::json data = template_data();
  tk::jinja::Environment env;
  benchmark::DoNotOptimize(env.render_string(src, data, "perf.jinja"));
  for (auto _ : state)
    benchmark::DoNotOptimize(env.render_string(src, data, "perf.jinja"));
}
BENCHMARK(BM_RenderCached300Lines)->Unit(benchmark::kMicrosecond);

} // namespace

BENCHMARK_MAIN();
