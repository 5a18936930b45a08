// Unit tests of the engine beyond the conformance corpus: exact syntax-error messages and
// locations, stability on malformed and hostile input, Python float printing, the parse cache,
// TileKit-only guards, and render speed.
#include "jinja/environment.hpp"
#include "jinja/value.hpp"
#include "tests/support/golden.hpp"
#include "tests/unit/jinja/jinja2_reference.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <unistd.h>

namespace tk::jinja {
namespace {

namespace fs = std::filesystem;

std::string render(std::string_view src, const nlohmann::json& data = nlohmann::json::object(),
                   Options o = {}) {
  Environment env({}, o);
  return env.render_string(src, data, "t.jinja");
}

std::string error_of(std::string_view src, const nlohmann::json& data = nlohmann::json::object()) {
  try {
    render(src, data);
  } catch (const TemplateError& e) {
    return e.what();
  }
  return "<no error>";
}

TEST(JinjaFloatRepr, MatchesPythonRepr) {
  // Expected strings are Python 3's repr() of the same doubles.
  EXPECT_EQ(float_repr(1.0), "1.0");
  EXPECT_EQ(float_repr(0.1 + 0.2), "0.30000000000000004");
  EXPECT_EQ(float_repr(1e-5), "1e-05");
  EXPECT_EQ(float_repr(0.0001), "0.0001");
  EXPECT_EQ(float_repr(1e16), "1e+16");
  EXPECT_EQ(float_repr(1e15), "1000000000000000.0");
  EXPECT_EQ(float_repr(123456789.123), "123456789.123");
  EXPECT_EQ(float_repr(-0.0), "-0.0");
  EXPECT_EQ(float_repr(2.5e-7), "2.5e-07");
  EXPECT_EQ(float_repr(1e100), "1e+100");
  EXPECT_EQ(float_repr(-1.5e-300), "-1.5e-300");
  EXPECT_EQ(float_repr(1.7976931348623157e308), "1.7976931348623157e+308");
  EXPECT_EQ(float_repr(5e-324), "5e-324");
  EXPECT_EQ(float_repr(std::numeric_limits<double>::infinity()), "inf");
  EXPECT_EQ(float_repr(-std::numeric_limits<double>::infinity()), "-inf");
  EXPECT_EQ(float_repr(std::nan("")), "nan");
}

// Value::to_json is from_json's inverse for data (how codegen's template data, built as values,
// prints with --emit=template-data); a tuple prints as an array, a macro has no JSON form.
TEST(JinjaValueJson, ToJsonInvertsFromJson) {
  const nlohmann::json j = nlohmann::json::parse(
      R"({"a":[1,-2,3.5,true,null,"s"],"b":{"c":{},"d":[]},"e":1e-05,"f":9007199254740993})");
  EXPECT_EQ(Value::from_json(j).to_json().dump(), j.dump());
  Value tuple = Value::list({Value::integer(1), Value::string("x")}, true);
  EXPECT_EQ(tuple.to_json().dump(), R"([1,"x"])");
  // Entries print in the dict's order: nlohmann::json sorts keys, as template data is built.
  Value d = Value::dict({{"b", Value::boolean(false)}, {"a", Value()}});
  EXPECT_EQ(d.to_json().dump(), R"({"a":null,"b":false})");
  try {
    Value::macro({}).to_json();
    FAIL() << "no error";
  } catch (const std::logic_error& e) {
    EXPECT_EQ(std::string(e.what()), "a Macro value has no JSON form");
  }
}

TEST(JinjaSyntaxErrors, AreLocatedWithExactMessages) {
  EXPECT_EQ(error_of("{% for x xs %}{% endfor %}"), "t.jinja:1:10: error: expected 'in'");
  EXPECT_EQ(error_of("\n\n  {% if %}{% endif %}"),
            "t.jinja:3:9: error: expected expression before the end of the tag");
  EXPECT_EQ(error_of("{% macro m(a b) %}{% endmacro %}"), "t.jinja:1:14: error: expected ','");
  EXPECT_EQ(error_of("{{ [1, 2 }}"), "t.jinja:1:10: error: unexpected '}', expected ']'");
  EXPECT_EQ(error_of("{% %}"), "t.jinja:1:4: error: expected a tag name");
  EXPECT_EQ(error_of("{{ 'a' | }}"),
            "t.jinja:1:10: error: expected name before the end of the tag");
  EXPECT_EQ(error_of("{% set %}"), "t.jinja:1:8: error: expected a variable name");
  EXPECT_EQ(error_of("{% set x = 1 2 %}"), "t.jinja:1:14: error: expected '%}'");
  EXPECT_EQ(error_of("{{ a b }}"), "t.jinja:1:6: error: expected '}}'");
  EXPECT_EQ(error_of("{{ f(1 }}"), "t.jinja:1:8: error: unexpected '}', expected ')'");
  EXPECT_EQ(error_of("{{ (1 + 2 }}"), "t.jinja:1:11: error: unexpected '}', expected ')'");
  EXPECT_EQ(error_of("{{ {'a' 1} }}"), "t.jinja:1:9: error: expected ':'");
  EXPECT_EQ(error_of("{% call x %}{% endcall %}"),
            "t.jinja:1:9: error: expected a macro call after 'call'");
  EXPECT_EQ(error_of("{% for x in xs recursive %}{% endfor %}"),
            "t.jinja:1:4: error: recursive for loops are not supported; use a recursive macro");
  EXPECT_EQ(error_of("{% if a %}{% else %}{% elif b %}{% endif %}"),
            "t.jinja:1:24: error: unexpected 'elif'; expected 'endif'");
  EXPECT_EQ(error_of("{% raw %}never closed"),
            "t.jinja:1:1: error: unclosed 'raw' block; expected '{% endraw %}'");
  EXPECT_EQ(error_of("ok\n{{ \"abc }}"), "t.jinja:2:4: error: unterminated string literal");
  EXPECT_EQ(error_of("{{ x is }}"), "t.jinja:1:9: error: expected name before the end of the tag");
  // A trailing comma follows an item, as in Jinja2 ("unexpected ','"): found by jinja_fuzzer,
  // which rendered `[,]` as an empty list.
  for (const char* t : {"{{ [,] }}", "{{ {,} }}", "{{ (,) }}"})
    EXPECT_EQ(error_of(t), "t.jinja:1:4: error: expected expression") << t;
  EXPECT_EQ(error_of("{{ f(,) }}"), "t.jinja:1:5: error: expected '}}'");
  EXPECT_EQ(render("{{ [1,] }}|{{ {'a': 2,} }}|{{ (1,) }}|{{ (1) }}|{{ [] }}|{{ () }}"),
            "[1]|{'a': 2}|(1,)|1|[]|()");
}

TEST(JinjaRenderErrors, AreLocatedAtTheCulprit) {
  nlohmann::json d = {{"cfg", {{"items", 1}, {"n", 2}}}, {"xs", {1, 2}}};
  EXPECT_EQ(error_of("{{ cfg.n }}\n  {{ cfg.items }}", d),
            "t.jinja:2:10: error: 'items' is a dict method in jinja2; write ['items'] to read "
            "the key");
  EXPECT_EQ(render("{{ cfg['items'] }}", d), "1");
  EXPECT_EQ(error_of("{{ xs | first | upper }}{{ [] | first | upper }}", d),
            "t.jinja:1:31: error: No first item, sequence was empty.");
  EXPECT_EQ(error_of("{{ 2 ** 64 }}"),
            "t.jinja:1:6: error: integer overflow (TileKit's template integers are 64-bit)");
  EXPECT_EQ(error_of("{{ 9223372036854775808 }}"), "t.jinja:1:4: error: expected expression");
  EXPECT_EQ(error_of("{{ (1, 2) | map(attribute='x') | list }}"),
            "t.jinja:1:11: error: 'int object' has no attribute 'x'");
  EXPECT_EQ(error_of("{% set a, b = [1] %}"),
            "t.jinja:1:1: error: not enough values to unpack (expected 2, got 1)");
}

TEST(JinjaErrors, CarryTheirParts) {
  try {
    render("line\n  {{ nope }}");
    FAIL() << "no error";
  } catch (const TemplateError& e) {
    EXPECT_EQ(e.template_name(), "t.jinja");
    EXPECT_EQ(e.line(), 2u);
    EXPECT_EQ(e.column(), 6u);
    EXPECT_EQ(e.message(), "'nope' is undefined");
  }
}

TEST(JinjaStability, HostileInputIsALocatedError) {
  EXPECT_EQ(error_of("{{ " + std::string(100, '(') + "1" + std::string(100, ')') + " }}"),
            "t.jinja:1:68: error: expression nested too deeply");
  std::string deep;
  for (int i = 0; i < 500; ++i)
    deep += "{% if true %}";
  EXPECT_EQ(error_of(deep), "t.jinja:1:1288: error: blocks nested too deeply");
  EXPECT_EQ(error_of("{% macro f() %}{{ f() }}{% endmacro %}{{ f() }}"),
            "t.jinja:1:19: error: maximum recursion depth exceeded");
  EXPECT_EQ(error_of("{{ range(10000000) | length }}"),
            "t.jinja:1:4: error: range too large (limit 1000000 items)");
  // Found by jinja_fuzzer: one short operation asked for gigabytes (an out-of-memory abort), and
  // a width of ten digits overflowed an int (undefined behaviour).
  EXPECT_EQ(error_of("{{ 'x' * 10000000000 }}"),
            "t.jinja:1:8: error: result too large: 10000000000 characters or items (TileKit's "
            "limit is 10000000)");
  EXPECT_EQ(error_of("{{ [1, 2] * 9223372036854775807 }}"),
            "t.jinja:1:11: error: result too large: 18446744073709551614 characters or items "
            "(TileKit's limit is 10000000)");
  // Found by jinja_fuzzer: an empty sequence times 10^10 is empty, as in Python, at once (it
  // looped 10^10 times adding nothing).
  EXPECT_EQ(render("{{ [] * 10000000000 }}|{{ '' * 9223372036854775807 }}|{{ () * 100 }}"),
            "[]||()");
  EXPECT_EQ(error_of("{{ s | indent(100000000000) }}", {{"s", "a\nb"}}),
            "t.jinja:1:6: error: result too large: 10000001 characters or items (TileKit's "
            "limit is 10000000)");
  EXPECT_EQ(error_of("{{ 'ab' | replace('', 'x' * 9000000) }}"),
            "t.jinja:1:9: error: result too large: 18000002 characters or items (TileKit's "
            "limit is 10000000)");
  EXPECT_EQ(error_of("{{ '%99999999999d' % 1 }}"), "t.jinja:1:20: error: width too big");
  EXPECT_EQ(error_of("{{ '%.2000000000f' % 1.5 }}"), "t.jinja:1:20: error: precision too big");
  EXPECT_EQ(render("{{ '%10000000d' % 1 }}").size(), 10000000u);
  // Found by jinja_fuzzer: a float beyond 2^63 converted to an integer (undefined behaviour);
  // Python's integers are unbounded, TileKit's are 64-bit.
  for (const char* t : {"{{ '%d' % 1e300 }}", "{{ 1e19 | int }}", "{{ '-1e19' | int }}"}) {
    const std::string e = error_of(t);
    EXPECT_NE(e.find("error: integer overflow (TileKit's template integers are 64-bit)"),
              std::string::npos)
        << t << ": " << e;
  }
  EXPECT_EQ(render("{{ '%d' % -9.2e18 }}|{{ 9.2e18 | int }}"),
            "-9200000000000000000|9200000000000000000");
  EXPECT_EQ(error_of("{{ x }}", nlohmann::json::array({1})),
            "t.jinja:1:1: error: template data must be a JSON object");
}

// Found by jinja_fuzzer: the stack overflowed under the 200-call limit, while parsing a long run
// of prefix operators (`not not ... 1`, `- - ... 1`, `1 if 1 else 1 if ...`, which the bracket
// count let through) and while rendering calls that each sit in a deep expression (here 500
// filters per call). Both are located errors now: prefix operators and `else` branches count as
// nesting, and a render stops when its thread's stack runs low.
TEST(JinjaStability, DeepExpressionsDoNotOverflowTheStack) {
  auto repeat = [](const std::string& s, int n) {
    std::string out;
    for (int i = 0; i < n; ++i)
      out += s;
    return out;
  };
  EXPECT_EQ(
      render("{{ not not 1 }} {{ - - 1 }} {{ 1 if 0 else 2 if 0 else 3 }} {{ 1 not in [2] }}"),
      "True 1 3 True");
  EXPECT_EQ(render("{{ " + repeat("-(", 31) + "1" + repeat(")", 31) + " }}"), "-1");
  EXPECT_EQ(error_of("{{ " + repeat("not ", 20000) + "1 }}"),
            "t.jinja:1:260: error: expression nested too deeply");
  EXPECT_EQ(error_of("{{ " + repeat("- ", 20000) + "1 }}"),
            "t.jinja:1:132: error: expression nested too deeply");
  EXPECT_EQ(error_of("{{ 1" + repeat(" if 1 else 1", 5000) + " }}"),
            "t.jinja:1:779: error: expression nested too deeply");
  EXPECT_EQ(error_of("{{ " + repeat("-(", 33) + "1" + repeat(")", 33) + " }}"),
            "t.jinja:1:68: error: expression nested too deeply");
  // Where it stops depends on the build's frame sizes: only the message is fixed.
  std::string deep_calls =
      error_of("{% macro f() %}{{ f()" + repeat(" | string", 500) + " }}{% endmacro %}{{ f() }}");
  EXPECT_TRUE(deep_calls.ends_with("error: maximum recursion depth exceeded")) << deep_calls;
}

// Options::max_work bounds what a render may do, for templates that are not TileKit's own.
TEST(JinjaStability, MaxWorkBoundsARender) {
  const std::string loops = "{% for a in range(1000) %}{% for b in range(1000) %}{% endfor %}"
                            "{% endfor %}done";
  EXPECT_EQ(render(loops), "done"); // no limit by default
  try {
    render(loops, nlohmann::json::object(), {.max_work = 100000});
    ADD_FAILURE() << "no error";
  } catch (const TemplateError& e) {
    EXPECT_EQ(std::string(e.what()),
              "t.jinja:1:39: error: render budget exceeded (100000 units of work)");
  }
  // A string doubled per call: one character each of 2^k, for every k until the budget is spent.
  try {
    render("{% macro m(s, n) %}{% if n > 0 %}{{ m(s ~ s, n - 1) }}{% endif %}{% endmacro %}"
           "{{ m('x', 100) }}",
           nlohmann::json::object(), {.max_work = 1000000});
    ADD_FAILURE() << "no error";
  } catch (const TemplateError& e) {
    EXPECT_NE(std::string(e.what()).find("render budget exceeded"), std::string::npos);
  }
}

// Every prefix of every corpus template either renders or fails with a TemplateError: no
// crash, no hang, no other exception, whatever the cut.
TEST(JinjaStability, EveryPrefixOfTheCorpusRendersOrFailsCleanly) {
  fs::path corpus = test::source_dir() / "tests/golden/jinja";
  std::size_t renders = 0, errors = 0;
  for (const auto& name : test::conformance_cases(corpus)) {
    fs::path dir = corpus / name;
    std::string src = test::read_file(dir / "template.jinja");
    auto data = nlohmann::json::parse(test::read_file(dir / "data.json"));
    Environment env(dir, test::read_options(dir / "options.json"));
    for (std::size_t n = 0; n <= src.size(); ++n) {
      try {
        env.render_string(std::string_view(src).substr(0, n), data, name);
        ++renders;
      } catch (const TemplateError&) {
        ++errors;
      } catch (const std::exception& e) {
        ADD_FAILURE() << name << " cut at " << n << ": " << e.what();
      }
    }
  }
  EXPECT_GT(renders, 1000u);
  EXPECT_GT(errors, 1000u);
}

TEST(JinjaEnvironment, ParsesEachFileOnceAndReportsMissingFiles) {
  fs::path dir = fs::temp_directory_path() / ("tk_jinja_env_" + std::to_string(::getpid()));
  fs::create_directories(dir / "sub");
  std::ofstream(dir / "sub/a.jinja") << "{% include 'sub/b.jinja' %}{{ n + 1 }}\n";
  std::ofstream(dir / "sub/b.jinja") << "b{{ n }};";
  Environment env(dir);
  EXPECT_EQ(env.render_file("sub/a.jinja", {{"n", 1}}), "b1;2");
  EXPECT_EQ(env.load("sub/a.jinja"), env.load("sub/a.jinja"));
  std::ofstream(dir / "sub/b.jinja") << "changed"; // cached: not re-read
  EXPECT_EQ(env.render_file("sub/a.jinja", {{"n", 5}}), "b5;6");
  try {
    env.render_file("nope.jinja", {});
    ADD_FAILURE() << "no error";
  } catch (const TemplateError& e) {
    EXPECT_EQ(std::string(e.what()),
              "nope.jinja: error: template 'nope.jinja' not found in '" + dir.string() + "'");
  }
  fs::remove_all(dir);
}

TEST(JinjaEnvironment, OptionsDefaultToJinja2s) {
  Options o;
  EXPECT_FALSE(o.trim_blocks);
  EXPECT_FALSE(o.lstrip_blocks);
  EXPECT_FALSE(o.keep_trailing_newline);
  EXPECT_EQ(render("{% if true %}\n  x\n{% endif %}\n"), "\n  x\n");
  EXPECT_EQ(render("{% if true %}\n  x\n{% endif %}\n", {}, {true, true, true}), "  x\n");
}

// A 300-line code-generation template with loops, macros and filters renders the same text from
// the parse cache as from scratch. How fast is measured by bench/jinja_render_bench.cpp.
TEST(JinjaEngine, Renders300LineTemplateTheSameFromTheCache) {
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
  src += "end\n";
  ASSERT_GE(std::count(src.begin(), src.end(), '\n'), 300);
  nlohmann::json data = {{"cbs", nlohmann::json::array()}, {"args", nlohmann::json::array()}};
  for (int i = 0; i < 4; ++i)
    data["cbs"].push_back(
        {{"name", "cb_" + std::to_string(i)}, {"pages", i + 1}, {"input", i < 2}});
  for (int i = 0; i < 3; ++i)
    data["args"].push_back({{"name", "Arg" + std::to_string(i)}, {"type", "uint32_t"}});
  Environment env;
  const std::string first = env.render_string(src, data, "perf.jinja"); // parses and caches
  EXPECT_EQ(std::count(first.begin(), first.end(), '\n'), 1 + 43 * 16); // no trim_blocks
  EXPECT_NE(first.find("cb_reserve_back(cb_3, 8);\n\n\nvoid f0(uint32_t arg0, uint32_t arg1, "
                       "uint32_t arg2);\nArg0, Arg1, Arg2\n// section 1\n"),
            std::string::npos)
      << first.substr(0, 400);
  EXPECT_EQ(env.render_string(src, data, "perf.jinja"), first);
  EXPECT_EQ(Environment().render_string(src, data, "perf.jinja"), first);
}

} // namespace
} // namespace tk::jinja
