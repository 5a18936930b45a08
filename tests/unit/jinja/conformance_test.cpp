// Conformance: every case under tests/golden/jinja and every template under templates/ is
// rendered by TileKit's engine and by the real jinja2; the outputs must be byte-identical.
// A case with an expected.err must fail in both, and our message must match the file exactly.
#include "jinja_corpus_stamp.hpp" // rebuild (and rediscover) when cases come or go
#include "tests/support/golden.hpp"
#include "tests/unit/jinja/jinja2_reference.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <unistd.h>

namespace tk::test {
namespace {

namespace fs = std::filesystem;

fs::path corpus_dir() {
  return source_dir() / "tests/golden/jinja";
}
fs::path templates_dir() {
  return source_dir() / "templates";
}
fs::path template_data_dir() {
  return source_dir() / "tests/golden/jinja-templates";
}

nlohmann::json read_json(const fs::path& p) {
  if (p.empty() || !fs::exists(p))
    return nlohmann::json::object();
  return nlohmann::json::parse(read_file(p));
}

// Shows invisible differences (trailing spaces, newlines) in failure messages.
std::string visible(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '\n')
      out += "\\n\n";
    else if (c == '\t')
      out += "\\t";
    else if (c == ' ')
      out += "\xC2\xB7"; // middle dot
    else
      out += c;
  }
  return out;
}

struct Ours {
  bool ok = false;
  std::string output;
  std::string error;
};

Ours render_ours(const fs::path& dir, const std::string& name, const jinja::Options& o,
                 const nlohmann::json& data) {
  Ours r;
  try {
    jinja::Environment env(dir, o);
    r.output = env.render_file(name, data);
    r.ok = true;
  } catch (const jinja::TemplateError& e) {
    r.error = e.what();
  }
  return r;
}

void expect_same(const Ours& ours, const ReferenceResult& ref) {
  ASSERT_TRUE(ref.ok) << "jinja2 failed: " << ref.error;
  ASSERT_TRUE(ours.ok) << "TileKit failed: " << ours.error;
  EXPECT_EQ(ours.output, ref.output) << "--- TileKit ---\n"
                                     << visible(ours.output) << "\n--- jinja2 ---\n"
                                     << visible(ref.output);
}

class JinjaConformance : public ::testing::TestWithParam<std::string> {};

TEST_P(JinjaConformance, MatchesJinja2) {
  fs::path dir = corpus_dir() / GetParam();
  fs::path options = dir / "options.json";
  if (!fs::exists(options))
    options.clear();
  Ours ours =
      render_ours(dir, "template.jinja", read_options(options), read_json(dir / "data.json"));
  ReferenceRequest req{"template.jinja", {dir}, dir / "data.json", options, false};
  if (!fs::exists(req.data))
    req.data.clear();
  ReferenceResult ref = render_with_jinja2(req);
  fs::path expected_err = dir / "expected.err";
  if (fs::exists(expected_err) || (updating_golden() && !ours.ok)) {
    EXPECT_FALSE(ref.ok) << "jinja2 rendered what should be an error:\n" << ref.output;
    ASSERT_FALSE(ours.ok) << "TileKit rendered what should be an error:\n" << ours.output;
    expect_golden(expected_err, ours.error + "\n");
    return;
  }
  expect_same(ours, ref);
}

INSTANTIATE_TEST_SUITE_P(Corpus, JinjaConformance,
                         ::testing::ValuesIn(conformance_cases(corpus_dir())),
                         [](const auto& p) { return test_name(p.param); });

TEST(JinjaConformanceCorpus, HasEnoughCases) {
  auto cases = conformance_cases(corpus_dir());
  EXPECT_GE(cases.size(), 60u);
  EXPECT_EQ(std::string(TK_JINJA_CORPUS_STAMP).size(), 40u); // the SHA-1 CMake computed
}

// The project's own templates: rendered with their sample data when there is one, otherwise
// at least parsed by both engines.
class JinjaProjectTemplates : public ::testing::TestWithParam<ProjectTemplate> {};

void check_project_template(const fs::path& root, const ProjectTemplate& t) {
  jinja::Options o = read_options(t.options);
  ReferenceRequest req{t.name, {root}, t.data, t.options, t.data.empty()};
  ReferenceResult ref = render_with_jinja2(req);
  if (t.data.empty()) {
    EXPECT_TRUE(ref.ok) << "jinja2 cannot parse " << t.name << ": " << ref.error;
    jinja::Environment env(root, o);
    EXPECT_NO_THROW(env.load(t.name));
    return;
  }
  expect_same(render_ours(root, t.name, o, read_json(t.data)), ref);
}

TEST_P(JinjaProjectTemplates, MatchesJinja2) {
  check_project_template(templates_dir(), GetParam());
}

INSTANTIATE_TEST_SUITE_P(Templates, JinjaProjectTemplates,
                         ::testing::ValuesIn(project_templates(templates_dir(),
                                                               template_data_dir())),
                         [](const auto& p) { return test_name(p.param.name); });
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(JinjaProjectTemplates);

// The discovery behind JinjaProjectTemplates, on a tree made here, so that it is tested even
// while templates/ holds no template yet.
TEST(JinjaProjectTemplates, DiscoveryPairsTemplatesWithSampleData) {
  fs::path root = fs::temp_directory_path() / ("tk_jinja_discovery_" + std::to_string(::getpid()));
  fs::remove_all(root);
  auto write = [](const fs::path& p, const std::string& text) {
    fs::create_directories(p.parent_path());
    std::ofstream(p) << text;
  };
  write(root / "templates/tt/reader.cpp.jinja",
        "{% for i in range(n) %}\n  {% include 'tt/common.jinja' %}\n{% endfor %}\n");
  write(root / "templates/tt/common.jinja", "read({{ i }});\n");
  write(root / "templates/cpu/README.md", "not a template");
  write(root / "data/tt/reader.cpp.jinja.json", "{\"n\": 3}");
  write(root / "data/options.json", "{\"trim_blocks\": true}");
  auto found = project_templates(root / "templates", root / "data");
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found[0].name, "tt/common.jinja");
  EXPECT_TRUE(found[0].data.empty());
  EXPECT_EQ(found[1].name, "tt/reader.cpp.jinja");
  EXPECT_EQ(found[1].data, root / "data/tt/reader.cpp.jinja.json");
  EXPECT_EQ(found[1].options, root / "data/options.json");
  EXPECT_TRUE(read_options(found[1].options).trim_blocks);
  // The same check the real templates get: parse-only without data, byte-identical with data.
  for (const auto& t : found)
    check_project_template(root / "templates", t);
  EXPECT_EQ(render_ours(root / "templates", found[1].name, read_options(found[1].options),
                        read_json(found[1].data))
                .output,
            "  read(0);  read(1);  read(2);"); // each file loses its last newline
  fs::remove_all(root);
}

} // namespace
} // namespace tk::test
